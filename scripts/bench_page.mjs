#!/usr/bin/env node
// scripts/bench_page.mjs — figures for the page (not a test): download sizes, time to the
// first frame and frame times at the default state, in headless Chromium (SwiftShader, so
// GPU work runs on the CPU here: real machines draw faster); then the Cost panel
// (?panel=cost) with its 2048×2048 weights map on screen and the pointer on it (hover
// outline and tooltip), as frame interval and frames per second.
//
//   node scripts/bench_page.mjs [--site build/web/site] [--runs 3] [--frames 300]
//
// Needs the built page (cmake --build --preset web) and scripts/setup.sh's playwright-core.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

import { launchChromium, openLab, repoRoot, serveStatic } from '../tests/e2e/lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const site = path.resolve(opt('--site', path.join(repoRoot, 'build', 'web', 'site')));
const runs = Number(opt('--runs', 3));
const nFrames = Number(opt('--frames', 300));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2])) : NaN;
};
const kib = (n) => (n / 1024).toFixed(1).padStart(8) + ' KiB';

// Targets for the page. The page budget: first download (JS + wasm) at most 800 KB gzip
// (KB = 1000 bytes, the stricter reading); first frame and frame interval as below.
const TARGET = { gzipBytes: 800 * 1000, firstFrameMs: 1500, frameMs: 16.7 };
const verdict = (ok) => (ok ? 'PASS ' : 'SHORT');

console.log(`Attention Lab page benchmark (${site})`);
console.log('\nbytes                   raw         gzip -9');
let codeGzip = 0;
// The first download: the page's wasm and its two scripts (tests/e2e/budget.test.mjs checks the
// same sum from what Chromium fetches); index.html is shown beside them.
for (const f of ['attention_lab.wasm', 'attention_lab.js', 'embed.js', 'index.html']) {
  const file = path.join(site, f);
  if (!fs.existsSync(file)) { console.error(`missing ${file}: build the web preset first`); process.exit(1); }
  const raw = fs.readFileSync(file);
  const gz = zlib.gzipSync(raw, { level: 9 });
  if (f !== 'index.html') codeGzip += gz.length;
  console.log(`  ${f.padEnd(20)}${kib(raw.length)}${kib(gz.length)}`);
}
console.log(`  ${'JS + wasm'.padEnd(20)}${''.padStart(12)}${kib(codeGzip)}  = ${(codeGzip / 1000).toFixed(1)} KB`);

/** `warmup` frames, then the intervals and work times of the next `n` frames, requested back to
 *  back from inside the page (V8 starts wasm in its baseline tier and optimises hot functions later). */
async function frameTimes(page, warmup, n) {
  await page.evaluate(async (k) => { for (let i = 0; i < k; ++i) await window.attentionLab.nextFrame(); }, warmup);
  return page.evaluate(async (k) => {
    const before = window.attentionLab.frames();
    while (window.attentionLab.frames() < before + k) await window.attentionLab.nextFrame();
    const s = window.attentionLab.frameStats();
    return { intervals: s.intervals.slice(-k), work: s.work.slice(-k) };
  }, n);
}

const server = await serveStatic(site);
const browser = await launchChromium();
const firstFrame = [], intervals = [], work = [];
try {
  for (let r = 0; r < runs; ++r) {
    // A fresh context each run: no HTTP cache, no compiled-wasm cache in that profile.
    const { page, context } = await openLab(browser, server.url, { width: 1280, height: 800 });
    firstFrame.push(await page.evaluate(() => window.attentionLab.firstFrameAt));
    // Frame times at the default state (alignment panel), after a warm-up.
    const stats = await frameTimes(page, 120, nFrames);
    intervals.push(median(stats.intervals));
    work.push(median(stats.work));
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
}

// The Cost panel at T = 2048: the map scrolled into view, the pointer sweeping across it.
const costIntervals = [], costWork = [], smallIntervals = [];
{
  const server2 = await serveStatic(site);
  const browser2 = await launchChromium();
  try {
    for (let r = 0; r < runs; ++r) {
      const { page, context } = await openLab(browser2, server2.url + '?panel=cost', { width: 1280, height: 800 });
      await page.evaluate(() => window.attentionLab.set({ cost: { timing_t: 2048 } }));
      let h;
      for (let i = 0; i < 20; ++i) {
        await page.evaluate(async () => { await window.attentionLab.nextFrame(); await window.attentionLab.nextFrame(); });
        h = (await page.evaluate(() => window.attentionLab.view(2500))).heatmaps.find((x) => x.name === 'weights');
        if (h && h.rect[1] >= 0 && h.rect[3] <= 800) break;
        await page.mouse.move(700, 400);
        await page.mouse.wheel(0, h && h.rect[3] > 800 ? 200 : -200);
      }
      if (!h || h.cols !== 2048) throw new Error('the cost panel shows no 2048-column map');
      const [x0, y0, x1, y1] = h.rect;
      // The pointer rests on the map (hover outline and tooltip drawn every frame); frames are
      // requested back to back from inside the page, as for the default state above.
      await page.mouse.move(Math.round(x0 + 0.4 * (x1 - x0)), Math.round(y0 + 0.6 * (y1 - y0)));
      const stats = await frameTimes(page, 120, nFrames);
      costIntervals.push(median(stats.intervals));
      costWork.push(median(stats.work));
      // The same panel with a 128×128 map: what the 2048² texture itself costs per frame.
      await page.evaluate(() => window.attentionLab.set({ cost: { timing_t: 128 } }));
      const small = (await frameTimes(page, 60, nFrames)).intervals;
      smallIntervals.push(median(small));
      await context.close();
    }
  } finally {
    await browser2.close();
    await server2.close();
  }
}

const fmt = (xs) => `median ${median(xs).toFixed(1)} ms  (runs: ${xs.map((x) => x.toFixed(1)).join(', ')})`;
console.log(`\nnavigation -> first frame drawn   ${fmt(firstFrame)}`);
console.log(`frame interval, default state    ${fmt(intervals)}  [requestAnimationFrame pacing]`);
console.log(`main-thread work per frame       ${fmt(work)}  [ImGui + draw submission]`);
console.log(`cost panel, 2048x2048 map, hover  ${fmt(costIntervals)}  -> ${(1000 / median(costIntervals)).toFixed(1)} FPS`);
console.log(`  main-thread work per frame      ${fmt(costWork)}`);
console.log(`cost panel, 128x128 map          ${fmt(smallIntervals)}  -> ${(1000 / median(smallIntervals)).toFixed(1)} FPS`);
console.log(`load average at the end          ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (${os.cpus().length} cores): SwiftShader draws on these CPUs`);
const ff = median(firstFrame), iv = median(intervals);
console.log('\ntargets');
console.log(`  ${verdict(codeGzip <= TARGET.gzipBytes)}  JS + wasm gzip ${(codeGzip / 1000).toFixed(1)} KB <= ${TARGET.gzipBytes / 1000} KB`);
console.log(`  ${verdict(ff <= TARGET.firstFrameMs)}  first frame ${ff.toFixed(0)} ms <= ${TARGET.firstFrameMs} ms after navigation`);
console.log(`  ${verdict(iv <= TARGET.frameMs)}  median frame interval ${iv.toFixed(1)} ms <= ${TARGET.frameMs} ms at the default state`);
console.log(`  ${verdict(1000 / median(costIntervals) >= 30)}  2048x2048 heatmap ${(1000 / median(costIntervals)).toFixed(1)} FPS >= 30 (cost panel, pointer on the map)`);
console.log(`\n(${runs} runs, ${nFrames} frames each after 120 warm-up frames; headless Chromium, SwiftShader WebGL2, 1280x800 @1x)`);
