// Browser test of the Cost panel (the cost of dense attention): opened by ?panel=cost, its counts read through
// window.attentionLab.state() against numbers derived by hand, bad input refused with the core's
// code while the last good state stays, the dense-vs-tiled timing run on demand, and the
// 2048×2048 weights map: hovering a pixel must report the cell the shader draws there, with the
// exact weight the state holds for that cell. No frame rate is asserted (scripts/bench_page.mjs
// prints it). Screenshots: test-artifacts/e2e-cost.png, e2e-cost-map.png.
// Run: node --test tests/e2e/cost.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { artifactsDir, frames, pngRead, serveSiteAndChromium } from './lib.mjs';
import { viridis } from './embed_lib.mjs';

const artifacts = artifactsDir();

let lab;
await serveSiteAndChromium((server, browser, l) => { lab = l; }, { open: '?panel=cost' });

const state = () => lab.page.evaluate(() => window.attentionLab.state());
const set = (patch) => lab.page.evaluate((p) => window.attentionLab.set(p), patch);
const view = () => lab.page.evaluate(() => window.attentionLab.view(2500));

// The cell heatmap.frag draws at the pixel whose top-left corner is (px, py) in CSS pixels
// (device scale 1): its centre, mapped into the grid, in float32 like the shader.
function shaderCell(px, lo, hi, n) {
  const f = Math.fround;
  const t = f(f(f(f(px + 0.5) - f(lo)) / f(f(hi) - f(lo))) * n);
  return Math.max(0, Math.min(n - 1, Math.floor(t)));
}

// shaders/heatmap.frag's viridis polynomial, as 8-bit RGB (embed_lib.mjs), t clamped to [0, 1].
const viridis8 = (t) => viridis(Math.min(1, Math.max(0, t)));

test('cost panel: counts by hand, refusals, timing on demand', async () => {
  let s = await state();
  assert.equal(s.panel, 'cost');
  assert.equal(s.cost.error, null);
  // The page's default: T = 4096, window 1024: hidden (4096 - 1024)(4096 - 1024 + 1)/2 of 4096·4097/2.
  assert.equal(s.cost.result.counts.window.hidden_pairs, 3072 * 3073 / 2);
  assert.equal(s.cost.result.counts.window.causal_pairs, 4096 * 4097 / 2);

  // T = 4, d_model = 8, 4 heads (d_k = 2). Per head: Q·Kᵀ 16 scores × 2 multiply-adds + weights·V
  // 8 outputs × 4 = 64 MA = 128 FLOPs; 4 heads 512. Projections: 4 matrices × 4 rows × 8 × 8 MA ×
  // 2 = 2048. A float32 4×4 matrix: 64 bytes. Cache: 2 × 3 layers × 5 tokens × n_kv × 2 × 2 bytes.
  // Window 2 hides (2,0), (3,0), (3,1) of the 10 causal pairs.
  let r = await set({ cost: { t: 4, d_model: 8, heads: 4, kv_groups: 2, layers: 3, context: 5, cache_dtype: 'float16', window: 2 } });
  assert.deepEqual(r, { ok: true });
  s = await state();
  const k = s.cost.result.counts;
  assert.equal(k.pairwise_flops, 512);
  assert.equal(k.projection_flops, 2048);
  assert.equal(k.scores_bytes_f32, 64);
  assert.deepEqual(k.kv_cache.map((c) => c.bytes), [480, 240, 120]);
  assert.equal(k.window.hidden_pairs, 3);
  assert.equal(k.window.hidden_fraction, 0.3);

  // 100,000 cached tokens, 32 layers of 32 heads × 128 in float16: 2·32·100000·32·128·2 bytes.
  r = await set({ cost: { t: 4096, d_model: 4096, heads: 32, kv_groups: 8, layers: 32, context: 100000, window: 4096 } });
  assert.deepEqual(r, { ok: true });
  s = await state();
  assert.equal(s.cost.result.counts.kv_cache[0].bytes, 2 * 32 * 100000 * 32 * 128 * 2);
  assert.equal(s.cost.result.counts.kv_cache[1].bytes, 2 * 32 * 100000 * 8 * 128 * 2);

  // Refusals: the core's code, shown on the page, the last good inputs kept.
  for (const [patch, code] of [[{ heads: 3000 }, 'invalid_field'], [{ window: 0 }, 'invalid_field'],
                               [{ t: 0 }, 'empty_sequence'], [{ t: 2 ** 40 }, 'too_large']]) {
    r = await set({ cost: patch });
    assert.equal(r.ok, false, JSON.stringify(patch));
    assert.equal(r.error.code, code, JSON.stringify(patch));
    s = await state();
    assert.equal(s.cost.error.code, code);
    assert.equal(s.cost.inputs.t, 4096);
    assert.equal(s.cost.inputs.heads, 32);
    await frames(lab.page, 2);
    const v = await view();
    assert.ok(v.errors.some((e) => e.code === code), 'the error is on screen');
  }
  r = await set({ cost: { t: 1024, d_model: 512, heads: 8 } });
  assert.deepEqual(r, { ok: true });
  s = await state();
  assert.equal(s.cost.error, null);
  assert.equal(s.cost.result.counts.pairwise_flops, 4 * 1024 * 1024 * 512);

  // The timing's inputs: refused the same way, the weights map of the last good T kept.
  const mapT = s.cost.inputs.timing_t;
  for (const [patch, code] of [[{ timing_t: 0 }, 'invalid_field'], [{ timing_t: 5000 }, 'too_large'],
                               [{ repeats: 0 }, 'invalid_field'], [{ timing_d: 1.5 }, 'invalid_field']]) {
    r = await set({ cost: patch });
    assert.equal(r.ok, false, JSON.stringify(patch));
    assert.equal(r.error.code, code, JSON.stringify(patch));
    s = await state();
    assert.equal(s.cost.inputs.timing_t, mapT);
    assert.equal(s.cost.result.weights.rows, mapT);
  }
  r = await set({ cost: { repeats: 5 } });
  assert.deepEqual(r, { ok: true });

  // Timing only when asked.
  assert.equal(s.cost.result.timing, null);
  r = await set({ cost: { timing_t: 256, run_timing: true } });
  assert.deepEqual(r, { ok: true });
  s = await state();
  const t = s.cost.result.timing;
  assert.equal(t.input.t, 256);
  assert.equal(t.dense_seconds.length, 5);
  assert.ok(t.dense_median > 0 && t.tiled_median > 0);
  assert.equal(t.flops, 4 * 256 * 256 * 64);
  // The achieved rate shown in the table: the FLOP count over each median.
  assert.ok(Math.abs(t.dense_gflops - t.flops / t.dense_median * 1e-9) <= 1e-12 * t.dense_gflops);
  assert.ok(Math.abs(t.tiled_gflops - t.flops / t.tiled_median * 1e-9) <= 1e-12 * t.tiled_gflops);
  assert.match(t.caveat, /not a verdict/);
  for (const c of s.cost.result.checks) assert.equal(c.pass, true, c.claim);
  await frames(lab.page, 3);
  await lab.page.mouse.move(5, 795);
  await frames(lab.page, 2);
  fs.writeFileSync(path.join(artifacts, 'e2e-cost.png'), await lab.page.screenshot());
});

test('cost panel: 2048x2048 map, hover gives the exact weight of the drawn cell', async () => {
  const { page } = lab;
  let r = await set({ cost: { timing_t: 2048 } });
  assert.deepEqual(r, { ok: true });
  let s = await state();
  assert.equal(s.cost.result.weights.rows, 2048);
  assert.equal(s.cost.result.timing, null, 'a timing of other inputs is dropped');

  // Scroll until the map is entirely in the 1280×800 window.
  let h;
  for (let i = 0; i < 20; ++i) {
    await frames(page, 2);
    h = (await view()).heatmaps.find((x) => x.name === 'weights');
    assert.ok(h, 'the weights map is drawn');
    if (h.rect[1] >= 0 && h.rect[3] <= 800) break;
    await page.mouse.move(700, 400);
    await page.mouse.wheel(0, h.rect[3] > 800 ? 200 : -200);
  }
  assert.equal(h.rows, 2048);
  assert.equal(h.cols, 2048);
  assert.equal(h.truncated, true);
  const [x0, y0, x1, y1] = h.rect;
  assert.ok(y0 >= 0 && y1 <= 800, `map on screen: ${h.rect}`);
  assert.ok(x1 - x0 < 1000 && x1 - x0 > 200, `2048 columns across ${x1 - x0} pixels`);

  for (const [fx, fy] of [[0.37, 0.61], [0.02, 0.97], [0.83, 0.14]]) {
    const px = Math.floor(x0 + fx * (x1 - x0)), py = Math.floor(y0 + fy * (y1 - y0));
    const row = shaderCell(py, y0, y1, 2048), col = shaderCell(px, x0, x1, 2048);
    r = await set({ cost: { probe: [row, col] } });
    assert.deepEqual(r, { ok: true });
    s = await state();
    const probe = s.cost.result.weights.probe;
    assert.deepEqual([probe.row, probe.col], [row, col]);
    await page.mouse.move(px, py);
    await frames(page, 3);
    const hv = (await view()).heatmaps.find((x) => x.name === 'weights').hovered;
    assert.ok(hv, `hovering (${px}, ${py}) reports a cell`);
    assert.deepEqual([hv.row, hv.col], [row, col], `pixel (${px}, ${py})`);
    assert.equal(hv.value, probe.weight, 'the exact double the state holds');
    assert.ok(probe.weight > 0 && probe.weight < 1);
  }
  fs.writeFileSync(path.join(artifacts, 'e2e-cost-map.png'), await page.screenshot());
  await page.mouse.move(5, 795);
  await frames(page, 3);

  // The colour on screen: along 40 pixels of one screen row, each pixel must show viridis of the
  // weight of the cell the formula above names (2048 cells over ~330 pixels: a neighbour cell would
  // give another colour).
  const png = await page.screenshot();
  const py = Math.floor(y0 + 0.52 * (y1 - y0)), px0 = Math.floor(x0 + 0.3 * (x1 - x0));
  const pxs = Array.from({ length: 40 }, (_, i) => px0 + i);
  const rgb = (await pngRead(page, png, pxs.map((x) => [x, py]))).pixels.map((p) => p.slice(0, 3));
  const hv = (await view()).heatmaps.find((x) => x.name === 'weights');
  let worst = 0, distinct = 0;
  for (let i = 0; i < pxs.length; ++i) {
    const row = shaderCell(py, y0, y1, 2048), col = shaderCell(pxs[i], x0, x1, 2048);
    await set({ cost: { probe: [row, col] } });
    const w = (await state()).cost.result.weights.probe.weight;
    await set({ cost: { probe: [row, col + 1] } });
    const wn = (await state()).cost.result.weights.probe.weight;
    const want = viridis8((w - hv.vmin) / (hv.vmax - hv.vmin));
    const next = viridis8((wn - hv.vmin) / (hv.vmax - hv.vmin));
    const d = Math.max(...want.map((v, k) => Math.abs(v - rgb[i][k])));
    if (Math.max(...want.map((v, k) => Math.abs(v - next[k]))) > 4) distinct++;
    worst = Math.max(worst, d);
    assert.ok(d <= 3, `pixel (${pxs[i]}, ${py}) shows ${rgb[i]}, cell (${row}, ${col}) needs ${want}`);
  }
  assert.ok(distinct >= 10, `the check tells neighbours apart (${distinct} of 40 differ from the next cell)`);
  console.log(`# colour check: 40 pixels, max channel difference ${worst}, ${distinct} distinguishable from the next cell`);

  // The timing at T = 2048 (float32), on demand; figures only reported, never asserted.
  r = await set({ cost: { run_timing: true } });
  assert.deepEqual(r, { ok: true });
  s = await state();
  const t = s.cost.result.timing;
  assert.equal(t.input.t, 2048);
  for (const c of s.cost.result.checks) assert.equal(c.pass, true, c.claim);
  console.log(`# browser timing T=2048 d=64 float32: dense ${(t.dense_median * 1e3).toFixed(1)} ms, ` +
              `tiled ${(t.tiled_median * 1e3).toFixed(1)} ms (${t.isa})`);
  await frames(page, 3);
  fs.writeFileSync(path.join(artifacts, 'e2e-cost-timed-2048.png'), await page.screenshot());
});
