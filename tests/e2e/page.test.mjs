// Browser end-to-end tests of the built page (build/web/site), in Debian's headless Chromium
// driven by playwright-core. Run: node --test tests/e2e/page.test.mjs  (CTest does, in the
// web build). Screenshots go to test-artifacts/ (ATTN_ARTIFACTS overrides).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { frames, openLab, pngRead, pngStats, repoRoot, serveSiteAndChromium, siteDir } from './lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });

let server, browser;
await serveSiteAndChromium((s, b) => { server = s; browser = b; });

const lab = (page, fn, arg) => page.evaluate(fn, arg);
const maxAbs = (xs) => Math.max(...xs.map(Math.abs));

test('the page loads with no console error and the canvas fills the window', async () => {
  const { page, context, problems } = await openLab(browser, server.url);
  await frames(page, 5);
  const info = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const o = getComputedStyle(document.getElementById('overlay'));
    return { css: [c.clientWidth, c.clientHeight], buffer: [c.width, c.height], overlay: o.opacity,
             win: [innerWidth, innerHeight] };
  });
  assert.deepEqual(info.css, info.win, 'canvas CSS size = window size');
  assert.deepEqual(info.buffer, info.css, 'at devicePixelRatio 1 the drawing buffer = CSS size');
  assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
  await context.close();
});

test('each panel renders (screenshots are not blank)', async () => {
  const { page, context, problems } = await openLab(browser, server.url);
  for (const name of ['alignment', 'heads', 'permutation']) {
    const reply = await lab(page, (n) => window.attentionLab.showPanel(n), name);
    assert.equal(reply.ok, true);
    await frames(page, 3);
    assert.equal((await lab(page, () => window.attentionLab.state())).panel, name);
    const png = await page.screenshot({ path: path.join(artifacts, `e2e-${name}.png`) });
    const stats = await pngStats(page, png);
    assert.ok(stats.variance > 200, `${name}: pixel variance ${stats.variance.toFixed(1)} looks blank`);
    assert.ok(stats.colours > 200, `${name}: only ${stats.colours} distinct colours`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// Hover, panel switch and scroll; at scale 1 also a new sentence and a short run.
async function damageEqualsWhole(scale) {
  const { page, context, problems } = await openLab(browser, server.url, { deviceScaleFactor: scale });
  const W = 1280 * scale, H = 800 * scale;
  const differing = async (a, b) => (await pngRead(page, a, [], { other: b })).differing;
  const compare = async (label) => {
    const name = `${label}-x${scale}`;
    await frames(page, 3);
    const byDamage = await page.screenshot({ path: path.join(artifacts, `e2e-damage-${name}.png`) });
    await lab(page, () => window.attentionLab.redrawAll());
    await frames(page, 2);
    // The redrawn frame may be followed by frames that change nothing: the canvas keeps it.
    const whole = await page.screenshot();
    const n = await differing(byDamage, whole);
    if (n !== 0) fs.writeFileSync(path.join(artifacts, `e2e-damage-${name}-whole.png`), whole);
    assert.equal(n, 0, `${name}: ${n} pixels differ between the frame drawn by damage and a whole redraw`);
  };
  await frames(page, 3);
  // Hovering the navigation redraws a small part of the canvas only.
  // Each animation frame's drawnPixels() (a recorder running beside the page's own loop).
  const record = () => page.evaluate(() => {
    const rec = window.__drawn = { values: [], on: true };
    const tick = () => { rec.values.push(window.attentionLab.drawnPixels()); if (rec.on) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  const recorded = () => page.evaluate(() => { window.__drawn.on = false; return window.__drawn.values; });
  await record();
  await page.mouse.move(120, 245);
  await frames(page, 6);
  const hover = await recorded();
  const most = Math.max(...hover);
  assert.ok(most > 0 && most < W * H / 4, `a hover drew ${JSON.stringify(hover)} of ${W * H} pixels a frame`);
  await record();
  await frames(page, 4);
  assert.ok((await recorded()).every((x) => x === 0), 'frames that change nothing draw nothing');
  await compare('hover');
  await page.mouse.move(120, 400);
  await lab(page, () => window.attentionLab.showPanel('masks'));
  await compare('masks');
  await page.mouse.move(700, 500);
  await page.mouse.wheel(0, 240);
  await compare('masks-scrolled');
  if (scale !== 1) {
    assert.deepEqual(problems, []);
    await context.close();
    return;
  }
  await lab(page, () => window.attentionLab.showPanel('heads'));
  await lab(page, () => window.attentionLab.setSentence('the cat sat on the warm mat today'));
  await compare('heads');
  // A short run: every frame draws the steps' changes.
  await lab(page, () => window.attentionLab.showPanel('learned_heads'));
  await lab(page, () => window.attentionLab.set({ learned_heads: { steps: 40, train: true } }));
  for (let i = 0; i < 200 && (await lab(page, () => window.attentionLab.view(-1).working)); ++i) await frames(page, 5);
  // On a loaded machine the run can still be stepping after that wait: compare only a finished run,
  // or the two screenshots show different steps.
  await page.waitForFunction(() => window.attentionLab.state().learned_heads.status === 'done' && !window.attentionLab.view(-1).working,
                             null, { timeout: 120000 });
  await compare('learned-heads-trained');
  await record();
  await lab(page, () => window.attentionLab.redrawAll());
  await frames(page, 3);
  const redrawn = await recorded();
  assert.ok(redrawn.includes(W * H), `redrawAll(): a frame draws every pixel (${JSON.stringify(redrawn)})`);
  assert.deepEqual(problems, []);
  await context.close();
}

test('frames drawn by damage (only what changed) equal a whole redraw, pixel for pixel', () => damageEqualsWhole(1));
test('...and at deviceScaleFactor 2 (clip rectangles snapped to device pixels)', () => damageEqualsWhole(2));

test('state() matches the core: alignment, row sums, permutation equivariance', async () => {
  const { page, context } = await openLab(browser, server.url);
  const s = await lab(page, () => window.attentionLab.state());
  const chat = s.alignment.result.contexts[1];
  assert.ok(Math.abs(chat[0] - 1.7) <= 1e-12 && Math.abs(chat[1] - 0.1) <= 1e-12, `chat context ${chat}`);
  assert.deepEqual(s.alignment.result.queries, ['le', 'chat', 'noir']);
  assert.deepEqual(s.alignment.result.keys, ['the', 'black', 'cat']);
  assert.ok(maxAbs(s.alignment.row_sums.map((x) => x - 1)) <= 1e-12, 'alignment rows sum to 1');
  for (const sums of s.heads.row_sums) assert.ok(maxAbs(sums.map((x) => x - 1)) <= 1e-12, 'head rows sum to 1');
  for (const panel of ['alignment', 'heads', 'permutation']) {
    assert.equal(s[panel].error, null, `${panel} shows no error`);
    for (const c of s[panel].result.checks) assert.equal(c.pass, true, `${panel}: ${c.claim} = ${c.measured}`);
  }
  assert.deepEqual(s.permutation.inputs.permutation, [2, 0, 5, 1, 4, 3]);
  assert.ok(s.permutation.result.max_diff < 1e-12, `unmasked max_diff ${s.permutation.result.max_diff}`);
  assert.ok(s.permutation.result.kv_diff < 1e-12, 'K/V permuted together');

  assert.equal((await lab(page, () => window.attentionLab.setCausal('permutation', true))).ok, true);
  let d = (await lab(page, () => window.attentionLab.state())).permutation.result.max_diff;
  assert.ok(d > 1e-3, `causal mask breaks equivariance: ${d}`);
  await lab(page, () => window.attentionLab.setCausal('permutation', false));
  assert.equal((await lab(page, () => window.attentionLab.setPositions('permutation', true))).ok, true);
  d = (await lab(page, () => window.attentionLab.state())).permutation.result.max_diff;
  assert.ok(d > 1e-3, `positions break equivariance: ${d}`);
  await lab(page, () => window.attentionLab.setPositions('permutation', false));
  d = (await lab(page, () => window.attentionLab.state())).permutation.result.max_diff;
  assert.ok(d < 1e-12, `back to equivariant: ${d}`);
  await context.close();
});

test('a new sentence through the API changes the heatmap size; bad input keeps the last good one', async () => {
  const { page, context, problems } = await openLab(browser, server.url);
  await lab(page, () => window.attentionLab.showPanel('heads'));
  await frames(page, 2);
  const before = await page.screenshot();
  const reply = await lab(page, () => window.attentionLab.setSentence('a small dog ran to the big red barn'));
  assert.equal(reply.ok, true, JSON.stringify(reply));
  await frames(page, 3);
  let s = await lab(page, () => window.attentionLab.state());
  assert.equal(s.heads.result.tokens.length, 9);
  for (const h of s.heads.result.heads) assert.deepEqual([h.weights.length, h.weights[0].length], [9, 9]);
  assert.equal(s.permutation.inputs.permutation.length, 9, 'the permutation follows the sentence');
  const afterPng = await page.screenshot({ path: path.join(artifacts, 'e2e-heads-9-tokens.png') });
  assert.notDeepEqual(afterPng, before, 'the picture changed');

  const bad = await lab(page, () => window.attentionLab.setSentence(''));
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'empty_sequence');
  await frames(page, 2);
  s = await lab(page, () => window.attentionLab.state());
  assert.equal(s.heads.error.code, 'empty_sequence', 'the panel shows the error');
  assert.equal(s.heads.result.tokens.length, 9, 'and keeps the last good result');
  await page.screenshot({ path: path.join(artifacts, 'e2e-heads-error.png') });
  const many = await lab(page, () => window.attentionLab.set({ heads: { heads: 9 } }));
  assert.equal(many.error.code, 'invalid_field');
  assert.equal((await lab(page, () => window.attentionLab.setHeads(4))).ok, true);
  assert.equal((await lab(page, () => window.attentionLab.state())).heads.result.heads.length, 4);
  const perm = await lab(page, () => window.attentionLab.setPermutation([0, 0, 1]));
  assert.equal(perm.ok, false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('compute() runs the JSON case contract', async () => {
  const { page, context } = await openLab(browser, server.url);
  const file = path.join(repoRoot, 'tests', 'cases', 'lesson-alignment-le-chat-noir.json');
  const c = JSON.parse(fs.readFileSync(file, 'utf8'));
  // The case contract's module is not part of the first download: fetched on the first compute().
  const fetched = () => page.evaluate(() => performance.getEntriesByType('resource')
    .some((e) => /attention-lab-compute\.(js|wasm)$/.test(e.name)));
  assert.equal(await fetched(), false, 'attention-lab-compute loaded before compute()');
  const out = await lab(page, (x) => window.attentionLab.compute(x), c.case);
  assert.equal(await fetched(), true, 'compute() fetched attention-lab-compute');
  for (const key of Object.keys(c.expect)) {
    const want = c.expect[key].flat(), got = out[key].flat();
    assert.equal(got.length, want.length, key);
    for (let i = 0; i < want.length; ++i) assert.ok(Math.abs(got[i] - want[i]) <= c.tolerance, `${key}[${i}]`);
  }
  const err = await lab(page, () => window.attentionLab.compute({ op: 'attention', query: [] }));
  assert.ok(err.error && typeof err.error.code === 'string', JSON.stringify(err));
  await context.close();
});

test('HiDPI: at deviceScaleFactor 2 the backing store is twice the CSS size, and pointer hits where it looks', async () => {
  const { page, context, problems } = await openLab(browser, server.url, { deviceScaleFactor: 2 });
  await frames(page, 3);
  const size = () => page.evaluate(() => {
    const c = document.getElementById('canvas');
    return { css: [c.clientWidth, c.clientHeight], buffer: [c.width, c.height], dpr: devicePixelRatio };
  });
  let s = await size();
  assert.equal(s.dpr, 2);
  assert.deepEqual(s.buffer, [s.css[0] * 2, s.css[1] * 2]);
  await page.screenshot({ path: path.join(artifacts, 'e2e-alignment-dpr2.png') });

  // The sidebar's second entry ("Translate") sits at about (120, 213) CSS px.
  await page.mouse.click(120, 213);
  await frames(page, 3);
  assert.equal((await lab(page, () => window.attentionLab.state())).panel, 'translate', 'a click at CSS coordinates lands');

  await page.setViewportSize({ width: 1000, height: 700 });
  await frames(page, 4);
  s = await size();
  assert.deepEqual(s.css, [1000, 700], 'the canvas follows the window');
  assert.deepEqual(s.buffer, [2000, 1400], 'and stays sharp');
  await page.screenshot({ path: path.join(artifacts, 'e2e-heads-dpr2-resized.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a readable message when WebGL2 is missing or loading fails', async () => {
  let context = await browser.newContext();
  let page = await context.newPage();
  await page.addInitScript(() => {
    const orig = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
      return kind === 'webgl2' ? null : orig.call(this, kind, ...rest);
    };
  });
  await page.goto(server.url);
  await page.waitForSelector('.error h1');
  assert.match(await page.textContent('.error h1'), /needs WebGL2/);
  await page.screenshot({ path: path.join(artifacts, 'e2e-no-webgl2.png') });
  await context.close();

  context = await browser.newContext();
  page = await context.newPage();
  await page.route('**/attention_lab.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(server.url);
  await page.waitForSelector('.error h1');
  assert.match(await page.textContent('.error pre'), /404/);
  await context.close();
});
