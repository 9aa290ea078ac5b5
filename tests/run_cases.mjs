#!/usr/bin/env node
// tests/run_cases.mjs — run JSON case files through the `attn` tool and compare.
//
//   node tests/run_cases.mjs --attn "<command…>" CASEFILE...
//   node tests/run_cases.mjs --attn "<command…>" --cli-check bad-input|deep-nesting|stdin|round-trip|usage
//   node tests/run_cases.mjs --attn "<test binary command…>" --count-tests N
//
// <command…> is how to start the tool, split on spaces (quotes group): e.g.
//   build/native/core/attn
//   node --no-experimental-fetch build/web/core/attn.js
//
// A case file (tests/cases/README.md) holds `case` (the input object exactly as `attn run`
// reads it), then `expect` (fields of the result with their values) and `tolerance` (largest
// absolute difference per number), or `expect_error` (the error code; exit status 2).
// The case object is written to a temporary file and run as `attn run TMPFILE` from the case file's
// own folder, so that a path the case names (a model, its config.json) resolves as it does for
// someone running the handed cases from theirs; the exit status
// must be 0 (expect) or 2 (expect_error). Every field in `expect` is compared recursively:
// numbers within tolerance, null only with null, arrays by length and entry, strings and
// booleans exactly. On failure it prints the first differing entries and the max difference
// and exits 1. No npm dependencies.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function usage(msg) {
  if (msg) console.error(`run_cases: ${msg}`);
  console.error('usage: node tests/run_cases.mjs --attn "<command…>" CASEFILE...\n' +
                '       node tests/run_cases.mjs --attn "<command…>" --cli-check bad-input|deep-nesting|stdin|round-trip|usage\n' +
                '       node tests/run_cases.mjs --attn "<test binary command…>" --count-tests N');
  process.exit(64);
}

// Split a command line on whitespace; single or double quotes group words.
function splitCommand(cmd) {
  const out = [];
  let cur = '', quote = null, has = false;
  for (const ch of cmd) {
    if (quote) {
      if (ch === quote) quote = null; else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch; has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = ''; has = false;
    } else {
      cur += ch;
    }
  }
  if (quote) usage(`unbalanced quote in --attn ${cmd}`);
  if (has || cur) out.push(cur);
  return out;
}

let attnCmd = null, cliCheck = null, countTests = null;
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (a === '--attn') attnCmd = splitCommand(argv[++i] ?? '');
  else if (a === '--cli-check') cliCheck = argv[++i];
  else if (a === '--count-tests') countTests = Number(argv[++i]);
  else if (a === '-h' || a === '--help') usage();
  else if (a.startsWith('--')) usage(`unknown option ${a}`);
  else files.push(a);
}
if (!attnCmd || attnCmd.length === 0) usage('--attn is required');
// Cases run from their own folder: the tool's command words that name files here become absolute.
attnCmd = attnCmd.map((w) => (!w.startsWith('-') && w.includes('/') && fs.existsSync(w) ? path.resolve(w) : w));
if (!cliCheck && countTests === null && files.length === 0) usage('no case files given');

// Run the tool with extra arguments and optional stdin text.
function runAttn(args, input, cwd) {
  const r = spawnSync(attnCmd[0], [...attnCmd.slice(1), ...args], {
    input: input ?? '', encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: 120000, cwd,
  });
  if (r.error) throw new Error(`cannot run ${attnCmd.join(' ')}: ${r.error.message}`);
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

function describe(r) {
  const clip = (s) => (s.length > 2000 ? s.slice(0, 2000) + '…' : s);
  return `  exit status: ${r.status}${r.signal ? ` (signal ${r.signal})` : ''}\n` +
         `  stdout: ${clip(r.stdout.trim())}\n  stderr: ${clip(r.stderr.trim())}`;
}

function parseStdout(r) {
  const text = r.stdout.trim();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`stdout is not one JSON value (${e.message})\n${describe(r)}`);
  }
}

// Recursive comparison. Collects mismatches (path, expected, actual, diff) and the max difference.
function compareValue(actual, expected, tol, where, acc) {
  if (expected === null) {
    if (actual !== null) acc.bad.push({ where, expected: 'null', actual: JSON.stringify(actual) });
    return;
  }
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') {
      acc.bad.push({ where, expected: String(expected), actual: JSON.stringify(actual) });
      acc.max = Infinity;
      return;
    }
    const d = Math.abs(actual - expected);
    acc.numbers += 1;
    if (!(d <= acc.max) || Number.isNaN(d)) acc.max = Number.isNaN(d) ? NaN : Math.max(acc.max, d);
    if (!(d <= tol)) acc.bad.push({ where, expected: String(expected), actual: String(actual), diff: d });
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      acc.bad.push({ where, expected: `array of ${expected.length}`,
                     actual: Array.isArray(actual) ? `array of ${actual.length}` : JSON.stringify(actual) });
      return;
    }
    expected.forEach((e, i) => compareValue(actual[i], e, tol, `${where}[${i}]`, acc));
    return;
  }
  if (typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      acc.bad.push({ where, expected: 'object', actual: JSON.stringify(actual) });
      return;
    }
    for (const k of Object.keys(expected)) {
      if (!(k in actual)) acc.bad.push({ where: `${where}.${k}`, expected: JSON.stringify(expected[k]), actual: '(missing)' });
      else compareValue(actual[k], expected[k], tol, `${where}.${k}`, acc);
    }
    return;
  }
  if (actual !== expected) acc.bad.push({ where, expected: JSON.stringify(expected), actual: JSON.stringify(actual) });
}

function fmt(x) {
  return typeof x === 'number' ? x.toPrecision(17).replace(/\.?0+(e|$)/, '$1') : String(x);
}

function report(acc) {
  const lines = acc.bad.slice(0, 5).map((b) =>
    `  ${b.where}: expected ${b.expected}, got ${b.actual}${b.diff !== undefined ? ` (diff ${fmt(b.diff)})` : ''}`);
  if (acc.bad.length > 5) lines.push(`  … ${acc.bad.length - 5} more`);
  lines.push(`  max |difference| = ${fmt(acc.max)} over ${acc.numbers} numbers`);
  return lines.join('\n');
}

function withTempFile(text, fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-case-'));
  const file = path.join(dir, 'case.json');
  fs.writeFileSync(file, text);
  try {
    return fn(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Checks an error answer: exit 2, stdout exactly {"error":{"code","message"}}, message on stderr.
function checkErrorAnswer(r, code) {
  const problems = [];
  if (r.status !== 2) problems.push(`exit status ${r.status}, expected 2`);
  let out = null;
  try { out = JSON.parse(r.stdout.trim()); } catch (e) { problems.push(`stdout is not JSON (${e.message})`); }
  if (out) {
    const keys = Object.keys(out);
    if (keys.length !== 1 || keys[0] !== 'error') problems.push(`stdout has keys ${JSON.stringify(keys)}, expected only "error"`);
    const err = out.error ?? {};
    if (err.code !== code) problems.push(`error code ${JSON.stringify(err.code)}, expected ${JSON.stringify(code)}`);
    if (typeof err.message !== 'string' || err.message.length === 0) problems.push('error message missing or empty');
    else if (!r.stderr.includes(err.message)) problems.push('stderr does not contain the error message');
  }
  return problems;
}

function runCaseFile(file) {
  const name = path.basename(file);
  const spec = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!spec.case || (spec.expect === undefined && spec.expect_error === undefined))
    throw new Error(`${name}: a case file needs "case" and "expect" or "expect_error"`);
  const r = withTempFile(JSON.stringify(spec.case), (tmp) => runAttn(['run', tmp], '', path.dirname(path.resolve(file))));
  if (spec.expect_error !== undefined) {
    const problems = checkErrorAnswer(r, spec.expect_error);
    if (problems.length) return `FAIL ${name}: ${spec.about ?? ''}\n  ${problems.join('\n  ')}\n${describe(r)}`;
    console.log(`ok ${name}: error ${spec.expect_error} with exit status 2`);
    return null;
  }
  if (r.status !== 0) return `FAIL ${name}: exit status ${r.status}, expected 0\n${describe(r)}`;
  const out = parseStdout(r);
  const tol = typeof spec.tolerance === 'number' ? spec.tolerance : 0;
  const acc = { bad: [], max: 0, numbers: 0 };
  compareValue(out, spec.expect, tol, 'result', acc);
  if (acc.bad.length) return `FAIL ${name}: ${spec.about ?? ''} (tolerance ${tol})\n${report(acc)}`;
  console.log(`ok ${name}: ${acc.numbers} numbers within ${tol}, max |difference| = ${fmt(acc.max)}`);
  return null;
}

// ---------------------------------------------------------------------------
// Checks of the CLI itself.

const GOOD_CASE = {
  op: 'attention', query: [[1], [2]], key: [[1], [0], [-1]], value: [[1], [2], [3]],
  mask: { causal: 'bottom_right' },
};

const cliChecks = {
  // Bad input: exit 2, {"error":{code,message}} on stdout, the message on stderr — from a file and from stdin.
  'bad-input'() {
    const bad = [
      ['{', 'invalid_json'],
      ['[1,2]', 'invalid_json'],
      ['{"op":"no_such_op"}', 'unknown_op'],
      ['{"op":"attention","query":[[1]],"key":[[1]]}', 'missing_field'],
      ['{"op":"attention","query":"abc","key":[[1]],"value":[[1]]}', 'invalid_field'],
      ['{"op":"attention","query":[[1,0]],"key":[[1,0,0]],"value":[[1]]}', 'shape_mismatch'],
      ['{"op":"attention","query":[[1]],"key":[[1]],"value":[[1]],"scale":0}', 'invalid_scale'],
      ['{"op":"attention","query":[[1]],"key":[[1]],"value":[[1]],"mask":{"key_valid":[false]}}', 'no_allowed_key'],
      ['{"op":"attention","query":[[1]],"key":[[1],[2]],"value":[[1],[2]],"mask":{"causal":true}}', 'causal_alignment_required'],
      ['{"op":"attention","query":[],"key":[[1]],"value":[[1]]}', 'empty_sequence'],
      ['{"op":"attention","query":[[1e200]],"key":[[1e200]],"value":[[1]]}', 'non_finite'],
      ['{"op":"attention","query":[[1]],"key":[[1]],"value":[[1]],"mask":{"window":-1}}', 'invalid_mask'],
    ];
    const failures = [];
    for (const [text, code] of bad) {
      for (const via of ['file', 'stdin']) {
        const r = via === 'file' ? withTempFile(text, (tmp) => runAttn(['run', tmp])) : runAttn(['run', '-'], text);
        const problems = checkErrorAnswer(r, code);
        if (problems.length) failures.push(`${text} (${via}): ${problems.join('; ')}\n${describe(r)}`);
        else console.log(`ok ${code} via ${via}`);
      }
    }
    return failures;
  },

  // Deeply nested input is an error answer (exit 2), never a crash (a signal, or node's stack overflow).
  'deep-nesting'() {
    const nested = '['.repeat(100000) + ']'.repeat(100000);
    const failures = [];
    for (const [text, code] of [
      [`{"op":"attention","query":[[${nested}]],"key":[[1]],"value":[[1]]}`, 'invalid_json'],
      [nested, 'invalid_json'],
    ]) {
      const r = runAttn(['run', '-'], text);
      const problems = checkErrorAnswer(r, code);
      if (problems.length) failures.push(`${text.slice(0, 60)}…: ${problems.join('; ')}\n${describe(r)}`);
      else console.log(`ok ${code} for 100000-deep nesting`);
    }
    return failures;
  },

  // `attn run -` reads stdin and answers exactly as `attn run FILE`.
  stdin() {
    const text = JSON.stringify(GOOD_CASE);
    const viaStdin = runAttn(['run', '-'], text);
    const viaFile = withTempFile(text, (tmp) => runAttn(['run', tmp]));
    const failures = [];
    if (viaStdin.status !== 0) failures.push(`stdin: exit status ${viaStdin.status}\n${describe(viaStdin)}`);
    if (viaFile.status !== 0) failures.push(`file: exit status ${viaFile.status}\n${describe(viaFile)}`);
    if (failures.length) return failures;
    if (viaStdin.stdout !== viaFile.stdout) failures.push(`stdin and file answers differ:\n  ${viaStdin.stdout}\n  ${viaFile.stdout}`);
    // Hand values (bottom_right 2x3): row 0 = softmax(1, 0) over keys 0, 1.
    const out = JSON.parse(viaStdin.stdout);
    const e1 = Math.exp(-1);
    const acc = { bad: [], max: 0, numbers: 0 };
    compareValue(out.weights[0], [1 / (1 + e1), e1 / (1 + e1), 0], 1e-12, 'weights[0]', acc);
    compareValue(out.scores, [[1, 0, null], [2, 0, -2]], 0, 'scores', acc);
    if (acc.bad.length) failures.push(`stdin answer is wrong:\n${report(acc)}`);
    if (viaStdin.stderr.trim() !== '') failures.push(`success wrote to stderr: ${viaStdin.stderr}`);
    if (!failures.length) console.log('ok stdin answer equals file answer, weights as derived by hand');
    return failures;
  },

  // Numbers round-trip exactly: one key (weight exactly 1) returns the value row itself, so
  // the printed output must parse back to the very doubles we sent.
  'round-trip'() {
    const values = [0.1, 1 / 3, 0.1 + 0.2, 2 / 3, 1e-300, 5e-324, 2.2250738585072014e-308,
                    1.7976931348623157e308, -123456.78901234567, Math.E, Math.PI, 9007199254740991, 1e21, 1.5e-7];
    const text = JSON.stringify({ op: 'attention', query: [[1]], key: [[1]], value: [values], scale: 1 });
    const r = withTempFile(text, (tmp) => runAttn(['run', tmp]));
    if (r.status !== 0) return [`exit status ${r.status}\n${describe(r)}`];
    const out = JSON.parse(r.stdout);
    const failures = [];
    if (out.weights[0][0] !== 1) failures.push(`weight ${out.weights[0][0]}, expected exactly 1`);
    values.forEach((v, i) => {
      if (!Object.is(out.output[0][i], v))
        failures.push(`value ${fmt(v)} came back as ${fmt(out.output[0][i])}`);
    });
    // A computed result printed and read back is the same double as printed twice (stable text).
    const r2 = runAttn(['run', '-'], text);
    if (r2.stdout !== r.stdout) failures.push('two runs printed different text');
    if (!failures.length) console.log(`ok ${values.length} doubles round-trip bit for bit`);
    return failures;
  },

  // Usage errors and unreadable files are failures with a message, never exit 0 or a crash.
  usage() {
    const failures = [];
    const none = runAttn([]);
    if (none.status === 0 || none.status === null) failures.push(`no arguments: exit status ${none.status}\n${describe(none)}`);
    if (!/usage/i.test(none.stderr)) failures.push(`no arguments: no usage text on stderr\n${describe(none)}`);
    const missing = runAttn(['run', path.join(os.tmpdir(), 'attn-no-such-dir', 'missing.json')]);
    if (missing.status === 0 || missing.status === null) failures.push(`missing file: exit status ${missing.status}\n${describe(missing)}`);
    if (missing.stderr.trim() === '') failures.push('missing file: nothing on stderr');
    if (!failures.length) console.log(`ok usage error exit ${none.status}, missing file exit ${missing.status}`);
    return failures;
  },
};

// ---------------------------------------------------------------------------

let failed = false;
try {
  if (countTests !== null) {
    const r = runAttn(['--list-test-names-only']);
    const names = r.stdout.split('\n').map((s) => s.trim()).filter((s) => s.length > 0);
    if (names.length !== countTests) {
      console.error(`FAIL: the test binary lists ${names.length} test cases, CMake registered ${countTests}`);
      failed = true;
    } else {
      console.log(`ok ${names.length} test cases registered`);
    }
  } else if (cliCheck) {
    const fn = cliChecks[cliCheck];
    if (!fn) usage(`unknown --cli-check ${cliCheck}`);
    const failures = fn();
    if (failures.length) {
      console.error(`FAIL cli ${cliCheck}:\n${failures.slice(0, 5).join('\n')}`);
      failed = true;
    }
  } else {
    for (const f of files) {
      const msg = runCaseFile(f);
      if (msg) {
        console.error(msg);
        failed = true;
      }
    }
  }
} catch (e) {
  console.error(`FAIL: ${e.message}`);
  failed = true;
}
process.exit(failed ? 1 : 0);
