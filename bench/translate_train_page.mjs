#!/usr/bin/env node
// bench/translate_train_page.mjs — a benchmark, not a test: how long the Translate panel takes to
// train its default pair (fixed summary and attention) in the page (headless Chromium, 1280×800),
// against the target of 60 s; both models' held-out exact match per length bucket; and whether the
// run reproduced the shipped checkpoint bit for bit (the panel compares both models' FNV-1a
// parameter hashes with the precomputed native run's).
//
//   node bench/translate_train_page.mjs [--site build/web/site] [--out build/bench-results/translate_train_page.json]
//        [--results bench/RESULTS.md] [--timeout-min 10] [--target-s 60]
//
// The wall time runs from set({translate: {train: true}}) until state() says the run is done
// (polled every 250 ms, so ±0.25 s; it includes the greedy decoding of the 300 test sentences the
// page runs once at the end). Training runs in slices inside frames, so the figure is what a reader
// waits for, drawing included. --results replaces the "### Translate: time to train in the page"
// section of that file (up to the next heading), or appends it. Needs the built page
// (cmake --build --preset web) and scripts/setup.sh's playwright-core.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { launchChromium, openLab, repoRoot, serveStatic } from '../tests/e2e/lib.mjs';

const HEADING = '### Translate: time to train in the page';
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const site = path.resolve(opt('--site', process.env.ATTN_SITE_DIR || path.join(repoRoot, 'build', 'web', 'site')));
const out = path.resolve(opt('--out', path.join(repoRoot, 'build', 'bench-results', 'translate_train_page.json')));
const resultsFile = opt('--results', null);
const timeoutMs = Number(opt('--timeout-min', 10)) * 60000;
const targetS = Number(opt('--target-s', 60));
const POLL_MS = 250;

if (!fs.existsSync(path.join(site, 'index.html'))) {
  console.error(`translate_train_page: no built page in ${site}: run cmake --build --preset web`);
  process.exit(1);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => os.loadavg().map((x) => Number(x.toFixed(2)));
const pct = (x) => `${(100 * x).toFixed(0)}%`;

const loadBefore = load();
const server = await serveStatic(site);
const browser = await launchChromium();
let result;
try {
  const { page, context, problems } = await openLab(browser, server.url + '?panel=translate', { width: 1280, height: 800 });
  const state = () => page.evaluate(() => window.attentionLab.state().translate);
  // Opening the panel fetches the shipped checkpoint; a run declines it, so let it settle first.
  const settle0 = performance.now();
  let start;
  for (;;) {
    await page.evaluate(() => window.attentionLab.nextFrame());
    start = await state();
    if (['installed', 'declined', 'failed'].includes(start.checkpoint.status)) break;
    if (performance.now() - settle0 > 30000) break;
    await sleep(POLL_MS);
  }
  const t0 = performance.now();
  const r = await page.evaluate(() => window.attentionLab.set({ translate: { train: true } }));
  if (!r.ok) throw new Error('set({translate: {train: true}}) refused: ' + JSON.stringify(r.error));
  const samples = [];
  let s;
  for (;;) {
    s = await page.evaluate(() => {
      const h = window.attentionLab.state().translate;
      return { step: h.step, total: h.total, running: h.running, sps: h.steps_per_second, frames: window.attentionLab.frames(), error: h.error };
    });
    const t = (performance.now() - t0) / 1000;
    if ((!s.running && s.step >= s.total) || performance.now() - t0 > timeoutMs) break;
    if (!s.running && s.step < s.total) throw new Error(`training stopped at step ${s.step}: ${JSON.stringify(s.error)}`);
    if (s.sps > 0) samples.push({ t: Number(t.toFixed(2)), step: s.step, steps_per_second: s.sps });
    await sleep(POLL_MS);
  }
  const wallS = (performance.now() - t0) / 1000;
  const timedOut = s.running;
  const h = await state();
  if (!timedOut && h.source !== 'trained here') throw new Error(`the figures are not of this run: source "${h.source}"`);
  const bucket = (b) => ({ lo: b.lo, hi: b.hi, sentences: b.sentences,
    none: { exact_match: b.none.exact_match, token_accuracy: b.none.token_accuracy },
    additive: { exact_match: b.additive.exact_match, token_accuracy: b.additive.token_accuracy } });
  result = {
    bench: 'translate_train_page',
    date: new Date().toISOString(),
    host: os.hostname(),
    cpus: os.cpus().length,
    engine: `Chromium ${browser.version()} (headless, SwiftShader)`,
    viewport: [1280, 800],
    inputs: h.inputs,
    sizes: `E = H = A = ${h.inputs.hidden}, batch 16, Adam lr ${h.inputs.lr}, clip 1`,
    before: { source: start.source, checkpoint: start.checkpoint.status },
    timed_out: timedOut,
    step: h.step,
    total: h.total,
    wall_s: Number(wallS.toFixed(2)),
    steps_per_second_overall: Number((h.step / wallS).toFixed(2)),
    samples,
    accuracy: h.accuracy && { buckets: h.accuracy.buckets.map(bucket), overall: {
      none: h.accuracy.overall.none.exact_match, additive: h.accuracy.overall.additive.exact_match } },
    reproduction: h.reproduction,
    target_s: targetS,
    verdict: !timedOut && wallS <= targetS ? 'PASS' : 'SHORT',
    load_before: loadBefore,
    load_after: load(),
    problems,
  };
  await context.close();
} finally {
  await browser.close();
  await server.close();
}

fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify(result, null, 1) + '\n');

const R = result;
const lines = [HEADING, ''];
lines.push(`Generated by \`node bench/translate_train_page.mjs\` on ${R.date.replace('T', ' ').slice(0, 16)} UTC, host ` +
  `${R.host} (${R.cpus} CPUs), ${R.engine} at ${R.viewport.join('×')}. Load average before: ${R.load_before.join(' ')}; ` +
  `after: ${R.load_after.join(' ')} (SwiftShader draws on the same CPUs).`);
lines.push('');
lines.push(`Panel \`translate\` at its defaults (seed ${R.inputs.seed}, ${R.inputs.steps} steps, ${R.sizes}), both models ` +
  `trained from step 0 with \`set({translate: {train: true}})\`; wall time until the run is done, the test set's ` +
  'greedy decoding included.');
lines.push('');
lines.push('| figure | value |');
lines.push('|---|---|');
lines.push(`| wall time | ${R.timed_out ? 'timed out after ' : ''}${R.wall_s.toFixed(1)} s (target ≤ ${R.target_s} s: ${R.verdict}) |`);
lines.push(`| steps | ${R.step} of ${R.total}, ${R.steps_per_second_overall.toFixed(1)} steps/s overall (both models) |`);
if (R.reproduction) {
  lines.push(`| reproduction | ${R.reproduction.same ? 'bit for bit' : 'DIFFERS'}: FNV-1a ${R.reproduction.none_fnv1a}, ` +
    `${R.reproduction.additive_fnv1a} vs ${R.reproduction.compared_with}'s ${R.reproduction.want_none_fnv1a}, ` +
    `${R.reproduction.want_additive_fnv1a} |`);
}
lines.push('');
if (R.accuracy) {
  lines.push('| source length | test sentences | fixed summary exact (tokens) | attention exact (tokens) |');
  lines.push('|---|---|---|---|');
  for (const b of R.accuracy.buckets) {
    lines.push(`| ${b.lo}–${b.hi} | ${b.sentences} | ${pct(b.none.exact_match)} (${pct(b.none.token_accuracy)}) | ` +
      `${pct(b.additive.exact_match)} (${pct(b.additive.token_accuracy)}) |`);
  }
  lines.push(`| all | | ${pct(R.accuracy.overall.none)} | ${pct(R.accuracy.overall.additive)} |`);
}
if (R.problems.length) lines.push('', `Page problems: ${R.problems.join('; ')}`);
const section = lines.join('\n') + '\n';
console.log(section);
if (resultsFile) {
  const text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '';
  const i = text.indexOf(HEADING);
  let next;
  if (i >= 0) {
    const rest = text.slice(i + HEADING.length);
    const m = rest.search(/\n#{2,3} /);
    next = text.slice(0, i) + section + (m >= 0 ? rest.slice(m) : '');
  } else {
    next = text + (text.endsWith('\n') ? '\n' : '\n\n') + section;
  }
  fs.writeFileSync(resultsFile, next);
  console.log(`wrote ${resultsFile}`);
}
console.log(`wrote ${path.relative(process.cwd(), out) || out}`);
