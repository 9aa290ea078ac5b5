// web/embed.js — Attention Lab on course pages: what the page does around the canvas.
//
// Loaded by index.html; window.attentionLabPage.start(lab) runs once attentionLab.ready
// resolves. Documented for course authors in docs/embed.md.
//   link state   the query string always describes the view (panel + every input that differs
//                from the defaults, as <panel>.<input>=value), written with history.replaceState;
//                a link reproduces the view and its numbers. Short names (sentence, seed, heads,
//                causal, ...) are accepted too. Bad or unknown parameters: a console warning,
//                the default stays. Nothing from the URL is ever inserted as HTML.
//   embed mode   ?embed=1: the panel alone (no navigation), for an iframe.
//   postMessage  a parent page can set inputs and panels and hears about changes.
//   text mirror  a visually hidden copy of the panel (tables with token headers, checks), kept
//                in step with the canvas, for screen readers; its status line is a polite live
//                region (values under the keyboard cell cursor, check results, errors).
//   exports      current heatmap as PNG (screen resolution or 2×) and CSV; all matrices as JSON.
//   input        canvas follows its box (ResizeObserver) and the pixel ratio; wheel steps
//                normalised and handed to the page when the lab cannot scroll; keys stay in the
//                lab and are released when it loses focus; Tab leaves the canvas unless a text
//                field is being edited; clipboard copy and paste; WebGL context loss.
// Everything written into the DOM goes through textContent / DOM APIs.
(function () {
  'use strict';

  const PROTOCOL = 'attention-lab';
  const PROTOCOL_VERSION = 1;
  const MAX_PARAM = 20000;           // characters of one URL parameter
  const MAX_MESSAGE = 1000000;       // characters of one postMessage payload (as JSON)
  const MIRROR_CELLS = 2500;         // larger matrices: the mirror shows their top-left 50×50
  const SYNC_MS = 250;               // at most one link update per this many ms

  // Short parameter names → the inputs they set (several panels share a sentence or seed).
  const ALIASES = {
    sentence: ['heads.sentence', 'permutation.sentence'],
    seed: ['heads.seed', 'permutation.seed'],
    heads: ['heads.heads'],
    d_model: ['heads.d_model', 'permutation.d_model'],
    d_k: ['heads.d_k'],
    causal: ['heads.causal', 'permutation.causal'],
    positions: ['heads.positions', 'permutation.positions'],
    padding: ['heads.valid_length'],
    valid_length: ['heads.valid_length'],
    permutation: ['permutation.permutation'],
    query: ['permutation.query'],
    weights: ['alignment.weights'],
    values: ['alignment.values'],
    row: ['alignment.selected_row'],
  };
  const PAGE_PARAMS = ['panel', 'embed', 'origin'];

  let lab = null;
  let canvas = null;
  let defaults = null;        // linkInputs() before the URL was applied
  let lastLinkText = '';      // JSON of the inputs last written to the URL
  let dirty = true;           // something may have changed since the last sync
  let busyUntil = 0;          // keep syncing until then (input reaches the lab a frame or two later)
  let lastSync = 0;
  let parentOrigin = null;    // from ?origin=, else learned from location.ancestorOrigins
  let embedded = false;

  const warn = function (msg) { console.warn('Attention Lab: ' + msg); };

  // --------------------------------------------------------------------- URL → inputs
  function readParams() {
    const out = [];
    const add = function (text) {
      let params;
      try { params = new URLSearchParams(text); } catch (e) { warn('the address could not be read (' + e.message + ')'); return; }
      params.forEach(function (value, key) { out.push([key, value]); });
    };
    if (location.hash.length > 1 && location.hash.indexOf('=') >= 0) add(location.hash.slice(1));
    add(location.search);
    return out;
  }

  function typeOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    return typeof v;
  }

  function validNested(v, depth) {
    if (typeof v === 'number') return Number.isFinite(v);
    if (typeof v === 'boolean') return true;
    if (Array.isArray(v)) {
      if (depth > 2 || v.length > 4096) return false;
      return v.every(function (x) { return validNested(x, depth + 1); });
    }
    return false;
  }

  // The text of a parameter as the value of an input whose default is `def`; undefined if unusable.
  function parseValue(text, def, name) {
    if (text.length > MAX_PARAM) { warn(name + ' is longer than ' + MAX_PARAM + ' characters; ignored'); return undefined; }
    const t = typeOf(def);
    if (t === 'string') return text;
    if (t === 'boolean') {
      if (/^(1|true|on|yes)$/i.test(text)) return true;
      if (/^(0|false|off|no)$/i.test(text)) return false;
      warn(name + ' must be true or false, got "' + text.slice(0, 40) + '"; ignored');
      return undefined;
    }
    if (t === 'number' || t === 'null') {
      if (t === 'null' && /^(|null|none|off)$/i.test(text)) return null;
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text.trim())) {
        warn(name + ' must be a number, got "' + text.slice(0, 40) + '"; ignored');
        return undefined;
      }
      const n = Number(text);
      if (!Number.isFinite(n)) { warn(name + ' is not a finite number; ignored'); return undefined; }
      return n;
    }
    if (t === 'array') {
      let v;
      try { v = JSON.parse(text); } catch (e) {
        // A permutation may be written "2 0 5 1 4 3" or "2,0,5,1,4,3".
        if (/^[\d\s,()[\]-]+$/.test(text)) v = text.split(/[\s,()[\]]+/).filter(Boolean).map(Number);
      }
      if (!Array.isArray(v) || !validNested(v, 1)) {
        warn(name + ' must be a JSON array of numbers (or booleans), got "' + text.slice(0, 40) + '"; ignored');
        return undefined;
      }
      return v;
    }
    warn(name + ' cannot be set from a link; ignored');
    return undefined;
  }

  // {panel, embed, origin, patches: {panel: {key: value}}} from the address.
  function paramsToPatches(pairs) {
    const out = { panel: null, embed: false, origin: null, patches: {} };
    for (const [key, value] of pairs) {
      if (key === 'panel') { out.panel = value; continue; }
      if (key === 'embed') { out.embed = /^(1|true|yes|on|)$/i.test(value); continue; }
      if (key === 'origin') { out.origin = value; continue; }
      let targets = ALIASES[key];
      if (!targets) {
        const dot = key.indexOf('.');
        if (dot > 0) targets = [key];
      }
      if (!targets) { warn('unknown parameter "' + key.slice(0, 60) + '" ignored'); continue; }
      for (const target of targets) {
        const dot = target.indexOf('.');
        const panel = target.slice(0, dot), input = target.slice(dot + 1);
        const panelDefaults = defaults[panel];
        if (!panelDefaults || typeof panelDefaults !== 'object' || !Object.prototype.hasOwnProperty.call(panelDefaults, input)) {
          warn('unknown parameter "' + key.slice(0, 60) + '" ignored');
          continue;
        }
        const v = parseValue(value, panelDefaults[input], key);
        if (v === undefined) continue;
        (out.patches[panel] = out.patches[panel] || {})[input] = v;
      }
    }
    return out;
  }

  // Apply patches panel by panel; a rejected one is retried input by input so the good ones
  // stay. The panel's error box is cleared afterwards: a bad link falls back to the default.
  function applyPatches(patches) {
    for (const panel of Object.keys(patches)) {
      const patch = {};
      patch[panel] = patches[panel];
      const reply = lab.set(patch);
      if (reply.ok) continue;
      let failed = false;
      for (const input of Object.keys(patches[panel])) {
        const one = {};
        one[panel] = {};
        one[panel][input] = patches[panel][input];
        const r = lab.set(one);
        if (!r.ok) {
          failed = true;
          warn('parameter ' + panel + '.' + input + ' rejected (' + r.error.code + ': ' + r.error.message + '); the default stays');
        }
      }
      if (failed) {
        // Recompute from the inputs now shown: clears the panel's error message.
        const now = lab.linkInputs()[panel];
        if (now) { const again = {}; again[panel] = now; lab.set(again); }
      }
    }
  }

  function applyAddress() {
    const p = paramsToPatches(readParams());
    if (p.origin !== null) {
      try {
        const o = new URL(p.origin);
        if ((o.protocol === 'https:' || o.protocol === 'http:') && o.origin === p.origin.replace(/\/$/, '')) parentOrigin = o.origin;
        else warn('origin must be like https://example.org; ignored');
      } catch (e) { warn('origin must be like https://example.org; ignored'); }
    }
    applyPatches(p.patches);
    if (p.panel !== null) {
      const r = lab.showPanel(p.panel);
      if (!r.ok) warn('unknown panel "' + p.panel.slice(0, 40) + '"; showing ' + lab.linkInputs().panel);
    }
    if (p.embed) setEmbed(true);
  }

  function setEmbed(on) {
    embedded = !!on;
    lab.setEmbed(embedded);
    document.documentElement.classList.toggle('embed', embedded);
  }

  // --------------------------------------------------------------------- inputs → URL
  function encodeValue(v) { return typeof v === 'string' ? v : JSON.stringify(v); }

  function linkQuery(inputs) {
    const q = new URLSearchParams();
    q.set('panel', inputs.panel);
    if (embedded) q.set('embed', '1');
    if (parentOrigin) q.set('origin', parentOrigin);
    for (const panel of Object.keys(inputs)) {
      if (panel === 'panel' || !defaults[panel]) continue;
      const now = inputs[panel], def = defaults[panel];
      for (const key of Object.keys(now)) {
        if (JSON.stringify(now[key]) === JSON.stringify(def[key])) continue;
        q.set(panel + '.' + key, encodeValue(now[key]));
      }
    }
    return q.toString();
  }

  function currentLink(opts) {
    const inputs = lab.linkInputs();
    const url = new URL(location.href);
    url.search = linkQuery(inputs);
    if (opts && opts.full) url.searchParams.delete('embed');
    url.hash = '';
    return url.toString();
  }

  function sync(force) {
    if (!lab) return;
    const now = performance.now();
    if (dirty) { busyUntil = now + 1000; dirty = false; }
    if (!force && (now > busyUntil + SYNC_MS || now - lastSync < SYNC_MS)) return;
    lastSync = now;
    const inputs = lab.linkInputs();
    const text = JSON.stringify(inputs);
    if (text !== lastLinkText) {
      lastLinkText = text;
      writeLink(inputs);
      post({ type: PROTOCOL + ':state', panel: inputs.panel, inputs: inputs, url: currentLink() });
    }
    updateMirror();
  }

  function writeLink(inputs) {
    const query = '?' + linkQuery(inputs);
    if (query === location.search) return;
    try { history.replaceState(history.state, '', query + location.hash); } catch (e) { /* sandboxed: no history */ }
  }

  // --------------------------------------------------------------------- postMessage
  function targetOrigin() {
    if (parentOrigin) return parentOrigin;
    if (location.ancestorOrigins && location.ancestorOrigins.length) return location.ancestorOrigins[0];
    return '*';
  }

  function post(message, origin) {
    if (window.parent === window) return;
    message.version = PROTOCOL_VERSION;
    try { window.parent.postMessage(message, origin || targetOrigin()); } catch (e) { warn('postMessage failed: ' + e.message); }
  }

  function onMessage(e) {
    if (window.parent === window || e.source !== window.parent) return;  // only our embedder
    if (parentOrigin && e.origin !== parentOrigin) return;
    const d = e.data;
    if (!d || typeof d !== 'object' || typeof d.type !== 'string' || d.type.indexOf(PROTOCOL + ':') !== 0) return;
    const id = typeof d.id === 'string' || typeof d.id === 'number' ? d.id : null;
    const reply = function (body) {
      body.type = PROTOCOL + ':reply';
      body.id = id;
      body.request = d.type;
      post(body, e.origin === 'null' ? '*' : e.origin);
    };
    let size = 0;
    try { size = JSON.stringify(d).length; } catch (err) { size = Infinity; }
    if (size > MAX_MESSAGE) return reply({ ok: false, error: { code: 'too_large', message: 'message larger than ' + MAX_MESSAGE + ' characters' } });
    const bad = function (msg) { reply({ ok: false, error: { code: 'invalid_message', message: msg } }); };
    switch (d.type.slice(PROTOCOL.length + 1)) {
      case 'set': {
        if (!d.patch || typeof d.patch !== 'object' || Array.isArray(d.patch)) return bad('set needs {patch: {panel?: name, <panel>: {inputs}}}');
        const r = lab.set(d.patch);
        dirty = true;
        return reply(r);
      }
      case 'show': {
        if (typeof d.panel !== 'string') return bad('show needs {panel: name}');
        const r = lab.showPanel(d.panel);
        dirty = true;
        return reply(r);
      }
      case 'embed': setEmbed(!!d.on); dirty = true; return reply({ ok: true });
      case 'get': return reply({ ok: true, inputs: lab.linkInputs(), url: currentLink() });
      case 'view': return reply({ ok: true, view: lab.view(MIRROR_CELLS) });
      case 'compute': {
        if (!d.case || (typeof d.case !== 'object' && typeof d.case !== 'string')) return bad('compute needs {case: {...}}');
        return reply({ ok: true, result: lab.compute(d.case) });
      }
      default: return bad('unknown message type ' + JSON.stringify(d.type.slice(0, 60)));
    }
  }

  // --------------------------------------------------------------------- text mirror
  let mirror = null, mirrorBody = null, mirrorStatus = null, mirrorNotice = null;
  let lastViewKey = '', lastStatus = '';

  function el(tag, text, attrs) {
    const n = document.createElement(tag);
    if (text !== undefined && text !== null) n.textContent = String(text);
    if (attrs) for (const k of Object.keys(attrs)) n.setAttribute(k, attrs[k]);
    return n;
  }

  function shortNumber(v) {
    if (v === null || v === undefined) return 'not a number';
    if (v === 0) return '0';
    const a = Math.abs(v);
    return a >= 1e-3 && a < 1e6 ? String(Number(v.toPrecision(4))) : v.toExponential(3);
  }

  function checkText(c) {
    return (c.pass ? 'PASS: ' : 'FAIL: ') + c.claim + ' = ' + shortNumber(c.measured) + ' (needs ' +
           (c.expect_at_most ? 'at most ' : 'more than ') + shortNumber(c.limit) + ')';
  }

  function heatmapTable(h) {
    const table = el('table', null, { 'data-heatmap': h.name });
    const range = 'colour from ' + shortNumber(h.vmin) + ' (dark purple) to ' + shortNumber(h.vmax) + ' (yellow)';
    table.append(el('caption', h.name.replace(/_/g, ' ') + ': ' + h.value_name + ', rows are ' + h.row_axis +
                               ' tokens, columns are ' + h.col_axis + ' tokens; ' + h.rows + ' by ' + h.cols + '; ' + range +
                               (h.truncated ? '; the first 50 rows and columns are listed (CSV export has all)' : '')));
    const cols = h.values.length ? h.values[0].length : 0;
    const head = el('tr');
    head.append(el('th', h.row_axis + ' \\ ' + h.col_axis, { scope: 'col' }));
    for (let j = 0; j < cols; ++j) head.append(el('th', h.col_labels[j] !== undefined ? h.col_labels[j] : String(j), { scope: 'col' }));
    if (h.row_sums) head.append(el('th', 'row sum', { scope: 'col' }));
    const thead = el('thead');
    thead.append(head);
    table.append(thead);
    const body = el('tbody');
    h.values.forEach(function (row, i) {
      const tr = el('tr');
      tr.append(el('th', h.row_labels[i] !== undefined ? h.row_labels[i] : String(i), { scope: 'row' }));
      row.forEach(function (v, j) {
        const masked = h.allowed && !h.allowed[i][j];
        const td = el('td', masked ? 'masked' : shortNumber(v));
        td.setAttribute('data-value', v === null ? 'NaN' : String(v));
        if (masked) td.setAttribute('data-masked', 'true');
        if (h.cursor && h.cursor.row === i && h.cursor.col === j) td.setAttribute('aria-current', 'true');
        tr.append(td);
      });
      if (h.row_sums) tr.append(el('td', shortNumber(h.row_sums[i]), { 'data-value': String(h.row_sums[i]) }));
      body.append(tr);
    });
    table.append(body);
    return table;
  }

  function statusText(view) {
    const parts = [view.title + '.'];
    const pass = view.checks.filter(function (c) { return c.pass; }).length;
    if (view.checks.length) parts.push(pass + ' of ' + view.checks.length + ' checks pass.');
    for (const e of view.errors) parts.push('Input rejected (' + e.code + '): ' + e.message);
    for (const h of view.heatmaps) {
      if (h.focused && !h.cursor) parts.push('Heatmap ' + h.name.replace(/_/g, ' ') + ': press Space or Enter to explore its cells with the arrow keys.');
      if (!h.cursor) continue;
      const r = h.row_labels[h.cursor.row], c = h.col_labels[h.cursor.col];
      parts.push(h.row_axis + ' ' + (r !== undefined ? '"' + r + '" ' : '') + 'row ' + h.cursor.row + ', ' + h.col_axis + ' ' +
                 (c !== undefined ? '"' + c + '" ' : '') + 'column ' + h.cursor.col + ': ' +
                 (h.cursor.allowed ? h.value_name + ' ' + shortNumber(h.cursor.value) : 'masked'));
    }
    return parts.join(' ');
  }

  function updateMirror() {
    if (!mirror || !lab) return;
    const view = lab.view(MIRROR_CELLS);
    const key = JSON.stringify([view.panel, view.heatmaps, view.checks, view.errors]);
    if (key !== lastViewKey) {
      lastViewKey = key;
      const frag = document.createDocumentFragment();
      frag.append(el('h2', view.title));
      if (view.errors.length) {
        const box = el('div');
        for (const e of view.errors) box.append(el('p', 'Input rejected (' + e.code + '): ' + e.message + '. The last good result is shown.'));
        frag.append(box);
      }
      for (const h of view.heatmaps) frag.append(heatmapTable(h));
      if (view.checks.length) {
        frag.append(el('h3', 'Checks'));
        const ul = el('ul', null, { 'data-checks': '' });
        for (const c of view.checks) ul.append(el('li', checkText(c)));
        frag.append(ul);
      }
      mirrorBody.replaceChildren(frag);
    }
    const status = statusText(view);
    if (status !== lastStatus) { lastStatus = status; mirrorStatus.textContent = status; }
  }

  // Confirmations of the page tools ("Link copied"), in their own polite live region.
  function say(text) { if (mirrorNotice) mirrorNotice.textContent = text; }

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
    const c = [[0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
               [0.1050930431085774, 1.404613529898575, 1.384590162594685],
               [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
               [-4.634230498983486, -5.799100973351585, -19.33244095627987],
               [6.228269936347081, 14.17993336680509, 56.69055260068105],
               [4.776384997670288, -13.74514537774601, -65.35303263337234],
               [-5.435455855934631, 4.645852612178535, 26.3124352495832]];
    const rgb = [0, 0, 0];
    for (let k = 0; k < 3; ++k) {
      let v = c[6][k];
      for (let i = 5; i >= 0; --i) v = c[i][k] + t * v;
      rgb[k] = Math.round(255 * Math.min(1, Math.max(0, v)));
    }
    return rgb;
  }

  function heatmapPng(h, scale) {
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
          const rgb = viridis(v === null ? 0 : Math.min(1, Math.max(0, (v - h.vmin) / span)));
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
    for (let k = 0; k < lh; ++k) { g.fillStyle = 'rgb(' + viridis(1 - k / (lh - 1)).join(',') + ')'; g.fillRect(lx, gy + k, 12, 1); }
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

  // --------------------------------------------------------------------- input glue
  function installInput() {
    // The canvas follows its box within a frame (an iframe resized by its page, a phone turned),
    // and the pixel ratio (zoom, another screen): SDL re-reads both on a window resize event.
    const refit = function () { window.dispatchEvent(new Event('resize')); dirty = true; };
    if (window.ResizeObserver) {
      // device-pixel-content-box also fires when only the pixel ratio changes (zoom, another
      // screen); browsers without it get the CSS box plus the resolution query below.
      const ro = new ResizeObserver(refit);
      try { ro.observe(canvas, { box: 'device-pixel-content-box' }); } catch (e) { ro.observe(canvas); }
    }
    const watchRatio = function () {
      const mq = matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
      const on = function () { mq.removeEventListener('change', on); refit(); watchRatio(); };
      mq.addEventListener('change', on);
    };
    watchRatio();

    // Wheel: normalised to steps (one notch ≈ 1 whatever the browser reports), given to the lab
    // only when something under the pointer can scroll; otherwise the page scrolls on.
    window.addEventListener('wheel', function (e) {
      if (e.target !== canvas) return;
      e.stopImmediatePropagation();  // SDL's own handler counts only the sign and always blocks
      const unit = e.deltaMode === 1 ? 1 / 3 : e.deltaMode === 2 ? 5 : 1 / 100;
      const clamp = function (v) { return Math.max(-5, Math.min(5, v * unit)); };
      if (Module._attn_app_wheel(clamp(e.deltaX), clamp(e.deltaY))) e.preventDefault();
      dirty = true;
    }, { capture: true, passive: false });

    // Keys: Tab leaves the canvas (no keyboard trap) unless a text field is being edited;
    // Ctrl/Cmd+V reaches the browser so that a paste event brings the system clipboard.
    // Until the pasted text has arrived (a paste event, or the async clipboard after a short
    // wait), later keys are held back and replayed in order: Ctrl+V then Enter commits the
    // pasted text, not the old one.
    let pasteTimer = 0, holdTimer = 0, pastePending = false;
    const heldKeys = [];
    // The lab queues a paste behind the keys it already has, so held keys can follow at once.
    const endPaste = function () {
      if (!pastePending) return;
      pastePending = false;
      clearTimeout(pasteTimer);
      clearTimeout(holdTimer);
      for (const k of heldKeys.splice(0)) canvas.dispatchEvent(new KeyboardEvent(k.type, k.init));
    };
    const holdKey = function (e) {
      if (!pastePending || e.target !== canvas || !e.isTrusted) return false;
      e.stopImmediatePropagation();
      e.preventDefault();
      heldKeys.push({ type: e.type, init: { key: e.key, code: e.code, keyCode: e.keyCode, which: e.which, charCode: e.charCode,
        location: e.location, repeat: e.repeat, ctrlKey: e.ctrlKey, shiftKey: e.shiftKey, altKey: e.altKey, metaKey: e.metaKey,
        bubbles: true, cancelable: true } });
      return true;
    };
    window.addEventListener('keydown', function (e) {
      if (e.target !== canvas) return;
      dirty = true;
      if (holdKey(e)) return;
      if (e.key === 'Tab' && !e.ctrlKey && !e.altKey && !e.metaKey && !lab.inputState().want_text) {
        e.stopImmediatePropagation();
        return;
      }
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === 'v' || e.key === 'V')) {
        e.stopImmediatePropagation();
        pastePending = true;
        clearTimeout(pasteTimer);
        // Browsers without a paste event on a canvas: ask the async clipboard (permission).
        pasteTimer = setTimeout(function () {
          if (navigator.clipboard && navigator.clipboard.readText)
            navigator.clipboard.readText().then(paste, function () { warn('paste: the browser gave no clipboard text'); })
              .then(endPaste);
          else endPaste();
        }, 120);
        // Never hold keys for long, whatever the clipboard does.
        clearTimeout(holdTimer);
        holdTimer = setTimeout(endPaste, 3000);
      }
    }, true);
    for (const type of ['keyup', 'keypress']) window.addEventListener(type, holdKey, true);
    // inputState().pending_input also counts the keys held for a paste (and the paste itself).
    const inputState = lab.inputState;
    lab.inputState = function () {
      const st = inputState.apply(lab, arguments);
      if (st && typeof st === 'object') st.pending_input = (st.pending_input || 0) + heldKeys.length + (pastePending ? 1 : 0);
      return st;
    };
    const paste = function (text) {
      if (typeof text !== 'string' || !text.length) return;
      const n = Module.lengthBytesUTF8(text) + 1, p = Module._malloc(n);
      Module.stringToUTF8(text, p, n);
      Module._attn_app_paste(p);
      Module._free(p);
    };
    window.addEventListener('paste', function (e) {
      if (document.activeElement !== canvas) return;
      clearTimeout(pasteTimer);
      e.preventDefault();
      paste(e.clipboardData ? e.clipboardData.getData('text/plain') : '');
      endPaste();
    }, true);
    // Keys typed in the lab do not bubble to the host page's own shortcuts.
    for (const type of ['keydown', 'keyup', 'keypress']) canvas.addEventListener(type, function (e) { e.stopPropagation(); });
    // Losing focus releases every key and button (their key-up / mouse-up go elsewhere).
    canvas.addEventListener('blur', function () {
      heldKeys.length = 0;  // their key-ups went elsewhere too
      Module._attn_app_release_input();
      document.dispatchEvent(new MouseEvent('mouseup', { button: 0 }));
    });
    // Touch: focus the canvas (SDL forwards the pointer only to a focused window).
    canvas.addEventListener('touchstart', function () { if (document.activeElement !== canvas) canvas.focus({ preventScroll: true }); },
                            { capture: true, passive: true });
    for (const type of ['pointerdown', 'pointerup', 'touchend', 'keyup']) canvas.addEventListener(type, function () { dirty = true; });
    document.addEventListener('visibilitychange', function () { dirty = true; });
  }

  // --------------------------------------------------------------------- WebGL context loss
  function installContextLoss() {
    const banner = document.getElementById('gl-lost');
    let timer = 0;
    const show = function (text, reload) {
      if (!banner) return;
      banner.replaceChildren(el('span', text));
      if (reload) {
        const b = el('button', 'Reload the page', { type: 'button' });
        b.addEventListener('click', function () { location.reload(); });
        banner.append(' ', b);
      }
      banner.hidden = false;
    };
    canvas.addEventListener('webglcontextlost', function (e) {
      e.preventDefault();  // tells the browser we will rebuild: it may restore the context
      Module._attn_app_context_lost();
      show('The browser reset the graphics (WebGL context lost). Waiting for them to come back\u2026', true);
      clearTimeout(timer);
      timer = setTimeout(function () {
        show('The graphics did not come back. Reload the page to continue; your inputs are in the address.', true);
      }, 5000);
    });
    canvas.addEventListener('webglcontextrestored', function () {
      clearTimeout(timer);
      Module._attn_app_context_restored();
      if (banner) banner.hidden = true;
      say('Graphics restored.');
    });
  }

  // --------------------------------------------------------------------- start
  function start(api) {
    lab = api;
    canvas = document.getElementById('canvas');
    mirror = document.getElementById('mirror');
    mirrorBody = document.getElementById('mirror-body');
    mirrorStatus = document.getElementById('mirror-status');
    mirrorNotice = document.getElementById('mirror-notice');
    defaults = lab.linkInputs();
    // Called from inside a frame (an ImGui button): act once the frame is done, so the action
    // sees the whole frame's record and never re-enters the wasm mid-frame. (Clipboard and
    // downloads keep the click's user activation across the hop.)
    Module.attnPageAction = function (name) { setTimeout(function () { pageAction(name); }, 0); };
    Module.attnSetClipboard = function (text) { writeClipboard(text).catch(function () { warn('copy: the browser refused the clipboard'); }); };
    installInput();
    installContextLoss();
    try { applyAddress(); } catch (e) { warn('the address could not be applied: ' + e.message); }
    window.addEventListener('message', onMessage);
    window.addEventListener('popstate', function () { applyAddress(); dirty = true; });
    // After each presented frame: keep the link, the parent and the mirror in step.
    const presented = Module.attnFramePresented;
    Module.attnFramePresented = function (n) { presented(n); queueMicrotask(function () { sync(false); }); };
    for (const name of ['set', 'showPanel', 'setSentence', 'setSeed', 'setHeads', 'setCausal', 'setPositions', 'setPermutation']) {
      const f = lab[name];
      lab[name] = function () { dirty = true; return f.apply(lab, arguments); };
    }
    return lab.nextFrame().then(function () {
      const inputs = lab.linkInputs();
      lastLinkText = JSON.stringify(inputs);
      writeLink(inputs);
      post({ type: PROTOCOL + ':ready', panel: inputs.panel, inputs: inputs, url: currentLink() });
      dirty = false;
      lastSync = performance.now();
      updateMirror();
      return lab;
    });
  }

  window.attentionLabPage = {
    start: start,
    link: function () { return currentLink(); },
    sync: function () { dirty = true; sync(true); },
    exportText: function (kind) {  // for tests: the CSV / JSON text an export would download
      const v = lab.view(0);
      return kind === 'json' ? JSON.stringify(v) : heatmapCsv(activeHeatmap(v));
    },
    pageAction: pageAction,
  };
})();
