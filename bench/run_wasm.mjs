#!/usr/bin/env node
// bench/run_wasm.mjs — run the wasm kernel benchmark (attn_bench_wasm.js) under node or in
// headless Chromium and write its results as a JSON array.
//
//   node bench/run_wasm.mjs --dir build/bench-web/bench --where node|chromium --out FILE [--args "..."]
//                           [--js attn_bench_wasm.js --page wasm_bench.html]
//
// node: `node --no-experimental-fetch attn_bench_wasm.js ARGS`. chromium: the folder is served on
// 127.0.0.1 and wasm_bench.html opened in Debian's Chromium through playwright-core (launched as
// tests/e2e/lib.mjs does); the page's console lines are collected. Lines "BENCH {json}" are results.
// --js / --page pick another program built the same way (the training benchmark: train_bench_wasm.js
// and train_bench.html).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const dir = path.resolve(opt('--dir', 'build/bench-web/bench'));
const where = opt('--where', 'node');
const out = opt('--out', null);
const args = opt('--args', '');
const timeoutMs = Number(opt('--timeout-min', 40)) * 60000;
const jsName = opt('--js', 'attn_bench_wasm.js');
const pageName = opt('--page', 'wasm_bench.html');

function parse(lines) {
  const results = [];
  let env = {}, done = false;
  for (const line of lines) {
    if (line.startsWith('BENCH ')) results.push(JSON.parse(line.slice(6)));
    else if (line.startsWith('BENCH_ENV ')) env = JSON.parse(line.slice(10));
    else if (line.trim() === 'BENCH_DONE') done = true;
  }
  return { env, results, done };
}

let parsed;
if (where === 'node') {
  const js = path.join(dir, jsName);
  const r = spawnSync(process.execPath, ['--no-experimental-fetch', js, ...args.split(' ').filter(Boolean)], {
    encoding: 'utf8', maxBuffer: 64 << 20, timeout: timeoutMs, stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.error) throw r.error;
  parsed = parse(r.stdout.split('\n'));
  parsed.env.engine = `node ${process.version}`;
  if (r.status !== 0) console.error(`run_wasm: node exited with ${r.status}`);
} else if (where === 'chromium') {
  const { launchChromium, serveStatic } = await import('../tests/e2e/lib.mjs');
  const server = await serveStatic(dir);
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext()).newPage();
    const lines = [];
    let finished;
    const doneP = new Promise((resolve) => { finished = resolve; });
    page.on('console', (m) => {
      const t = m.text();
      lines.push(t);
      if (t.startsWith('BENCH ')) process.stderr.write('.');
      if (t.trim() === 'BENCH_DONE' || t.startsWith('BENCH_ERROR')) finished();
    });
    page.on('pageerror', (e) => { lines.push('page error: ' + e.message); finished(); });
    await page.goto(`${server.url}${pageName}?args=${encodeURIComponent(args)}`, { waitUntil: 'load' });
    const timer = new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), timeoutMs));
    await Promise.race([doneP, timer]);
    process.stderr.write('\n');
    parsed = parse(lines);
    parsed.env.engine = `Chromium ${browser.version()} (headless)`;
    for (const l of lines) if (l.startsWith('page error')) console.error(l);
  } finally {
    await browser.close();
    await server.close();
  }
} else {
  console.error('run_wasm: --where node|chromium');
  process.exit(64);
}

if (!parsed.done) console.error(`run_wasm (${where}): the benchmark did not finish (${parsed.results.length} results)`);
const json = JSON.stringify({ where, ...parsed }, null, 1);
if (out) fs.writeFileSync(out, json); else console.log(json);
process.exit(parsed.done ? 0 : 1);
