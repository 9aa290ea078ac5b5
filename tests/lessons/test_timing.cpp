// tests/lessons/test_timing.cpp — timing: LSTM forward (PyTorch gate layout) and the
// CPU timing fixture (timings are never held to a number; only that it ran).
#include <lessons/timing.hpp>

#include <algorithm>

#include "support/support.hpp"

using namespace attn_test;

namespace {
double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// nn.LSTM's documented equations with std functions, gates i, f, g, o.
Matrix naive_lstm(const Matrix& x, const attn::LstmWeights& w) {
  const Index h = w.w_hh.cols();
  Matrix out(x.rows(), h);
  std::vector<double> hp(static_cast<size_t>(h), 0.0), c(static_cast<size_t>(h), 0.0);
  for (Index t = 0; t < x.rows(); ++t) {
    std::vector<double> g(static_cast<size_t>(4 * h));
    for (Index r = 0; r < 4 * h; ++r) {
      double a = w.b_ih(r) + w.b_hh(r);
      for (Index j = 0; j < x.cols(); ++j) a += w.w_ih(r, j) * x(t, j);
      for (Index j = 0; j < h; ++j) a += w.w_hh(r, j) * hp[static_cast<size_t>(j)];
      g[static_cast<size_t>(r)] = a;
    }
    for (Index u = 0; u < h; ++u) {
      const size_t s = static_cast<size_t>(u), hh = static_cast<size_t>(h);
      c[s] = sig(g[hh + s]) * c[s] + sig(g[s]) * std::tanh(g[2 * hh + s]);
      hp[s] = sig(g[3 * hh + s]) * std::tanh(c[s]);
      out(t, u) = hp[s];
    }
  }
  return out;
}
}  // namespace

TEST_CASE("lstm: gate order i - f - g - o by hand", "[lesson][timing]") {
  // D = H = 1, x_0 = 0: biases i = +100 (open), f = −100 (closed), g = 0.5, o = +100 (open):
  // c_1 = 1·tanh(0.5), h_1 = 1·tanh(tanh(0.5)). A different gate order gives another number.
  attn::LstmWeights w{Matrix::Zero(4, 1), Matrix::Zero(4, 1), V({100, -100, 0.5, 100}), V({0, 0, 0, 0})};
  const attn::LstmResult r = attn::lstm_forward(M({{0}}), w);
  CHECK(std::fabs(r.c_last(0) - std::tanh(0.5)) < 1e-16);
  CHECK(std::fabs(r.h_last(0) - std::tanh(std::tanh(0.5))) < 1e-16);
  // Second step with the forget gate open (b_hh adds +200 to f): c_2 = c_1 + tanh(0.5).
  w.b_hh(1) = 200;
  const attn::LstmResult r2 = attn::lstm_forward(M({{0}, {0}}), w);
  CHECK(std::fabs(r2.c_last(0) - (sig(100) * std::tanh(0.5) + std::tanh(0.5))) < 1e-15);
}

TEST_CASE("lstm: matches the documented equations on seeded weights", "[lesson][timing]") {
  attn::Rng rng(11);
  const attn::LstmWeights w = attn::lstm_init(rng, 3, 4);
  const double bound = 0.5;  // 1/sqrt(H) with H = 4
  CHECK(w.w_ih.rows() == 16);
  CHECK(w.w_ih.cols() == 3);
  CHECK(w.w_hh.rows() == 16);
  CHECK(w.w_hh.cols() == 4);
  CHECK(w.w_ih.cwiseAbs().maxCoeff() <= bound);
  CHECK(w.b_hh.cwiseAbs().maxCoeff() <= bound);
  Matrix x(5, 3);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 3; ++j) x(i, j) = rng.normal();
  const attn::LstmResult r = attn::lstm_forward(x, w);
  CHECK(max_diff(r.h, naive_lstm(x, w)) < 1e-14);
  CHECK(max_diff(Vector(r.h.row(4).transpose()), r.h_last) == 0.0);
}

TEST_CASE("lstm: shapes that do not fit are refused", "[lesson][timing][errors]") {
  attn::Rng rng(1);
  attn::LstmWeights w = attn::lstm_init(rng, 3, 4);
  CHECK_ATTN_ERROR(attn::lstm_forward(Matrix::Zero(2, 2), w), attn::ErrorCode::shape_mismatch);
  attn::LstmWeights bad = w;
  bad.b_ih = V({1, 2});
  CHECK_ATTN_ERROR(attn::lstm_forward(Matrix::Zero(2, 3), bad), attn::ErrorCode::shape_mismatch);
  bad = w;
  bad.w_hh = Matrix::Zero(15, 4);
  CHECK_ATTN_ERROR(attn::lstm_forward(Matrix::Zero(2, 3), bad), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::lstm_forward(Matrix(0, 3), w), attn::ErrorCode::empty_sequence);
  Matrix nan = Matrix::Zero(2, 3);
  nan(1, 1) = NAN;
  CHECK_ATTN_ERROR(attn::lstm_forward(nan, w), attn::ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::lstm_init(rng, 0, 4), attn::ErrorCode::invalid_field);
}

TEST_CASE("timing fixture: ran - 3 warm-ups and median of 5 - caveat attached", "[lesson][timing]") {
  const attn::TimingFixture f = attn::timing_fixture();
  CHECK(f.t == 32);
  CHECK(f.d == 8);
  CHECK(f.warmups == 3);
  REQUIRE(f.lstm_seconds.size() == 5);
  REQUIRE(f.attention_seconds.size() == 5);
  CHECK(f.ran);
  std::vector<double> s = f.lstm_seconds;
  std::sort(s.begin(), s.end());
  CHECK(f.lstm_median == s[2]);
  for (double x : f.attention_seconds) CHECK(x >= 0.0);
  CHECK(f.caveat.find("not an architecture benchmark") != std::string::npos);
  CHECK(f.caveat.find("does not prove parallelism") != std::string::npos);
  CHECK(f.clock == "std::chrono::steady_clock");
  REQUIRE(f.checks.size() == 1);  // only "ran": timings are not deterministic
  CHECK(f.checks[0].pass);
  CHECK_ATTN_ERROR(attn::timing_fixture(17, 0), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::timing_fixture(17, 32, 8, 3, 0), attn::ErrorCode::invalid_field);
}
