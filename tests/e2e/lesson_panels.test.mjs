// Browser tests of the lesson-claim panels: every panel is shown through
// window.attentionLab.showPanel, its checks read through state() must all pass, and each is
// screenshotted to test-artifacts/e2e-lesson-<panel>.png (top of the panel) and
// e2e-lesson-<panel>-more.png (scrolled down). Then the claims themselves, as the page reports them.
// Run: node --test tests/e2e/lesson_panels.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { artifactsDir, frames, pngStats, repoRoot, serveSiteAndChromium } from './lib.mjs';

const artifacts = artifactsDir();

const PANELS = ['masks', 'attribution', 'scaling', 'temperature', 'dropout', 'additive', 'script'];

let lab;  // one page for all: the wasm starts once
await serveSiteAndChromium((server, browser, l) => { lab = l; }, { open: '' });

const state = () => lab.page.evaluate(() => window.attentionLab.state());
const set = (patch) => lab.page.evaluate((p) => window.attentionLab.set(p), patch);
const show = (name) => lab.page.evaluate((n) => window.attentionLab.showPanel(n), name);
const maxAbs = (xs) => Math.max(...xs.map(Math.abs));

// Scroll the panel under the mouse by `steps` wheel notches (one wheel event each; the app reads
// each event as one notch), then let the page draw.
async function scroll(page, steps) {
  await page.mouse.move(800, 450);
  for (let i = 0; i < Math.abs(steps); ++i) {
    await page.mouse.wheel(0, steps > 0 ? 300 : -300);
    await frames(page, 1);
  }
  await page.mouse.move(5, 795);  // park the mouse: no tooltip in the screenshot
  await frames(page, 2);
}

function checksOf(s, panel) {
  const r = s[panel].result;
  return r.checks_shown || r.checks;
}

function assertChecks(s, panel) {
  const checks = checksOf(s, panel);
  assert.ok(Array.isArray(checks) && checks.length > 0, `${panel} shows checks`);
  for (const c of checks) assert.equal(c.pass, true, `${panel}: ${c.claim} = ${c.measured} (limit ${c.limit})`);
}

test('every lesson panel renders, shows no error, and all its checks pass', async () => {
  const { page } = lab;
  for (const name of PANELS) {
    const reply = await show(name);
    assert.equal(reply.ok, true, JSON.stringify(reply));
    await page.mouse.move(5, 795);
    await frames(page, 3);
    const s = await state();
    assert.equal(s.panel, name);
    assert.equal(s[name].error, null, `${name} shows no error`);
    assertChecks(s, name);
    const png = await page.screenshot({ path: path.join(artifacts, `e2e-lesson-${name}.png`) });
    const stats = await pngStats(page, png);
    assert.ok(stats.variance > 200, `${name}: pixel variance ${stats.variance.toFixed(1)} looks blank`);
    assert.ok(stats.colours > 200, `${name}: only ${stats.colours} distinct colours`);
    // The rest of the panel: scroll it (the canvas takes the wheel) and look again.
    await scroll(page, 1);
    await page.screenshot({ path: path.join(artifacts, `e2e-lesson-${name}-more.png`) });
    await scroll(page, 12);
    await page.screenshot({ path: path.join(artifacts, `e2e-lesson-${name}-end.png`) });
  }
  // The position options and the pooling section live at the ends of these two.
  for (const name of ['heads', 'permutation']) {
    await show(name);
    await scroll(page, 12);
    await page.screenshot({ path: path.join(artifacts, `e2e-lesson-${name}-end.png`) });
    assertChecks(await state(), name === 'heads' ? 'heads' : 'permutation');
  }
  assert.deepEqual(lab.problems, [], 'no console errors, page errors or failed requests');
});

test('masks: opens causal; the causal prefix is untouched, padding gets 0, an empty row is refused', async () => {
  let s = await state();
  const m = s.masks.result;
  const causal = [0, 1, 2, 3, 4, 5].map((i) => [0, 1, 2, 3, 4, 5].map((j) => j <= i));
  assert.deepEqual(s.masks.inputs.empty_allowed, causal, 'the grid opens on the causal mask');
  assert.equal(m.empty_rows.rejected, false, 'and the default policy accepts it');
  assert.equal(m.prefix.causal_prefix_change, 0, 'causal prefix change is exactly 0');
  assert.ok(m.prefix.unmasked_prefix_change > 1e-3, `control moves: ${m.prefix.unmasked_prefix_change}`);
  assert.equal(m.padding.max_padded_weight, 0);
  assert.deepEqual(m.padding.ignored_by_loss, [false, false, false, false, true, true]);
  const catMasked = causal.map((row, i) => (i === 1 ? row.map(() => false) : row));
  assert.equal((await set({ masks: { empty_allowed: catMasked } })).ok, true);
  const e = (await state()).masks.result.empty_rows;
  assert.equal(e.rejected, true, 'a row with no allowed key is refused');
  assert.equal(e.error.code, 'no_allowed_key');
  assert.equal((await set({ masks: { empty_allowed: causal } })).ok, true);
  assert.notDeepEqual(m.causal.top_left, m.causal.bottom_right, 'Tq != Tk: the alignments differ');
  assert.equal((await set({ masks: { amount: 5, from: 2, zero_policy: true } })).ok, true);
  s = await state();
  assert.equal(s.masks.result.prefix.causal_prefix_change, 0);
  assert.equal(s.masks.inputs.zero_policy, true);
  const bad = await set({ masks: { from: 0 } });
  assert.equal(bad.ok, false);
  s = await state();
  assert.equal(s.masks.error.code, 'invalid_field', 'the panel shows the error');
  assert.equal(s.masks.inputs.from, 2, 'and keeps the last good input');
  await show('masks');
  await frames(lab.page, 3);
  await lab.page.screenshot({ path: path.join(artifacts, 'e2e-lesson-masks-error.png') });
  assert.equal((await set({ masks: { from: 3, amount: 100, zero_policy: false } })).ok, true);
});

test('attribution: 0.99 on a zero value contributes nothing; output (0.1, 0.2)', async () => {
  const s = await state();
  const ce = s.attribution.result.counterexample;
  assert.ok(Math.abs(ce.output[0] - 0.1) <= 1e-12 && Math.abs(ce.output[1] - 0.2) <= 1e-12, `output ${ce.output}`);
  assert.equal(ce.contribution_norms[ce.top_weight_key], 0);
  // The recall task: make a row whose top weight contributes nothing, checked by the core.
  assert.equal((await set({ attribution: { weights: [0.7, 0.3], values: [[0, 0], [1, 2]] } })).ok, true);
  assert.equal((await set({ recall: { task: 'attribution.zero_top' } })).ok, true);
  const v = (await state()).recall.result.answers['attribution.zero_top'].verdict;
  assert.equal(v.pass, true, v.feedback);
  assert.equal((await set({ attribution: { preset: 'chat' } })).ok, true);
});

test('scaling: var(q.k) ~ d_k, scaled ~ 1; logits 1000/1001 overflow naively, not stably', async () => {
  assert.equal((await set({ scaling: { d_k: 256 } })).ok, true);
  const s = await state();
  const d = s.scaling.result.selected.dot[0];
  assert.equal(d.d_k, 256);
  assert.ok(Math.abs(d.variance / 256 - 1) < 0.15, `var(q.k)/d_k = ${d.variance / 256}`);
  assert.ok(Math.abs(d.scaled_variance - 1) < 0.15);
  const h = s.scaling.result.histograms;
  assert.equal(h.lo, -64, 'one x axis for both: ±4 sqrt(256)');
  assert.equal(h.hi, 64);
  assert.equal(h.y_max, Math.max(...d.histogram, ...d.scaled_histogram), 'one y axis: the taller peak');
  const st = s.scaling.result.stability;
  assert.equal(st.naive_overflowed, true);
  assert.ok(Math.abs(st.stable_weights[0] + st.stable_weights[1] - 1) < 1e-12);
  assertChecks(s, 'scaling');
  assert.equal((await set({ scaling: { d_k: 64 } })).ok, true);
});

test('soft to hard: outputs stay in the hull; argmax has zero gradient', async () => {
  for (const patch of [{ temperature: 0.05 }, { temperature: 20 }, { hard: true }]) {
    assert.equal((await set({ temperature: patch })).ok, true);
    const r = (await state()).temperature.result;
    assert.ok(maxAbs(r.hull_excess) <= 1e-12, `hull excess ${r.hull_excess}`);
    if (patch.hard) assert.equal(maxAbs(r.gradient_norm), 0);
  }
  await show('temperature');
  await frames(lab.page, 3);
  await lab.page.screenshot({ path: path.join(artifacts, 'e2e-lesson-temperature-argmax.png') });
  assert.equal((await set({ temperature: { hard: false, temperature: 0.1 } })).ok, true);  // the default again
});

test('dropout: p = 0 is identical, p = 1 gives zeros, returned rows sum to 1', async () => {
  assert.equal((await set({ dropout: { p: 0 } })).ok, true);
  let d = (await state()).dropout.result;
  assert.deepEqual(d.dropped_weights, d.weights, 'p = 0: nothing dropped');
  assert.equal((await set({ dropout: { p: 1 } })).ok, true);
  d = (await state()).dropout.result;
  assert.equal(maxAbs(d.dropped_weights.flat()), 0);
  assert.equal((await set({ dropout: { p: 0.25, seed: 17 } })).ok, true);
  d = (await state()).dropout.result;
  for (const row of d.weights) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(maxAbs(d.dropout_row_sums.map((x) => x - 1)) > 0, 'sampled row sums differ from 1');
});

test('additive: each step reads the source with weights summing to 1', async () => {
  for (const step of [0, 1, 2]) {
    assert.equal((await set({ additive: { step } })).ok, true);
    const s = await state();
    assert.equal(s.additive.step, step);
    const w = s.additive.result.steps[step].attention.weights;
    assert.ok(Math.abs(w.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assertChecks(s, 'additive');
  }
  assert.deepEqual((await state()).additive.result.steps[1].comparison.names, ['dot', 'scaled_dot', 'general', 'additive']);
});

test('lesson replica: the page shows the matrix the script printed (torch 1.13), within 1e-6', async () => {
  const fixture = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests', 'fixtures', 'lesson-replica-seed17.json'), 'utf8'));
  const s = await state();
  const got = s.script.result.replica.weights.flat(), want = fixture.weights.flat();
  assert.equal(got.length, want.length);
  for (let i = 0; i < want.length; ++i) assert.ok(Math.abs(got[i] - want[i]) <= 1e-6, `entry ${i}: ${got[i]} vs ${want[i]}`);
  // The same through the heads panel's init option.
  const reply = await set({ heads: { init: 'torch_replica', heads: 1, d_k: 8, seed: 17, d_model: 8,
                                     sentence: 'The cat sat on the mat', causal: false, key_padding: false,
                                     positions: 'none' } });
  assert.equal(reply.ok, true, JSON.stringify(reply));
  const h = (await state()).heads.result.heads[0].weights.flat();
  for (let i = 0; i < want.length; ++i) assert.ok(Math.abs(h[i] - want[i]) <= 1e-6, `heads entry ${i}`);
  await show('heads');
  await frames(lab.page, 3);
  await lab.page.screenshot({ path: path.join(artifacts, 'e2e-lesson-heads-replica.png') });
  assert.equal((await set({ heads: { init: 'core', heads: 2, d_k: 4 } })).ok, true);
  assert.equal((await state()).script.result.timing.ran, true);
});

test('positions: RoPE breaks equivariance in both panels; mean pooling is invariant without positions', async () => {
  assert.equal((await set({ permutation: { positions: 'rope' } })).ok, true);
  let s = await state();
  assert.ok(s.permutation.result.max_diff > 1e-3, `RoPE max_diff ${s.permutation.result.max_diff}`);
  for (const c of s.permutation.symmetry.checks) assert.equal(c.pass, true, c.claim);
  await show('permutation');
  await frames(lab.page, 3);
  await lab.page.screenshot({ path: path.join(artifacts, 'e2e-lesson-permutation-rope.png') });
  assert.equal((await set({ permutation: { positions: 'none', causal: false } })).ok, true);
  s = await state();
  assert.ok(s.permutation.symmetry.pooled_diff < 1e-12, 'pooling invariant');
  assert.equal((await set({ heads: { positions: 'rope' } })).ok, true);
  s = await state();
  for (const sums of s.heads.row_sums) assert.ok(maxAbs(sums.map((x) => x - 1)) <= 1e-12);
  assert.equal((await set({ heads: { positions: 'none' } })).ok, true);
});

test('check yourself: predictions are judged by the core', async () => {
  const s = await state();
  const panels = new Set(s.recall.tasks.map((t) => t.panel));
  for (const p of ['masking', 'attribution', 'scaling', 'additive', 'positions', 'temperature', 'dropout', 'timing'])
    assert.ok(panels.has(p), `a task for ${p}`);
  assert.equal((await set({ recall: { task: 'scaling.variance', choice: 2 } })).ok, true);  // "64"
  let v = (await state()).recall.result.answers['scaling.variance'].verdict;
  assert.equal(v.pass, true, v.feedback);
  assert.equal((await set({ recall: { task: 'dropout.row_sums', choice: 0 } })).ok, true);  // "always": wrong
  v = (await state()).recall.result.answers['dropout.row_sums'].verdict;
  assert.equal(v.pass, false);
  await show('scaling');
  await scroll(lab.page, 12);
  await lab.page.screenshot({ path: path.join(artifacts, 'e2e-lesson-recall.png') });
  const bad = await set({ recall: { task: 'no.such.task' } });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.code, 'invalid_field');
  assert.deepEqual(lab.problems, []);
});
