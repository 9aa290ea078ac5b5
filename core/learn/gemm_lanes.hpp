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

/// One register tile: C[r·ldc + v·W + l] += Σ_p A[r·a_rs + p·a_cs] · B[p·ldb + v·W + l] for r < R,
/// v < V, l < W, each sum C first, then p ascending.
template <int R, int V>
inline void gemm_tile(double* c0, int ldc, const double* ap, long a_rs, long a_cs, const double* bp, int ldb, int k) {
  vec acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = load(c0 + static_cast<long>(r) * ldc + v * kW);
  for (int p = 0; p < k; ++p) {
    vec bv[V];
    for (int v = 0; v < V; ++v) bv[v] = load(bp + static_cast<long>(p) * ldb + v * kW);
    for (int r = 0; r < R; ++r) {
      const vec aa = splat(ap[r * a_rs + p * a_cs]);
      for (int v = 0; v < V; ++v) acc[r][v] += aa * bv[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) store(c0 + static_cast<long>(r) * ldc + v * kW, acc[r][v]);
}

/// R rows of C (from row i): tiles of 2W columns, then W, then one column at a time.
template <int R>
inline void gemm_rows(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int i, int n,
                      int k) {
  const double* ap = a + i * a_rs;
  double* ci = c + static_cast<long>(i) * ldc;
  int j = 0;
  for (; j + 2 * kW <= n; j += 2 * kW) gemm_tile<R, 2>(ci + j, ldc, ap, a_rs, a_cs, b + j, ldb, k);
  for (; j + kW <= n; j += kW) gemm_tile<R, 1>(ci + j, ldc, ap, a_rs, a_cs, b + j, ldb, k);
  for (; j < n; ++j)
    for (int r = 0; r < R; ++r) {
      double acc = ci[static_cast<long>(r) * ldc + j];
      for (int p = 0; p < k; ++p) acc += ap[r * a_rs + p * a_cs] * b[static_cast<long>(p) * ldb + j];
      ci[static_cast<long>(r) * ldc + j] = acc;
    }
}

/// C[i·ldc + j] += Σ_p A[i·a_rs + p·a_cs] · B[p·ldb + j] for i < M, j < N, each sum in ascending p
/// after C's own value (the plain triple loop's order, so its bits). Register tiles of 4 rows × 2W
/// columns, then single rows; the remaining columns in tiles of W, then one at a time, all by the
/// same recurrence. (6-row tiles, 12 sums, ran wasm training 10-30% slower in Chromium: V8 spills.)
inline void gemm_acc(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int m,
                     int n, int k) {
  int i = 0;
  for (; i + 4 <= m; i += 4) gemm_rows<4>(c, ldc, a, a_rs, a_cs, b, ldb, i, n, k);
  for (; i < m; ++i) gemm_rows<1>(c, ldc, a, a_rs, a_cs, b, ldb, i, n, k);
}

// The elementwise functions (exp, tanh, sigmoid) are long chains of dependent multiply-adds (a
// Horner polynomial, a divide): one register at a time they wait on latency, not on the units. So
// they run on blocks of U registers at once (U = 4; U = 1 for the remainder) whose lanes are
// independent chains; a lane computes exactly the scalar function's operations in order, so a
// block changes no bit.
typedef long long ivec __attribute__((vector_size(8 * ATTN_GEMM_W)));
constexpr int kU = 4;        // registers per block
constexpr int kB = kU * kW;  // doubles per block

/// Correctly rounded square root of every lane (IEEE 754 requires it of every target, so the bits
/// are those of std::sqrt): one packed instruction where the target has one, since the scalar
/// __builtin_sqrt keeps a call for errno beside each lane.
inline vec sqrt_of(vec x) {
#if ATTN_GEMM_W == 4 && defined(__AVX__)
  return __builtin_ia32_sqrtpd256(x);
#elif ATTN_GEMM_W == 2 && defined(__SSE2__)
  return __builtin_ia32_sqrtpd(x);
#elif ATTN_GEMM_W == 2 && defined(__wasm_simd128__)
  return __builtin_wasm_sqrt_f64x2(x);
#else
  for (int l = 0; l < kW; ++l) x[l] = __builtin_sqrt(x[l]);
  return x;
#endif
}

/// |x| of every lane, and |r| carrying x's sign in every lane, by their sign bits (exact, as
/// fabs and negation are).
inline ivec bits_of(vec x) {
  ivec b;
  __builtin_memcpy(&b, &x, sizeof b);
  return b;
}
inline vec of_bits(ivec b) {
  vec x;
  __builtin_memcpy(&x, &b, sizeof x);
  return x;
}
constexpr long long kSignBit = static_cast<long long>(1ull << 63);
inline vec abs_of(vec x) { return of_bits(bits_of(x) & ~kSignBit); }
inline vec with_sign_of(vec r, vec x) { return of_bits((bits_of(r) & ~kSignBit) | (bits_of(x) & kSignBit)); }

/// det::exp of every lane of x[0..U), in place, for lanes in [−708, 709] only (det::exp's regular
/// branch there): Cody–Waite reduction with the 1.5·2^52 rounding shift, the Taylor polynomial to
/// r^17/17! by Horner, the scale 2^k built from its bits.
template <int U>
inline void exp_regular(vec* x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00, kShift = 6755399441055744.0;
  static constexpr double kInvFact[] = {
      1.0 / 20922789888000.0, 1.0 / 1307674368000.0, 1.0 / 87178291200.0, 1.0 / 6227020800.0,
      1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
      1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  const vec big = splat(kShift);
  vec shifted[U], r[U], p[U];
  for (int u = 0; u < U; ++u) {
    shifted[u] = x[u] * splat(kInvLn2) + big;  // = 1.5·2^52 + k exactly (its ulp is 1)
    const vec k = shifted[u] - big;
    r[u] = (x[u] - k * splat(kLn2Hi)) - k * splat(kLn2Lo);
    p[u] = splat(1.0 / 355687428096000.0);  // 1/17!
  }
  for (double c : kInvFact)
    for (int u = 0; u < U; ++u) p[u] = p[u] * r[u] + splat(c);
  for (int u = 0; u < U; ++u) {
    // k as an integer without a float-to-int conversion (AVX2 has no packed one): the shifted
    // value and 1.5·2^52 share their exponent, so their bit patterns differ by k.
    ivec kbits, bigbits;
    __builtin_memcpy(&kbits, &shifted[u], sizeof kbits);
    __builtin_memcpy(&bigbits, &big, sizeof bigbits);
    const ivec bits = (kbits - bigbits + 1023) << 52;  // k in [−1021, 1023]: 2^k is normal
    vec scale;
    __builtin_memcpy(&scale, &bits, sizeof scale);
    x[u] = p[u] * scale;
  }
}

/// True when every lane of x[0..U) is in [lo, hi] (false for NaN).
template <int U>
inline bool all_within(const vec* x, double lo, double hi) {
  bool in = true;
  for (int u = 0; u < U; ++u)
    for (int l = 0; l < kW; ++l) in = in && x[u][l] >= lo && x[u][l] <= hi;
  return in;
}

/// out[j] = det::exp(in[j] − shift) for j < U·W, the same bits as that scalar call (out may be
/// in). A block with any element outside [−708, 709] (where det::exp takes its other branches:
/// NaN, overflow, underflow, subnormal results) is computed by det::exp itself.
template <int U>
inline void exp_shifted_block(double* out, const double* in, double shift) {
  vec x[U];
  for (int u = 0; u < U; ++u) x[u] = load(in + u * kW) - splat(shift);
  if (all_within<U>(x, -708.0, 709.0)) {
    exp_regular<U>(x);
    for (int u = 0; u < U; ++u) store(out + u * kW, x[u]);
  } else {
    for (int u = 0; u < U; ++u)
      for (int l = 0; l < kW; ++l) out[u * kW + l] = det::exp(x[u][l]);
  }
}

/// out[j] = det::exp(in[j] − shift) for j < n, the same bits as that scalar call (out may be in).
inline void exp_shifted(double* out, const double* in, double shift, int n) {
  int j = 0;
  for (; j + kB <= n; j += kB) exp_shifted_block<kU>(out + j, in + j, shift);
  for (; j + kW <= n; j += kW) exp_shifted_block<1>(out + j, in + j, shift);
  for (; j < n; ++j) out[j] = det::exp(in[j] - shift);
}

/// det::tanh's |x| < 1 branch on x[0..U·W), in place: the sinh series to x^21/21! over
/// sqrt(1 + sinh²) (sqrt is correctly rounded on every target), the scalar operations in order.
template <int U>
inline void tanh_small(double* x) {
  static constexpr double kInvOddFact[] = {
      1.0 / 121645100408832000.0, 1.0 / 355687428096000.0, 1.0 / 1307674368000.0,
      1.0 / 6227020800.0,         1.0 / 39916800.0,        1.0 / 362880.0,
      1.0 / 5040.0,               1.0 / 120.0,             1.0 / 6.0,
      1.0};
  vec v[U], x2[U], s[U];
  for (int u = 0; u < U; ++u) {
    v[u] = load(x + u * kW);
    x2[u] = v[u] * v[u];
    s[u] = splat(1.0 / 51090942171709440000.0);  // 1/21!
  }
  for (double c : kInvOddFact)
    for (int u = 0; u < U; ++u) s[u] = s[u] * x2[u] + splat(c);
  for (int u = 0; u < U; ++u) {
    const vec sh = v[u] * s[u];
    store(x + u * kW, sh / sqrt_of(splat(1.0) + sh * sh));
  }
}

/// det::tanh's 1 <= |x| <= 354 branch on x[0..U·W), in place: (1 − e^{−2|x|}) / (1 + e^{−2|x|})
/// with the sign of x (e^{−2|x|} stays in exp_regular's range).
template <int U>
inline void tanh_large(double* x) {
  vec v[U], t[U];
  for (int u = 0; u < U; ++u) {
    v[u] = load(x + u * kW);
    t[u] = splat(-2.0) * abs_of(v[u]);
  }
  exp_regular<U>(t);
  for (int u = 0; u < U; ++u) {
    // r > 0, so x < 0 ? −r : r is r with x's sign (|x| >= 1 here: no zero to tell apart)
    store(x + u * kW, with_sign_of((splat(1.0) - t[u]) / (splat(1.0) + t[u]), v[u]));
  }
}

/// det::tanh of each packed list of a chunk (xs: |x| < 1, xl: 1 <= |x| <= 354), in place: blocks,
/// then single registers, the last one padded with an argument of its own branch.
inline void tanh_lists(double* xs, int ns, double* xl, int nl) {
  for (int p = ns; p % kW != 0; ++p) xs[p] = 0.0;
  for (int p = nl; p % kW != 0; ++p) xl[p] = 1.0;
  int g = 0;
  for (; g + kB <= ns; g += kB) tanh_small<kU>(xs + g);
  for (; g < ns; g += kW) tanh_small<1>(xs + g);
  for (g = 0; g + kB <= nl; g += kB) tanh_large<kU>(xl + g);
  for (; g < nl; g += kW) tanh_large<1>(xl + g);
}

/// out[r·n + j] = det::tanh(a[r·a_rs + j] + b[r·n + j]) for r < rows, j < n, the same bits (out
/// may be b; a_rs = 0 adds one row of a to every row of b, as Bahdanau's W_s s + W_h h_j does).
/// The arguments are sorted by det::tanh's branch into two packed lists (without branching, so a
/// random mix costs no mispredictions), each list is computed by its own branch only, and the
/// results go back to their places: each element runs its scalar operations once. NaN and
/// |x| > 354 (e^{−2|x|} off exp_regular's range) go through det::tanh itself.
inline void tanh_of_rows(double* out, const double* a, long a_rs, const double* b, int rows, int n) {
  constexpr int kChunk = 256;
  double xs[kChunk + kW], xl[kChunk + kW];
  long is[kChunk + 1], il[kChunk + 1];
  int ns = 0, nl = 0;  // locals, not captured: the sorting loop keeps them in registers
  for (int r = 0; r < rows; ++r) {
    const double* ar = a + r * a_rs;
    const long row = static_cast<long>(r) * n;
    for (int j = 0; j < n; ++j) {
      const double x = ar[j] + b[row + j];
      const double ax = __builtin_fabs(x);
      const int small = ax < 1.0, large = (ax >= 1.0) & (ax <= 354.0);  // & rather than &&: no branch
      xs[ns] = x, is[ns] = row + j, ns += small;
      xl[nl] = x, il[nl] = row + j, nl += large;
      // NaN, or e^{−2|x|} below exp_regular's range: one test on x, a branch almost never taken
      if (__builtin_expect(!(ax <= 354.0), 0)) out[row + j] = det::tanh(x);
      if (ns == kChunk || nl == kChunk) {
        tanh_lists(xs, ns, xl, nl);
        for (int q = 0; q < ns; ++q) out[is[q]] = xs[q];
        for (int q = 0; q < nl; ++q) out[il[q]] = xl[q];
        ns = nl = 0;
      }
    }
  }
  tanh_lists(xs, ns, xl, nl);
  for (int q = 0; q < ns; ++q) out[is[q]] = xs[q];
  for (int q = 0; q < nl; ++q) out[il[q]] = xl[q];
}

/// out[j] = det::tanh(a[j] + b[j]) for j < n, the same bits (out may be a or b).
inline void tanh_of_sum(double* out, const double* a, const double* b, int n) { tanh_of_rows(out, a, 0, b, 1, n); }

/// out[j] = det::sigmoid(a[j] + b[j]) = 1 / (1 + det::exp(−x)) for j < U·W, the same bits (out
/// may be a or b). A block with NaN or −x outside [−708, 709] goes through det::sigmoid.
template <int U>
inline void sigmoid_block(double* out, const double* a, const double* b) {
  vec mx[U];
  for (int u = 0; u < U; ++u) mx[u] = -(load(a + u * kW) + load(b + u * kW));
  if (all_within<U>(mx, -708.0, 709.0)) {
    exp_regular<U>(mx);
    for (int u = 0; u < U; ++u) store(out + u * kW, splat(1.0) / (splat(1.0) + mx[u]));
  } else {
    for (int u = 0; u < U; ++u)
      for (int l = 0; l < kW; ++l) out[u * kW + l] = det::sigmoid(a[u * kW + l] + b[u * kW + l]);
  }
}

/// out[j] = det::sigmoid(a[j] + b[j]) for j < n, the same bits (out may be a or b).
inline void sigmoid_of_sum(double* out, const double* a, const double* b, int n) {
  int j = 0;
  for (; j + kB <= n; j += kB) sigmoid_block<kU>(out + j, a + j, b + j);
  for (; j + kW <= n; j += kW) sigmoid_block<1>(out + j, a + j, b + j);
  for (; j < n; ++j) out[j] = det::sigmoid(a[j] + b[j]);
}
}  // namespace attn::learn::ATTN_GEMM_NS
