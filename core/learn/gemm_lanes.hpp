// learn/gemm_lanes.hpp — the learning layers' vector loops (the accumulating matrix product, the
// shifted exp of the softmaxes), written once over a vector width W (doubles per register) and
// compiled once per instruction set: W = 2 in
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
#include "attn/detmath.hpp"

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

/// out[j] = det::exp(in[j] − shift) for j < n, the same bits as that scalar call (out may be in).
/// Lanes run det::exp's operations on W elements at once: Cody–Waite reduction with the 1.5·2^52
/// rounding shift, the Taylor polynomial to r^17/17! by Horner, the scale 2^k built from its bits.
/// A group with any element outside [−708, 709] (where det::exp takes its other branches: NaN,
/// overflow, underflow, subnormal results) is computed by det::exp itself, element by element.
inline void exp_shifted(double* out, const double* in, double shift, int n) {
  typedef long long ivec __attribute__((vector_size(8 * ATTN_GEMM_W)));
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00, kShift = 6755399441055744.0;
  static constexpr double kInvFact[] = {
      1.0 / 20922789888000.0, 1.0 / 1307674368000.0, 1.0 / 87178291200.0, 1.0 / 6227020800.0,
      1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
      1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  const vec sh = splat(shift), inv = splat(kInvLn2), hi = splat(kLn2Hi), lo = splat(kLn2Lo), big = splat(kShift);
  int j = 0;
  for (; j + kW <= n; j += kW) {
    const vec x = load(in + j) - sh;
    bool regular = true;
    for (int l = 0; l < kW; ++l) regular = regular && x[l] >= -708.0 && x[l] <= 709.0;  // false for NaN
    if (!regular) {
      for (int l = 0; l < kW; ++l) out[j + l] = det::exp(x[l]);
      continue;
    }
    const vec k = (x * inv + big) - big;
    const vec r = (x - k * hi) - k * lo;
    vec p = splat(1.0 / 355687428096000.0);  // 1/17!
    for (double c : kInvFact) p = p * r + splat(c);
    const ivec bits = (__builtin_convertvector(k, ivec) + 1023) << 52;  // k in [−1021, 1023]: 2^k is normal
    vec scale;
    __builtin_memcpy(&scale, &bits, sizeof scale);
    store(out + j, p * scale);
  }
  for (; j < n; ++j) out[j] = det::exp(in[j] - shift);
}

}  // namespace attn::learn::ATTN_GEMM_NS
