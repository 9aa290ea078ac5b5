//! web/page/embed/export.js — embed.js, part 5: PNG/CSV/JSON exports, clipboard, toast. The
//! viridis coefficients and sunset stops are written by the build from shaders/heatmap.frag (the one source).
  // --------------------------------------------------------------------- exports
  function safeName(s) { return String(s).replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'heatmap'; }

  function download(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.rel = 'noopener';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 10000);
  }

  function activeHeatmap(view) {
    return view.heatmaps.find(function (h) { return h.name === view.active; }) || view.heatmaps[0] || null;
  }

  // A spreadsheet must not read a token as a formula (=, +, -, @ at the start).
  function csvField(s) {
    s = String(s);
    if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  // Rows of the matrix; numbers in the shortest form that reads back to the same double.
  function heatmapCsv(h) {
    const lines = [];
    const cols = h.cols;
    const head = [csvField(h.row_axis + '\\' + h.col_axis)];
    for (let j = 0; j < cols; ++j) head.push(csvField(h.col_labels[j] !== undefined ? h.col_labels[j] : j));
    lines.push(head.join(','));
    h.values.forEach(function (row, i) {
      const cells = [csvField(h.row_labels[i] !== undefined ? h.row_labels[i] : i)];
      for (const v of row) cells.push(v === null ? 'NaN' : String(v));
      lines.push(cells.join(','));
    });
    return lines.join('\r\n') + '\r\n';
  }

  // Viridis, the polynomial of shaders/heatmap.frag (same colours as on screen).
  function viridis(t) {
    const c = @VIRIDIS_COEFFICIENTS@;
    const rgb = [0, 0, 0];
    for (let k = 0; k < 3; ++k) {
      let v = c[6][k];
      for (let i = 5; i >= 0; --i) v = c[i][k] + t * v;
      rgb[k] = Math.round(255 * Math.min(1, Math.max(0, v)));
    }
    return rgb;
  }

  // Paul Tol's sunset, the stops of shaders/heatmap.frag, linearly interpolated as there.
  function sunset(t) {
    const s = @SUNSET_STOPS@;
    const x = Math.min(1, Math.max(0, t)) * 10, k = Math.min(9, Math.floor(x)), f = x - k;
    return [0, 1, 2].map(function (c) { return Math.round(s[k][c] + (s[k + 1][c] - s[k][c]) * f); });
  }

  function heatmapPng(h, scale) {
    const colour = h.colormap === 'sunset' ? sunset : viridis;
    const font = '"DejaVu Sans", system-ui, sans-serif';
    const onScreen = h.cols ? (h.rect[2] - h.rect[0]) / h.cols : 24;
    const cell = Math.max(14, Math.min(64, Math.round(onScreen)));
    const measure = document.createElement('canvas').getContext('2d');
    measure.font = '13px ' + font;
    const w = function (s) { return measure.measureText(String(s)).width; };
    const rowLab = h.row_labels.length ? Math.min(160, Math.max.apply(null, h.row_labels.map(w))) + 8 : 0;
    const colLab = h.col_labels.length ? Math.min(160, Math.max.apply(null, h.col_labels.map(w))) + 8 : 0;
    const rows = h.values.length, cols = rows ? h.values[0].length : 0;
    const pad = 12, title = 22, legendW = 70;
    const gx = pad + rowLab, gy = pad + title + colLab;
    const W = Math.ceil(gx + cols * cell + 16 + legendW + pad), H = Math.ceil(gy + Math.max(rows * cell, 120) + pad);
    const c = document.createElement('canvas');
    c.width = Math.ceil(W * scale);
    c.height = Math.ceil(H * scale);
    const g = c.getContext('2d');
    g.scale(scale, scale);
    g.fillStyle = '#f8f7f3';
    g.fillRect(0, 0, W, H);
    g.fillStyle = '#1f2328';
    g.font = 'bold 14px ' + font;
    g.textBaseline = 'top';
    g.fillText(h.name.replace(/_/g, ' ') + ' (' + h.value_name + '; rows: ' + h.row_axis + ', columns: ' + h.col_axis + ')', pad, pad);
    const span = h.vmax - h.vmin || 1;
    for (let i = 0; i < rows; ++i)
      for (let j = 0; j < cols; ++j) {
        const x = gx + j * cell, y = gy + i * cell;
        if (h.allowed && !h.allowed[i][j]) {
          g.fillStyle = '#dbdbdb';
          g.fillRect(x, y, cell, cell);
          g.save();
          g.beginPath(); g.rect(x, y, cell, cell); g.clip();
          g.strokeStyle = '#949494'; g.lineWidth = 2.5;
          for (let k = -cell; k < cell; k += 7) { g.beginPath(); g.moveTo(x + k, y + cell); g.lineTo(x + k + cell, y); g.stroke(); }
          g.restore();
        } else {
          const v = h.values[i][j];
          const rgb = colour(v === null ? 0 : Math.min(1, Math.max(0, (v - h.vmin) / span)));
          g.fillStyle = 'rgb(' + rgb.join(',') + ')';
          g.fillRect(x, y, cell, cell);
        }
      }
    if (cell >= 6) {  // separators in the page colour, as on screen
      g.strokeStyle = '#f8f7f3'; g.lineWidth = 1;
      for (let j = 1; j < cols; ++j) { g.beginPath(); g.moveTo(gx + j * cell + 0.5, gy); g.lineTo(gx + j * cell + 0.5, gy + rows * cell); g.stroke(); }
      for (let i = 1; i < rows; ++i) { g.beginPath(); g.moveTo(gx, gy + i * cell + 0.5); g.lineTo(gx + cols * cell, gy + i * cell + 0.5); g.stroke(); }
    }
    g.fillStyle = '#1f2328';
    g.font = '13px ' + font;
    g.textBaseline = 'middle';
    g.textAlign = 'right';
    h.row_labels.slice(0, rows).forEach(function (s, i) { g.fillText(s, gx - 6, gy + (i + 0.5) * cell, rowLab - 6); });
    g.textAlign = 'left';
    h.col_labels.slice(0, cols).forEach(function (s, j) {
      g.save(); g.translate(gx + (j + 0.5) * cell, gy - 6); g.rotate(-Math.PI / 2); g.fillText(s, 0, 0, colLab - 6); g.restore();
    });
    // Legend: the colour bar with its numeric range.
    const lx = gx + cols * cell + 16, lh = Math.max(rows * cell, 120);
    for (let k = 0; k < lh; ++k) { g.fillStyle = 'rgb(' + colour(1 - k / (lh - 1)).join(',') + ')'; g.fillRect(lx, gy + k, 12, 1); }
    g.strokeStyle = '#969696'; g.strokeRect(lx - 0.5, gy - 0.5, 13, lh + 1);
    g.fillStyle = '#1f2328';
    g.textBaseline = 'top'; g.fillText(shortNumber(h.vmax), lx + 18, gy);
    g.textBaseline = 'middle'; g.fillText(shortNumber((h.vmin + h.vmax) / 2), lx + 18, gy + lh / 2);
    g.textBaseline = 'bottom'; g.fillText(shortNumber(h.vmin), lx + 18, gy + lh);
    return new Promise(function (resolve) { c.toBlob(resolve, 'image/png'); });
  }

  function exportAction(kind) {
    const full = lab.view(0);
    const h = activeHeatmap(full);
    const base = 'attention-lab-' + safeName(full.panel);
    if (kind === 'json') {
      const body = { attention_lab: PROTOCOL_VERSION, panel: full.panel, title: full.title, url: currentLink(),
                     inputs: lab.linkInputs(), heatmaps: full.heatmaps.map(function (x) {
                       const o = Object.assign({}, x); delete o.rect; delete o.cursor; delete o.focused; delete o.truncated; return o; }),
                     checks: full.checks, errors: full.errors };
      download(new Blob([JSON.stringify(body, null, 1)], { type: 'application/json' }), base + '.json');
      return say('Downloaded the matrices of this panel as JSON.');
    }
    if (!h) return say('This panel has no heatmap to export.');
    if (kind === 'csv') {
      download(new Blob([heatmapCsv(h)], { type: 'text/csv' }), base + '-' + safeName(h.name) + '.csv');
      return say('Downloaded ' + h.name + ' as CSV.');
    }
    const scale = (kind === 'png2' ? 2 : 1) * Math.max(1, window.devicePixelRatio || 1);
    return heatmapPng(h, scale).then(function (blob) {
      download(blob, base + '-' + safeName(h.name) + (kind === 'png2' ? '@2x' : '') + '.png');
      say('Downloaded ' + h.name + ' as PNG.');
    });
  }

  // --------------------------------------------------------------------- clipboard
  function writeClipboard(text) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return legacyCopy(text);
  }
  function legacyCopy(text) {
    return new Promise(function (resolve, reject) {
      const ta = document.createElement('textarea');
      ta.value = text;
      ta.setAttribute('readonly', '');
      ta.style.position = 'fixed'; ta.style.opacity = '0';
      document.body.append(ta);
      ta.select();
      const ok = document.execCommand && document.execCommand('copy');
      ta.remove();
      if (canvas) canvas.focus({ preventScroll: true });
      ok ? resolve() : reject(new Error('the browser refused to copy'));
    });
  }

  function pageAction(name) {
    dirty = true;
    sync(true);
    if (name === 'copy_link') {
      const url = currentLink();
      writeClipboard(url).then(function () { toast('Link copied'); say('Link to this view copied.'); },
                               function () { toast('Copy failed: the link is in the address bar'); say('Copying failed.'); });
    } else if (name === 'open_full') {
      window.open(currentLink({ full: true }), '_blank', 'noopener');
    } else if (name.indexOf('load_model:') === 0 || name.indexOf('export_model:') === 0) {
      modelAction(name);
    } else if (name === 'png' || name === 'png2' || name === 'csv' || name === 'json') {
      Promise.resolve(exportAction(name)).catch(function (e) { warn('export failed: ' + e.message); });
    }
  }

  function toast(text) {
    const n = Module.lengthBytesUTF8(text) + 1, p = Module._malloc(n);
    Module.stringToUTF8(text, p, n);
    Module._attn_app_toast(p);
    Module._free(p);
  }

