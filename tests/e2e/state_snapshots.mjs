// tests/e2e/state_snapshots.mjs — what the page shows, as data, for every panel at its default
// inputs and after each scripted change the browser tests make: state() (timings removed, slow
// studies waited for), the link the page writes, and the text mirror (view()). A refactor that
// keeps behaviour leaves all three identical to the bit; state_snapshots.test.mjs compares them
// with the committed tests/e2e/snapshots/state.json.
//
// Write the snapshot:   node tests/e2e/state_snapshots.mjs --write   (after a deliberate change)
// Screenshots as well:  node tests/e2e/state_snapshots.mjs --screens DIR   (one PNG per step)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

import { frames, launchChromium, openLab, repoRoot, serveStatic, siteDir } from './lib.mjs';

// Brotli-compressed JSON (9 MB of text, 0.2 MB stored).
export const SNAPSHOT_FILE = path.join(repoRoot, 'tests', 'e2e', 'snapshots', 'state.json.br');

export function readSnapshots(file = SNAPSHOT_FILE) {
  return JSON.parse(zlib.brotliDecompressSync(fs.readFileSync(file)).toString('utf8'));
}

// Fields that measure the machine rather than the lesson (wall-clock timings, frame counts).
const TIMING_KEYS = new Set(['frames', 'steps_per_second', 'attention_seconds', 'lstm_seconds', 'timing_runs',
  'seconds', 'elapsed_seconds', 'ms', 'fps', 'timing', 'frame']);

/** A deep copy of `v` without the timing fields. */
export function withoutTimings(v) {
  if (Array.isArray(v)) return v.map(withoutTimings);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v)) if (!TIMING_KEYS.has(k)) out[k] = withoutTimings(v[k]);
    return out;
  }
  return v;
}

const PANELS = ['alignment', 'heads', 'permutation', 'masks', 'attribution', 'scaling', 'temperature', 'dropout',
  'additive', 'script', 'cost', 'learned_heads', 'translate'];

// Each group opens the page fresh at `url`, then runs its actions in order; a snapshot follows
// every action. An action is [method, ...args] on window.attentionLab.
export const GROUPS = [
  { name: 'defaults', url: '', actions: PANELS.map((p) => ['showPanel', p]) },
  { name: 'page', url: '', actions: [
    ['showPanel', 'permutation'], ['setCausal', 'permutation', true], ['setCausal', 'permutation', false],
    ['setPositions', 'permutation', true], ['setPositions', 'permutation', false],
    ['showPanel', 'heads'], ['setSentence', 'a small dog ran to the big red barn'], ['setSentence', ''],
    ['set', { heads: { heads: 9 } }],
    ['set', { heads: { sentence: 'x y z w', heads: 3, causal: true } }],
  ] },
  { name: 'lesson_panels', url: '', actions: [
    ['showPanel', 'masks'], ['set', { masks: { amount: 5, from: 2, zero_policy: true } }], ['set', { masks: { from: 0 } }],
    ['set', { masks: { from: 3, amount: 100, zero_policy: false } }],
    ['set', { masks: { toggle: [1, 0] } }], ['set', { masks: { toggle: [1, 1] } }],  // "cat" masked: refused
    ['showPanel', 'attribution'], ['set', { attribution: { weights: [0.7, 0.3], values: [[0, 0], [1, 2]] } }],
    ['set', { recall: { task: 'attribution.zero_top' } }], ['set', { attribution: { preset: 'chat' } }],
    ['showPanel', 'scaling'], ['set', { scaling: { d_k: 256 } }], ['set', { scaling: { d_k: 64 } }],
    ['showPanel', 'temperature'], ['set', { temperature: { temperature: 0.01 } }], ['set', { temperature: { hard: true } }],
    ['set', { temperature: { hard: false, temperature: 1 } }],
    ['showPanel', 'dropout'], ['set', { dropout: { p: 0 } }], ['set', { dropout: { p: 1 } }],
    ['set', { dropout: { p: 0.25, seed: 17 } }],
    ['showPanel', 'additive'], ['set', { additive: { view: 'untrained', step: 0 } }], ['set', { additive: { step: 2 } }],
    ['set', { heads: { init: 'torch_replica', heads: 1, d_k: 8, seed: 17, d_model: 8 } }],
    ['set', { heads: { init: 'core', heads: 2, d_k: 4 } }],
    ['set', { permutation: { positions: 'rope' } }], ['set', { permutation: { positions: 'none', causal: false } }],
    ['set', { heads: { positions: 'rope' } }], ['set', { heads: { positions: 'none' } }],
    ['set', { recall: { task: 'scaling.variance', choice: 2 } }], ['set', { recall: { task: 'dropout.row_sums', choice: 0 } }],
    ['set', { recall: { task: 'no.such.task' } }],
  ] },
  { name: 'cost', url: '?panel=cost', actions: [
    ['set', { cost: { t: 4, d_model: 8, heads: 4, kv_groups: 2, layers: 3, context: 5, cache_dtype: 'float16', window: 2 } }],
    ['set', { cost: { t: 4096, d_model: 4096, heads: 32, kv_groups: 8, layers: 32, context: 100000, window: 4096 } }],
    ['set', { cost: { heads: 0 } }], ['set', { cost: { t: 1024, d_model: 512, heads: 8 } }],
    ['set', { cost: { kv_groups: 3 } }], ['set', { cost: { probe: [3, 2] } }],
  ] },
  { name: 'learned_heads', url: '?panel=learned_heads', actions: [
    ['set', { learned_heads: { interventions: true, ablate: [4, 5], ablate_mode: 'zero' } }],
    ['set', { learned_heads: { heads: 3 } }], ['set', { learned_heads: { steps: 0 } }],
    ['set', { recall: { task: 'learned_heads.redundancy', choice: 1 } }],
    ['set', { learned_heads: { heads: 2, positions: 'rope', lr: 0.002 } }],
  ] },
  { name: 'links', url: '?panel=masks&masks.from=3&masks.amount=7', actions: [] },
  { name: 'links_heads', url: '?panel=heads&heads.sentence=the+dog+ran&heads.heads=2&heads.causal=1', actions: [] },
  { name: 'embed', url: '?panel=temperature&embed=1&temperature.temperature=0.5', actions: [] },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Wait until the page has nothing pending: the Learned heads and Translate checkpoints installed (or failed),
 *  no study running. */
async function settle(page) {
  for (let i = 0; i < 600; ++i) {
    await frames(page, 2);
    const busy = await page.evaluate(() => {
      const s = window.attentionLab.state();
      const h = s.learned_heads || {};
      const ck = h.checkpoint || {};
      const t = s.translate || {};
      return Boolean(h.running || ck.status === 'requested' || t.running || (t.checkpoint || {}).status === 'requested' ||
        (h.extrapolation && h.extrapolation.running) || (s.scaling && s.scaling.pending) || (s.cost && s.cost.pending));
    });
    if (!busy) return;
    await sleep(100);
  }
  throw new Error('the page did not settle');
}

async function snapshot(page) {
  return page.evaluate(() => {
    const lab = window.attentionLab;
    return { state: lab.state(), link: location.search, view: lab.view(24) };
  });
}

/** Run every group; returns [{group, step, action, state, link, view}]. */
export async function collect({ screens = null } = {}) {
  const server = await serveStatic(siteDir());
  const browser = await launchChromium();
  const out = [];
  try {
    for (const g of GROUPS) {
      const { page, context } = await openLab(browser, server.url + g.url);
      await settle(page);
      const record = async (step, action) => {
        await settle(page);
        await sleep(300);  // the page rewrites its link at most every 250 ms
        await frames(page, 2);
        const s = await snapshot(page);
        out.push({ group: g.name, step, action, state: withoutTimings(s.state), link: s.link, view: withoutTimings(s.view) });
        if (screens) await page.screenshot({ path: path.join(screens, `${g.name}-${String(step).padStart(2, '0')}.png`) });
      };
      await record(0, null);
      let step = 1;
      for (const a of g.actions) {
        await page.evaluate(([m, args]) => window.attentionLab[m](...args), [a[0], a.slice(1)]);
        await record(step++, a);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const si = args.indexOf('--screens');
  const screens = si >= 0 ? args[si + 1] : null;
  if (screens) fs.mkdirSync(screens, { recursive: true });
  const snaps = await collect({ screens });
  if (args.includes('--write')) {
    fs.mkdirSync(path.dirname(SNAPSHOT_FILE), { recursive: true });
    const text = JSON.stringify(snaps).replace(/\},\{"group"/g, '},\n{"group"') + '\n';
    fs.writeFileSync(SNAPSHOT_FILE, zlib.brotliCompressSync(Buffer.from(text, 'utf8'),
      { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_LGWIN]: 24 } }));
    console.log(`wrote ${snaps.length} snapshots to ${SNAPSHOT_FILE}`);
  } else if (args.includes('--out')) {
    fs.writeFileSync(args[args.indexOf('--out') + 1], JSON.stringify(snaps));
  } else {
    console.log(`${snaps.length} snapshots (pass --write to save them)`);
  }
}
