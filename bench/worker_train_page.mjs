#!/usr/bin/env node
// bench/worker_train_page.mjs — a benchmark, not a test: would training in a Web Worker pay here?
// The page draws the Learned heads panel every frame (1280×800, headless Chromium, SwiftShader)
// while the training benchmark's decoder (bench/train_bench.cpp: V 16, T 32, d 32, 2 layers × 4
// heads, batch 32 — the Learned heads default model) trains in a Worker, and the figures are
// compared with the same program in the Worker while the page is idle, and with the panel's own
// training, which shares the page's thread with drawing (slices of kTrainSliceSeconds a frame).
//
//   node bench/worker_train_page.mjs [--site build/web/site] [--bench build/web/bench]
//        [--seconds 12] [--out build/bench-results/worker_train_page.json]
//
// Phases, one after the other in one page: (1) drawing only: a frame asked for every frame
// (attentionLab.nextFrame), as while the panel trains; (2) the Worker trains, the page idle;
// (3) the Worker trains while the page draws every frame; (4) the panel trains in the page
// (set({learned_heads: {train: true}}) for the same time). Frame figures are the intervals
// between requestAnimationFrame callbacks; the Worker's rate is train_bench's steps/s (median
// round). Needs the web build (train_bench_wasm.js, built for web, worker and node).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { openLab, repoRoot } from '../tests/e2e/lib.mjs';
import { benchOptions, frameStats, inChromium, load, resultHead, sleep, writeResult } from './train_page_lib.mjs';

const { opt, site, out } = benchOptions('worker_train_page');
const benchDir = path.resolve(opt('--bench', path.join(repoRoot, 'build', 'web', 'bench')));
const seconds = Number(opt('--seconds', 12));
for (const f of ['train_bench_wasm.js', 'train_bench_wasm.wasm']) {
  if (!fs.existsSync(path.join(benchDir, f))) {
    console.error(`worker_train_page: no ${f} in ${benchDir}: run cmake --build --preset web`);
    process.exit(1);
  }
}

// One folder served: the site, the benchmark program and the Worker's script beside it.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-worker-bench-'));
fs.cpSync(site, dir, { recursive: true });
for (const f of ['train_bench_wasm.js', 'train_bench_wasm.wasm']) fs.copyFileSync(path.join(benchDir, f), path.join(dir, f));
fs.writeFileSync(path.join(dir, 'train_worker.js'), `
self.onmessage = (e) => {
  self.Module = { arguments: e.data, print: (l) => postMessage(l), printErr: (l) => postMessage('ERR ' + l) };
  importScripts('train_bench_wasm.js');
};
`);

const loadBefore = load();
const result = await inChromium(dir, async (browser, server) => {
  const { page, context, problems } = await openLab(browser, server.url + '?panel=learned_heads&train_worker=0', { width: 1280, height: 800 });  // the panel's own steps in the page's thread (phase 4)
  for (let i = 0; i < 120; ++i) {  // the shipped checkpoint installs first: the panel at rest
    const st = await page.evaluate(() => window.attentionLab.state().learned_heads.checkpoint.status);
    if (['installed', 'declined', 'failed'].includes(st)) break;
    await sleep(250);
  }
  await sleep(1000);

  // In the page: frame intervals for `ms`, asking for a frame every frame when `draw`.
  const frames = (ms, draw) => page.evaluate(async ({ ms, draw }) => {
    const lab = window.attentionLab, times = [];
    let last = null;
    const t0 = performance.now();
    await new Promise((resolve) => {
      const tick = (t) => {
        if (last !== null) times.push(t - last);
        last = t;
        if (draw) lab.nextFrame();
        if (performance.now() - t0 < ms) requestAnimationFrame(tick); else resolve();
      };
      requestAnimationFrame(tick);
    });
    return times;
  }, { ms, draw });
  // The Worker: train_bench for the decoder, rounds of 1 s; its BENCH line when it is done.
  const startWorker = () => page.evaluate((rounds) => {
    const w = new Worker('train_worker.js');
    window.__worker = { lines: [], done: false };
    w.onmessage = (e) => {
      window.__worker.lines.push(e.data);
      if (String(e.data).trim() === 'BENCH_DONE') window.__worker.done = true;
    };
    w.postMessage(['--model', 'decoder', '--rounds', String(rounds), '--round-time', '1', '--warmup-time', '1']);
  }, Math.max(1, Math.round(seconds)));
  const workerResult = async () => {
    for (let i = 0; i < 4 * 60 * 10; ++i) {
      const w = await page.evaluate(() => window.__worker);
      if (w.done) {
        const bench = w.lines.filter((l) => String(l).startsWith('BENCH ')).map((l) => JSON.parse(l.slice(6)));
        if (!bench.length) throw new Error('the Worker gave no result: ' + w.lines.join('\n'));
        return bench[0];
      }
      await sleep(250);
    }
    throw new Error('the Worker did not finish');
  };
  const ms = seconds * 1000;

  const drawing = frameStats(await frames(ms, true));
  await startWorker();
  const idleFrames = frameStats(await frames(ms + 2000, false));
  const alone = await workerResult();
  await startWorker();
  const withDrawing = frameStats(await frames(ms + 2000, true));
  const beside = await workerResult();
  // The panel's own training for the same time: the page's rate, sampled at the end.
  const r = await page.evaluate(() => window.attentionLab.set({ learned_heads: { train: true } }));
  if (!r.ok) throw new Error('set({learned_heads: {train: true}}) refused: ' + JSON.stringify(r.error));
  const inPage = frameStats(await frames(ms, false));
  const s = await page.evaluate(() => window.attentionLab.state().learned_heads);
  const res = {
    ...resultHead('worker_train_page', browser),
    viewport: [1280, 800],
    seconds,
    model: 'train_bench decoder (V 16, T 32, d 32, 2 layers x 4 heads, batch 32)',
    drawing_only: { frames: drawing },
    worker_page_idle: { steps_per_second: alone.steps_per_s_median, frames: idleFrames },
    worker_page_drawing: { steps_per_second: beside.steps_per_s_median, frames: withDrawing },
    panel_in_page: { steps_per_second: s.steps_per_second, step: s.step, frames: inPage },
    load_before: loadBefore,
    load_after: load(),
    problems,
  };
  await context.close();
  return res;
});
fs.rmSync(dir, { recursive: true, force: true });
writeResult(out, result);

const f = (x) => `median ${x.median_ms} ms, 95th percentile ${x.p95_ms} ms, largest ${x.max_ms} ms, ${x.over_budget} of ${x.count} over 50 ms`;
const R = result;
console.log(`worker_train_page: ${R.engine}, ${R.cpus} CPUs, ${R.seconds} s per phase, load ${R.load_before.join(' ')} -> ${R.load_after.join(' ')}`);
console.log(`  drawing every frame, nothing training:    frames ${f(R.drawing_only.frames)}`);
console.log(`  Worker training, page idle:               ${R.worker_page_idle.steps_per_second.toFixed(1)} steps/s`);
console.log(`  Worker training, page drawing each frame: ${R.worker_page_drawing.steps_per_second.toFixed(1)} steps/s; frames ${f(R.worker_page_drawing.frames)}`);
console.log(`  the panel training in the page's thread:  ${R.panel_in_page.steps_per_second.toFixed(1)} steps/s; frames ${f(R.panel_in_page.frames)}`);
console.log(`wrote ${out}`);
