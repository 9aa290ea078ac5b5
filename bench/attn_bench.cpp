// bench/attn_bench.cpp — native benchmark suite of the attention kernels (Google Benchmark).
//
//   build/bench-native/bench/attn_bench [--benchmark_filter=...] [--benchmark_out=FILE --benchmark_out_format=json]
//   (scripts/bench.sh builds and runs it with the wasm runs and writes bench/RESULTS.md)
//
// Benchmarks (names "<type>/<kernel>/T:<T>/d:<d>", Tq = Tk = T, d_k = d_v = d, no mask):
//   naive  loops (bench_common.hpp), T <= 2048
//   dense  kernels::dense_attention — Eigen GEMM, Tq×Tk probabilities stored
//   tiled  kernels::tiled_attention — online softmax, no Tq×Tk matrix
//   gemm   Eigen GEMM, 1024×1024×1024, from the same Eigen build as the kernels (the instruction
//          set in use, kernels::active_isa(); ATTN_KERNEL_ISA=avx2 etc. forces one): the yardstick
//   fma_peak  the float32 FMA peak of this machine for that instruction set (12 independent AVX2
//          or AVX-512 FMA chains)
// Counters (time is CPU time, the default of Google Benchmark, so that a shared machine's other
// processes distort it less; GFLOP/s counts 4·T²·d per forward as the targets do):
//   GFLOPS         forward FLOPs / CPU time
//   softmax_share  fraction of one profiled forward spent in scale/mask/max/exp/sums (KernelProfile)
//   extra_MB       growth of the peak resident set during one call (VmHWM after a reset − VmRSS
//                  before; measured in a forked child, see measure_memory)
//   peak_RSS_MB    that child's peak resident set (the whole benchmark process's data)
//   workspace_MB   working memory the kernel reports (dense: Tq×Tk; tiled: tile workspace)
//   err_vs_f64     float32 only, T <= 2048: max |out − out_float64| on the same inputs
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "bench_common.hpp"

using namespace attn_bench;

namespace {

enum class Kernel { naive, dense, tiled };
const char* kernel_name(Kernel k) { return k == Kernel::naive ? "naive" : k == Kernel::dense ? "dense" : "tiled"; }

/// A field of /proc/self/status in kB (VmRSS, VmHWM); -1 if unavailable.
long status_kb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, n, key) == 0) return std::stol(line.substr(n));
  return -1;
}

struct MemoryUse {
  long rss_before_kb = -1, peak_kb = -1;
};

/// Resident memory of one call of `fn`, measured in a forked child so that the timed process
/// keeps glibc's default allocation behaviour: the child releases the heap's free pages
/// (malloc_trim) and returns every block >= 1 MiB to the system when freed (so earlier blocks do
/// not count), resets its peak resident set (VmHWM,
/// Linux >= 4.0: "5" > /proc/self/clear_refs), runs fn and reports VmRSS before and VmHWM after.
template <class F>
MemoryUse measure_memory(F&& fn) {
  MemoryUse m;
  int fd[2];
  if (pipe(fd) != 0) return m;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    malloc_trim(0);  // free heap pages stop being resident (reused ones are counted again)
    MemoryUse c;
    c.rss_before_kb = status_kb("VmRSS:");
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.close();
    if (clear) {
      fn();
      c.peak_kb = status_kb("VmHWM:");
    }
    ssize_t written = write(fd[1], &c, sizeof c);
    (void)written;
    _exit(0);
  }
  close(fd[1]);
  if (pid > 0) {
    if (read(fd[0], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) m = MemoryUse{};
    waitpid(pid, nullptr, 0);
  }
  close(fd[0]);
  return m;
}

template <class T>
size_t run_once(Kernel kernel, const Inputs<T>& in, kn::RowMatrix<T>& out, kn::KernelProfile* prof) {
  kn::KernelOptions o;
  o.profile = prof;
  switch (kernel) {
    case Kernel::naive:
      naive_attention<T>(in.q, in.k, in.v, out);
      return static_cast<size_t>(in.k.rows()) * sizeof(T);
    case Kernel::dense: {
      kn::KernelResult<T> r = kn::dense_attention<T>(in.q, in.k, in.v, {}, o);
      out = std::move(r.output);
      return r.extra_bytes;
    }
    case Kernel::tiled: {
      kn::KernelResult<T> r = kn::tiled_attention<T>(in.q, in.k, in.v, {}, o);
      out = std::move(r.output);
      return r.extra_bytes;
    }
  }
  return 0;
}

template <class T>
void BM_attention(benchmark::State& state, Kernel kernel) {
  const int t = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1));
  const Inputs<T> in = make_inputs<T>(t, d);
  kn::RowMatrix<T> out;

  // Memory of one call (forked child: peak resident set growth), and the kernel's own account.
  const MemoryUse mem = measure_memory([&] { run_once<T>(kernel, in, out, nullptr); });
  if (mem.rss_before_kb >= 0 && mem.peak_kb >= 0) {
    state.counters["extra_MB"] = static_cast<double>(mem.peak_kb - mem.rss_before_kb) / 1024.0;
    state.counters["peak_RSS_MB"] = static_cast<double>(mem.peak_kb) / 1024.0;
  }
  const size_t workspace = run_once<T>(kernel, in, out, nullptr);  // also warms up
  state.counters["workspace_MB"] = static_cast<double>(workspace) / (1024.0 * 1024.0);

  // One profiled call for the softmax's share (the fast kernels time their phases).
  if (kernel != Kernel::naive) {
    kn::KernelProfile p;
    run_once<T>(kernel, in, out, &p);
    const double total = static_cast<double>(p.scores_ns + p.softmax_ns + p.values_ns);
    if (total > 0) state.counters["softmax_share"] = static_cast<double>(p.softmax_ns) / total;
  }

  // float32 accuracy against float64 on the same (rounded) inputs.
  if (sizeof(T) == sizeof(float) && t <= 2048) {
    const kn::RowMatrix<double> q = in.q.template cast<double>(), k = in.k.template cast<double>(),
                                v = in.v.template cast<double>();
    const kn::KernelResult<double> ref = kn::tiled_attention<double>(q, k, v);
    state.counters["err_vs_f64"] = max_abs_diff(out, ref.output);
  }

  for (auto _ : state) {
    run_once<T>(kernel, in, out, nullptr);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(attention_flops(t, d) * 1e-9 * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

template <class T>
void BM_gemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  attn::Rng rng(1);
  kn::RowMatrix<T> a(n, n), b(n, n), c;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      a(i, j) = static_cast<T>(rng.uniform(-1, 1));
      b(i, j) = static_cast<T>(rng.uniform(-1, 1));
    }
  kn::eigen_gemm<T>(a, b, c);
  for (auto _ : state) {
    kn::eigen_gemm<T>(a, b, c);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * n * n * n * 1e-9 * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/// The machine's float32 multiply-add peak: 12 independent chains of FMAs (enough chains to cover
/// the FMA latency on two FMA ports), 8 lanes with AVX2 (192 FLOPs per iteration), 16 lanes with
/// AVX-512 (384). One macro writes both: the intrinsics differ only in width, and each needs its
/// function's target attribute, which a template cannot vary.
#define ATTN_FMA_LOOP(NAME, TARGET, VEC, SET1, FMADD, LANE0)                    \
  __attribute__((target(TARGET), noinline)) float NAME(long n) {                \
    VEC acc[12];                                                                \
    for (int i = 0; i < 12; ++i) acc[i] = SET1(0.001f * static_cast<float>(i)); \
    const VEC m = SET1(0.9999f), c = SET1(1e-6f);                               \
    for (long k = 0; k < n; ++k)                                                \
      for (int i = 0; i < 12; ++i) acc[i] = FMADD(acc[i], m, c);                \
    float out = 0;                                                              \
    for (int i = 0; i < 12; ++i) out += LANE0(acc[i]);                          \
    return out;                                                                 \
  }
ATTN_FMA_LOOP(fma_loop_avx2, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_cvtss_f32)
ATTN_FMA_LOOP(fma_loop_avx512, "avx512f,avx2,fma", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_cvtss_f32)
#undef ATTN_FMA_LOOP

/// The FMA width of the kernels' build: AVX-512 when they run it, else AVX2.
bool fma_peak_avx512() { return kn::active_isa() == kn::Isa::avx512; }
const char* fma_peak_what() {
  return fma_peak_avx512() ? "12 independent AVX-512 FMA chains" : "12 independent AVX2 FMA chains";
}

void BM_fma_peak(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    state.SkipWithError("no AVX2+FMA");
    return;
  }
  const bool wide = fma_peak_avx512();
  const long n = 1 << 20;
  for (auto _ : state) {
    long opaque_n = n;  // the compiler must not hoist the (pure) loop out of the timing loop
    benchmark::DoNotOptimize(opaque_n);
    benchmark::DoNotOptimize(wide ? fma_loop_avx512(opaque_n) : fma_loop_avx2(opaque_n));
  }
  state.counters["GFLOPS"] = benchmark::Counter((wide ? 384.0 : 192.0) * n * 1e-9 *
                                                    static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}
#endif

template <class T>
void register_type(const char* type) {
  benchmark::RegisterBenchmark((std::string(type) + "/gemm").c_str(), BM_gemm<T>)
      ->ArgName("N")
      ->Arg(1024)
      ->Unit(benchmark::kMillisecond)
      ->MinTime(0.5);
  for (Kernel kernel : {Kernel::naive, Kernel::dense, Kernel::tiled}) {
    auto* b = benchmark::RegisterBenchmark((std::string(type) + "/" + kernel_name(kernel)).c_str(),
                                           [kernel](benchmark::State& s) { BM_attention<T>(s, kernel); });
    b->ArgNames({"T", "d"})->Unit(benchmark::kMillisecond)->MinTime(0.3);
    for (int t : kTs)
      for (int d : kDs)
        if (kernel != Kernel::naive || t <= kNaiveMaxT) b->Args({t, d});
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The kernels and the GEMM yardstick run the same build (ATTN_KERNEL_ISA forces a lower one).
  benchmark::AddCustomContext("kernel_isa", kn::isa_name(kn::active_isa()));
  benchmark::AddCustomContext("gemm_isa", kn::isa_name(kn::active_isa()));
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  benchmark::AddCustomContext("fma_peak_what", fma_peak_what());
  benchmark::RegisterBenchmark("f32/fma_peak", BM_fma_peak)->Unit(benchmark::kMillisecond)->MinTime(0.5);
#endif
  register_type<float>("f32");
  register_type<double>("f64");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
