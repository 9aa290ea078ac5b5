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
    if (view.busy) parts.push('Working (training or measuring): the tables follow when it stops.');
    const pass = view.checks.filter(function (c) { return c.pass; }).length;
    if (view.checks.length) parts.push(pass + ' of ' + view.checks.length + ' checks pass.');
    for (const e of view.errors) parts.push('Input rejected (' + e.code + '): ' + e.message);
    if (view.control) parts.push('Keyboard on: ' + view.control + '.');
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

  // A panel's tables can hold tens of thousands of cells (Learned heads: 16 maps of 32 × 32).
  // Built and laid out at once they cost Chromium a frame of 250–500 ms while a panel trained. So
  // the body is updated in place: a table whose content did not change stays as it is (no new
  // layout; where it sits on screen and the hover are not its content), and changed tables are
  // replaced a few per animation frame (MIRROR_SLICE_MS of building, at least one), each laid out
  // on its own (index.html contains them). While the panel is busy (a run training, measuring)
  // its tables wait for it to stop: the status line says so, the heading, checks and the cell
  // under the keyboard cursor stay in step, and tables of another panel are dropped. While the
  // panel works (busy, or a study whose figures come by themselves) sync() keeps asking: between
  // inputs an outline of the view (no values) says cheaply whether the work goes on, so the end
  // reaches the mirror with or without an event; every sync asks the outline first, and a busy
  // panel's whole view is never built. The headings, errors, checks and the status line (the cell
  // under the keyboard cursor: the outline carries it) are written at once; a forced sync
  // (attentionLabPage.sync) does everything.
  const MIRROR_SLICE_MS = 4;
  let mirrorHead = null, mirrorTablesBox = null, mirrorChecks = null;
  const tableKeys = new WeakMap();  // a table shown → the JSON of its heatmap
  let mirrorPending = null;         // {view, keys, next}: tables still to bring in step, or null
  let mirrorWatching = false;       // the panel worked at the last update: sync() keeps asking
  let mirrorFrameAsked = false;     // one animation frame at a time builds tables
  let lastHeadKey = '';
  let tablesPanel = '';             // the panel whose tables the mirror holds or builds

  function updateMirror(force) {
    if (!mirror || !lab) return;
    if (!force) {
      // The outline first: a run's first second is full of syncs (the Train press is an input), and
      // the whole view of a trained panel (thousands of cells as JSON) costs a frame its budget.
      const outline = lab.view(-1);
      if (outline.busy) {
        mirrorWatching = true;
        return writeWaiting(outline);
      }
      if (mirrorWatching && performance.now() > busyUntil && outline.working) return;  // a study: its figures come when it ends
    }
    const view = lab.view(MIRROR_CELLS);
    mirrorWatching = view.working;
    // Tables that change every frame are no use to a reader: they wait for the run to stop.
    if (view.busy && !force) return writeWaiting(view);
    const keys = view.heatmaps.map(tableKey);
    const key = headKey(view) + '\n' + keys.join('\n');
    if (key !== lastViewKey) {
      lastViewKey = key;
      writeMirrorText(view);
      mirrorPending = { view: view, keys: keys, next: 0 };  // a newer view replaces one under way
      tablesPanel = view.panel;
      if (!force) askMirrorFrame();
    }
    if (force && mirrorPending) mirrorTables(Infinity);
    writeStatus(view);
  }

  // While the panel is busy: the heading and checks follow it (another panel, a new title), its
  // tables stay as they were, and another panel's go.
  function writeWaiting(view) {
    // Tables still being written are of the view the run replaces: stop (their slices would share
    // the run's first frames), drop the ones written (a reader would get two views' tables mixed),
    // and write them afresh when it stops.
    if (mirrorPending) {
      mirrorPending = null;
      lastViewKey = '';
      mirrorTablesBox.replaceChildren();
    }
    if (headKey(view) !== lastHeadKey) {
      lastViewKey = '';  // the heading no longer matches the tables' view: rewrite both after
      writeMirrorText(view);
    }
    if (view.panel !== tablesPanel) {
      mirrorPending = null;
      mirrorTablesBox.replaceChildren();
      tablesPanel = view.panel;
    }
    writeStatus(view);
  }

  function headKey(view) { return JSON.stringify([view.panel, view.title, view.checks, view.errors]); }

  function writeStatus(view) {
    const status = statusText(view);
    if (status !== lastStatus) { lastStatus = status; mirrorStatus.textContent = status; }
  }

  function askMirrorFrame() {
    if (mirrorFrameAsked) return;
    mirrorFrameAsked = true;
    requestAnimationFrame(function () { mirrorFrameAsked = false; mirrorTables(MIRROR_SLICE_MS); });
  }

  // What a heatmap's table shows (heatmapTable), as text: equal keys, equal tables.
  function tableKey(h) {
    return JSON.stringify([h.name, h.value_name, h.row_axis, h.col_axis, h.rows, h.cols, h.truncated, h.colormap,
                           h.vmin, h.vmax, h.row_labels, h.col_labels, h.values, h.allowed, h.row_sums, h.cursor]);
  }

  // The title, errors and checks: few nodes, written whole.
  function writeMirrorText(view) {
    lastHeadKey = headKey(view);
    if (!mirrorHead) {
      mirrorHead = el('div');
      mirrorTablesBox = el('div');
      mirrorChecks = el('div');
      mirrorBody.replaceChildren(mirrorHead, mirrorTablesBox, mirrorChecks);
    }
    const head = [el('h2', view.title)];
    if (view.errors.length) {
      const box = el('div');
      for (const e of view.errors) box.append(el('p', 'Input rejected (' + e.code + '): ' + e.message + '. The last good result is shown.'));
      head.push(box);
    }
    mirrorHead.replaceChildren.apply(mirrorHead, head);
    if (view.checks.length) {
      const ul = el('ul', null, { 'data-checks': '' });
      for (const c of view.checks) ul.append(el('li', checkText(c)));
      mirrorChecks.replaceChildren(el('h3', 'Checks'), ul);
    } else {
      mirrorChecks.replaceChildren();
    }
  }

  // Bring the tables in step with the pending view for `budgetMs` (at least one replaced), then
  // ask the next animation frame for the rest.
  function mirrorTables(budgetMs) {
    const p = mirrorPending;
    if (!p) return;
    const t0 = performance.now();
    const box = mirrorTablesBox;
    while (p.next < p.keys.length) {
      const i = p.next++;
      const old = box.children[i];
      if (old && tableKeys.get(old) === p.keys[i]) continue;
      const table = heatmapTable(p.view.heatmaps[i]);
      tableKeys.set(table, p.keys[i]);
      if (old) old.replaceWith(table); else box.append(table);
      if (performance.now() - t0 >= budgetMs) break;
    }
    if (p.next < p.keys.length) {
      askMirrorFrame();
      return;
    }
    while (box.children.length > p.keys.length) box.lastElementChild.remove();
    mirrorPending = null;
  }

  // Confirmations of the page tools ("Link copied"), in their own polite live region.
  function say(text) { if (mirrorNotice) mirrorNotice.textContent = text; }

