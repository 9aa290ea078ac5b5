#!/usr/bin/env node
// Same seed, same weights: 200 Adam steps of each model through `attn run` natively and in wasm
// (node attn.js), compared to the bit.
//
//   node tests/learn/training_bits.mjs --native PATH/attn --wasm "node --no-experimental-fetch PATH/attn.js"
//
// The initial parameters come from the op init_params (the core's seeded sampler); the 200
// batches from a fixed linear congruential generator here (they are only input data). Both
// tools print numbers with 17 significant digits, which read back to the same double, so equal
// output text means equal bits. Exit 0 when every model matches; on a difference, the first
// differing parameter and entry are printed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : null;
};
const nativeCmd = opt('--native'), wasmCmd = opt('--wasm');
const STEPS = Number(opt('--steps') ?? 200);
if (!nativeCmd || !wasmCmd) {
  console.error('usage: training_bits.mjs --native PATH/attn --wasm "node --no-experimental-fetch PATH/attn.js" [--steps N]');
  process.exit(64);
}

const dir = mkdtempSync(join(tmpdir(), 'attn-training-bits-'));
function run(cmd, request, label) {
  const file = join(dir, `${label}.json`);
  writeFileSync(file, JSON.stringify(request));
  const parts = cmd.split(/\s+/).filter(Boolean);
  const r = spawnSync(parts[0], [...parts.slice(1), 'run', file], { encoding: 'utf8', maxBuffer: 1 << 28, timeout: 600000 });
  if (r.error) throw new Error(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stdout.slice(0, 400)} ${r.stderr.slice(0, 400)}`);
  return r.stdout;
}

// Numerical Recipes' 32-bit LCG: the same integers on every machine.
let state = 12345;
const below = (n) => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state % n;
};

// Four rows of `length` tokens drawn with below(vocab), row by row; target i is target(row, i).
function decoderBatch(length, vocab, target) {
  const tokens = [], targets = [];
  for (let b = 0; b < 4; ++b) {
    const row = Array.from({ length }, () => below(vocab));
    tokens.push(row);
    targets.push(row.map((t, i) => target(row, i)));
  }
  return { tokens, targets };
}

const models = [
  { name: 'decoder (RoPE, LayerNorm, MLP)',
    model: { kind: 'decoder', vocab: 12, context: 12, d_model: 16, heads: 4, layers: 2, mlp: 24, positions: 'rope', layer_norm: true },
    batch: () => decoderBatch(12, 12, (row, i) => (i < 11 ? row[i + 1] : -100)) },
  { name: 'decoder (learned positions, attention only)',
    model: { kind: 'decoder', vocab: 10, context: 10, d_model: 8, heads: 2, layers: 2, mlp: 0, positions: 'learned', layer_norm: false },
    batch: () => decoderBatch(10, 10, (row, i) => (i >= 5 ? row[i - 5] : -100)) },
  { name: 'seq2seq (additive attention)',
    model: { kind: 'seq2seq', src_vocab: 9, tgt_vocab: 10, embed: 8, hidden: 12, attention: 'additive', attn_dim: 8 },
    batch() { return seq2seqBatch(); } },
  { name: 'seq2seq (fixed summary)',
    model: { kind: 'seq2seq', src_vocab: 9, tgt_vocab: 10, embed: 8, hidden: 12, attention: 'none' },
    batch() { return seq2seqBatch(); } },
];

// Reverse the source: target_in = BOS (9) then the reversed source, target_out = reversed then EOS (8).
function seq2seqBatch() {
  const S = 7, source = [], lengths = [], tin = [], tout = [];
  for (let b = 0; b < 4; ++b) {
    const len = 2 + below(S - 1);
    const row = Array.from({ length: S }, () => below(8));
    const rev = row.slice(0, len).reverse();
    source.push(row);
    lengths.push(len);
    const ti = [9, ...rev], to = [...rev, 8];
    while (ti.length < S + 1) { ti.push(0); to.push(-100); }
    tin.push(ti);
    tout.push(to);
  }
  return { source, source_lengths: lengths, target_in: tin, target_out: tout };
}

let failed = 0;
try {
  for (const m of models) {
    const init = JSON.parse(run(nativeCmd, { op: 'init_params', model: m.model, seed: 17 }, 'init'));
    const initWasm = JSON.parse(run(wasmCmd, { op: 'init_params', model: m.model, seed: 17 }, 'init-wasm'));
    if (JSON.stringify(init) !== JSON.stringify(initWasm)) {
      console.log(`FAIL ${m.name}: init_params differ between native and wasm`);
      failed++;
      continue;
    }
    const request = { op: 'train_steps', model: m.model, params: init.params,
                      batches: Array.from({ length: STEPS }, () => m.batch()),
                      optimizer: { name: 'adam', lr: 3e-3 }, clip: 1.0 };
    const t0 = Date.now();
    const a = run(nativeCmd, request, 'native');
    const t1 = Date.now();
    const b = run(wasmCmd, request, 'wasm');
    const t2 = Date.now();
    const na = JSON.parse(a), wb = JSON.parse(b);
    const losses = na.losses;
    if (a === b) {
      console.log(`ok   ${m.name}: ${STEPS} steps, every parameter and loss identical ` +
                  `(loss ${losses[0].toFixed(4)} -> ${losses[losses.length - 1].toFixed(4)}; native ${t1 - t0} ms, wasm ${t2 - t1} ms)`);
      continue;
    }
    failed++;
    let shown = 0;
    for (const [name, value] of Object.entries(na.params)) {
      const flat = value.flat(), other = (wb.params[name] ?? []).flat();
      for (let i = 0; i < flat.length && shown < 5; ++i)
        if (flat[i] !== other[i]) { console.log(`  ${name}[${i}]: native ${flat[i]}, wasm ${other[i]}`); shown++; }
    }
    console.log(`FAIL ${m.name}: native and wasm differ after ${STEPS} steps`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
