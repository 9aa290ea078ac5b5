// bench/fp64_peak.hpp — the machine's float64 multiply-then-add rate, measured: independent chains
// acc = acc·m + a in registers of W doubles (separate multiply and add, as the core computes
// with contraction off; no fused multiply-add). 2 FLOPs per lane per chain step. Compiled once
// per width in its own namespace (fp64_peak_base.cpp: W = 2, SSE2 natively and simd128 in wasm;
// fp64_peak_avx2.cpp: W = 4) so that the training benchmark compares a step's rate with the
// peak of the register width its matrix products use.
#ifndef ATTN_PEAK_NS
#error "define ATTN_PEAK_NS and ATTN_PEAK_W before including fp64_peak.hpp"
#endif
#include <chrono>

namespace ATTN_PEAK_NS {

typedef double vec __attribute__((vector_size(8 * ATTN_PEAK_W)));

/// GFLOP/s of the best of `rounds` runs of about `seconds` each.
inline double fp64_peak_gflops(double seconds, int rounds) {
  constexpr int kChains = 12;
  constexpr long kInner = 1 << 14;
  vec m, a;
  for (int l = 0; l < ATTN_PEAK_W; ++l) m[l] = 0.9999999, a[l] = 1e-9;
  double best = 0.0;
  volatile double sink = 0.0;
  for (int round = 0; round < rounds; ++round) {
    // twelve named chains (not an array): every one stays in a register on both targets
    vec c0 = m, c1 = m + a, c2 = m + a + a, c3 = c2 + a, c4 = c3 + a, c5 = c4 + a, c6 = c5 + a, c7 = c6 + a,
        c8 = c7 + a, c9 = c8 + a, c10 = c9 + a, c11 = c10 + a;
    const auto t0 = std::chrono::steady_clock::now();
    long iters = 0;
    double elapsed = 0.0;
    do {
      for (long i = 0; i < kInner; ++i) {
        c0 = c0 * m + a, c1 = c1 * m + a, c2 = c2 * m + a, c3 = c3 * m + a;
        c4 = c4 * m + a, c5 = c5 * m + a, c6 = c6 * m + a, c7 = c7 * m + a;
        c8 = c8 * m + a, c9 = c9 * m + a, c10 = c10 * m + a, c11 = c11 * m + a;
      }
      iters += kInner;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (elapsed < seconds);
    const vec all = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11));
    for (int l = 0; l < ATTN_PEAK_W; ++l) sink = sink + all[l];
    const double gflops = 2.0 * ATTN_PEAK_W * kChains * static_cast<double>(iters) / elapsed / 1e9;
    if (gflops > best) best = gflops;
  }
  return best;
}

}  // namespace ATTN_PEAK_NS
