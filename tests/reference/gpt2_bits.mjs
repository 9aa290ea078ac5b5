#!/usr/bin/env node
// tests/reference/gpt2_bits.mjs — the float32 path gives the same bits natively and in wasm.
//
//   node tests/reference/gpt2_bits.mjs NATIVE_ATTN "WASM_ATTN_COMMAND"
//
// Runs every model_logits and generate case of tests/reference/gpt2/ and the handed GPT-2 case of
// tests/cases/ (each from its own folder) through the native attn tool and through attn.js under
// node, and compares the two answers byte for byte: the float32 forward (core/learn/layers_f32.cpp)
// keeps a fixed order with no contraction, so the numbers must be the same bits, not merely close.
// Registered in the web build (tests/reference/CMakeLists.txt), after the native build it needs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { requireArgs, requireFiles } from './script_args.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [nativeAttn, wasmCommand] = requireArgs('node tests/reference/gpt2_bits.mjs NATIVE_ATTN "WASM_ATTN_COMMAND"', 2);
requireFiles([nativeAttn], (f) => `gpt2_bits: no native attn at ${f}: build the native preset first (scripts/test.sh does)`);
const wasm = wasmCommand.split(' ').filter(Boolean);

const files = [
  ...fs.readdirSync(path.join(here, 'gpt2')).filter((f) => f.endsWith('.json') && !f.endsWith('.config.json'))
    .map((f) => path.join(here, 'gpt2', f)),
  path.join(here, '..', 'cases', 'gpt2-hf-handed.json'),
];
let compared = 0;
const problems = [];
for (const file of files) {
  const spec = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!['model_logits', 'generate'].includes(spec.case.op) || spec.expect_error) continue;
  const cwd = path.dirname(file);
  const input = JSON.stringify(spec.case);
  const a = spawnSync(path.resolve(nativeAttn), ['run', '-'], { cwd, input, encoding: 'utf8', maxBuffer: 1 << 28 });
  const b = spawnSync(wasm[0], [...wasm.slice(1), 'run', '-'], { cwd, input, encoding: 'utf8', maxBuffer: 1 << 28 });
  const name = path.basename(file);
  if (a.status !== 0 || b.status !== 0) {
    problems.push(`${name}: exit ${a.status} natively, ${b.status} in wasm\n${a.stdout.slice(0, 300)}\n${b.stdout.slice(0, 300)}`);
    continue;
  }
  if (a.stdout !== b.stdout) {
    let i = 0;
    while (i < a.stdout.length && a.stdout[i] === b.stdout[i]) ++i;
    problems.push(`${name}: answers differ from byte ${i}: native …${a.stdout.slice(i, i + 60)} wasm …${b.stdout.slice(i, i + 60)}`);
    continue;
  }
  ++compared;
  console.log(`ok ${name} (${spec.case.precision ?? 'float32'}): ${a.stdout.length} bytes identical`);
}
if (compared < 10) problems.push(`only ${compared} cases compared`);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`# ${compared} GPT-2-family answers identical natively and in wasm, byte for byte`);
