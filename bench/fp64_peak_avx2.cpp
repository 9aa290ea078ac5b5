// bench/fp64_peak_avx2.cpp — the float64 multiply-then-add peak four doubles per register (AVX2,
// compiled with -mavx2 and contraction off; called only when the CPU has AVX2); bench/fp64_peak.hpp.
#define ATTN_PEAK_NS fp64_peak_avx2
#define ATTN_PEAK_W 4
#include "fp64_peak.hpp"

double fp64_peak_avx2_gflops(double seconds, int rounds) { return fp64_peak_avx2::fp64_peak_gflops(seconds, rounds); }
