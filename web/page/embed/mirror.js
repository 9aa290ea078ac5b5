//! web/page/embed/mirror.js — embed.js, part 4: the text mirror for screen readers.
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
    const range = h.colormap === 'sunset'
      ? 'colour from ' + shortNumber(h.vmin) + ' (blue) through 0 (pale yellow) to ' + shortNumber(h.vmax) + ' (red)'
      : 'colour from ' + shortNumber(h.vmin) + ' (dark purple) to ' + shortNumber(h.vmax) + ' (yellow)';
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

