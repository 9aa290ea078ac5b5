// bench/bench_common.hpp — what the native (Google Benchmark) and wasm benchmark programs share:
// the shapes, seeded inputs (attn::Rng: the same numbers natively and in wasm), the FLOP count,
// and the "naive loops" kernel.
#pragma once

#include <attn/kernels/fast_attention.hpp>
#include <attn/random.hpp>
#include <cmath>
#include <cstdint>
#include <vector>

namespace attn_bench {

namespace kn = attn::kernels;

/// The benchmark shapes: T ∈ {128, 512, 2048, 8192} (Tq = Tk = T), d ∈ {64, 128} (d_k = d_v = d).
inline constexpr int kTs[] = {128, 512, 2048, 8192};
inline constexpr int kDs[] = {64, 128};
/// Naive loops above this T would take minutes (O(T²·d) scalar work with std::exp): skipped.
inline constexpr int kNaiveMaxT = 2048;

/// FLOPs of one forward as the targets count them: 4·Tq·Tk·d (2·Tq·Tk·d_k for Q·Kᵀ, 2·Tq·Tk·d_v
/// for P·V; the softmax is not counted).
inline double attention_flops(double t, double d) { return 4.0 * t * t * d; }

template <class T>
struct Inputs {
  kn::RowMatrix<T> q, k, v;
};

/// Q, K, V of T×d with entries uniform in [−1, 1) (seeded; drawn in float64, then rounded).
template <class T>
Inputs<T> make_inputs(int t, int d, std::uint64_t seed = 6) {
  attn::Rng rng(seed);
  Inputs<T> in{kn::RowMatrix<T>(t, d), kn::RowMatrix<T>(t, d), kn::RowMatrix<T>(t, d)};
  for (kn::RowMatrix<T>* m : {&in.q, &in.k, &in.v})
    for (int i = 0; i < t; ++i)
      for (int j = 0; j < d; ++j) (*m)(i, j) = static_cast<T>(rng.uniform(-1.0, 1.0));
  return in;
}

/// Naive loops: for each query, its Tk scores (one row buffer), the textbook stable softmax
/// with std::exp, then the weighted sum of value rows. No blocking, no explicit SIMD: what a
/// first implementation looks like (the compiler may still auto-vectorise the inner loops).
/// Extra memory: one row of Tk scores.
template <class T>
void naive_attention(const kn::RowMatrix<T>& q, const kn::RowMatrix<T>& k, const kn::RowMatrix<T>& v,
                     kn::RowMatrix<T>& out) {
  const long tq = q.rows(), tk = k.rows(), d = q.cols(), dv = v.cols();
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<T> s(static_cast<size_t>(tk));
  out.resize(tq, dv);
  for (long i = 0; i < tq; ++i) {
    T mx = -INFINITY;
    for (long j = 0; j < tk; ++j) {
      T acc = 0;
      for (long c = 0; c < d; ++c) acc += q(i, c) * k(j, c);
      s[static_cast<size_t>(j)] = acc * scale;
      mx = std::max(mx, s[static_cast<size_t>(j)]);
    }
    T sum = 0;
    for (long j = 0; j < tk; ++j) {
      s[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - mx);
      sum += s[static_cast<size_t>(j)];
    }
    for (long c = 0; c < dv; ++c) out(i, c) = 0;
    for (long j = 0; j < tk; ++j) {
      const T w = s[static_cast<size_t>(j)] / sum;
      for (long c = 0; c < dv; ++c) out(i, c) += w * v(j, c);
    }
  }
}

/// max |a − b| over all entries (for the float32-vs-float64 accuracy column).
template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
  double m = 0;
  for (long i = 0; i < a.rows(); ++i)
    for (long j = 0; j < a.cols(); ++j) {
      const double d = std::fabs(static_cast<double>(a(i, j)) - static_cast<double>(b(i, j)));
      if (!(d <= m)) m = d;
    }
  return m;
}

}  // namespace attn_bench
