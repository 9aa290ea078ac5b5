// learn/gemm_lanes.hpp — the learning layers' accumulating matrix product, written once over a
// vector width W (doubles per register) and compiled once per instruction set: W = 2 in
// layers.cpp (SSE2 natively, simd128 in wasm) and W = 4 in gemm_avx2.cpp (x86-64, picked at run
// time by learn::gemm_acc).
//
// Why the width cannot change a bit: every element C[i][j] is its own sum, C's value first, then
// the products in ascending p, each product rounded and then added (contraction off: no fused
// multiply-add on any target). A lane holds one j; a wider register computes more j's at once,
// never a different order for any one of them.
//
// Internal header: included only inside a namespace of its own per file (ATTN_GEMM_NS), so that no
// inline function is shared between files compiled with different -m flags.
#ifndef ATTN_GEMM_NS
#error "define ATTN_GEMM_NS (the namespace of this build) and ATTN_GEMM_W before including gemm_lanes.hpp"
#endif

namespace attn::learn::ATTN_GEMM_NS {

typedef double vec __attribute__((vector_size(8 * ATTN_GEMM_W)));
constexpr int kW = ATTN_GEMM_W;

inline vec load(const double* p) {
  vec v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(double* p, vec v) { __builtin_memcpy(p, &v, sizeof v); }
inline vec splat(double x) {
  vec v;
  for (int l = 0; l < kW; ++l) v[l] = x;
  return v;
}

/// C[i·ldc + j] += Σ_p A[i·a_rs + p·a_cs] · B[p·ldb + j] for i < M, j < N, each sum in ascending p
/// after C's own value (the plain triple loop's order, so its bits). Register tiles of 4 rows ×
/// 2W columns; the remaining columns in tiles of W, then one at a time, all by the same recurrence.
inline void gemm_acc(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int m,
                     int n, int k) {
  int i = 0;
  for (; i + 4 <= m; i += 4) {
    const double* ap = a + i * a_rs;
    int j = 0;
    for (; j + 2 * kW <= n; j += 2 * kW) {
      double* c0 = c + static_cast<long>(i) * ldc + j;
      vec acc[4][2];
      for (int r = 0; r < 4; ++r) {
        acc[r][0] = load(c0 + static_cast<long>(r) * ldc);
        acc[r][1] = load(c0 + static_cast<long>(r) * ldc + kW);
      }
      const double* bp = b + j;
      for (int p = 0; p < k; ++p) {
        const vec b0 = load(bp + static_cast<long>(p) * ldb), b1 = load(bp + static_cast<long>(p) * ldb + kW);
        for (int r = 0; r < 4; ++r) {
          const vec aa = splat(ap[r * a_rs + p * a_cs]);
          acc[r][0] += aa * b0;
          acc[r][1] += aa * b1;
        }
      }
      for (int r = 0; r < 4; ++r) {
        store(c0 + static_cast<long>(r) * ldc, acc[r][0]);
        store(c0 + static_cast<long>(r) * ldc + kW, acc[r][1]);
      }
    }
    for (; j + kW <= n; j += kW) {
      double* c0 = c + static_cast<long>(i) * ldc + j;
      vec acc[4];
      for (int r = 0; r < 4; ++r) acc[r] = load(c0 + static_cast<long>(r) * ldc);
      const double* bp = b + j;
      for (int p = 0; p < k; ++p) {
        const vec b0 = load(bp + static_cast<long>(p) * ldb);
        for (int r = 0; r < 4; ++r) acc[r] += splat(ap[r * a_rs + p * a_cs]) * b0;
      }
      for (int r = 0; r < 4; ++r) store(c0 + static_cast<long>(r) * ldc, acc[r]);
    }
    for (; j < n; ++j)
      for (int r = 0; r < 4; ++r) {
        double acc = c[static_cast<long>(i + r) * ldc + j];
        for (int p = 0; p < k; ++p) acc += a[(i + r) * a_rs + p * a_cs] * b[static_cast<long>(p) * ldb + j];
        c[static_cast<long>(i + r) * ldc + j] = acc;
      }
  }
  for (; i < m; ++i) {
    int j = 0;
    for (; j + kW <= n; j += kW) {
      double* c0 = c + static_cast<long>(i) * ldc + j;
      vec acc = load(c0);
      for (int p = 0; p < k; ++p) acc += splat(a[i * a_rs + p * a_cs]) * load(b + static_cast<long>(p) * ldb + j);
      store(c0, acc);
    }
    for (; j < n; ++j) {
      double acc = c[static_cast<long>(i) * ldc + j];
      for (int p = 0; p < k; ++p) acc += a[i * a_rs + p * a_cs] * b[static_cast<long>(p) * ldb + j];
      c[static_cast<long>(i) * ldc + j] = acc;
    }
  }
}

}  // namespace attn::learn::ATTN_GEMM_NS
