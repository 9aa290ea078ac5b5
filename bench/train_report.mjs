#!/usr/bin/env node
// bench/train_report.mjs — the "Training" section of bench/RESULTS.md: Adam steps per second of the
// learning models natively, as wasm in headless Chromium and in PyTorch (eager, one thread,
// float64) on the identical model, data and optimiser, with the learning targets marked.
//
//   node bench/train_report.mjs --native train-native-1.txt[,...] [--chromium train-chromium-1.json[,...]]
//        [--torch train-torch-1.txt[,...] | --torch-absent "why"] [--results bench/RESULTS.md]
//        [--load-before "..."] [--load-after "..."] [--command "scripts/bench.sh --training"]
//
// Inputs: the "BENCH {json}" lines of train_bench and bench/train_torch.py, and bench/run_wasm.mjs's
// JSON for Chromium; several files per engine are turns of the same run, and each model's best turn
// is reported (every turn's figure is listed under the table). The section replaces the file's "## Training" section (up to the next "## "
// heading), or is appended; it is also printed. The "### Learned heads: time to train in the page" subsection of the old
// section is kept (bench/heads_train_report.mjs writes it).
import fs from 'node:fs';
import os from 'node:os';

const argv = process.argv.slice(2);
const opt = (name, dflt = null) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};

/** {env, results} from a file of BENCH lines or from run_wasm.mjs's JSON. */
function readRun(file) {
  if (!file || !fs.existsSync(file)) return null;
  const text = fs.readFileSync(file, 'utf8');
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  const out = { env: {}, results: [], done: false };
  for (const line of text.split('\n')) {
    if (line.startsWith('BENCH ')) out.results.push(JSON.parse(line.slice(6)));
    else if (line.startsWith('BENCH_ENV ')) out.env = JSON.parse(line.slice(10));
    else if (line.trim() === 'BENCH_DONE') out.done = true;
  }
  return out;
}

/** Several turns of one engine (FILE,FILE,...): per model the turn with the most steps/s; `turns`
 *  keeps every turn's figure. null if no file has results. */
function readRuns(list) {
  const runs = (list || '').split(',').filter(Boolean).map(readRun).filter((r) => r && r.results.length);
  if (!runs.length) return null;
  const best = new Map();
  for (const run of runs)
    for (const r of run.results) {
      const b = best.get(r.model);
      const turns = [...(b?.turns || []), r.steps_per_s];
      best.set(r.model, !b || r.steps_per_s > b.steps_per_s ? { ...r, turns } : { ...b, turns });
    }
  return { env: runs[0].env, results: [...best.values()], turns: runs.length };
}

const native = readRuns(opt('--native'));
if (!native) {
  console.error('train_report: --native FILE[,FILE...] (train_bench output) with results is required');
  process.exit(64);
}
const chromium = readRuns(opt('--chromium'));
const torch = readRuns(opt('--torch'));
const torchAbsent = opt('--torch-absent');
const resultsFile = opt('--results');
const command = opt('--command', 'scripts/bench.sh --training');

const TARGET_NATIVE = 6;  // native >= 6x torch eager's steps/s
const TARGET_WASM = 4;    // wasm in Chromium >= 4x torch eager's steps/s
const LOSS_TOL = 1e-9;

const byModel = (run) => new Map((run?.results || []).map((r) => [r.model, r]));
const nat = byModel(native), chr = byModel(chromium), tch = byModel(torch);
const f1 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rate = (r) => (r ? `${f1(r.steps_per_s)} (${f1(r.steps_per_s_median)})` : '—');
const ratio = (a, b) => (a && b ? `${(a.steps_per_s / b.steps_per_s).toFixed(2)}×` : '—');
const verdict = (a, b, k) => (a && b ? (a.steps_per_s >= k * b.steps_per_s ? '**PASS**' : '**SHORT**') : null);
const sameBits = (a, b) => a && b && a.length === b.length && a.every((x, i) => x === b[i]);

const desc = {
  decoder: (c) => `decoder V ${c.vocab}, T ${c.context}, d ${c.d_model}, ${c.layers} layers, ${c.heads} heads` +
    `${c.mlp ? `, MLP ${c.mlp}` : ', no MLP'}, ${c.positions} positions${c.layer_norm ? ', LayerNorm' : ''}`,
  seq2seq: (c) => `seq2seq GRU, ${c.encoder === 'bidirectional' ? 'bidirectional encoder (the Translate panel\'s), ' : ''}` +
    `H ${c.hidden}, E ${c.embed}${c.attention === 'additive' ? `, additive A ${c.attn_dim}` : ', no attention'}` +
    `, vocabularies ${c.src_vocab}/${c.tgt_vocab}`,
};
desc['seq2seq-bidirectional'] = desc.seq2seq;
// The distance to the machine's limit: the fastest round's matrix-product GFLOP/s (2·M·N·K per
// product, forward and backward) and its share of the float64 multiply-then-add peak measured at
// the products' register width (natively; the wasm peak loop is not printed).
const gflops = (r) => (r && r.matmul_gflops != null
  ? `${r.matmul_gflops.toFixed(1)}${r.share_of_peak != null ? ` (${(100 * r.share_of_peak).toFixed(0)}%)` : ''}` : '—');

const lines = [];
const push = (s = '') => lines.push(s);
const now = new Date().toISOString().replace('T', ' ').slice(0, 16);
push('## Training');
push();
push(`Generated by \`${command}\` on ${now} UTC, host ${os.hostname()} (${os.cpus().length} CPUs). ` +
  `Load average (1, 5, 15 min) before: ${opt('--load-before', '?')}; after: ${opt('--load-after', '?')} — a shared ` +
  'machine slows every column; the best round is the least disturbed.');
push();
push('Adam steps per second (lr 3e-3, betas 0.9/0.999, eps 1e-8, clip_grad_norm 1.0; each step: loss, backward, ' +
  'clip, update), batch 32, float64, one thread. The same parameters (`init_params`, seed ' +
  `${native.env.seed ?? '?'}) and ${native.env.batches ?? '?'} fixed batches (step i trains on batch i mod ` +
  `${native.env.batches ?? 'K'}) everywhere: \`bench/train_bench.cpp\` natively (g++ -O3, the core's ` +
  '-ffp-contract=off) and as wasm (em++ -O3) in headless Chromium; `bench/train_torch.py` reads the C++ dump ' +
  '(a `train_steps` request) and runs plain torch modules eagerly — nn.MultiheadAttention(bias=False, ' +
  'batch_first=True) with a causal mask; nn.GRU over the padded source batch (bidirectional: over pack_padded_sequence), nn.GRUCell and additive ' +
  'attention with a padding mask — with torch.optim.Adam and clip_grad_norm_. The batches\' targets are ragged ' +
  '(1–16 tokens): torch\'s GRUCell loop runs every decoder step for all 32 sequences, as a plain eager loop does; ' +
  'the core runs each step only for the sequences with a counted target still to come (`learn::DecoderRows::valid`, ' +
  'the same loss and gradient bits), so part of the seq2seq figures is work left out, not arithmetic done faster. ' +
  'Warm-up ≥ 1 s, then ' +
  `${native.results[0].rounds} rounds (≈ 0.4 s each); each cell is steps/s of the best round (median round in parentheses), ` +
  `from the best of ${native.turns} turn(s) in which native, torch and Chromium ran one after the other. Targets of the ` +
  `learning targets: native ≥ ${TARGET_NATIVE}× torch's steps/s; wasm in Chromium ≥ ${TARGET_WASM}× torch's. ` +
  'GFLOP/s: the matrix products of one step (2·M·N·K per product, forward and backward, counted by ' +
  '`learn::gemm_flops`; softmax, tanh, sigmoid, clipping and Adam not counted) over the fastest round\'s time ' +
  `per step, and in parentheses their share of this machine's float64 multiply-then-add peak at the products' ` +
  `register width (${native.env.gemm ?? '?'}: ${native.env.fp64_peak_gflops != null ? native.env.fp64_peak_gflops.toFixed(1) : '?'} GFLOP/s, ` +
  'independent chains of a multiply and an add, no fused multiply-add, as the core computes).');
push();
const torchHead = torch?.env?.torch ? `torch ${torch.env.torch} steps/s` : 'torch steps/s';
push(`| model | params | native steps/s | native GFLOP/s (of peak) | wasm Chromium steps/s | wasm GFLOP/s | ${torchHead} | native / torch | wasm / torch | native ≥ ${TARGET_NATIVE}× torch | wasm ≥ ${TARGET_WASM}× torch |`);
push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
const checks = [];
for (const model of ['decoder', 'seq2seq', 'seq2seq-bidirectional']) {
  const n = nat.get(model);
  if (!n) continue;
  const c = chr.get(model), t = tch.get(model);
  const noTorch = !t ? (torchAbsent ? 'torch absent: skipped' : 'not run') : null;
  const name = desc[model] ? desc[model](n.config) : model;
  push(`| ${name} | ${n.params} | ${rate(n)} | ${gflops(n)} | ${c ? rate(c) : chromium ? 'failed' : 'not run'} | ${gflops(c)} | ` +
    `${t ? rate(t) : noTorch} | ${t ? ratio(n, t) : '—'} | ${t && c ? ratio(c, t) : '—'} | ` +
    `${t ? verdict(n, t, TARGET_NATIVE) : noTorch} | ${t ? (c ? verdict(c, t, TARGET_WASM) : 'not run') : noTorch} |`);
  if (t) {
    const d = Math.abs(t.first_loss - n.losses[0]);
    checks.push(`${model}: torch ${t.first_loss.toPrecision(17)} vs C++ ${n.losses[0].toPrecision(17)}, ` +
      `|diff| ${d.toExponential(1)} ${d <= LOSS_TOL ? '≤' : '>'} ${LOSS_TOL} **${d <= LOSS_TOL ? 'PASS' : 'FAIL'}** ` +
      `(largest over the first ${t.losses.length} steps: ${t.max_loss_diff_first_steps.toExponential(1)})`);
  }
  if (c) checks.push(`${model}: wasm's first ${c.losses.length} losses ${sameBits(c.losses, n.losses) ? 'equal' : '**differ from**'} native's bit for bit`);
}
push();
const turnList = (run, label) => run && `${label} ${[...byModel(run).values()].map((r) => `${r.model} ${r.turns.map(f1).join(', ')}`).join('; ')}`;
push(`Best round of each turn, steps/s: ${[turnList(native, 'native:'), turnList(chromium, 'Chromium:'), turnList(torch, 'torch:')].filter(Boolean).join(' — ')}.`);
push();
if (torchAbsent) push(`PyTorch: ${torchAbsent}.`);
if (checks.length) {
  push('Same model, parameters and data (first-step loss, before any update):');
  push();
  for (const c of checks) push(`- ${c}`);
}
push();
const eng = [];
if (chromium?.env?.engine) eng.push(chromium.env.engine);
if (torch?.env?.torch) eng.push(`PyTorch ${torch.env.torch} (Python ${torch.env.python}, ${torch.env.threads} thread, ${torch.env.dtype})`);
const msPer = [...nat.values()].map((r) => `${r.model} ${r.ms_per_step.toPrecision(3)} ms`).join(', ');
push(`Engines: ${eng.join('; ') || 'native only'}. Native time per step (best round): ${msPer}. Raw results: ` +
  '`build/bench-results/train-*`; the dumps the torch script reads: `build/bench-results/train-dump/`.');
push();
const section = lines.join('\n');
const HEADS_PAGE_HEADING = '### Learned heads: time to train in the page';

if (resultsFile) {
  let text = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '';
  const start = text.search(/^## Training\s*$/m);
  if (start >= 0) {
    const rest = text.slice(start + 3);
    const next = rest.search(/^## /m);
    const end = next >= 0 ? start + 3 + next : text.length;
    // bench/heads_train_report.mjs's subsection is written separately: it stays until that script replaces it.
    const old = text.slice(start, end), heads = old.indexOf('\n' + HEADS_PAGE_HEADING + '\n');
    const kept = heads >= 0 ? '\n' + old.slice(heads + 1).replace(/\n*$/, '\n') : '';
    text = text.slice(0, start) + section + kept + (next >= 0 ? '\n' : '') + text.slice(end);
  } else {
    text = text.replace(/\s*$/, '\n\n') + section;
  }
  fs.writeFileSync(resultsFile, text.replace(/\n*$/, '\n'));
}
console.log(section);
