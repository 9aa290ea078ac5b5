// wasm = native (conformance): every JSON case of the project goes through the native `attn run`
// and through the browser — the script API (attention-lab-compute.js) and the page's
// window.attentionLab.compute, which loads that module on first use — in headless Chromium; the
// result texts must be identical, so
// every number agrees to the last bit and every error has the same code and message.
// The only exceptions are wall-clock fields (the CPU timing fixture, the Cost panel's kernel timing),
// for cost_timing, what the instruction set decides (the fast kernels are not bit-identical
// across ISAs: fast_attention.hpp): its isa name, caveat text and dense-vs-tiled difference, and
// the ops that read files (FILE_OPS), which the page must refuse.
//
// Needs the native tool: ATTN_NATIVE_ATTN (CTest sets it to build/native/core/attn; build it with
// `cmake --preset native && cmake --build --preset native`). Without it the test is skipped.
// Run: node --test tests/e2e/conformance.test.mjs
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { launchChromium, repoRoot, siteDir } from './lib.mjs';
import { serveSite, watch } from './embed_lib.mjs';
import { tiledCases } from '../kernels/tiled_cases.mjs';

const attn = process.env.ATTN_NATIVE_ATTN || path.join(repoRoot, 'build', 'native', 'core', 'attn');
const haveNative = fs.existsSync(attn);
const skip = haveNative ? false
  : `native attn not found at ${attn}: build it first (cmake --preset native && cmake --build --preset native)`;

const DIRS = ['tests/cases', 'tests/reference/fixtures', 'tests/lessons/cases', 'tests/kernels/cases'];
const cases = [];
for (const dir of DIRS) {
  const abs = path.join(repoRoot, dir);
  if (!fs.existsSync(abs)) continue;
  for (const name of fs.readdirSync(abs).filter((n) => n.endsWith('.json')).sort()) {
    const file = JSON.parse(fs.readFileSync(path.join(abs, name), 'utf8'));
    if (file.case === undefined) continue;
    cases.push({ name: `${dir}/${name}`, text: JSON.stringify(file.case), op: file.case && file.case.op });
  }
}
// The shared cases with "kernel":"tiled" (written from tests/cases/ by tiled_cases.mjs).
for (const { file, json } of tiledCases())
  cases.push({ name: `tests/kernels/tiled_cases.mjs: ${file}`, text: JSON.stringify(json.case), op: json.case.op });
// Extra error cases: what a course page could send.
for (const [name, text] of [
  ['bad json', '{"op":"attention",'], ['not an object', '[1,2,3]'], ['unknown op', '{"op":"nope"}'],
  ['empty', ''], ['nan literal', '{"op":"attention","query":[[NaN]],"key":[[1]],"value":[[1]]}'],
  ['huge literal', '{"op":"attention","query":[[1e400]],"key":[[1]],"value":[[1]]}'],
  ['deep nesting', '['.repeat(100000)],
  ['unicode', '{"op":"attention","query":[[1]],"key":[[1]],"value":[[1]],"note":"猫 🐈 \\ud83d"}'],
]) cases.push({ name: `extra: ${name}`, text, op: null });

// Ops that read files the case names (the tokenizer's vocabulary, a model file): the page has no
// file system, so there they must be refused (an error reply), while the native tool reads them.
const FILE_OPS = new Set(['tokenize', 'detokenize', 'model_info', 'model_logits', 'generate']);

// The CPU timing fixture measures wall-clock time: those fields differ by nature. unknown_op lists
// the known ops, and the page's table has no file ops (json/ops.hpp: register_file_ops): the list is
// compared without them.
function comparable(op, text) {
  if (text.includes('"unknown_op"')) {
    const j = JSON.parse(text);
    if (j.error && j.error.code === 'unknown_op') {
      j.error.message = j.error.message.replace(/known ops: (.*)$/, (_, list) =>
        'known ops: ' + list.split(', ').filter((name) => !FILE_OPS.has(name)).join(', '));
      return JSON.stringify(j);
    }
  }
  if (op !== 'timing' && op !== 'cost_timing') return text;
  const j = JSON.parse(text);
  if (j.error) return text;
  for (const k of Object.keys(j)) if (/seconds|median|gflops/.test(k)) j[k] = '(timing)';
  if (op === 'cost_timing') {
    for (const k of ['isa', 'caveat', 'max_output_diff']) j[k] = '(instruction set)';
    for (const c of j.checks || []) c.measured = '(instruction set)';
  }
  return JSON.stringify(j);
}

let server, browser, page, log;
before(async () => {
  if (!haveNative) return;
  server = await serveSite(siteDir(), '/');
  browser = await launchChromium();
  page = await browser.newPage();
  log = watch(page);
  await page.goto(server.url('/'));
  await page.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  await page.addScriptTag({ url: server.url('/attention-lab-compute.js') });
  await page.evaluate(() => window.attentionLabCompute.ready.then(() => true));
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

test(`wasm = native: ${cases.length} JSON cases, bit for bit, through the page and the script API`, { skip }, async () => {
  assert.ok(cases.length >= 100, `only ${cases.length} cases found`);
  const native = cases.map((c) => {
    const r = spawnSync(attn, ['run', '-'], { input: c.text, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0 && r.status !== 2) throw new Error(`${c.name}: attn exited ${r.status}: ${r.stderr}`);
    return r.stdout.replace(/\n$/, '');
  });
  // The page's compute() hands the case to the same module and gives back the parsed object: its
  // re-serialised text must equal the native text re-serialised the same way.
  const browserOut = await page.evaluate(async (texts) => {
    const out = [];
    for (const t of texts) out.push([JSON.stringify(await window.attentionLab.compute(t))]);
    return out;
  }, cases.map((c) => c.text));
  const scriptOut = await page.evaluate(async (texts) => {
    const lab = await window.attentionLabCompute.ready;
    return texts.map((t) => lab.computeText(t));
  }, cases.map((c) => c.text));
  const mismatches = [];
  let errors = 0;
  cases.forEach((c, i) => {
    if (FILE_OPS.has(c.op)) {
      for (const [where, out] of [['page', browserOut[i][0]], ['script API', scriptOut[i]]])
        if (!JSON.parse(out).error) mismatches.push(`${c.name} (${where}): a file op gave no error in the page: ${out.slice(0, 300)}`);
      return;
    }
    const want = comparable(c.op, native[i]);
    if (JSON.parse(native[i]).error) ++errors;
    if (comparable(c.op, browserOut[i][0]) !== comparable(c.op, JSON.stringify(JSON.parse(native[i])))) mismatches.push(`${c.name} (page):\n  native ${want.slice(0, 300)}\n  wasm   ${browserOut[i][0].slice(0, 300)}`);
    if (comparable(c.op, scriptOut[i]) !== want) mismatches.push(`${c.name} (script API):\n  native ${want.slice(0, 300)}\n  wasm   ${scriptOut[i].slice(0, 300)}`);
  });
  assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of ${2 * cases.length} results differ`);
  assert.ok(errors >= 8, `error cases compared too (${errors})`);
  console.log(`# ${cases.length} cases (${errors} errors) identical natively, in the page and through the script API`);
  assert.deepEqual(log.errors, []);
});
