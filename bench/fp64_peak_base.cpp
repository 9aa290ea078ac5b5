// bench/fp64_peak_base.cpp — the float64 multiply-then-add peak two doubles per register (SSE2
// natively, simd128 in wasm); bench/fp64_peak.hpp.
#define ATTN_PEAK_NS fp64_peak_base
#define ATTN_PEAK_W 2
#include "fp64_peak.hpp"

double fp64_peak_base_gflops(double seconds, int rounds) { return fp64_peak_base::fp64_peak_gflops(seconds, rounds); }
