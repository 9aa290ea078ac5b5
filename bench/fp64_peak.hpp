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
    vec acc[kChains];
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < ATTN_PEAK_W; ++l) acc[c][l] = 1.0 + 0.01 * c + 0.001 * l;
    const auto t0 = std::chrono::steady_clock::now();
    long iters = 0;
    double elapsed = 0.0;
    do {
      for (long i = 0; i < kInner; ++i)
        for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * m + a;
      iters += kInner;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } while (elapsed < seconds);
    for (int c = 0; c < kChains; ++c)
      for (int l = 0; l < ATTN_PEAK_W; ++l) sink = sink + acc[c][l];
    const double gflops = 2.0 * ATTN_PEAK_W * kChains * static_cast<double>(iters) / elapsed / 1e9;
    if (gflops > best) best = gflops;
  }
  return best;
}

}  // namespace ATTN_PEAK_NS
