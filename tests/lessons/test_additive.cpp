// tests/lessons/test_additive.cpp — additive attention (Bahdanau et al. 2015),
// the other scoring functions (Luong et al. 2015), a decoder over "the black cat".
#include <attn/additive.hpp>
#include <lessons/additive_checks.hpp>
#include <lessons/additive_decoder.hpp>
#include <attn/det_tanh.hpp>
#include <json/lesson_json.hpp>

#include <limits>

#include "support/support.hpp"

using namespace attn_test;

namespace {

// Naive reference of e_j = v·tanh(W_s s + W_h h_j + b) with std::tanh, softmax with std::exp.
struct NaiveAdditive {
  std::vector<double> e, a, c;
};
NaiveAdditive naive_additive(const Vector& s, const Matrix& h, const attn::AdditiveParams& p, const std::vector<bool>& valid) {
  NaiveAdditive n;
  const Index tk = h.rows();
  n.e.assign(static_cast<size_t>(tk), 0.0);
  n.a.assign(static_cast<size_t>(tk), 0.0);
  n.c.assign(static_cast<size_t>(h.cols()), 0.0);
  double z = 0.0;
  for (Index j = 0; j < tk; ++j) {
    if (!valid[static_cast<size_t>(j)]) continue;
    double e = 0.0;
    for (Index r = 0; r < p.w_s.rows(); ++r) {
      double pre = p.bias(r);
      for (Index c = 0; c < s.size(); ++c) pre += p.w_s(r, c) * s(c);
      for (Index c = 0; c < h.cols(); ++c) pre += p.w_h(r, c) * h(j, c);
      e += p.v(r) * std::tanh(pre);
    }
    n.e[static_cast<size_t>(j)] = e;
    z += (n.a[static_cast<size_t>(j)] = std::exp(e));
  }
  for (Index j = 0; j < tk; ++j) {
    n.a[static_cast<size_t>(j)] /= z;
    for (Index c = 0; c < h.cols(); ++c) n.c[static_cast<size_t>(c)] += n.a[static_cast<size_t>(j)] * h(j, c);
  }
  return n;
}

attn::AdditiveParams small_params() {
  attn::AdditiveParams p;
  p.w_s = M({{0.5, -0.2}, {0.1, 0.3}, {-0.4, 0.6}, {0.2, 0.2}});            // d_a=4 × d_s=2
  p.w_h = M({{0.3, -0.1, 0.2}, {-0.5, 0.4, 0.1}, {0.2, 0.2, -0.3}, {0.1, -0.6, 0.5}});  // 4 × d_h=3
  p.bias = V({0.05, -0.1, 0.0, 0.2});
  p.v = V({1.0, -0.5, 0.8, 0.3});
  return p;
}

}  // namespace

TEST_CASE("additive: one-dimensional case by hand", "[lesson][additive]") {
  // s = 1, h = (1, 0, 2), W_s = 0.5, W_h = 1, b = 0, v = 2: e_j = 2·tanh(0.5 + h_j).
  attn::AdditiveParams p{M({{0.5}}), M({{1.0}}), V({0.0}), V({2.0})};
  const attn::AdditiveResult r = attn::additive_attention(V({1.0}), M({{1}, {0}, {2}}), p);
  const double e0 = 2 * std::tanh(1.5), e1 = 2 * std::tanh(0.5), e2 = 2 * std::tanh(2.5);
  CHECK(std::fabs(r.scores(0) - e0) < 1e-15);
  CHECK(std::fabs(r.scores(1) - e1) < 1e-15);
  CHECK(std::fabs(r.scores(2) - e2) < 1e-15);
  const double z = std::exp(e0) + std::exp(e1) + std::exp(e2);
  CHECK(std::fabs(r.weights(0) - std::exp(e0) / z) < 1e-15);
  CHECK(std::fabs(r.weights(2) - std::exp(e2) / z) < 1e-15);
  // c = Σ a_j h_j = a_0·1 + a_2·2.
  CHECK(std::fabs(r.context(0) - (std::exp(e0) + 2 * std::exp(e2)) / z) < 1e-15);
  CHECK(std::fabs(r.query_part(0) - 0.5) == 0.0);
  CHECK_ALL_PASS(attn::additive_checks(r, M({{1}, {0}, {2}})));
}

TEST_CASE("additive: matches a naive reference - invalid positions get weight exactly 0", "[lesson][additive]") {
  const attn::AdditiveParams p = small_params();
  const Vector s = V({0.7, -1.2});
  const Matrix h = M({{1.0, 0.5, -0.3}, {-0.8, 0.2, 0.9}, {0.4, -1.1, 0.6}, {2.0, 0.1, -0.5}});
  for (const std::vector<bool>& valid :
       {std::vector<bool>{true, true, true, true}, std::vector<bool>{true, false, true, false}}) {
    const attn::AdditiveResult r = attn::additive_attention(s, h, p, valid);
    const NaiveAdditive n = naive_additive(s, h, p, valid);
    for (Index j = 0; j < 4; ++j) {
      CHECK(std::fabs(r.scores(j) - n.e[static_cast<size_t>(j)]) < 1e-14);
      CHECK(std::fabs(r.weights(j) - n.a[static_cast<size_t>(j)]) < 1e-14);
      if (!valid[static_cast<size_t>(j)]) CHECK(r.weights(j) == 0.0);
    }
    for (Index c = 0; c < 3; ++c) CHECK(std::fabs(r.context(c) - n.c[static_cast<size_t>(c)]) < 1e-14);
    CHECK_ALL_PASS(attn::additive_checks(r, h));
    const attn::Json j = attn::to_json(r, {});
    CHECK(j["scores"][1].is_null() == !valid[1]);
  }
}

TEST_CASE("additive: the claims fail on a result that breaks them", "[lesson][additive]") {
  const attn::AdditiveParams p = small_params();
  const Matrix h = M({{1.0, 0.5, -0.3}, {-0.8, 0.2, 0.9}, {0.4, -1.1, 0.6}});
  attn::AdditiveResult r = attn::additive_attention(V({0.7, -1.2}), h, p, {true, true, false});
  CHECK_ALL_PASS(attn::additive_checks(r, h));
  attn::AdditiveResult leak = r;  // weight on the padded position, taken from a valid one
  leak.weights(2) = 0.25;
  leak.weights(0) -= 0.25;
  const std::vector<attn::Check> c = attn::additive_checks(leak, h);
  CHECK(c[0].pass);       // still sums to 1
  CHECK_FALSE(c[1].pass); // but the padding has weight 0.25
  CHECK(c[1].measured == 0.25);
  CHECK_FALSE(c[2].pass); // and the stored context no longer matches its weights
  attn::AdditiveResult off = r;
  off.weights(0) += 1e-6;
  CHECK_FALSE(attn::additive_checks(off, h)[0].pass);
}

TEST_CASE("additive: deterministic tanh and sigmoid agree with std to a few ulp", "[lesson][additive]") {
  double worst = 0.0;
  for (double x = -30.0; x <= 30.0; x += 0.0137) {
    const double t = std::tanh(x);
    worst = std::max(worst, std::fabs(attn::det::tanh(x) - t) / std::max(std::fabs(t), 1e-300));
  }
  for (double x : {1e-300, -1e-200, 1e-10, -3e-8, 0.999999, 1.0, -1.0, 1.000001}) {
    const double t = std::tanh(x);
    worst = std::max(worst, std::fabs(attn::det::tanh(x) - t) / std::fabs(t));
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 1e-15);  // a few ulp (2^-52 ≈ 2.2e-16); std::tanh itself differs by ~1 ulp between libms
  CHECK(attn::det::tanh(0.0) == 0.0);
  CHECK(attn::det::tanh(INFINITY) == 1.0);
  CHECK(attn::det::tanh(-INFINITY) == -1.0);
  CHECK(std::isnan(attn::det::tanh(NAN)));
  CHECK(attn::det::sigmoid(-INFINITY) == 0.0);
  CHECK(attn::det::sigmoid(INFINITY) == 1.0);
  for (double x : {-20.0, -1.5, 0.0, 0.3, 7.0})
    CHECK(std::fabs(attn::det::sigmoid(x) - 1.0 / (1.0 + std::exp(-x))) < 1e-16);
}

TEST_CASE("score functions: dot - scaled dot - general and additive on the same states", "[lesson][additive]") {
  attn::AdditiveParams p = small_params();
  p.w_s = M({{0.5, -0.2, 0.0}, {0.1, 0.3, 0.1}, {-0.4, 0.6, 0.2}, {0.2, 0.2, -0.1}});  // d_s = 3 = d_h
  const Vector s = V({0.7, -1.2, 0.4});
  const Matrix h = M({{1.0, 0.5, -0.3}, {-0.8, 0.2, 0.9}, {0.4, -1.1, 0.6}});
  const Matrix identity = Matrix::Identity(3, 3);
  const attn::ScoringComparison r = attn::compare_score_functions(s, h, identity, p);
  CHECK(r.names == std::vector<std::string>{"dot", "scaled_dot", "general", "additive"});
  for (Index j = 0; j < 3; ++j) {
    const double dot = s(0) * h(j, 0) + s(1) * h(j, 1) + s(2) * h(j, 2);
    CHECK(std::fabs(r.scores(0, j) - dot) < 1e-15);
    CHECK(std::fabs(r.scores(1, j) - dot / std::sqrt(3.0)) < 1e-15);
    CHECK(r.scores(2, j) == r.scores(0, j));  // general with W = I is dot
  }
  const attn::AdditiveResult add = attn::additive_attention(s, h, p);
  CHECK(max_diff(Vector(r.weights.row(3).transpose()), add.weights) == 0.0);
  // A general W by hand: s^T W h_0 with W = diag(2, 0, 1): 2·0.7·1.0 + 0.4·(−0.3).
  Matrix w = Matrix::Zero(3, 3);
  w(0, 0) = 2;
  w(2, 2) = 1;
  CHECK(std::fabs(attn::compare_score_functions(s, h, w, p).scores(2, 0) - (1.4 - 0.12)) < 1e-15);
  CHECK_ALL_PASS(attn::scoring_checks(r, h));
  // Dot products need d_s = d_h.
  CHECK_ATTN_ERROR(attn::compare_score_functions(V({0.7, -1.2}), h, identity, small_params()), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::compare_score_functions(s, h, Matrix::Identity(2, 2), p), attn::ErrorCode::shape_mismatch);
}

TEST_CASE("additive decoder: le chat noir over the black cat - seeded", "[lesson][additive]") {
  const attn::AdditiveDecoderDemo d = attn::additive_decoder_demo();
  CHECK(d.source_tokens == std::vector<std::string>{"the", "black", "cat"});
  CHECK(d.target_tokens == std::vector<std::string>{"le", "chat", "noir"});
  REQUIRE(d.steps.size() == 3);
  CHECK(d.alignment.rows() == 3);
  CHECK(d.alignment.cols() == 3);
  for (Index t = 0; t < 3; ++t) {
    const attn::AdditiveDecoderStep& step = d.steps[static_cast<size_t>(t)];
    CHECK(std::fabs(d.alignment.row(t).sum() - 1.0) < 1e-15);
    // Each step is exactly additive attention of its state (recomputed independently with std).
    const NaiveAdditive n = naive_additive(step.state, d.encoder_states, d.params, {true, true, true});
    for (Index j = 0; j < 3; ++j) CHECK(std::fabs(step.attention.weights(j) - n.a[static_cast<size_t>(j)]) < 1e-14);
    CHECK(step.comparison.names.size() == 4);
  }
  // The state moves between steps (the recurrence feeds back y_t and c_t).
  CHECK(max_diff(d.steps[0].state, d.steps[1].state) > 0.0);
  CHECK_FALSE(d.note.empty());
  CHECK_ALL_PASS(d.checks);
  // Same seed, same numbers; another seed, others.
  CHECK(max_diff(attn::additive_decoder_demo().alignment, d.alignment) == 0.0);
  attn::AdditiveDecoderInput other;
  other.seed = 18;
  CHECK(max_diff(attn::additive_decoder_demo(other).alignment, d.alignment) > 0.0);
  // d_s != d_h: no dot-product comparison, additive still works.
  attn::AdditiveDecoderInput wide;
  wide.d_s = 5;
  CHECK(attn::additive_decoder_demo(wide).steps[0].comparison.names.empty());
}

TEST_CASE("additive: bad shapes and values are refused with their codes", "[lesson][additive][errors]") {
  const attn::AdditiveParams p = small_params();
  const Vector s = V({0.7, -1.2});
  const Matrix h = M({{1.0, 0.5, -0.3}, {-0.8, 0.2, 0.9}});
  CHECK_ATTN_ERROR(attn::additive_attention(V({1.0}), h, p), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::additive_attention(s, M({{1.0, 0.5}}), p), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::additive_attention(s, h, p, {true}), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::additive_attention(s, h, p, {false, false}), attn::ErrorCode::no_allowed_key);
  CHECK_ATTN_ERROR(attn::additive_attention(V({NAN, 1.0}), h, p), attn::ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::additive_attention(Vector(0), h, p), attn::ErrorCode::empty_sequence);
  attn::AdditiveParams bad = p;
  bad.v = V({1.0});
  CHECK_ATTN_ERROR(attn::additive_attention(s, h, bad), attn::ErrorCode::shape_mismatch);
  attn::AdditiveDecoderInput in;
  in.d_h = 0;
  CHECK_ATTN_ERROR(attn::additive_decoder_demo(in), attn::ErrorCode::invalid_field);
  in = attn::AdditiveDecoderInput{};
  in.source = "   ";
  CHECK_ATTN_ERROR(attn::additive_decoder_demo(in), attn::ErrorCode::empty_sequence);
}
