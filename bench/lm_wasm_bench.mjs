#!/usr/bin/env node
// bench/lm_wasm_bench.mjs — GPT-2 small's 64-token forward with every attention map, in float32, in the
// language-model Worker's wasm (attention-lab-lm.js): under node, and in headless Chromium inside a
// Worker that reads the file from a fetched Blob tensor by tensor, as the page will.
//
//   node bench/lm_wasm_bench.mjs --model FILE --config FILE [--lm build/web/web/attention-lab-lm.js]
//                                [--where node,chromium] [--runs 3] [--json OUT]
//
// The file is the one `gpt2_bench --keep` writes (random GPT-2-small-sized weights); the tokens are
// gpt2_bench's ((i·7919 + 13) mod vocab, i < 64), and so is the FLOP count, so the figures sit beside
// the native one. One warm-up forward, then --runs timed ones; the median is reported, in seconds and
// GFLOP/s, with the load time (file → float32 weights in the module's heap).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => { const i = argv.indexOf(name); return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback; };
const model = opt('--model'), config = opt('--config');
const lmJs = path.resolve(opt('--lm', path.join(here, '..', 'build', 'web', 'web', 'attention-lab-lm.js')));
const where = opt('--where', 'node,chromium').split(',');
const runs = Math.max(1, Number(opt('--runs', '3')));
const jsonOut = opt('--json');
if (!model || !config || !fs.existsSync(model) || !fs.existsSync(config) || !fs.existsSync(lmJs)) {
  console.error('usage: node bench/lm_wasm_bench.mjs --model FILE --config FILE [--lm attention-lab-lm.js] [--where node,chromium] [--runs N] [--json OUT]\n' +
                '(the model: build/bench-native/bench/gpt2_bench --keep writes one; the module: cmake --build --preset web)');
  process.exit(64);
}
const configText = fs.readFileSync(config, 'utf8');
const cfg = JSON.parse(configText);
const T = 64, C = cfg.n_embd, L = cfg.n_layer, V = cfg.vocab_size, M = cfg.n_inner || 4 * C;
const tokens = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % V);
const gflop = (2 * T * (3 * C * C + C * C + 2 * C * M) * L + 2 * T * C * V + 2 * 2 * (T * (T + 1) / 2) * C * L) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};

function report(engine, loadS, times) {
  const s = median(times) / 1000;
  results[engine] = { load_s: loadS, forward_s: s, runs: times.map((t) => t / 1000), gflop, gflops: gflop / s };
  console.log(`lm_wasm_bench (${engine}): read in ${loadS.toFixed(2)} s; ${T}-token forward with every attention map: ` +
              `median ${s.toFixed(3)} s of ${times.length} runs, ${(gflop / s).toFixed(2)} GFLOP/s (${gflop.toFixed(2)} GFLOP)`);
}

if (where.includes('node')) {
  const factory = createRequire(import.meta.url)(lmJs);
  const lm = factory.api(await factory({ wasmBinary: fs.readFileSync(lmJs.replace(/\.js$/, '.wasm')) }));
  const bytes = new Uint8Array(fs.readFileSync(model));
  let t = performance.now();
  const info = lm.load(bytes, configText);
  if (info.error) throw new Error(JSON.stringify(info.error));
  const loadS = (performance.now() - t) / 1000;
  const times = [];
  for (let r = 0; r <= runs; ++r) {
    t = performance.now();
    const reply = lm.run({ op: 'forward', tokens, top: 10 });
    if (reply.error) throw new Error(JSON.stringify(reply.error));
    if (r > 0) times.push(performance.now() - t);  // run 0 warms up
  }
  report(`node ${process.version}`, loadS, times);
}

if (where.includes('chromium')) {
  const { launchChromium, serveStatic } = await import('../tests/e2e/lib.mjs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-lm-bench-'));
  for (const [name, target] of [['attention-lab-lm.js', lmJs], ['attention-lab-lm.wasm', lmJs.replace(/\.js$/, '.wasm')],
                                 ['model.safetensors', path.resolve(model)], ['config.json', path.resolve(config)]])
    fs.symlinkSync(target, path.join(dir, name));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>lm bench</title>');
  const server = await serveStatic(dir);
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(server.url, { waitUntil: 'load' });
    const out = await page.evaluate(async ({ tokens, runs }) => {
      const worker = new Worker('attention-lab-lm.js');
      let next = 0;
      const pending = new Map();
      worker.onmessage = (e) => { pending.get(e.data.id)(e.data); pending.delete(e.data.id); };
      const ask = (m) => new Promise((resolve) => { m.id = ++next; pending.set(m.id, resolve); worker.postMessage(m); });
      const blob = await (await fetch('model.safetensors')).blob();
      const configText = await (await fetch('config.json')).text();
      const loaded = await ask({ type: 'load', file: blob, config: configText });
      if (loaded.reply.error) return { error: loaded.reply.error };
      const times = [];
      for (let r = 0; r <= runs; ++r) {
        const m = await ask({ type: 'run', request: { op: 'forward', tokens, top: 10 } });
        if (m.reply.error) return { error: m.reply.error };
        if (r > 0) times.push(m.ms);
      }
      worker.terminate();
      return { load_ms: loaded.ms, times };
    }, { tokens, runs });
    if (out.error) throw new Error(JSON.stringify(out.error));
    report(`Chromium ${browser.version()} (headless, a Worker)`, out.load_ms / 1000, out.times);
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ tokens: T, gflop, load: os.loadavg(), results }, null, 2) + '\n');
