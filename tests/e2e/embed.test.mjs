// Course-page tests of the built site (embedding in course pages), in headless Chromium: embed mode in an iframe
// on a host page, links that reproduce a view, postMessage, HiDPI and resizing, touch,
// keyboard focus in and out of the iframe, the heatmap cell cursor, clipboard, PNG/CSV/JSON
// export, the DOM text mirror, the script API and hosting under a sub-path.
// Run: node --test tests/e2e/embed.test.mjs (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { frames, launchChromium, pngStats, repoRoot, siteDir } from './lib.mjs';
import {
  centre, clickLabel, comparableState, locate, diffPaths, near, parseCsv, pngPixels, serveSite, state, until, view, viridis, watch,
} from './embed_lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const shot = (name) => path.join(artifacts, `embed-${name}.png`);

// The site is served under a sub-path, as a course would host it; test pages sit at the root.
const PREFIX = '/courses/attention-lab/';
const hostPage = (src, { width = 720, height = 560 } = {}) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>host</title></head>
<body style="margin:0;font:16px sans-serif">
<p><input id="before" aria-label="before"></p>
<div style="height:160px">Some course text above the lab.</div>
<iframe id="lab" title="Attention Lab" src="${src}" width="${width}" height="${height}"
        style="border:0;display:block" allow="clipboard-read; clipboard-write"></iframe>
<p><input id="after" aria-label="after"></p>
<div style="height:3000px">Course text below.</div>
<script>
  window.hostKeys = 0;
  document.addEventListener('keydown', function () { window.hostKeys++; });
  window.messages = [];
  window.addEventListener('message', function (e) { window.messages.push(e.data); });
</script>
</body></html>`;

let server, browser;
before(async () => {
  server = await serveSite(siteDir(), PREFIX, {
    '/host.html': hostPage(`${PREFIX}index.html?panel=heads&embed=1&sentence=a%20b%20c`),
    '/host-alignment.html': hostPage(`${PREFIX}?panel=alignment&embed=1`, { width: 980, height: 1500 }),
    '/host-long.html': hostPage(`${PREFIX}?panel=permutation&embed=1`, { width: 720, height: 420 }),
    '/compute.html': `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body>
      <script src="${PREFIX}attention-lab-compute.js"></script></body></html>`,
  });
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

const labUrl = (query = '') => server.url(PREFIX + query);

async function openPage(url, opts = {}) {
  const context = await browser.newContext({ viewport: { width: opts.width || 1280, height: opts.height || 800 },
                                             deviceScaleFactor: opts.dpr || 1, hasTouch: !!opts.touch,
                                             acceptDownloads: true });
  if (opts.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  const page = await context.newPage();
  const log = watch(page);
  await page.goto(url, { waitUntil: 'load' });
  return { context, page, log };
}

async function openLabPage(query, opts) {
  const o = await openPage(labUrl(query), opts);
  await o.page.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  await frames(o.page, 3);
  return o;
}

async function labFrame(page) {
  const frame = page.frames().find((f) => f.url().includes(PREFIX));
  assert.ok(frame, 'the lab iframe is there');
  await frame.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  await frames(frame, 3);
  return frame;
}

test('embed mode in an iframe: the panel alone, filling the frame, from a sub-path', async () => {
  const { context, page, log } = await openPage(server.url('/host.html'), { width: 1000, height: 800 });
  const frame = await labFrame(page);
  const s = await state(frame);
  assert.equal(s.panel, 'heads');
  assert.deepEqual(s.heads.result.tokens, ['a', 'b', 'c']);
  // No navigation: neither the sidebar entries nor the top tabs are drawn.
  const items = await frame.evaluate(() => window.attentionLab.locate());
  const nav = items.filter((it) => it.full === '##nav' || /^\d+ {2}/.test(it.label));
  assert.deepEqual(nav, [], 'no navigation items in embed mode');
  assert.ok(items.some((it) => it.label === 'Open the full lab'), 'embed mode offers the full lab');
  // The canvas fills the iframe, sharp (buffer = CSS size at ratio 1).
  const size = await frame.evaluate(() => {
    const c = document.getElementById('canvas');
    return { css: [c.clientWidth, c.clientHeight], buffer: [c.width, c.height], win: [innerWidth, innerHeight] };
  });
  assert.deepEqual(size.css, [720, 560]);
  assert.deepEqual(size.win, [720, 560]);
  assert.deepEqual(size.buffer, [720, 560]);
  await page.screenshot({ path: shot('iframe-heads') });
  // Nothing the lab does moved or resized the host page.
  assert.equal(await page.evaluate(() => scrollY), 0);
  assert.deepEqual(log.errors, [], 'no errors on the host page');
  await context.close();
});

test('wheel: the lab scrolls what it can, then the course page scrolls on; outside, the page scrolls', async () => {
  const { context, page, log } = await openPage(server.url('/host-long.html'), { width: 1000, height: 700 });
  const frame = await labFrame(page);
  const box = await page.locator('#lab').boundingBox();
  await page.mouse.move(box.x + 400, box.y + 300);
  await frames(frame, 3);
  await page.mouse.wheel(0, 100);
  await frames(frame, 3);
  assert.equal(await page.evaluate(() => scrollY), 0, 'the first notch scrolls the lab, not the page');
  // Keep turning: once the panel's end is reached, the page scrolls.
  let y = 0;
  for (let i = 0; i < 60 && y === 0; ++i) {
    await page.mouse.wheel(0, 100);
    await frames(frame, 1);
    y = await page.evaluate(() => scrollY);
  }
  assert.ok(y > 0, 'after the lab reached its end the host page scrolled');
  await page.evaluate(() => scrollTo(0, 0));
  await page.mouse.move(900, 40);  // beside the iframe
  await page.mouse.wheel(0, 100);
  await page.waitForFunction(() => scrollY > 0);
  // A panel that fits its frame takes no wheel at all.
  const fit = await openPage(server.url('/host-alignment.html'), { width: 1000, height: 1200 });
  const f2 = await labFrame(fit.page);
  const b2 = await fit.page.locator('#lab').boundingBox();
  await fit.page.mouse.move(b2.x + 600, b2.y + 150);
  await frames(f2, 3);
  const scrollable = await f2.evaluate(() => window.attentionLab.inputState());
  assert.equal(scrollable.mouse !== null, true);
  await fit.page.mouse.wheel(0, 100);
  await fit.page.waitForFunction(() => scrollY > 0, null, { timeout: 5000 });
  assert.deepEqual(log.errors, []);
  await fit.context.close();
  await context.close();
});

test('wheel deltas are normalised: a notch in pixels, lines or pages scrolls by steps, not by sign', async () => {
  const { context, page, log } = await openLabPage('?panel=permutation', { width: 1000, height: 600 });
  await page.mouse.move(600, 400);
  await frames(page, 3);
  const wheel = async (deltaY, deltaMode) => {
    const before = (await page.evaluate(() => window.attentionLab.inputState())).scroll;
    await page.evaluate(([dy, mode]) => document.getElementById('canvas').dispatchEvent(
      new WheelEvent('wheel', { deltaY: dy, deltaMode: mode, clientX: 600, clientY: 400, bubbles: true, cancelable: true })), [deltaY, deltaMode]);
    await frames(page, 3);
    const after = (await page.evaluate(() => window.attentionLab.inputState())).scroll;
    return after[0] - before[0];
  };
  const pixels = await wheel(100, 0);   // Chrome, Edge: 100 px per notch
  const lines = await wheel(3, 1);      // Firefox: 3 lines per notch
  const half = await wheel(50, 0);      // a trackpad's smaller steps scroll less
  const page1 = await wheel(1, 2);      // one page = 5 steps
  assert.ok(pixels > 0, `a notch scrolls: ${pixels}`);
  assert.ok(Math.abs(lines - pixels) < 1, `3 lines = 100 px: ${lines} vs ${pixels}`);
  assert.ok(Math.abs(half - pixels / 2) < 1, `50 px = half a notch: ${half}`);
  assert.ok(page1 > 3 * pixels, `a page scrolls several notches: ${page1}`);
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('keyboard: focus enters and leaves the iframe by Tab; keys stay inside; blur releases them', async () => {
  const { context, page } = await openPage(server.url('/host.html'), { width: 1000, height: 800 });
  const frame = await labFrame(page);
  await page.focus('#before');
  await page.keyboard.press('Tab');
  await until(frame, () => document.activeElement && document.activeElement.id === 'canvas');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'lab');
  await frames(frame, 2);
  assert.equal((await view(frame, -1)).control, '\u22EF', 'Tab into the frame shows the cursor on its first control');
  // Keys pressed in the lab do not reach the host page (no host listener, no scrolling). (Not
  // Space: it would activate the control under the cursor, a text field perhaps, whose editing
  // keeps Tab inside for moving between fields.)
  await page.evaluate(() => { window.hostKeys = 0; });
  for (const k of ['ArrowDown', 'ArrowDown', 'PageDown', 'x']) await page.keyboard.press(k);
  await frames(frame, 2);
  assert.equal(await page.evaluate(() => window.hostKeys), 0, 'no key reached the host page');
  assert.equal(await page.evaluate(() => scrollY), 0, 'the host page did not scroll');
  const before = comparableState(await state(frame));
  // Tab goes from control to control, then leaves the canvas (no keyboard trap) to the next
  // field of the host page.
  let presses = 0;
  while (presses < 300 && (await page.evaluate(() => document.activeElement && document.activeElement.id)) !== 'after') {
    await page.keyboard.press('Tab');
    ++presses;
  }
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'after');
  assert.ok(presses > 3, `Tab went through the lab's controls first (${presses} presses)`);
  // Typing in the host page does not reach the lab.
  await page.keyboard.type('hello world');
  await frames(frame, 2);
  assert.equal(await page.inputValue('#after'), 'hello world');
  assert.deepEqual(comparableState(await state(frame)).heads, before.heads, 'the lab did not see the typing');
  // A key held in the lab is released when the focus goes elsewhere.
  await page.locator('#lab').click({ position: { x: 600, y: 20 } });
  await until(frame, () => document.activeElement.id === 'canvas');
  await page.keyboard.down('Shift');
  await page.keyboard.down('KeyQ');
  await frames(frame, 2);
  let input = await frame.evaluate(() => window.attentionLab.inputState());
  assert.equal(input.shift, true, 'shift is seen while held');
  assert.ok(input.keys_down >= 1);
  await page.click('#before');
  await frames(frame, 3);
  input = await frame.evaluate(() => window.attentionLab.inputState());
  assert.equal(input.shift, false, 'shift released on blur');
  assert.equal(input.keys_down, 0, 'all keys released on blur');
  await page.keyboard.up('KeyQ');
  await page.keyboard.up('Shift');
  await context.close();
});

test('heatmap cells are reachable by keyboard: a cell cursor moves with the arrows and shows the value', async () => {
  const { context, page, log } = await openLabPage('?panel=alignment');
  const s = await state(page);
  let v = await view(page);
  const h = v.heatmaps.find((x) => x.name === 'alignment_weights');
  const [x0, y0, x1, y1] = h.rect;
  const cell = (x1 - x0) / 3;
  await page.mouse.click(x0 + cell / 2, y0 + cell / 2);  // cell (0, 0): cell mode
  await frames(page, 3);
  await page.mouse.move(5, 790);  // the mouse leaves; the keyboard drives
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await frames(page, 3);
  v = await view(page);
  const cur = v.heatmaps.find((x) => x.name === 'alignment_weights').cursor;
  assert.deepEqual([cur.row, cur.col], [2, 1]);
  assert.equal(cur.value, s.alignment.result.weights[2][1]);
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).cell_mode, true);
  await page.screenshot({ path: shot('cell-cursor') });
  await page.waitForFunction(() => /row 2, key "black" column 1: weight 0\.8/.test(document.getElementById('mirror-status').textContent));
  // The outline (what the mirror asks while a run trains) keeps the heatmap under the cursor, without values.
  const outline = await page.evaluate(() => window.attentionLab.view(-1));
  assert.deepEqual(outline.heatmaps.map((x) => x.name), ['alignment_weights']);
  assert.deepEqual(outline.heatmaps[0].values, []);
  assert.deepEqual(outline.heatmaps[0].cursor, cur);
  assert.equal(outline.heatmaps[0].row_labels[2], v.heatmaps.find((x) => x.name === 'alignment_weights').row_labels[2]);
  assert.equal(outline.active, null);
  // Keys faster than frames: presses that all arrive before the next frame each count (ImGui
  // 1.86 reads key state once per frame; the platform layer splits such bursts over frames).
  const burst = (keys) => page.evaluate((keys) => {
    const canvas = document.getElementById('canvas');
    const codes = { ArrowUp: 38, ArrowDown: 40, ArrowLeft: 37, ArrowRight: 39 };
    for (const k of keys)
      for (const type of ['keydown', 'keyup'])
        canvas.dispatchEvent(new KeyboardEvent(type, { key: k, code: k, keyCode: codes[k], which: codes[k], bubbles: true, cancelable: true }));
  }, keys);
  for (const [keys, want] of [[['ArrowUp', 'ArrowUp'], [0, 1]], [['ArrowDown', 'ArrowRight', 'ArrowDown', 'ArrowLeft'], [2, 1]]]) {
    await burst(keys);
    await frames(page, 6);
    const c = (await view(page)).heatmaps.find((x) => x.name === 'alignment_weights').cursor;
    assert.deepEqual([c.row, c.col], want, `after the burst ${keys.join(' ')}`);
  }
  // Enter acts like a click on the row (the alignment panel traces it).
  await page.keyboard.press('Enter');
  await frames(page, 3);
  assert.equal((await state(page)).alignment.selected_row, 2);
  // Escape leaves cell mode; arrow keys then navigate widgets again.
  await page.keyboard.press('Escape');
  await frames(page, 3);
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).cell_mode, false);
  assert.equal((await view(page)).heatmaps[0].cursor, null);
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('keyboard alone: panels and heatmap cells are reachable (arrows, Space, Enter)', async () => {
  const { context, page, log } = await openLabPage('?panel=alignment');
  const key = async (k, n = 1) => { for (let i = 0; i < n; ++i) { await page.keyboard.press(k); await frames(page, 2); } };
  const control = async () => (await view(page, -1)).control ?? null;
  // The first arrow shows the cursor on the navigation's first entry; arrows move, Space and
  // Enter activate.
  await key('ArrowDown');
  assert.equal(await control(), '1 Alignment');
  await key('ArrowDown');
  assert.equal(await control(), '2 Translate');
  await key('Space');
  assert.equal((await state(page)).panel, 'translate', 'Space on the second entry shows its panel');
  await key('ArrowUp');
  await key('Enter');
  assert.equal((await state(page)).panel, 'alignment', 'Enter on the first entry shows its panel');
  // Down past the navigation's last entry goes on into the panel, and down to the heatmap.
  let focused = null;
  for (let i = 0; i < 60 && !focused; ++i) {
    await key('ArrowDown');
    focused = (await view(page)).heatmaps.find((h) => h.focused) || null;
  }
  assert.ok(focused, 'the heatmap is reachable with the arrow keys');
  await page.waitForFunction(() => /press Space or Enter to explore its cells/.test(document.getElementById('mirror-status').textContent));
  await page.screenshot({ path: shot('keyboard-focus-heatmap') });
  await key('Space');
  await key('ArrowRight');
  const cur = (await view(page)).heatmaps.find((h) => h.name === focused.name).cursor;
  assert.ok(cur && cur.col === 1, `a cell cursor moved by the arrow keys: ${JSON.stringify(cur)}`);
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('a link reproduces the view: state → copy link → new page → the same state()', async () => {
  const { context, page, log } = await openLabPage('?panel=alignment', { clipboard: true });
  // Change inputs on several panels through the page API and the widgets.
  assert.equal((await page.evaluate(() => window.attentionLab.set({
    heads: { sentence: 'the quick brown fox jumps', seed: 12345, heads: 3, causal: true, positions: 'sinusoidal' },
    permutation: { sentence: 'one two three four', permutation: [3, 1, 0, 2], causal: true },
    alignment: { set_weight: { row: 0, col: 2, value: 0.3 }, selected_row: 2 },
  }))).ok, true);
  await page.evaluate(() => window.attentionLab.showPanel('heads'));
  await frames(page, 3);
  await clickLabel(page, 'key padding');  // a widget change is in the link too
  await frames(page, 4);
  await page.evaluate(() => window.attentionLabPage.sync());
  const want = comparableState(await state(page));
  assert.equal(want.heads.inputs.key_padding, true);
  // The link carries every input state() lists (linkInputs builds them without the results).
  const li = await page.evaluate(() => window.attentionLab.linkInputs());
  for (const [panel, entry] of Object.entries(want)) {
    if (!entry || typeof entry !== 'object' || !entry.inputs) continue;
    const inputs = { ...entry.inputs };
    if (panel === 'alignment') { delete inputs.queries; delete inputs.keys; inputs.selected_row = entry.selected_row; }
    if (panel === 'heads') delete inputs.key_padding;
    if (panel === 'script') delete inputs.runs;
    if (panel === 'additive') { inputs.step = entry.step; inputs.trained_step = entry.trained.step; }
    assert.deepEqual(li[panel] || {}, inputs, `linkInputs().${panel} = state().${panel}.inputs`);
  }
  // "Copy link" in the "⋯" menu puts the address on the clipboard.
  await clickLabel(page, '\u22EF');
  await clickLabel(page, 'Copy link');
  await page.waitForFunction(() => /Link to this view copied/.test(document.getElementById('mirror-notice').textContent));
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, page.url(), 'the copied link is the address');
  assert.ok(link.startsWith(labUrl()), link);
  const u = new URL(link);
  assert.equal(u.searchParams.get('panel'), 'heads');
  assert.equal(u.searchParams.get('heads.seed'), '12345');
  await page.screenshot({ path: shot('link-source') });
  const other = await openLabPage(link.slice(labUrl().length));
  await frames(other.page, 3);
  const got = comparableState(await state(other.page));
  assert.deepEqual(diffPaths(got, want), [], 'the linked page shows the same state, bit for bit');
  await other.page.screenshot({ path: shot('link-target') });
  assert.deepEqual(other.log.warnings, [], 'the link needs no fallback');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(other.log.errors, []);
  await other.context.close();
  await context.close();
});

test('postMessage: the parent sets inputs and panels and hears about changes; strangers are ignored', async () => {
  const { context, page, log } = await openPage(server.url('/host.html'), { width: 1000, height: 800 });
  const frame = await labFrame(page);
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:ready'));
  const ready = await page.evaluate(() => window.messages.find((m) => m.type === 'attention-lab:ready'));
  assert.equal(ready.panel, 'heads');
  assert.equal(ready.version, 1);
  await page.evaluate(() => {
    const w = document.getElementById('lab').contentWindow;
    w.postMessage({ type: 'attention-lab:set', id: 7, patch: { heads: { seed: 99, heads: 4 } } }, '*');
    w.postMessage({ type: 'attention-lab:set', id: 8, patch: { heads: { heads: 99 } } }, '*');
    w.postMessage({ type: 'attention-lab:show', id: 9, panel: 'permutation' }, '*');
    w.postMessage({ type: 'attention-lab:compute', id: 10, case: { op: 'attention', query: [[1, 0]], key: [[1, 0], [0, 1]], value: [[1], [2]] } }, '*');
    w.postMessage({ type: 'attention-lab:nonsense', id: 11 }, '*');
    w.postMessage('not an object', '*');
    w.postMessage({ type: 'attention-lab:set', id: 12, patch: [1, 2] }, '*');
  });
  await page.waitForFunction(() => [7, 8, 9, 10, 11, 12].every((id) => window.messages.some((m) => m.type === 'attention-lab:reply' && m.id === id)));
  const replies = await page.evaluate(() => Object.fromEntries(window.messages.filter((m) => m.type === 'attention-lab:reply').map((m) => [m.id, m])));
  assert.equal(replies[7].ok, true);
  assert.equal(replies[8].ok, false);
  assert.equal(replies[8].error.code, 'invalid_field');
  assert.equal(replies[9].ok, true);
  assert.deepEqual(replies[10].result.weights[0].length, 2);
  assert.equal(replies[11].error.code, 'invalid_message');
  assert.equal(replies[12].error.code, 'invalid_message');
  const s = await state(frame);
  assert.equal(s.panel, 'permutation');
  assert.equal(s.heads.inputs.seed, 99);
  assert.equal(s.heads.inputs.heads, 4);
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:state' && m.panel === 'permutation'));
  const st = await page.evaluate(() => window.messages.filter((m) => m.type === 'attention-lab:state').pop());
  assert.equal(st.inputs.heads.seed, 99);
  assert.ok(st.url.includes('heads.seed=99'));
  // A message from a window that is not the parent (here: the lab's own window) is ignored.
  await frame.evaluate(() => window.postMessage({ type: 'attention-lab:show', panel: 'alignment' }, '*'));
  await frames(frame, 3);
  assert.equal((await state(frame)).panel, 'permutation');
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('HiDPI 2 and 1.5, resizing by window and by container: sharp, and the pointer lands where it looks', async () => {
  for (const dpr of [2, 1.5]) {
    const { context, page, log } = await openLabPage('?panel=heads', { dpr, width: 1100, height: 760 });
    const size = () => page.evaluate(() => {
      const c = document.getElementById('canvas');
      return { css: [c.clientWidth, c.clientHeight], buffer: [c.width, c.height] };
    });
    let s = await size();
    assert.deepEqual(s.buffer, [Math.floor(s.css[0] * dpr), Math.floor(s.css[1] * dpr)], `buffer at ${dpr}`);
    await clickLabel(page, 'causal mask');
    assert.equal((await state(page)).heads.inputs.causal, true, `a click at ${dpr} lands on the checkbox`);
    await page.screenshot({ path: shot(`dpr${dpr}`) });
    await page.setViewportSize({ width: 900, height: 640 });
    await frames(page, 4);
    s = await size();
    assert.deepEqual(s.css, [900, 640]);
    assert.deepEqual(s.buffer, [Math.floor(900 * dpr), Math.floor(640 * dpr)]);
    // The container alone changes (no window resize): ResizeObserver refits within a frame or two.
    await page.evaluate(() => { const c = document.getElementById('canvas'); c.style.width = '600px'; c.style.height = '500px'; });
    await frames(page, 3);
    s = await size();
    assert.deepEqual(s.css, [600, 500]);
    assert.deepEqual(s.buffer, [Math.floor(600 * dpr), Math.floor(500 * dpr)]);
    // At 600 px the control rows wrap and the navigation takes more lines: scroll the panel (the
    // wheel, as a reader would) until the checkbox is on screen.
    // (wholly on screen: a label cut by the canvas's lower edge would take the click below it)
    const onScreen = async () => (await locate(page, 'causal mask')).some((it) => it.visible && it.rect[3] < 500 - 8);
    for (let i = 0; i < 20 && !(await onScreen()); ++i) {
      await page.mouse.move(300, 400);
      await page.mouse.wheel(0, 100);
      await frames(page, 2);
    }
    await clickLabel(page, 'causal mask');
    assert.equal((await state(page)).heads.inputs.causal, false, 'after the refit the pointer still lands');
    await page.screenshot({ path: shot(`dpr${dpr}-container`) });
    assert.deepEqual(log.errors, []);
    await context.close();
  }
});

test('zoom: a pixel-ratio change mid-session re-rasterises the fonts and keeps drawing', async () => {
  const { context, page, log } = await openLabPage('?panel=alignment', { width: 1000, height: 700 });
  const webgl = [];
  page.on('console', (m) => { if (/WebGL|GL_INVALID/.test(m.text())) webgl.push(m.text()); });
  const cdp = await context.newCDPSession(page);
  for (const dpr of [2, 1.25]) {
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1000, height: 700, deviceScaleFactor: dpr, mobile: false });
    await page.waitForFunction((r) => devicePixelRatio === r, dpr);
    // Headless Chromium changes the ratio without the resize / resolution events a real zoom
    // fires; send the one a browser sends.
    await page.evaluate(() => window.dispatchEvent(new Event('resize')));
    await frames(page, 4);
    const b = await page.evaluate(() => [document.getElementById('canvas').width, devicePixelRatio]);
    assert.deepEqual(b, [Math.floor(1000 * dpr), dpr]);
    const stats = await pngStats(page, await page.screenshot({ path: shot(`zoom-${dpr}`) }));
    assert.ok(stats.colours > 200 && stats.variance > 200, `text and cells are drawn at ${dpr}: ${JSON.stringify(stats)}`);
  }
  // The pointer still lands where it looks: click the heatmap's middle row ("chat").
  const h = (await view(page)).heatmaps[0];
  await page.mouse.click((h.rect[0] + h.rect[2]) / 2, (h.rect[1] + h.rect[3]) / 2);
  await frames(page, 3);
  assert.equal((await state(page)).alignment.selected_row, 1);
  assert.deepEqual(webgl, [], 'no WebGL errors after the font texture was rebuilt');
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('touch: one tap is one click, a lifted finger leaves no hover or drag behind', async () => {
  const { context, page, log } = await openPage(server.url('/host.html'), { width: 1000, height: 800, touch: true });
  const frame = await labFrame(page);
  const box = await page.locator('#lab').boundingBox();
  const c = await centre(frame, 'causal mask');
  for (const want of [true, false, true]) {
    await page.touchscreen.tap(box.x + c.x, box.y + c.y);
    await frames(frame, 4);
    assert.equal((await state(frame)).heads.inputs.causal, want, 'each tap toggles exactly once');
    const input = await frame.evaluate(() => window.attentionLab.inputState());
    assert.equal(input.mouse, null, 'no pointer left hovering after the finger lifted');
    assert.equal(input.mouse_down, false);
  }
  // A drag on the heads slider ends when the finger lifts.
  const slider = await centre(frame, 'heads');
  const cdp = await context.newCDPSession(page);
  const at = (dx) => [{ x: box.x + slider.rect[0] + 10 + dx, y: box.y + slider.y }];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  await frames(frame, 2);
  for (const dx of [30, 60, 90]) { await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(dx) }); await frames(frame, 1); }
  let input = await frame.evaluate(() => window.attentionLab.inputState());
  assert.equal(input.active_item, true, 'dragging the slider');
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await frames(frame, 4);
  input = await frame.evaluate(() => window.attentionLab.inputState());
  assert.equal(input.active_item, false, 'the drag ended on lift');
  assert.equal(input.mouse_down, false);
  assert.equal(input.mouse, null);
  assert.ok((await state(frame)).heads.inputs.heads > 2, 'the drag moved the slider');
  // A swipe on the lab is the lab's; beside it, the course page scrolls.
  const swipe = async (x, y0) => {
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y: y0 }] });
    for (let y = y0 - 20; y >= y0 - 260; y -= 20) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await page.waitForTimeout(200);
    return page.evaluate(() => scrollY);
  };
  assert.equal(await swipe(box.x + 600, box.y + 500), 0, 'a swipe on the lab does not scroll the page');
  assert.ok(await swipe(860, 600) > 0, 'a swipe beside the lab scrolls the page');
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('clipboard: copy from and paste into an ImGui text field', async () => {
  const { context, page, log } = await openLabPage('?panel=heads', { clipboard: true });
  await clickLabel(page, 'sentence');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+C');
  await frames(page, 3);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'The cat sat on the mat');
  await page.evaluate(() => navigator.clipboard.writeText('pasted words from the clipboard'));
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await frames(page, 4);
  await page.keyboard.press('Enter');
  await frames(page, 3);
  assert.equal((await state(page)).heads.inputs.sentence, 'pasted words from the clipboard');
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('export: PNG at 1× and 2×, CSV and JSON hold the current heatmap exactly', async () => {
  const { context, page, log } = await openLabPage('?panel=alignment');
  const s = await state(page);
  const save = async (label) => {
    await clickLabel(page, '\u22EF');  // the exports are in the "⋯" menu
    const [dl] = await Promise.all([page.waitForEvent('download'), clickLabel(page, label)]);
    const file = path.join(artifacts, 'embed-export-' + dl.suggestedFilename());
    await dl.saveAs(file);
    return { name: dl.suggestedFilename(), data: fs.readFileSync(file) };
  };
  const csv = await save('CSV');
  assert.equal(csv.name, 'attention-lab-alignment-alignment_weights.csv');
  const rows = parseCsv(csv.data.toString('utf8'));
  assert.deepEqual(rows[0], ['query\\key', 'the', 'black', 'cat']);
  assert.deepEqual(rows.slice(1).map((r) => r[0]), ['le', 'chat', 'noir']);
  assert.deepEqual(rows.slice(1).map((r) => r.slice(1).map(Number)), s.alignment.result.weights, 'CSV = state() to the bit');

  const png1 = await save('PNG');
  const png2 = await save('PNG 2×');
  assert.equal(png1.data.subarray(1, 4).toString(), 'PNG');
  const a = await pngPixels(page, png1.data), b = await pngPixels(page, png2.data);
  assert.equal(b.width, a.width * 2);
  assert.equal(b.height, a.height * 2);
  // Cell colours are viridis of the exact weights: find the cells through the export's layout
  // (cells start after the row labels; sample each cell's centre on the 2× image).
  const v = await view(page);
  const h = v.heatmaps.find((x) => x.name === 'alignment_weights');
  const cell = Math.max(14, Math.min(64, Math.round((h.rect[2] - h.rect[0]) / 3)));
  const found = await page.evaluate(async ({ data, cell }) => {
    const img = new Image(); img.src = 'data:image/png;base64,' + data; await img.decode();
    const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, c.width, c.height).data;
    // The grid's top-left: the first pixel row/column where a run of `cell` non-background pixels starts.
    const bg = (i) => Math.abs(px[i] - 248) < 3 && Math.abs(px[i + 1] - 247) < 3 && Math.abs(px[i + 2] - 243) < 3;
    for (let y = 0; y < c.height; ++y)
      for (let x = 0; x < c.width - 3 * cell; ++x) {
        const i = (y * c.width + x) * 4;
        if (bg(i)) continue;
        let run = 0;
        while (run < 2 * cell && !bg(i + run * 4)) ++run;
        if (run >= 2 * cell - 2) return { x, y, width: c.width };
      }
    return null;
  }, { data: png1.data.toString('base64'), cell });
  assert.ok(found, 'the grid is found in the PNG');
  const pts = [];
  for (let i = 0; i < 3; ++i) for (let j = 0; j < 3; ++j) pts.push([found.x + (j + 0.5) * cell, found.y + (i + 0.5) * cell]);
  const px = await pngPixels(page, png1.data, pts.map(([x, y]) => [Math.round(x), Math.round(y)]));
  px.pixels.forEach((p, k) => {
    const w = s.alignment.result.weights[Math.floor(k / 3)][k % 3];
    assert.ok(near(p.slice(0, 3), viridis(w), 3), `cell ${k}: ${p} vs viridis(${w}) = ${viridis(w)}`);
  });

  const json = await save('JSON');
  const body = JSON.parse(json.data.toString('utf8'));
  assert.equal(body.panel, 'alignment');
  assert.deepEqual(body.heatmaps.find((x) => x.name === 'alignment_weights').values, s.alignment.result.weights);
  assert.deepEqual(body.checks.map((c) => c.claim), s.alignment.result.checks.map((c) => c.claim));
  // The 9-token heads panel: CSV of the current heatmap follows the hover.
  await page.evaluate(() => { window.attentionLab.showPanel('heads'); window.attentionLab.setSentence('a b c d e f g h i'); });
  await frames(page, 3);
  const v2 = await view(page);
  const second = v2.heatmaps[1];
  await page.mouse.move((second.rect[0] + second.rect[2]) / 2, (second.rect[1] + second.rect[3]) / 2);
  await frames(page, 3);
  const csv2 = await save('CSV');
  assert.match(csv2.name, /head-2\.csv$/);
  const s2 = await state(page);
  assert.deepEqual(parseCsv(csv2.data.toString('utf8')).slice(1).map((r) => r.slice(1).map(Number)), s2.heads.result.heads[1].weights);
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('the DOM text mirror matches state() and follows it live', async () => {
  const { context, page, log } = await openLabPage('?panel=alignment');
  const mirror = () => page.evaluate(() => {
    const tables = [...document.querySelectorAll('#mirror table')].map((t) => ({
      name: t.dataset.heatmap,
      caption: t.caption.textContent,
      cols: [...t.tHead.rows[0].cells].map((c) => c.textContent),
      rows: [...t.tBodies[0].rows].map((r) => ({ head: r.cells[0].textContent,
        values: [...r.cells].slice(1).map((c) => c.dataset.value) })),
    }));
    return { tables, checks: [...document.querySelectorAll('#mirror [data-checks] li')].map((li) => li.textContent),
             hidden: getComputedStyle(document.getElementById('mirror')).clipPath,
             live: document.getElementById('mirror-status').getAttribute('aria-live') };
  });
  let s = await state(page);
  let m = await mirror();
  assert.equal(m.live, 'polite');
  assert.equal(m.hidden, 'inset(50%)', 'visually hidden');
  const t = m.tables.find((x) => x.name === 'alignment_weights');
  assert.deepEqual(t.cols, ['query \\ key', 'the', 'black', 'cat', 'row sum']);
  assert.deepEqual(t.rows.map((r) => r.head), ['le', 'chat', 'noir']);
  assert.deepEqual(t.rows.map((r) => r.values.slice(0, 3).map(Number)), s.alignment.result.weights);
  assert.deepEqual(m.checks.map((c) => c.replace(/^(PASS|FAIL): /, '').split(' = ')[0]), s.alignment.result.checks.map((c) => c.claim));
  assert.ok(m.checks.every((c) => c.startsWith('PASS')));
  // Live: a new sentence on the heads panel.
  await page.evaluate(() => { window.attentionLab.showPanel('heads'); window.attentionLab.set({ heads: { sentence: 'x y z w', heads: 3, causal: true } }); });
  await frames(page, 4);
  await page.evaluate(() => window.attentionLabPage.sync());
  s = await state(page);
  m = await mirror();
  // One table per head, then the anatomy's Q, K and V of the chosen head.
  assert.deepEqual(m.tables.map((x) => x.name), ['head 1', 'head 2', 'head 3', 'anatomy Q', 'anatomy K', 'anatomy V']);
  m.tables.slice(0, 3).forEach((tab, k) => {
    assert.deepEqual(tab.rows.map((r) => r.head), ['x', 'y', 'z', 'w']);
    assert.deepEqual(tab.rows.map((r) => r.values.slice(0, 4).map(Number)), s.heads.result.heads[k].weights);
  });
  m.tables.slice(3).forEach((tab, k) => {
    assert.deepEqual(tab.rows.map((r) => r.head), ['x', 'y', 'z', 'w']);
    assert.deepEqual(tab.rows.map((r) => r.values.map(Number)), s.heads.anatomy[['q', 'k', 'v'][k]]);
  });
  const masked = await page.evaluate(() => document.querySelectorAll('#mirror td[data-masked]').length);
  assert.equal(masked, 3 * 6, 'causal: 6 masked cells per head, marked as masked');
  // Each table is laid out on its own (contain: strict, 1 px), yet Chromium's accessibility
  // tree, what a screen reader reads, has their cells.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Accessibility.enable');
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const names = (role) => nodes.filter((n) => n.role && n.role.value === role).map((n) => n.name && n.name.value);
  assert.equal(names('table').length, 6, 'six tables in the accessibility tree');
  assert.ok(names('columnheader').filter((x) => x === 'z').length >= 3, 'their column headers: ' + names('columnheader').join(' '));
  assert.ok(names('cell').filter((x) => x === 'masked').length >= 3 * 6, 'their masked cells');
  // Without a forced sync the new view's tables arrive within a few frames, built between them.
  await page.evaluate(() => window.attentionLab.set({ heads: { heads: 2 } }));
  await page.waitForFunction(() => document.querySelectorAll('#mirror table').length === 2 + 3, null, { timeout: 10000 });
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('the text mirror waits while a run trains, keeps its heading in step, and follows the run\'s end with no event', async () => {
  const { context, page, log } = await openLabPage('?panel=learned_heads&learned_heads.steps=600');
  const heading = () => page.evaluate(() => document.querySelector('#mirror h2').textContent);
  await page.evaluate(() => window.attentionLabPage.sync());
  // The tables' names and their last rows' values (a causal map's first row is always 1, masked…),
  // as the mirror holds them.
  const held = () => page.evaluate(() => [...document.querySelectorAll('#mirror table')].map((t) =>
    t.dataset.heatmap + ': ' + [...t.tBodies[0].rows[t.tBodies[0].rows.length - 1].cells].slice(1).map((c) => c.dataset.value).join(' ')));
  const before = await held();
  assert.ok(before.length >= 4, before.join('\n'));
  // The run's trained event is swallowed: the mirror must see the end by itself.
  await page.evaluate(() => {
    window.attentionLab.takeEvents = () => [];
    window.attentionLab.set({ learned_heads: { train: true } });
  });
  await page.waitForFunction(() => /Working \(training or measuring\)/.test(document.getElementById('mirror-status').textContent), null,
                            { timeout: 10000 });
  const outline = await page.evaluate(() => window.attentionLab.view(-1));
  assert.equal(outline.busy, true, 'view().busy while the run trains');
  assert.deepEqual(outline.heatmaps, [], 'the outline carries no heatmaps');
  // Past the snapshot at step 100 the panel shows new maps; the mirror still holds step 0's.
  await page.waitForFunction(() => window.attentionLab.view(-1).busy && window.attentionLab.state().learned_heads.step >= 150, null,
                             { timeout: 30000, polling: 100 });
  const shown = await page.evaluate(() => window.attentionLab.view(2500).heatmaps.map((h) =>
    h.name + ': ' + h.values[h.values.length - 1].concat(h.row_sums ? [h.row_sums[h.values.length - 1]] : [])
      .map((v) => (v === null ? 'NaN' : String(v))).join(' ')));
  assert.notDeepEqual(shown, before, 'the panel shows the maps of a later step');
  assert.deepEqual(await held(), before, 'the tables wait (the step-0 maps) while the run trains');
  // Another panel and back while it trains: the heading follows the panel shown.
  await page.evaluate(() => window.attentionLab.showPanel('alignment'));
  await page.waitForFunction(() => /Alignment/.test(document.querySelector('#mirror h2').textContent), null, { timeout: 10000 });
  await page.evaluate(() => window.attentionLab.showPanel('learned_heads'));
  await page.waitForFunction(() => /Learned heads/.test(document.querySelector('#mirror h2').textContent), null, { timeout: 10000 });
  assert.equal(await page.evaluate(() => window.attentionLab.view(-1).busy), true, 'still training');
  await page.waitForFunction(() => /Working/.test(document.getElementById('mirror-status').textContent), null, { timeout: 5000 });
  assert.deepEqual(await held(), [], 'no table of the Alignment panel under the Learned heads heading');
  assert.match(await heading(), /Learned heads/);
  // The run ends (no event, no input): within a few syncs the status and the tables follow it.
  await page.waitForFunction(() => window.attentionLab.view(-1).busy === false, null, { timeout: 90000, polling: 250 });
  assert.equal((await state(page)).learned_heads.status, 'done');
  await page.waitForFunction(() => {
    if (/Working/.test(document.getElementById('mirror-status').textContent)) return false;
    const v = window.attentionLab.view(2500);
    const tables = [...document.querySelectorAll('#mirror table')];
    return tables.length === v.heatmaps.length && v.heatmaps.every((h, k) => tables[k].dataset.heatmap === h.name &&
      [...tables[k].tBodies[0].rows[0].cells].slice(1, 1 + h.values[0].length).every((c, j) => c.dataset.value === String(h.values[0][j])));
  }, null, { timeout: 10000, polling: 200 });
  // A study that only adds its figures at the end does not freeze the tables.
  await page.evaluate(() => window.attentionLab.set({ learned_heads: { extrapolation: 'start' } }));
  await frames(page, 3);
  const during = await page.evaluate(() => ({ study: window.attentionLab.state().learned_heads.extrapolation, outline: window.attentionLab.view(-1) }));
  assert.equal(during.study.status, 'training', JSON.stringify(during.study && during.study.status));
  assert.equal(during.outline.busy, false, 'the extrapolation study is not a run: its tables do not wait');
  assert.equal(during.outline.working, true, 'but it is work under way, which the mirror keeps watching');
  assert.doesNotMatch(await page.evaluate(() => document.getElementById('mirror-status').textContent), /Working/);
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('script API: attention-lab-compute.js from a sub-path, without the canvas', async () => {
  const { context, page, log } = await openPage(server.url('/compute.html'));
  const file = path.join(repoRoot, 'tests', 'cases', 'lesson-alignment-le-chat-noir.json');
  const c = JSON.parse(fs.readFileSync(file, 'utf8'));
  const out = await page.evaluate((x) => window.attentionLabCompute.compute(x), c.case);
  for (const key of Object.keys(c.expect)) {
    const want = c.expect[key].flat(), got = out[key].flat();
    assert.equal(got.length, want.length);
    want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= c.tolerance, `${key}[${i}]`));
  }
  const err = await page.evaluate(() => window.attentionLabCompute.compute('{"op":"attention"'));
  assert.equal(err.error.code, 'invalid_json');
  const version = await page.evaluate(() => window.attentionLabCompute.ready.then((lab) => lab.version));
  assert.match(version, /^\d+\.\d+\.\d+$/);
  assert.equal(await page.evaluate(() => document.querySelectorAll('canvas').length), 0);
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('the example article embeds two panels and talks to them', async () => {
  const { context, page, log } = await openPage(labUrl('examples/article.html'), { width: 1100, height: 900 });
  await page.waitForFunction(() => document.querySelectorAll('iframe').length === 2);
  await page.evaluate(() => scrollTo(0, document.body.scrollHeight));  // the iframes load lazily
  await page.waitForFunction(() => window.frames.length === 2);
  for (const f of page.frames().filter((x) => x !== page.mainFrame())) {
    await f.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  }
  await page.waitForFunction(() => document.getElementById('heads-log').textContent.includes('ready'), null, { timeout: 30000 });
  await page.click('#reroll');
  await page.waitForFunction(() => /seed 18/.test(document.getElementById('heads-log').textContent), null, { timeout: 15000 });
  await page.screenshot({ path: shot('article'), fullPage: true });
  assert.deepEqual(log.errors, []);
  await context.close();
});
