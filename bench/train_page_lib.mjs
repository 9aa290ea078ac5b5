// bench/train_page_lib.mjs — what the two "time to train in the page" benchmarks share
// (heads_train_page.mjs, translate_train_page.mjs): their command-line options, the headless
// Chromium they run in, and the timed training loop, which samples the page's own
// steps_per_second while the panel trains.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { launchChromium, repoRoot, serveStatic } from '../tests/e2e/lib.mjs';

export const POLL_MS = 250;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const load = () => os.loadavg().map((x) => Number(x.toFixed(2)));

/** The options both take: --site, --out (default build/bench-results/<name>.json), --timeout-min,
 *  --target-s (default 20 s); `opt(name, dflt)` reads any other. Exits with a message when the page is not built. */
export function benchOptions(name) {
  const args = process.argv.slice(2);
  const opt = (flag, dflt) => {
    const i = args.indexOf(flag);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
  };
  const site = path.resolve(opt('--site', process.env.ATTN_SITE_DIR || path.join(repoRoot, 'build', 'web', 'site')));
  const out = path.resolve(opt('--out', path.join(repoRoot, 'build', 'bench-results', `${name}.json`)));
  const timeoutMs = Number(opt('--timeout-min', 10)) * 60000;
  const targetS = Number(opt('--target-s', 20));
  if (!fs.existsSync(path.join(site, 'index.html'))) {
    console.error(`${name}: no built page in ${site}: run cmake --build --preset web`);
    process.exit(1);
  }
  return { opt, site, out, timeoutMs, targetS };
}

/** Serve `site`, launch Chromium, run `fn(browser, server)`, and close both whatever happens. */
export async function inChromium(site, fn) {
  const server = await serveStatic(site);
  const browser = await launchChromium();
  try {
    return await fn(browser, server);
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * Start the panel `key` training with set({key: {train: true}}) and poll `poll()` every POLL_MS
 * until `finished(s)` or `timeoutMs`; `check(s)` (may throw) sees every other poll. steps_per_second
 * is the page's own rate over its last second of training: sampled while training.
 * Returns {s: the last poll, samples, wallS}.
 */
export async function timeTraining(page, key, { poll, finished, check = () => {}, timeoutMs }) {
  // Frame times while training: the intervals between requestAnimationFrame callbacks, which the
  // page's own frame (a training slice, then drawing) delays like any other.
  await page.evaluate(() => {
    const rec = { times: [], last: null, on: true };
    window.__trainFrames = rec;
    const tick = (t) => {
      if (rec.last !== null) rec.times.push(t - rec.last);
      rec.last = t;
      if (rec.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const t0 = performance.now();
  const r = await page.evaluate((k) => window.attentionLab.set({ [k]: { train: true } }), key);
  if (!r.ok) throw new Error(`set({${key}: {train: true}}) refused: ` + JSON.stringify(r.error));
  const samples = [];
  let s;
  for (;;) {
    s = await poll();
    const t = (performance.now() - t0) / 1000;
    if (finished(s) || performance.now() - t0 > timeoutMs) break;
    check(s);
    if (s.sps > 0) samples.push({ t: Number(t.toFixed(2)), step: s.step, steps_per_second: s.sps });
    await sleep(POLL_MS);
  }
  const wallS = (performance.now() - t0) / 1000;
  const times = await page.evaluate(() => {
    window.__trainFrames.on = false;
    return window.__trainFrames.times;
  });
  return { s, samples, wallS, frames: frameStats(times) };
}

/** Frame-time figures (ms) of a list of frame intervals: count, median, 95th percentile, largest,
 *  and how many exceed 50 ms (the frame budget while training). */
export function frameStats(times, budgetMs = 50) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);
  const r1 = (x) => Number(x.toFixed(1));
  return {
    count: sorted.length,
    median_ms: r1(at(0.5)),
    p95_ms: r1(at(0.95)),
    max_ms: r1(sorted.length ? sorted[sorted.length - 1] : NaN),
    budget_ms: budgetMs,
    // Intervals come in whole display refreshes (16.7 ms): three of them, 50.0 ms give or take
    // timer jitter, are within the budget.
    over_budget: sorted.filter((x) => x > budgetMs + 0.5).length,
  };
}

/** The first fields of a result: which bench, when, where, in which browser. */
export function resultHead(bench, browser) {
  return {
    bench,
    date: new Date().toISOString(),
    host: os.hostname(),
    cpus: os.cpus().length,
    engine: `Chromium ${browser.version()} (headless, SwiftShader)`,
  };
}

/** The last fields of a result: the target, the verdicts (time: done within it; frames: none over
 *  the budget; verdict: both), the load
 *  average before and now, and the page's problems. */
export function resultTail({ targetS, timedOut, wallS, frames, loadBefore, problems }) {
  return {
    target_s: targetS,
    // Both targets: trained within targetS, and no frame over the budget meanwhile.
    verdict: !timedOut && wallS <= targetS && (!frames || frames.over_budget === 0) ? 'PASS' : 'SHORT',
    time_verdict: !timedOut && wallS <= targetS ? 'PASS' : 'SHORT',
    frames_verdict: !frames ? null : frames.over_budget === 0 ? 'PASS' : 'SHORT',
    load_before: loadBefore,
    load_after: load(),
    problems,
  };
}

/** Write `result` as JSON (one space indent) to `out`, creating its folder. */
export function writeResult(out, result) {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
}
