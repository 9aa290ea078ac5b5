#!/usr/bin/env node
// tests/reference/lm_worker.mjs — the language-model Worker's module (attention-lab-lm.js) gives the
// native core's bits.
//
//   node tests/reference/lm_worker.mjs NATIVE_ATTN LM_JS
//
// For every float32 model_logits case of tests/reference/gpt2/ with one sequence: the file is loaded
// into the module through its byte-range reader (AttentionLabLm.api(Module).load), a forward is run
// on the case's tokens, and its attention weights (every layer and head) and the logits of its top
// tokens must be the same float32 values as the native attn tool's answer to the case, bit for bit.
// A refused file must leave the model held; generation must give the native tool's tokens.
// Registered in the web build (tests/reference/CMakeLists.txt), after the native build it needs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { requireArgs, requireFiles } from './script_args.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [nativeAttn, lmJs] = requireArgs('node tests/reference/lm_worker.mjs NATIVE_ATTN LM_JS', 2);
requireFiles([nativeAttn, lmJs], (f) => `lm_worker: no ${f}: build the native and web presets first (scripts/test.sh does)`);
const factory = createRequire(import.meta.url)(path.resolve(lmJs));
// The .wasm handed over: node's fetch takes no file paths.
const lm = factory.api(await factory({ wasmBinary: fs.readFileSync(lmJs.replace(/\.js$/, '.wasm')) }));
const dir = path.join(here, 'gpt2');
const problems = [];
const native = (c) => {
  const r = spawnSync(path.resolve(nativeAttn), ['run', '-'], { cwd: dir, input: JSON.stringify(c), encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`native attn: exit ${r.status}: ${r.stdout.slice(0, 300)}`);
  return JSON.parse(r.stdout);
};
const read = (f) => new Uint8Array(fs.readFileSync(path.join(dir, f)));
const text = (f) => (f ? fs.readFileSync(path.join(dir, f), 'utf8') : '');

let compared = 0;
for (const name of fs.readdirSync(dir).sort()) {
  if (!name.endsWith('.json') || name.endsWith('.config.json')) continue;
  const spec = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  const c = spec.case;
  if (c.op !== 'model_logits' || spec.expect_error || (c.precision && c.precision !== 'float32')) continue;
  const info = lm.load(read(c.model), text(c.config), c.heads);
  if (info.error) { problems.push(`${name}: load: ${JSON.stringify(info.error)}`); continue; }
  const ans = native(c);
  let n = 0;
  c.tokens.forEach((tokens, b) => {  // each sequence of the case's batch on its own
    const reply = lm.run({ op: 'forward', tokens, top: 5 });
    if (reply.error) { problems.push(`${name}[${b}]: forward: ${JSON.stringify(reply.error)}`); return; }
    const weights = lm.weights(), probs = lm.probs();
    const T = tokens.length, L = reply.layers, H = reply.heads;
    let i = 0, differ = 0;
    for (let l = 0; l < L; ++l)
      for (let h = 0; h < H; ++h)
        for (let q = 0; q < T; ++q)
          for (let k = 0; k < T; ++k) if (ans.weights[l][b][h][q][k] !== weights[i++]) ++differ;
    if (i !== weights.length) problems.push(`${name}[${b}]: ${weights.length} weights, expected ${i}`);
    if (differ) problems.push(`${name}[${b}]: ${differ} of ${i} attention weights differ from the native tool's`);
    const last = ans.logits[b][T - 1];
    for (const row of reply.top) if (last[row.id] !== row.logit) problems.push(`${name}[${b}]: logit of ${row.id}: ${row.logit} here, ${last[row.id]} natively`);
    const best = last.indexOf(Math.max(...last));
    if (reply.top[0].id !== best) problems.push(`${name}[${b}]: top token ${reply.top[0].id}, the native argmax is ${best}`);
    const total = probs.reduce((x, y) => x + y, 0);
    if (Math.abs(total - 1) > 1e-5) problems.push(`${name}[${b}]: the next-token probabilities sum to ${total}`);
    n += i;
  });
  ++compared;
  console.log(`ok ${name}: ${c.tokens.length} sequences, ${n} weights and the top logits identical to the native tool's`);
}

// Generation with the K/V cache: the native tool's generate answer.
const gen = JSON.parse(fs.readFileSync(path.join(dir, 'hf-generate-greedy.json'), 'utf8')).case;
lm.load(read(gen.model), text(gen.config));
const held = lm.run({ op: 'info' });
const mine = lm.run({ op: 'generate', tokens: gen.tokens, steps: gen.steps, temperature: 0.8, seed: 7 });
const theirs = native({ ...gen, temperature: 0.8, seed: 7 });
if (JSON.stringify(mine.tokens) !== JSON.stringify(theirs.tokens))
  problems.push(`generate at temperature 0.8, seed 7: ${JSON.stringify(mine)} here, ${JSON.stringify(theirs)} natively`);
else console.log(`ok generate: ${mine.tokens.length} sampled tokens identical to the native tool's`);

// Each head ablated alone: torch 1.13's Δloss (generate_lm_ablation.py, float64), within float32's rounding.
const ab = JSON.parse(fs.readFileSync(path.join(here, 'lm_ablation_torch.json'), 'utf8'));
const abl = lm.run({ op: 'ablation', tokens: ab.tokens });
if (abl.error || abl.heads.length !== ab.heads.length) problems.push(`ablation: ${JSON.stringify(abl).slice(0, 200)}`);
else {
  const off = ab.heads.flatMap((h, k) => ['zero', 'mean'].map((m) => Math.abs(abl.heads[k][m] - h[m])));
  const worst = Math.max(Math.abs(abl.clean_loss - ab.clean_loss), ...off);
  if (worst > 1e-4) problems.push(`ablation: ${worst} from torch's Δloss`);
  else console.log(`ok ablation: ${ab.heads.length} heads' zero and mean Δloss within ${worst.toExponential(1)} of torch's`);
}
// Weight against contribution: the row's weights are the forward's.
lm.run({ op: 'forward', tokens: ab.tokens, top: 1 });
const fw = lm.weights(), T = ab.tokens.length;
const con = lm.run({ op: 'contribution', tokens: ab.tokens, layer: 1, head: 2, query: T - 1 });
const H = held.config.heads;
const row = Array.from(fw.subarray(((1 * H + 2) * T + T - 1) * T, ((1 * H + 2) * T + T) * T));
if (con.error || con.weights.some((w, j) => Math.fround(w) !== row[j])) problems.push(`contribution: ${JSON.stringify(con).slice(0, 200)} against ${row}`);
else console.log('ok contribution: the row\'s weights are the forward\'s');

// A refused file leaves the model held.
const refused = lm.load(read('bad-mask-buffer-shape.safetensors'), text('hf-prefix-f32-buffers.config.json'));
if (!refused.error || refused.error.code !== 'shape_mismatch') problems.push(`a wrong buffer shape was not refused: ${JSON.stringify(refused)}`);
if (JSON.stringify(lm.run({ op: 'info' })) !== JSON.stringify(held)) problems.push('the refused file replaced the model held');
const truncated = lm.load(read(gen.model).subarray(0, 200), text(gen.config));
if (!truncated.error) problems.push('a truncated file was taken');
else console.log(`ok refused: ${refused.error.message} / ${truncated.error.message}`);

if (compared < 5) problems.push(`only ${compared} cases compared`);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`lm_worker: ${compared} models, the module's figures are the native core's bits`);
