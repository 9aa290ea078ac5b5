#include "lessons/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "attn/det_tanh.hpp"
#include "attn/error.hpp"
#include "attn/heads.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

void require_vec(const Vector& v, Index n, const char* name) {
  if (v.size() != n)
    throw Error(ErrorCode::shape_mismatch, std::string(name) + " has " + std::to_string(v.size()) +
                                               " entries; it needs 4H = " + std::to_string(n));
  for (Index i = 0; i < n; ++i)
    if (!std::isfinite(v(i)))
      throw Error(ErrorCode::non_finite, std::string(name) + "[" + std::to_string(i) + "] is not a finite number");
}

}  // namespace

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

LstmResult lstm_forward(const Matrix& x, const LstmWeights& w) {
  require_shape_limits(x, "x", "T", "D");
  require_finite(x, "x");
  require_shape_limits(w.w_hh, "w_hh", "4H", "H");
  const Index t = x.rows(), d = x.cols(), h = w.w_hh.cols();
  if (w.w_hh.rows() != 4 * h)
    throw Error(ErrorCode::shape_mismatch, "w_hh is " + shape_str(w.w_hh) + " but must be 4H x H (gates i, f, g, o)");
  require_shape_limits(w.w_ih, "w_ih", "4H", "D");
  if (w.w_ih.rows() != 4 * h || w.w_ih.cols() != d)
    throw Error(ErrorCode::shape_mismatch, "w_ih is " + shape_str(w.w_ih) + " but must be 4H x D = " +
                                               std::to_string(4 * h) + "x" + std::to_string(d));
  require_finite(w.w_ih, "w_ih");
  require_finite(w.w_hh, "w_hh");
  require_vec(w.b_ih, 4 * h, "b_ih");
  require_vec(w.b_hh, 4 * h, "b_hh");
  LstmResult r;
  r.h = Matrix::Zero(t, h);
  Vector hp = Vector::Zero(h), c = Vector::Zero(h), gates(4 * h);
  for (Index step = 0; step < t; ++step) {
    // 1. gates = W_ih x_t + b_ih + W_hh h_{t−1} + b_hh, each sum in index order.
    for (Index g = 0; g < 4 * h; ++g) {
      double a = 0.0, b = 0.0;
      for (Index j = 0; j < d; ++j) a += w.w_ih(g, j) * x(step, j);
      for (Index j = 0; j < h; ++j) b += w.w_hh(g, j) * hp(j);
      gates(g) = ((a + w.b_ih(g)) + b) + w.b_hh(g);
    }
    // 2. i, f, g, o → c_t, h_t.
    for (Index u = 0; u < h; ++u) {
      const double i = det::sigmoid(gates(u)), f = det::sigmoid(gates(h + u));
      const double g = det::tanh(gates(2 * h + u)), o = det::sigmoid(gates(3 * h + u));
      c(u) = f * c(u) + i * g;
      hp(u) = o * det::tanh(c(u));
    }
    r.h.row(step) = hp.transpose();
  }
  r.h_last = hp;
  r.c_last = c;
  return r;
}

LstmWeights lstm_init(Rng& rng, Index d_in, Index hidden) {
  require_range("D", d_in, 1, 1024);
  require_range("H", hidden, 1, 1024);
  const double b = 1.0 / std::sqrt(static_cast<double>(hidden));
  auto fill = [&](Index rows, Index cols) {
    Matrix m(rows, cols);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j) m(i, j) = rng.uniform(-b, b);
    return m;
  };
  LstmWeights w;
  w.w_ih = fill(4 * hidden, d_in);
  w.w_hh = fill(4 * hidden, hidden);
  w.b_ih = fill(4 * hidden, 1).col(0);
  w.b_hh = fill(4 * hidden, 1).col(0);
  return w;
}

TimingFixture timing_fixture(std::uint64_t seed, int t, int d, int warmups, int repeats) {
  require_range("T", t, 1, 512);
  require_range("d", d, 1, 256);
  require_range("warmups", warmups, 0, 100);
  require_range("repeats", repeats, 1, 101);
  TimingFixture f;
  f.t = t;
  f.d = d;
  f.warmups = warmups;
  f.repeats = repeats;
  f.caveat = "A bounded local CPU forward timing (one thread, T=" + std::to_string(t) + ", d=" + std::to_string(d) +
             ", forward only, median of " + std::to_string(repeats) + " after " + std::to_string(warmups) +
             " warm-ups). It is not an architecture benchmark: it does not show which model trains faster or "
             "writes better text, and it does not prove parallelism - the computation graph establishes "
             "available parallelism, not a stopwatch on two unrelated randomly initialised modules.";
  Rng rng(seed);
  Matrix z(t, d);
  for (Index i = 0; i < t; ++i)
    for (Index j = 0; j < d; ++j) z(i, j) = rng.normal();
  const LstmWeights lw = lstm_init(rng, d, d);
  HeadWeights hw{linear_init(rng, d, d), linear_init(rng, d, d), linear_init(rng, d, d)};
  MaskSpec causal;
  causal.causal = Causal::square;

  LstmResult lstm_out;
  SelfAttentionResult attn_out;
  auto time_it = [&](auto&& fn, std::vector<double>& out) {
    for (int i = 0; i < warmups; ++i) fn();
    for (int i = 0; i < repeats; ++i) {
      const auto start = std::chrono::steady_clock::now();
      fn();
      const auto stop = std::chrono::steady_clock::now();
      out.push_back(std::chrono::duration<double>(stop - start).count());
    }
  };
  time_it([&] { lstm_out = lstm_forward(z, lw); }, f.lstm_seconds);
  time_it([&] { attn_out = self_attention(z, hw, causal); }, f.attention_seconds);
  f.lstm_median = median(f.lstm_seconds);
  f.attention_median = median(f.attention_seconds);
  bool finite = lstm_out.h.rows() == t && attn_out.attention.output.rows() == t;
  finite = finite && lstm_out.h.allFinite() && attn_out.attention.output.allFinite();
  f.ran = finite;
  f.checks.push_back(check_above("both forwards ran and gave finite T x d outputs (1 = yes); timings are "
                                 "not checked",
                                 finite ? 1.0 : 0.0, 0.0));
  return f;
}

}  // namespace attn
