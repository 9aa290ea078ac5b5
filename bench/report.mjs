#!/usr/bin/env node
// bench/report.mjs — merge the native (Google Benchmark JSON) and wasm (run_wasm.mjs JSON) results
// into one Markdown report with the fast kernels' targets marked pass/short.
//
//   node bench/report.mjs --native native.json [--node node.json] [--chromium chromium.json]
//                         [--load-before "..."] [--load-after "..."] > bench/RESULTS.md
import fs from 'node:fs';
import os from 'node:os';

const argv = process.argv.slice(2);
const opt = (name, dflt = null) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const readJson = (f) => (f && fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null);

const native = readJson(opt('--native'));
if (!native) {
  console.error('report: --native FILE (Google Benchmark JSON) is required');
  process.exit(64);
}
const wasm = { node: readJson(opt('--node')), chromium: readJson(opt('--chromium')) };

// ---------------------------------------------------------------------------
// Rows keyed "type/kernel/T/d".
const key = (type, kernel, t, d) => `${type}/${kernel}/${t}/${d}`;
const nat = new Map();
for (const b of native.benchmarks || []) {
  if (b.run_type && b.run_type !== 'iteration') continue;
  const m = /^(f32|f64)\/(\w+)(?:\/(?:T:(\d+)\/d:(\d+)|N:(\d+)))?(?:\/min_time:[\d.]+)?$/.exec(b.name);
  if (!m) continue;
  const [, type, kernel] = m;
  const t = Number(m[3] ?? m[5] ?? 0), d = Number(m[4] ?? m[5] ?? 0);
  const scale = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 }[b.time_unit] ?? 1;
  nat.set(key(type, kernel, t, d), { type, kernel, t, d, ms: b.cpu_time * scale, real_ms: b.real_time * scale, ...b });
}
const wrows = { node: new Map(), chromium: new Map() };
for (const where of ['node', 'chromium'])
  for (const r of wasm[where]?.results || []) wrows[where].set(key(r.type, r.kernel, r.T, r.d), r);

const fmt = (x, digits = 3) => (x === undefined || x === null || Number.isNaN(x) ? '—' : Number(x).toPrecision(digits));
const fmtMs = (x) => (x === undefined || x === null ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(3));
const pct = (x) => (x === undefined || x === null || Number.isNaN(x) ? '—' : `${(100 * x).toFixed(0)}%`);
const gemm = (type) => nat.get(key(type, 'gemm', 1024, 1024))?.GFLOPS;
const fmaPeak = nat.get(key('f32', 'fma_peak', 0, 0))?.GFLOPS;
const wasmPeak = (where) => wrows[where].get(key('f32', 'muladd_peak', 0, 0))?.gflops;
const wgemm = (where, type) => wrows[where].get(key(type, 'gemm', 1024, 1024))?.gflops;
const kernels = ['naive', 'dense', 'tiled'];
const Ts = [128, 512, 2048, 8192], Ds = [64, 128];

/** The fastest kernel (by time) for a shape in a row map; {kernel, row} or null. */
function best(rows, type, t, d, timeOf) {
  let b = null;
  for (const k of kernels) {
    const r = rows.get(key(type, k, t, d));
    if (r && (!b || timeOf(r) < timeOf(b.row))) b = { kernel: k, row: r };
  }
  return b;
}
const natTime = (r) => r.ms;
const wasmTime = (r) => r.ms_min;

// The instruction set the native kernels and the GEMM yardstick ran on (attn_bench's context).
const ctx = native.context || {};
const kernelIsa = ctx.kernel_isa ?? '?', gemmIsa = ctx.gemm_isa ?? kernelIsa;
const fmaWhat = ctx.fma_peak_what ?? '12 independent AVX2 FMA chains';

// ---------------------------------------------------------------------------
// Targets
const targets = [];
const mark = (ok) => (ok === null ? 'not run' : ok ? '**pass**' : '**short**');
{
  const b = best(nat, 'f32', 2048, 64, natTime);
  const g = gemm('f32');
  const ratio = b && g ? b.row.GFLOPS / g : null;
  targets.push(['Native f32, T=2048, d=64: best kernel >= 90% of same-run Eigen GEMM GFLOP/s',
    b ? `${b.kernel} (${kernelIsa}): ${fmt(b.row.GFLOPS)} GFLOP/s = ${pct(ratio)} of GEMM ${fmt(g)} (${gemmIsa})` : '—', mark(ratio === null ? null : ratio >= 0.9)]);
  targets.push(['Native f32, T=2048, d=64: best kernel >= 88 GFLOP/s (75% of the 117 GFLOP/s FMA peak)',
    b ? `${b.kernel}: ${fmt(b.row.GFLOPS)} GFLOP/s` + (fmaPeak ? ` = ${pct(b.row.GFLOPS / fmaPeak)} of this machine's measured FMA peak ${fmt(fmaPeak)} (${fmaWhat}; the target's share: 75%)` : '') : '—',
    mark(b ? b.row.GFLOPS >= 88 : null)]);
  const slow = [], checked = [];
  for (const type of ['f32', 'f64']) for (const t of [2048, 8192]) for (const d of Ds) {
    const td = nat.get(key(type, 'tiled', t, d)), dd = nat.get(key(type, 'dense', t, d));
    if (!td || !dd) continue;
    checked.push(`${type} T=${t} d=${d}: ${fmtMs(td.ms)} vs ${fmtMs(dd.ms)} ms`);
    if (td.ms > dd.ms) slow.push(`${type} T=${t} d=${d}`);
  }
  targets.push(['Tiled no slower than dense at T >= 2048 (native)',
    checked.length ? (slow.length ? `slower: ${slow.join(', ')} (tiled vs dense: ${checked.join('; ')})` : `tiled faster in all ${checked.length} shape(s) (tiled vs dense: ${checked.join('; ')})`) : '—',
    mark(checked.length ? slow.length === 0 : null)]);
  const mem = [];
  let memOk = null;
  for (const type of ['f32', 'f64']) for (const d of Ds) {
    const td = nat.get(key(type, 'tiled', 8192, d)), dd = nat.get(key(type, 'dense', 8192, d));
    if (!td || !dd || td.extra_MB === undefined || dd.extra_MB === undefined) continue;
    const ok = td.extra_MB * 20 <= dd.extra_MB;
    memOk = (memOk ?? true) && ok;
    mem.push(`${type} d=${d}: ${fmt(td.extra_MB)} vs ${fmt(dd.extra_MB)} MB (1/${fmt(dd.extra_MB / Math.max(td.extra_MB, 1e-9), 3)})`);
  }
  targets.push(['T=8192: tiled extra memory <= 1/20 of dense (peak resident growth during a call)',
    mem.length ? mem.join('; ') : '—', mark(memOk)]);
}
{
  const ch = wrows.chromium;
  const have = ch.size > 0;
  const lines = [], shares = [], ratios = [];
  let gOk = have ? true : null, rOk = have ? true : null, sOk = have ? true : null;
  for (const t of [512, 2048]) {
    const b = best(ch, 'f32', t, 64, wasmTime);
    const n = best(nat, 'f32', t, 64, natTime);
    if (!b) { gOk = rOk = sOk = have ? false : null; continue; }
    lines.push(`T=${t}: ${b.kernel} ${fmt(b.row.gflops)} GFLOP/s` +
      (wasmPeak('chromium') ? ` (${pct(b.row.gflops / wasmPeak('chromium'))} of the measured f32x4 peak ${fmt(wasmPeak('chromium'))}; the target's share: 60%)` : ''));
    gOk = gOk && b.row.gflops >= 30;
    if (n) {
      const r = b.row.ms_min / n.row.ms;
      ratios.push(`T=${t}: ${fmtMs(b.row.ms_min)} / ${fmtMs(n.row.ms)} ms = ${fmt(r, 2)}x`);
      rOk = rOk && r <= 3;
    }
    shares.push(`T=${t}: ${pct(b.row.softmax_share)}`);
    sOk = sOk && b.row.softmax_share <= 0.25;
  }
  targets.push(['wasm f32 in Chromium, T=512 and 2048, d=64: best kernel >= 30 GFLOP/s', lines.join('; ') || '—', mark(gOk)]);
  targets.push(['... so at most 3x native time (best wasm / best native kernel)', ratios.join('; ') || '—', mark(rOk)]);
  targets.push(['... softmax <= 25% of the forward (profiled phases of that kernel)', shares.join('; ') || '—', mark(sOk)]);
}
targets.push(['Page: JS + wasm <= 800 KB gzip; first frame <= 1.5 s; median frame <= 16.7 ms; 2048x2048 heatmap >= 30 FPS',
  'not measured by this suite (the page: scripts/bench_page.mjs)', 'n/a']);

// ---------------------------------------------------------------------------
// Output
// CPU identity (the targets were set on a Zen 4 at 3.66 GHz; say what ran here).
let cpuId = os.cpus()[0]?.model ?? '?';
try {
  const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const field = (k) => (new RegExp(`^${k}\\s*:\\s*(.*)$`, 'm').exec(info) || [])[1];
  cpuId += ` (${field('vendor_id')} family ${field('cpu family')} model ${field('model')})`;
} catch { /* not Linux */ }
const out = [];
out.push('# Attention Lab — kernel benchmark results', '');
out.push(`Generated by \`scripts/bench.sh\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, host ${os.hostname()}.`);
out.push(`Machine: ${ctx.num_cpus ?? os.cpus().length} CPUs at ${ctx.mhz_per_cpu ?? '?'} MHz nominal, ${cpuId}, ` +
  `kernels built for ${kernelIsa} natively, ${wasm.node?.env?.kernel_isa ?? wasm.chromium?.env?.kernel_isa ?? '?'} in wasm.`);
out.push(`Load average (1, 5, 15 min) before: ${opt('--load-before', '?')}; after: ${opt('--load-after', '?')}` +
  ' — on a shared machine other processes slow every figure down; the native times are CPU time, which they distort less.');
out.push(`wasm engines: ${[wasm.node?.env?.engine, wasm.chromium?.env?.engine].filter(Boolean).join('; ') || 'not run'}.`, '');
out.push('Single thread. Tq = Tk = T, d_k = d_v = d, no mask, Q/K/V uniform in [-1, 1). GFLOP/s counts 4·T²·d per forward (the softmax is not counted). ' +
  `"x GEMM" divides by Eigen's GEMM (1024³, same run, Eigen compiled for the kernels' instruction set: ${gemmIsa}). ` +
  'Native times: Google Benchmark CPU time per forward (mean). ' +
  'wasm times: minimum wall time per forward after warm-up (node and Chromium); "wasm/native" divides it by the native time.', '');
out.push('## Targets (fast kernels)', '', '| target | measured | result |', '| --- | --- | --- |');
for (const [t, m, r] of targets) out.push(`| ${t} | ${m} | ${r} |`);
out.push('');

out.push('## Native (Google Benchmark)', '');
out.push(`Kernels: ${kernelIsa}. Eigen GEMM 1024³ (${gemmIsa}): f32 ${fmt(gemm('f32'))} GFLOP/s, f64 ${fmt(gemm('f64'))} GFLOP/s. ` +
  `float32 FMA peak of this machine (${fmaWhat}): ${fmt(fmaPeak)} GFLOP/s.`, '');
out.push('| type | kernel | T | d | ms | GFLOP/s | x GEMM | softmax share | extra MB (measured) | workspace MB | peak RSS MB | max err vs f64 |');
out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const type of ['f32', 'f64']) for (const t of Ts) for (const d of Ds) for (const k of kernels) {
  const r = nat.get(key(type, k, t, d));
  if (!r) {
    if (k === 'naive' && t > 2048) out.push(`| ${type} | naive | ${t} | ${d} | skipped (minutes per forward) | | | | | | | |`);
    continue;
  }
  out.push(`| ${type} | ${k} | ${t} | ${d} | ${fmtMs(r.ms)} | ${fmt(r.GFLOPS)} | ${fmt(r.GFLOPS / gemm(type), 2)} | ${pct(r.softmax_share)} | ` +
    `${fmt(r.extra_MB)} | ${fmt(r.workspace_MB)} | ${fmt(r.peak_RSS_MB)} | ${r.err_vs_f64 !== undefined ? fmt(r.err_vs_f64, 2) : ''} |`);
}
out.push('');

if (wrows.node.size || wrows.chromium.size) {
  out.push('## wasm (simd128), under node and in headless Chromium', '');
  out.push(`Eigen GEMM 1024³ in wasm (Eigen 3.4 has no wasm SIMD backend): node f32 ${fmt(wgemm('node', 'f32'))}, f64 ${fmt(wgemm('node', 'f64'))}; ` +
    `Chromium f32 ${fmt(wgemm('chromium', 'f32'))}, f64 ${fmt(wgemm('chromium', 'f64'))} GFLOP/s. ` +
    `f32x4 multiply-add peak (12 independent chains): node ${fmt(wasmPeak('node'))}, Chromium ${fmt(wasmPeak('chromium'))} GFLOP/s.`, '');
  out.push('| type | kernel | T | d | node ms | node GFLOP/s | Chromium ms | Chromium GFLOP/s | wasm/native (Chromium) | softmax share (Chromium) | workspace MB |');
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const type of ['f32', 'f64']) for (const t of Ts) for (const d of Ds) for (const k of kernels) {
    const n = wrows.node.get(key(type, k, t, d)), c = wrows.chromium.get(key(type, k, t, d)), nt = nat.get(key(type, k, t, d));
    if (!n && !c) continue;
    const any = c ?? n;
    out.push(`| ${type} | ${k} | ${t} | ${d} | ${n ? fmtMs(n.ms_min) : '—'} | ${n ? fmt(n.gflops) : '—'} | ${c ? fmtMs(c.ms_min) : '—'} | ` +
      `${c ? fmt(c.gflops) : '—'} | ${c && nt ? fmt(c.ms_min / nt.ms, 2) : '—'} | ${k === 'naive' ? '' : pct(any.softmax_share)} | ` +
      `${fmt(any.extra_bytes / 1048576)} |`);
  }
  out.push('', 'Not run in wasm: naive above T=2048 and dense at T=8192 (seconds to minutes per forward; `--all` adds dense).', '');
}
console.log(out.join('\n'));
