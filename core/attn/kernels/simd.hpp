// attn/kernels/simd.hpp — portable short vectors and a vectorised exp (internal header).
//
// Included only by the per-instruction-set kernel files (isa_*.cpp). It uses GCC/Clang vector
// extensions (`__attribute__((vector_size(N)))`), which both g++ and em++ lower to the target's
// SIMD: AVX-512 when the file is compiled with -mavx512f (and friends), AVX2 + FMA with -mavx2
// -mfma, SSE2 pairs on plain x86-64, wasm simd128 (v128 / f32x4 / f64x2) when em++ gets -msimd128.
//
// Every function here is `static inline` (internal linkage) on purpose: the same header is
// compiled once per instruction set, and a shared inline symbol could otherwise be merged by the
// linker into the AVX2 copy and then run on a machine without AVX2.
//
// Vector width: 64 bytes in the AVX-512 build (16 floats / 8 doubles: one zmm register), 32 bytes
// in the other native builds (one AVX2 register; SSE2 uses pairs), 16 bytes in wasm (one v128: V8
// maps it to one xmm register, and wider vectors would spill).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#define ATTN_INLINE static inline __attribute__((always_inline))

namespace attn::kernels::simd {

#if defined(__wasm__)
inline constexpr int kVectorBytes = 16;
#elif defined(__AVX512F__)
inline constexpr int kVectorBytes = 64;
#else
inline constexpr int kVectorBytes = 32;
#endif

typedef float f32v __attribute__((vector_size(kVectorBytes)));
typedef double f64v __attribute__((vector_size(kVectorBytes)));
// Bit manipulation uses unsigned lanes: wrap-around and left shifts are defined for them.
typedef std::uint32_t u32v __attribute__((vector_size(kVectorBytes)));
typedef std::uint64_t u64v __attribute__((vector_size(kVectorBytes)));

template <class T> struct VecOf;
template <> struct VecOf<float> { using type = f32v; };
template <> struct VecOf<double> { using type = f64v; };
/// The vector of T this build uses, and its lane count.
template <class T> using Vec = typename VecOf<T>::type;
template <class T> inline constexpr int kLanes = kVectorBytes / static_cast<int>(sizeof(T));

// Unaligned loads and stores (memcpy compiles to one vmovups / v128.load).
template <class T> ATTN_INLINE Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> ATTN_INLINE void store(T* p, Vec<T> v) { std::memcpy(p, &v, sizeof v); }
/// All lanes = x, written as a brace list so that it compiles to one broadcast (vbroadcastss
/// from memory, i32x4.splat). Not `Vec{} + x`: that is a real addition (−0 + 0 = +0).
template <class T, std::size_t... I> ATTN_INLINE Vec<T> splat_list(T x, std::index_sequence<I...>) {
  return Vec<T>{((void)I, x)...};
}
template <class T> ATTN_INLINE Vec<T> splat(T x) {
  return splat_list<T>(x, std::make_index_sequence<static_cast<std::size_t>(kLanes<T>)>{});
}
template <class T> ATTN_INLINE Vec<T> vmax(Vec<T> a, Vec<T> b) { return a > b ? a : b; }

template <class T> ATTN_INLINE T hmax(Vec<T> v) {
  T m = v[0];
  for (int i = 1; i < kLanes<T>; ++i) m = v[i] > m ? v[i] : m;
  return m;
}
template <class T> ATTN_INLINE T hsum(Vec<T> v) {
  T s = v[0];
  for (int i = 1; i < kLanes<T>; ++i) s += v[i];
  return s;
}
/// True when any lane of a comparison mask is set.
template <class M> ATTN_INLINE bool any(M m) {
  constexpr int n = static_cast<int>(sizeof(M) / sizeof(m[0]));
  auto acc = m[0];
  for (int i = 1; i < n; ++i) acc |= m[i];
  return acc != 0;
}
/// Lanes that are NaN or ±inf (|x| <= max fails for both).
template <class T> ATTN_INLINE auto not_finite(Vec<T> x) {
  const Vec<T> ax = x < T(0) ? -x : x;
  return !(ax <= splat<T>(static_cast<T>(sizeof(T) == 4 ? 3.4028234663852886e38 : 1.7976931348623157e308)));
}

// ---------------------------------------------------------------------------
// exp(x), lane-wise (Cody & Waite range reduction + polynomial; as in Cephes' expf/exp and in
// most SIMD math libraries):
//   1. n = round(x / ln 2) with the "magic number" trick (add 1.5·2^p, p = 23 or 52, so the
//      rounded integer lands in the low mantissa bits and can be read back as an integer);
//   2. r = x − n·ln2_hi − n·ln2_lo   (ln 2 split in two so n·ln2_hi is exact), |r| <= ln2/2;
//   3. e^r by a polynomial; 4. multiply by 2^n built in the exponent field.
// float: Cephes expf coefficients, max relative error ~2 ulp on [−87.3, 88.3].
// double: Taylor series to degree 13 (truncation 4e-18 on |r| <= ln2/2), ~2 ulp.
// Casts between same-size vector types are bit casts (GCC/Clang vector extensions).
// Edge behaviour (what softmax needs): x = −inf → 0, NaN → NaN; results that would be
// subnormal (x < −87.33 float, x < −708.39 double) are flushed to 0; x above 88.376 (float) /
// 709.436 (double) gives +inf, slightly before the true overflow at 88.72 / 709.78.
// e^r on the reduced argument |r| <= ln2/2: p(r) = 1 + r + r²·q(r), q by Horner.
// q(r) by Horner's rule over its coefficients, highest degree first: (c₀·r + c₁)·r + … + c_{N−1}.
template <class V, class T, std::size_t N> ATTN_INLINE V horner(V r, const T (&c)[N]) {
  V p = splat<T>(c[0]);
  for (std::size_t i = 1; i < N; ++i) p = p * r + c[i];
  return p;
}

// float: Cephes expf's coefficients (Moshier, Cephes Math Library, expf.c).
ATTN_INLINE f32v exp_poly(f32v r) {
  static constexpr float q[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  return horner(r, q) * (r * r) + r + 1.0f;
}

// double: the Taylor series to degree 13, Horner from 1/13! down to 1/2! (truncation 4e-18).
ATTN_INLINE f64v exp_poly(f64v r) {
  static constexpr double q[] = {1.6059043836821613e-10, 2.0876756987868099e-09, 2.5052108385441720e-08,
                                 2.7557319223985893e-07, 2.7557319223985888e-06, 2.4801587301587302e-05,
                                 1.9841269841269841e-04, 1.3888888888888889e-03, 8.3333333333333333e-03,
                                 4.1666666666666667e-02, 1.6666666666666667e-01, 0.5};
  return horner(r, q) * (r * r) + r + 1.0;
}

ATTN_INLINE f32v exp_v(f32v x) {
  const f32v magic = splat<float>(12582912.0f);  // 1.5 * 2^23
  const f32v xc = x > splat<float>(88.3762626647949f) ? splat<float>(88.3762626647949f) : x;
  const f32v t = xc * 1.44269504088896341f + magic;
  const f32v n = t - magic;
  f32v r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  const f32v p = exp_poly(r);
  const u32v e = (((u32v)t - (u32v)magic) + 127u) << 23;
  f32v y = p * (f32v)e;
  y = x > splat<float>(88.3762626647949f) ? splat<float>(__builtin_inff()) : y;
  return x < splat<float>(-87.3365478515625f) ? f32v{} : y;
}

ATTN_INLINE f64v exp_v(f64v x) {
  const f64v magic = splat<double>(6755399441055744.0);  // 1.5 * 2^52
  const f64v hi = splat<double>(709.43613930310391);
  const f64v xc = x > hi ? hi : x;
  const f64v t = xc * 1.4426950408889634 + magic;
  const f64v n = t - magic;
  f64v r = xc - n * 6.93147180369123816490e-01;
  r = r - n * 1.90821492927058770002e-10;
  const f64v p = exp_poly(r);
  const u64v e = (((u64v)t - (u64v)magic) + 1023u) << 52;
  f64v y = p * (f64v)e;
  y = x > hi ? splat<double>(__builtin_inf()) : y;
  return x < splat<double>(-708.39641853226408) ? f64v{} : y;
}

// The softmax's exp: only ever called with x = s − max <= 0 (or −inf for a masked key), so it
// skips the overflow clamp, scales by 2^n with an integer add into the exponent field (valid as
// long as the result is normal), and flushes results below e^−86.6 (float) / e^−708 (double) to 0:
// such weights are < 2.3e-38 (1e-307) of the row's largest and vanish in the sum anyway.
// float: one-constant range reduction (error <= |n|·1.9e-9 in r, i.e. < 3e-7 relative at the
// flush threshold and ~1 ulp for weights above e^−10); double: as exp_v.
ATTN_INLINE f32v exp_softmax_v(f32v x) {
  const f32v magic = splat<float>(12582912.0f);  // 1.5 * 2^23
  const f32v t = x * 1.44269504088896341f + magic;
  const f32v n = t - magic;
  const f32v r = x - n * 0.693147180559945309f;
  const f32v p = exp_poly(r);
  const f32v y = (f32v)((u32v)p + ((u32v)t << 23));  // p · 2^n: the low bits of t hold n
  return x < splat<float>(-86.6f) ? f32v{} : y;
}

ATTN_INLINE f64v exp_softmax_v(f64v x) {
  const f64v magic = splat<double>(6755399441055744.0);  // 1.5 * 2^52
  const f64v t = x * 1.4426950408889634 + magic;
  const f64v n = t - magic;
  f64v r = x - n * 6.93147180369123816490e-01;
  r = r - n * 1.90821492927058770002e-10;
  const f64v p = exp_poly(r);
  const f64v y = (f64v)((u64v)p + ((u64v)t << 52));
  return x < splat<double>(-708.0) ? f64v{} : y;
}

/// x[i] = exp(x[i]) for i < n (the tail goes through a zero-padded vector).
template <class T> ATTN_INLINE void exp_array(T* x, std::ptrdiff_t n) {
  constexpr int W = kLanes<T>;
  std::ptrdiff_t i = 0;
  for (; i + W <= n; i += W) store<T>(x + i, exp_v(load<T>(x + i)));
  if (i < n) {
    T tmp[W] = {};
    std::memcpy(tmp, x + i, sizeof(T) * static_cast<std::size_t>(n - i));
    store<T>(tmp, exp_v(load<T>(tmp)));
    std::memcpy(x + i, tmp, sizeof(T) * static_cast<std::size_t>(n - i));
  }
}

}  // namespace attn::kernels::simd
