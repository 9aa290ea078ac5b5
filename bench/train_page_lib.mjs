// bench/train_page_lib.mjs — what the two "time to train in the page" benchmarks share
// (heads_train_page.mjs, translate_train_page.mjs): their command-line options, the headless
// Chromium they run in, and the timed training loop, which samples the page's own
// steps_per_second while the panel trains.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { launchChromium, repoRoot, serveStatic } from '../tests/e2e/lib.mjs';

export const POLL_MS = 250;
// state() builds the JSON of every panel (4–13 ms while Learned heads trains): a bench that
// called it every 250 ms lengthened the frames it measures. It samples every SAMPLE_MS instead
// and learns of the end from the page's own "trained" event.
export const SAMPLE_MS = 2000;
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

/** Wait (at most `timeoutMs`) until the training Worker has finished rehearsing the panel just
 *  opened (attentionLab.trainWorker(); web/worker/train_worker_api.js), as a reader who opens the
 *  panel and reads before pressing Train gives it time to. Returns the last rehearsal {steps, ms,
 *  ended}, or null when there was none (no Worker, or none within the time). */
export async function awaitRehearsal(page, timeoutMs = 15000) {
  const t0 = performance.now();
  for (;;) {
    const w = await page.evaluate(() => (window.attentionLab.trainWorker ? window.attentionLab.trainWorker() : null));
    if (w && w.rehearsals.length) return w.rehearsals[w.rehearsals.length - 1];
    if (!w || performance.now() - t0 > timeoutMs) return null;
    await sleep(POLL_MS);
  }
}

/** One line on the rehearsal (awaitRehearsal's result) for a bench's report. */
export function rehearsalLine(r) {
  return r ? `the Worker rehearsed ${r.steps} steps of the run in ${r.ms} ms before Train (ended: ${r.ended})`
    : 'no rehearsal by the Worker before Train';
}

/** One line on the Worker's slices and its wait after each (timeTraining's sliceMs, restMs) for a bench's report. */
export function paceLine(sliceMs, restMs, cpus) {
  return restMs === null || restMs === undefined ? 'no run in the Worker'
    : `${sliceMs === null || sliceMs === undefined ? 'slices' : `slices of ${sliceMs} ms`}, ${restMs} ms of rest after each, ` +
      `on this machine of ${cpus} logical cores (a panel's rest applies on at most 2)`;
}

/** "after each N ms slice" (timeTraining's sliceMs), or "after each slice" when no Worker reported one. */
export function afterSlice(ms) {
  return ms === null || ms === undefined ? 'after each slice' : `after each ${ms} ms slice`;
}

/**
 * Start the panel `key` training with set({key: {train: true}}) and wait until the page's
 * "trained" event for `key` (embed.js dispatches it on window as an `attention-lab` CustomEvent),
 * `finished(s)` or `timeoutMs`. Every SAMPLE_MS `poll()` (state(), which costs the page a few ms)
 * samples the rate and `check(s)` (may throw) sees it; in between only a flag is read.
 * steps_per_second is the page's own rate over its last second of training.
 * wallS runs, on the page's clock, from the set() call to the event (±1 frame). Without it
 * (events turned off), to the first POLL_MS check that found the run over: view(-1).busy (the
 * view's outline, cheap) false after it was true; endedBy says which. Returns {s: the last poll,
 * samples, wallS, endedBy ("event", "not busy", "poll" or "timeout"), frames, sliceMs and restMs (the
 * Worker's slices and its wait between them as it reported them, attentionLab.trainWorker()'s
 * slice_ms and rest_ms; null without a Worker run)}.
 */
export async function timeTraining(page, key, { poll, finished, check = () => {}, timeoutMs }) {
  // Frame times while training: the intervals between requestAnimationFrame callbacks, which the
  // page's own frame (a training slice, then drawing) delays like any other.
  await page.evaluate((k) => {
    const rec = { times: [], last: null, on: true, trainedAt: null, t0: null };
    window.__trainFrames = rec;
    window.addEventListener('attention-lab', (e) => {
      const d = e.detail || {};
      // This run's end: the checkpoint installed before it posts "trained" too, with source "checkpoint".
      if (d.type === 'attention-lab:trained' && d.panel === k && d.source === 'trained here' && rec.trainedAt === null)
        rec.trainedAt = performance.now();
    });
    const tick = (t) => {
      if (rec.last !== null) rec.times.push(t - rec.last);
      rec.last = t;
      if (rec.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, key);
  const t0 = performance.now();
  const r = await page.evaluate((k) => {
    window.__trainFrames.t0 = performance.now();
    return window.attentionLab.set({ [k]: { train: true } });
  }, key);
  if (!r.ok) throw new Error(`set({${key}: {train: true}}) refused: ` + JSON.stringify(r.error));
  const samples = [];
  let s, lastSample = -Infinity, endedAt = null, endedBy = 'timeout', seenBusy = false;
  for (;;) {
    const p = await page.evaluate(() => ({ trainedAt: window.__trainFrames.trainedAt, busy: window.attentionLab.view(-1).busy,
                                           now: performance.now() }));
    seenBusy = seenBusy || p.busy;
    const over = p.trainedAt !== null || (seenBusy && !p.busy);
    const now = performance.now();
    if (over || now - lastSample >= SAMPLE_MS) {
      lastSample = now;
      s = await poll();
      const t = (performance.now() - t0) / 1000;
      if (over || finished(s)) {
        endedAt = p.trainedAt !== null ? p.trainedAt : over ? p.now : null;
        endedBy = p.trainedAt !== null ? 'event' : over ? 'not busy' : 'poll';
        break;
      }
      if (performance.now() - t0 > timeoutMs) break;
      check(s);
      if (s.sps > 0) samples.push({ t: Number(t.toFixed(2)), step: s.step, steps_per_second: s.sps });
    }
    await sleep(POLL_MS);
  }
  const rec = await page.evaluate(() => {
    const f = window.__trainFrames;
    f.on = false;
    const w = window.attentionLab.trainWorker ? window.attentionLab.trainWorker() : null;
    return { times: f.times, t0: f.t0, now: performance.now(), sliceMs: w ? w.slice_ms : null, restMs: w ? w.rest_ms : null };
  });
  const wallS = ((endedAt !== null ? endedAt : rec.now) - rec.t0) / 1000;
  return { s, samples, wallS, endedBy, frames: frameStats(rec.times), sliceMs: rec.sliceMs ?? null,
           restMs: rec.restMs ?? null };
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
