// bench/wasm_bench.cpp — the same kernels and shapes as attn_bench.cpp, built with em++ and run
// under node and in headless Chromium (bench/run_wasm.mjs). Google Benchmark has no wasm build,
// so this is a small harness with the same rules:
//   warm-up first (V8 starts wasm in a baseline tier and optimises hot functions later), then
//   repeat each forward for at least --min-time seconds and at least 5 samples (3 for calls of
//   seconds; a sample times a
//   batch of calls lasting >= 2 ms); report the minimum and median wall time per call
//   (performance.now) and, under node, the process CPU time per call.
// Output: one line per benchmark, "BENCH {json}", then "BENCH_DONE".
//   node --no-experimental-fetch attn_bench_wasm.js [--filter SUBSTR[,SUBSTR...]] [--min-time S] [--all]
// Names: f32/tiled/T:2048/d:64, f64/gemm/N:1024, ...
// --all also runs dense at T = 8192 (~10 s per forward in wasm); naive stops at T = 2048.
#include <emscripten.h>
#include <wasm_simd128.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"

using namespace attn_bench;

EM_JS(double, js_now_ms, (), { return performance.now(); });
EM_JS(double, js_cpu_ms, (), {
  if (typeof process !== 'undefined' && process.cpuUsage) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  return -1;
});

namespace {

struct Options {
  std::string filter;
  double min_time = 0.5;
  bool all = false;
};

template <class T>
size_t run_once(const std::string& kernel, const Inputs<T>& in, kn::RowMatrix<T>& out, kn::KernelProfile* prof) {
  kn::KernelOptions o;
  o.profile = prof;
  if (kernel == "naive") {
    naive_attention<T>(in.q, in.k, in.v, out);
    return static_cast<size_t>(in.k.rows()) * sizeof(T);
  }
  kn::KernelResult<T> r =
      kernel == "dense" ? kn::dense_attention<T>(in.q, in.k, in.v, {}, o) : kn::tiled_attention<T>(in.q, in.k, in.v, {}, o);
  out = std::move(r.output);
  return r.extra_bytes;
}

struct Timing {
  double min_ms, median_ms, cpu_ms;
  int reps;
};

template <class F>
Timing time_it(F&& f, double min_time) {
  // Warm-up: 0.3 s of calls (at least one), so that the optimising tier has compiled the kernels.
  // Shapes run from small to large, so the kernels are already optimised when a long call comes.
  const double w0 = js_now_ms();
  double one = 1e30;
  for (int i = 0; i < 1 || js_now_ms() - w0 < 300.0; ++i) {
    const double a = js_now_ms();
    f();
    one = std::min(one, js_now_ms() - a);
    if (i >= 50) break;
  }
  // Calls per sample: enough for >= 2 ms, since browsers coarsen performance.now (to 0.1 ms).
  const int batch = one >= 2.0 ? 1 : static_cast<int>(2.0 / std::max(one, 0.005)) + 1;
  std::vector<double> ms;
  const double t0 = js_now_ms(), c0 = js_cpu_ms();
  int calls = 0;
  const size_t min_samples = one > 2000.0 ? 3 : 5;  // calls of seconds: 3 samples
  while (ms.size() < min_samples || js_now_ms() - t0 < min_time * 1000.0) {
    const double a = js_now_ms();
    for (int b = 0; b < batch; ++b) f();
    ms.push_back((js_now_ms() - a) / batch);
    calls += batch;
    if (ms.size() >= 1000) break;
  }
  const double c1 = js_cpu_ms();
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  return {sorted.front(), sorted[sorted.size() / 2], c0 >= 0 ? (c1 - c0) / static_cast<double>(calls) : -1.0, calls};
}

void print_line(const char* type, const char* kernel, int t, int d, const Timing& tm, double flops, double softmax_share,
                size_t extra_bytes, const char* extra = "") {
  std::printf(
      "BENCH {\"type\":\"%s\",\"kernel\":\"%s\",\"T\":%d,\"d\":%d,\"ms_min\":%.6g,\"ms_median\":%.6g,\"cpu_ms\":%.6g,"
      "\"reps\":%d,\"gflops\":%.6g,\"softmax_share\":%.6g,\"extra_bytes\":%zu%s}\n",
      type, kernel, t, d, tm.min_ms, tm.median_ms, tm.cpu_ms, tm.reps, flops / (tm.min_ms * 1e6), softmax_share,
      extra_bytes, extra);
  std::fflush(stdout);
}

/// --filter A,B,...: run the benchmarks whose name contains any of the parts.
bool selected(const Options& o, const std::string& name) {
  if (o.filter.empty()) return true;
  size_t start = 0;
  while (start <= o.filter.size()) {
    const size_t end = std::min(o.filter.find(',', start), o.filter.size());
    const std::string part = o.filter.substr(start, end - start);
    if (!part.empty() && name.find(part) != std::string::npos) return true;
    start = end + 1;
  }
  return false;
}

/// The f32x4 multiply-add peak: 12 independent chains x = x·m + c (wasm has no FMA: a mul and
/// an add, 8 FLOPs per chain and step). 96 FLOPs per iteration.
__attribute__((noinline)) float muladd_loop(int n) {
  v128_t acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = wasm_f32x4_splat(0.001f * static_cast<float>(i));
  const v128_t m = wasm_f32x4_splat(0.9999f), c = wasm_f32x4_splat(1e-6f);
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < 12; ++i) acc[i] = wasm_f32x4_add(wasm_f32x4_mul(acc[i], m), c);
  float out = 0;
  for (int i = 0; i < 12; ++i) out += wasm_f32x4_extract_lane(acc[i], 0);
  return out;
}

template <class T>
void run_type(const char* type, const Options& opt) {
  if (sizeof(T) == sizeof(float) && selected(opt, "f32/muladd_peak")) {
    const int n = 1 << 18;
    volatile int opaque_n = n;  // read on every call: the (pure) loop cannot be hoisted or merged
    volatile float sink = 0;
    const Timing tm = time_it([&] { sink = sink + muladd_loop(opaque_n); }, opt.min_time);
    print_line(type, "muladd_peak", 0, 0, tm, 96.0 * n, 0.0, 0);
  }
  {
    const std::string name = std::string(type) + "/gemm/N:1024";
    if (selected(opt, name)) {
      const int n = 1024;
      const Inputs<T> in = make_inputs<T>(n, n, 1);
      kn::RowMatrix<T> c;
      const Timing tm = time_it([&] { kn::eigen_gemm<T>(in.q, in.k, c); }, opt.min_time);
      print_line(type, "gemm", n, n, tm, 2.0 * n * n * n, 0.0, 0);
    }
  }
  for (const char* kernel : {"naive", "dense", "tiled"})
    for (int t : kTs)
      for (int d : kDs) {
        const std::string name = std::string(type) + "/" + kernel + "/T:" + std::to_string(t) + "/d:" + std::to_string(d);
        if (!selected(opt, name)) continue;
        if (std::strcmp(kernel, "naive") == 0 && t > kNaiveMaxT) continue;
        if (std::strcmp(kernel, "dense") == 0 && t > 2048 && !opt.all) continue;
        const Inputs<T> in = make_inputs<T>(t, d);
        kn::RowMatrix<T> out;
        size_t extra = 0;
        const Timing tm = time_it([&] { extra = run_once<T>(kernel, in, out, nullptr); }, opt.min_time);
        double share = 0;
        if (std::strcmp(kernel, "naive") != 0) {
          kn::KernelProfile p;
          run_once<T>(kernel, in, out, &p);
          const double total = static_cast<double>(p.scores_ns + p.softmax_ns + p.values_ns);
          share = total > 0 ? static_cast<double>(p.softmax_ns) / total : 0;
        }
        std::string acc;
        if (sizeof(T) == sizeof(float) && t <= 2048) {
          const kn::RowMatrix<double> q = in.q.template cast<double>(), k = in.k.template cast<double>(),
                                      v = in.v.template cast<double>();
          const kn::KernelResult<double> ref = kn::tiled_attention<double>(q, k, v);
          char buf[64];
          std::snprintf(buf, sizeof buf, ",\"err_vs_f64\":%.3g", max_abs_diff(out, ref.output));
          acc = buf;
        }
        print_line(type, kernel, t, d, tm, attention_flops(t, d), share, extra, acc.c_str());
      }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--filter" && i + 1 < argc) opt.filter = argv[++i];
    else if (a == "--min-time" && i + 1 < argc) opt.min_time = std::atof(argv[++i]);
    else if (a == "--all") opt.all = true;
    else {
      std::fprintf(stderr, "usage: attn_bench_wasm [--filter SUBSTR[,SUBSTR...]] [--min-time S] [--all]\n");
      return 64;
    }
  }
  std::printf("BENCH_ENV {\"kernel_isa\":\"%s\"}\n", kn::isa_name(kn::active_isa()));
  run_type<float>("f32", opt);
  run_type<double>("f64", opt);
  std::printf("BENCH_DONE\n");
  std::fflush(stdout);
  return 0;
}
