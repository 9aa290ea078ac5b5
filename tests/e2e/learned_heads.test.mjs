// Browser test of the Learned heads panel: opened by ?panel=learned_heads (a link parameter sets
// an input), training started through set({learned_heads: {train: true}}) runs in per-frame
// slices while the page keeps drawing; the loss of steps 41–50 is below that of steps 1–10;
// pausing holds the step, continuing resumes from the same step with the same losses; a bad input
// (heads 3) is refused with the last good state kept; the interventions run on demand when
// paused. Screenshots at 1280 and 390 CSS pixels wide: test-artifacts/e2e-learned-heads-*.png.
// Run: node --test tests/e2e/learned_heads.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { frames, launchChromium, openLab, repoRoot, serveStatic, siteDir } from './lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });

let server, browser;
before(async () => {
  server = await serveStatic(siteDir());
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function api(page) {
  return {
    state: () => page.evaluate(() => window.attentionLab.state().learned_heads),
    set: (patch) => page.evaluate((p) => window.attentionLab.set({ learned_heads: p }), patch),
    frames: async (n) => { for (let i = 0; i < n; ++i) await page.evaluate(() => window.attentionLab.nextFrame()); },
    async waitStep(min, timeoutMs = 240000) {
      const t0 = Date.now();
      for (;;) {
        const s = await page.evaluate(() => { const h = window.attentionLab.state().learned_heads; return { step: h.step, running: h.running }; });
        if (s.step >= min) return s.step;
        if (!s.running) throw new Error(`training stopped at step ${s.step} before step ${min}`);
        if (Date.now() - t0 > timeoutMs) throw new Error(`step ${s.step} after ${timeoutMs} ms, waiting for ${min}`);
        await sleep(250);
      }
    },
  };
}

async function scrolled(page, name, stops) {
  // The panel scrolls inside the canvas: wheel over it and take a screenshot per stop.
  await page.mouse.move(page.viewportSize().width * 0.7, page.viewportSize().height * 0.6);
  for (let i = 0; i < stops; ++i) {
    await page.screenshot({ path: path.join(artifacts, `${name}-${i}.png`) });
    await page.mouse.wheel(0, page.viewportSize().height * 0.8);
    await frames(page, 4);
  }
}

test('learned heads: train, pause, continue, refuse a bad input, interventions', async () => {
  const lab = await openLab(browser, server.url + '?panel=learned_heads&learned_heads.steps=1500');
  const { page, context, problems } = lab;
  const h = api(page);
  let s = await h.state();
  assert.equal((await page.evaluate(() => window.attentionLab.state().panel)), 'learned_heads');
  assert.equal(s.inputs.steps, 1500, 'the link parameter set the steps');
  assert.equal(s.step, 0);
  assert.equal(s.status, 'idle');
  assert.equal(s.error, null);
  assert.deepEqual(s.snapshot_steps, [0], 'a snapshot of the initial weights');
  assert.equal(s.latest.scores.length, 8, '2 layers x 4 heads');

  let r = await h.set({ train: true });
  assert.equal(r.ok, true, JSON.stringify(r));
  // The page keeps drawing while it trains (frames are presented between slices).
  const f0 = await page.evaluate(() => window.attentionLab.state().frames);
  await h.waitStep(50);
  const f1 = await page.evaluate(() => window.attentionLab.state().frames);
  assert.ok(f1 - f0 >= 10, `frames drawn while training: ${f1 - f0}`);
  s = await h.state();
  assert.equal(s.losses.stride, 1);
  const tr = s.losses.train;
  assert.ok(tr.length >= 50 && tr.every(Number.isFinite));
  const early = mean(tr.slice(0, 10)), late = mean(tr.slice(40, 50));
  assert.ok(late < early, `mean loss of steps 41-50 (${late}) below steps 1-10 (${early})`);
  assert.ok(s.steps_per_second > 0, 'a rate is shown');
  assert.ok(s.progress > 0 && s.progress < 1);

  // Pause: the step stays.
  r = await h.set({ pause: true });
  assert.equal(r.ok, true);
  s = await h.state();
  const pausedAt = s.step, pausedLosses = s.losses.train;
  assert.equal(s.status, 'paused');
  await h.frames(10);
  await sleep(500);
  s = await h.state();
  assert.equal(s.step, pausedAt, 'paused: the step stays');

  // Interventions on demand while paused.
  r = await h.set({ interventions: true, ablate: [4, 5], ablate_mode: 'zero' });
  assert.equal(r.ok, true, JSON.stringify(r));
  s = await h.state();
  assert.equal(s.interventions.step, pausedAt);
  assert.equal(s.interventions.heads.length, 8);
  for (const x of s.interventions.heads) assert.ok(Number.isFinite(x.zero_delta_loss) && Number.isFinite(x.recovered));
  assert.ok(s.decoding.max_logit_diff < 1e-9, `parallel vs cached: ${s.decoding.max_logit_diff}`);
  assert.equal(s.decoding.parallel_passes, 1);
  assert.equal(s.decoding.sequential_steps, 32);
  assert.equal(s.combined.heads.length, 2);

  // Continue: resumes from the same step, the losses so far unchanged.
  r = await h.set({ continue: true });
  assert.equal(r.ok, true);
  await h.waitStep(pausedAt + 5);
  s = await h.state();
  assert.deepEqual(s.losses.train.slice(0, pausedAt), pausedLosses, 'the run resumed where it stopped');

  // A bad input: refused, the last good inputs and the run kept.
  const before = s.step;
  r = await h.set({ heads: 3 });
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'invalid_field');
  s = await h.state();
  assert.equal(s.error.code, 'invalid_field');
  assert.match(s.error.message, /heads/);
  assert.equal(s.inputs.heads, 4);
  assert.ok(s.step >= before, 'the run was not reset');
  assert.deepEqual(s.losses.train.slice(0, pausedAt), pausedLosses);
  r = await h.set({ steps: 0 });
  assert.equal(r.ok, false);
  assert.equal((await h.state()).inputs.steps, 1500);

  await h.set({ pause: true });
  await h.set({ interventions: true });
  await frames(page, 4);
  await scrolled(page, 'e2e-learned-heads-1280', 4);
  assert.deepEqual(problems, []);
  await context.close();
});

test('learned heads: phone width (390 px)', async () => {
  const lab = await openLab(browser, server.url + '?panel=learned_heads', { width: 390, height: 844 });
  const { page, context, problems } = lab;
  const h = api(page);
  await h.set({ train: true });
  await h.waitStep(30);
  await h.set({ pause: true });
  await h.set({ interventions: true });
  await frames(page, 4);
  await scrolled(page, 'e2e-learned-heads-390', 9);
  assert.deepEqual(problems, []);
  await context.close();
});
