// learn/gemm_avx2.cpp — the learning layers' matrix product (learn/gemm_lanes.hpp) four doubles
// per register, compiled with -mavx2 and contraction off (x86-64 only; core/CMakeLists.txt).
// Called only after a run-time check that the CPU has AVX2 (learn::gemm_acc).
#if !defined(__AVX2__)
#error "gemm_avx2.cpp must be compiled with -mavx2"
#endif
#include "learn/gemm.hpp"

#define ATTN_GEMM_NS gemm_avx2
#define ATTN_GEMM_W 4
#include "learn/gemm_lanes.hpp"

namespace attn::learn::detail {
void gemm_acc_avx2(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int m, int n,
                   int k) {
  gemm_avx2::gemm_acc(c, ldc, a, a_rs, a_cs, b, ldb, m, n, k);
}
void exp_shifted_avx2(double* out, const double* in, double shift, int n) {
  gemm_avx2::exp_shifted(out, in, shift, n);
}
void tanh_of_rows_avx2(double* out, const double* a, long a_rs, const double* b, int rows, int n) {
  gemm_avx2::tanh_of_rows(out, a, a_rs, b, rows, n);
}
void sigmoid_of_sum_avx2(double* out, const double* a, const double* b, int n) {
  gemm_avx2::sigmoid_of_sum(out, a, b, n);
}
}  // namespace attn::learn::detail
