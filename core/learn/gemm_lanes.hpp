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
#include "attn/det_tanh.hpp"
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
typedef long long ivec __attribute__((vector_size(8 * ATTN_GEMM_W)));

/// det::exp of every lane, for lanes in [−708, 709] only (det::exp's regular branch there).
inline vec exp_regular(vec x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00, kShift = 6755399441055744.0;
  static constexpr double kInvFact[] = {
      1.0 / 20922789888000.0, 1.0 / 1307674368000.0, 1.0 / 87178291200.0, 1.0 / 6227020800.0,
      1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
      1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  const vec big = splat(kShift);
  const vec k = (x * splat(kInvLn2) + big) - big;
  const vec r = (x - k * splat(kLn2Hi)) - k * splat(kLn2Lo);
  vec p = splat(1.0 / 355687428096000.0);  // 1/17!
  for (double c : kInvFact) p = p * r + splat(c);
  const ivec bits = (__builtin_convertvector(k, ivec) + 1023) << 52;  // k in [−1021, 1023]: 2^k is normal
  vec scale;
  __builtin_memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

/// True when every lane is in [lo, hi] (false for NaN).
inline bool all_within(vec x, double lo, double hi) {
  bool in = true;
  for (int l = 0; l < kW; ++l) in = in && x[l] >= lo && x[l] <= hi;
  return in;
}

/// out[j] = det::exp(in[j] − shift) for j < n, the same bits as that scalar call (out may be in).
/// Lanes run det::exp's operations on W elements at once: Cody–Waite reduction with the 1.5·2^52
/// rounding shift, the Taylor polynomial to r^17/17! by Horner, the scale 2^k built from its bits.
/// A group with any element outside [−708, 709] (where det::exp takes its other branches: NaN,
/// overflow, underflow, subnormal results) is computed by det::exp itself, element by element.
inline void exp_shifted(double* out, const double* in, double shift, int n) {
  const vec sh = splat(shift);
  int j = 0;
  for (; j + kW <= n; j += kW) {
    const vec x = load(in + j) - sh;
    if (all_within(x, -708.0, 709.0)) {
      store(out + j, exp_regular(x));
    } else {
      for (int l = 0; l < kW; ++l) out[j + l] = det::exp(x[l]);
    }
  }
  for (; j < n; ++j) out[j] = det::exp(in[j] - shift);
}

/// out[j] = det::tanh(a[j] + b[j]) for j < n, the same bits (out may be a or b). det::tanh's two
/// branches are both computed in lanes and chosen per lane: |x| < 1 the sinh series over
/// sqrt(1 + sinh²) (sqrt is correctly rounded on every target), else (1 − e^{−2|x|}) / (1 + e^{−2|x|}).
/// A group with NaN or |x| > 354 (e^{−2|x|} off exp_regular's range) goes through det::tanh.
inline void tanh_of_sum(double* out, const double* a, const double* b, int n) {
  static constexpr double kInvOddFact[] = {
      1.0 / 121645100408832000.0, 1.0 / 355687428096000.0, 1.0 / 1307674368000.0,
      1.0 / 6227020800.0,         1.0 / 39916800.0,        1.0 / 362880.0,
      1.0 / 5040.0,               1.0 / 120.0,             1.0 / 6.0,
      1.0};
  int j = 0;
  for (; j + kW <= n; j += kW) {
    const vec x = load(a + j) + load(b + j);
    if (!all_within(x, -354.0, 354.0)) {
      for (int l = 0; l < kW; ++l) out[j + l] = det::tanh(x[l]);
      continue;
    }
    vec ax;
    for (int l = 0; l < kW; ++l) ax[l] = __builtin_fabs(x[l]);
    const vec x2 = x * x;
    vec s = splat(1.0 / 51090942171709440000.0);  // 1/21!
    for (double c : kInvOddFact) s = s * x2 + splat(c);
    const vec sh = x * s;
    vec q = splat(1.0) + sh * sh;
    for (int l = 0; l < kW; ++l) q[l] = __builtin_sqrt(q[l]);
    const vec small = sh / q;
    const vec t = exp_regular(splat(-2.0) * ax);
    const vec r = (splat(1.0) - t) / (splat(1.0) + t);
    vec res;
    for (int l = 0; l < kW; ++l) res[l] = ax[l] < 1.0 ? small[l] : (x[l] < 0 ? -r[l] : r[l]);
    store(out + j, res);
  }
  for (; j < n; ++j) out[j] = det::tanh(a[j] + b[j]);
}

/// out[j] = det::sigmoid(a[j] + b[j]) = 1 / (1 + det::exp(−x)) for j < n, the same bits (out may
/// be a or b). A group with NaN or −x outside [−708, 709] goes through det::sigmoid.
inline void sigmoid_of_sum(double* out, const double* a, const double* b, int n) {
  int j = 0;
  for (; j + kW <= n; j += kW) {
    const vec x = load(a + j) + load(b + j);
    const vec mx = -x;
    if (all_within(mx, -708.0, 709.0)) {
      store(out + j, splat(1.0) / (splat(1.0) + exp_regular(mx)));
    } else {
      for (int l = 0; l < kW; ++l) out[j + l] = det::sigmoid(x[l]);
    }
  }
  for (; j < n; ++j) out[j] = det::sigmoid(a[j] + b[j]);
}
}  // namespace attn::learn::ATTN_GEMM_NS
