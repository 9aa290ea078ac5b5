// tests/lesson/test_temperature.cpp — issue 4, item 6: temperature, hard argmax, convex hull.
#include <attn/temperature.hpp>

#include "lesson_support.hpp"

using namespace lesson_test;

namespace {
// A 3-query, 3-key case with 2-D values (a triangle).
Matrix Q3() { return M({{1, 0}, {0.3, 0.9}, {-1, 2}}); }
Matrix K3() { return M({{1, 0}, {0, 1}, {0.5, 0.5}}); }
Matrix V3() { return M({{0, 0}, {4, 0}, {0, 4}}); }
}  // namespace

TEST_CASE("temperature: tau = 1 is ordinary attention - tau = 0.5 doubles the scores", "[lesson][temperature]") {
  const attn::TemperatureResult one = attn::temperature_attention(Q3(), K3(), V3(), {}, 1.0, false);
  const Naive ref = naive_attention(Q3(), K3(), V3());
  CHECK(max_diff(one.attention.weights, ref.weights) < 1e-15);
  CHECK(max_diff(one.attention.output, ref.output) < 1e-14);
  // softmax(s/τ) with τ = 0.5 is softmax with twice the scale (1/sqrt 2 · 2).
  const attn::TemperatureResult half = attn::temperature_attention(Q3(), K3(), V3(), {}, 0.5, false);
  CHECK(max_diff(half.attention.weights, naive_attention(Q3(), K3(), V3(), {}, 2.0 / std::sqrt(2.0)).weights) < 1e-15);
  // The scores field keeps scale·q·k (before /τ).
  CHECK(std::fabs(half.attention.scores(0, 0) - 1.0 / std::sqrt(2.0)) < 1e-16);
  for (const attn::Check& c : half.checks) CHECK(c.pass);
}

TEST_CASE("temperature: hard argmax splits ties evenly and has zero gradient", "[lesson][temperature]") {
  // q = (1, 0) against keys (1,0), (1,0), (0,1): scores tie on keys 0 and 1 → weights (½, ½, 0);
  // values (0,0), (2,0), (0,2) → output (1, 0).
  const Matrix q = M({{1, 0}}), k = M({{1, 0}, {1, 0}, {0, 1}}), v = M({{0, 0}, {2, 0}, {0, 2}});
  const attn::TemperatureResult h = attn::temperature_attention(q, k, v, {}, 1.0, true);
  CHECK(h.attention.weights(0, 0) == 0.5);
  CHECK(h.attention.weights(0, 1) == 0.5);
  CHECK(h.attention.weights(0, 2) == 0.0);
  CHECK(h.attention.output(0, 0) == 1.0);
  CHECK(h.attention.output(0, 1) == 0.0);
  CHECK(h.gradient_norm[0] == 0.0);
  CHECK(h.gradient_note.find("no useful") != std::string::npos);
  for (const attn::Check& c : h.checks) CHECK(c.pass);
  // Small τ approaches the hard weights; a large τ approaches uniform.
  const attn::TemperatureResult cold = attn::temperature_attention(q, k, v, {}, 0.01, false);
  CHECK(std::fabs(cold.attention.weights(0, 0) - 0.5) < 1e-12);
  CHECK(cold.attention.weights(0, 2) < 1e-12);
  const attn::TemperatureResult hot = attn::temperature_attention(q, k, v, {}, 1e6, false);
  CHECK(std::fabs(hot.attention.weights(0, 2) - 1.0 / 3.0) < 1e-6);
  CHECK(std::fabs(hot.entropy[0] - std::log(3.0)) < 1e-6);
}

TEST_CASE("temperature: softmax gradient norm by hand", "[lesson][temperature]") {
  // Two keys with weights (p, 1 − p): d w / d s = [[p(1−p), −p(1−p)], [−p(1−p), p(1−p)]] / τ,
  // Frobenius norm 2·p(1−p)/τ.
  const Matrix q = M({{1, 0}}), k = M({{1, 0}, {0, 1}}), v = M({{1, 0}, {0, 1}});
  const double tau = 0.7;
  const attn::TemperatureResult r = attn::temperature_attention(q, k, v, {}, tau, false);
  const double p = r.attention.weights(0, 0);
  CHECK(std::fabs(p - 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0) / tau))) < 1e-15);
  CHECK(std::fabs(r.gradient_norm[0] - 2.0 * p * (1.0 - p) / tau) < 1e-15);
}

TEST_CASE("temperature: outputs stay in the convex hull of 2-D values at every tau", "[lesson][temperature]") {
  for (double tau : {1e-3, 0.1, 1.0, 10.0, 1e4}) {
    const attn::TemperatureResult r = attn::temperature_attention(Q3(), K3(), V3(), {}, tau, false);
    INFO("tau " << tau);
    REQUIRE(r.hull.rows() == 3);
    for (double e : r.hull_excess) CHECK(e <= 1e-12);
    for (const attn::Check& c : r.checks) CHECK(c.pass);
  }
  // Hull by hand: the triangle (0,0), (4,0), (0,4) counter-clockwise from the lowest-leftmost point.
  const Matrix hull = attn::convex_hull_2d(M({{0, 4}, {4, 0}, {0, 0}, {1, 1}, {2, 2}}));
  CHECK(max_diff(hull, M({{0, 0}, {4, 0}, {0, 4}})) == 0.0);
  // (5, 5) lies (5 + 5 − 4)/sqrt 2 from the edge x + y = 4; (1, 1) inside; (−3, 0) 3 from (0, 0).
  CHECK(std::fabs(attn::hull_distance_2d(hull, 5, 5) - 6.0 / std::sqrt(2.0)) < 1e-15);
  CHECK(attn::hull_distance_2d(hull, 1, 1) == 0.0);
  CHECK(attn::hull_distance_2d(hull, -3, 0) == 3.0);
  // Collinear values: a segment.
  const Matrix seg = attn::convex_hull_2d(M({{0, 0}, {1, 1}, {2, 2}}));
  CHECK(seg.rows() == 2);
  CHECK(std::fabs(attn::hull_distance_2d(seg, 0, 2) - std::sqrt(2.0)) < 1e-15);
  CHECK_CODE(attn::convex_hull_2d(M({{0, 0, 0}})), attn::ErrorCode::shape_mismatch);
}

TEST_CASE("temperature: d_v other than 2 uses the value range - and masks still apply", "[lesson][temperature]") {
  const Matrix v3 = M({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}});
  attn::MaskSpec mask;
  mask.causal = attn::Causal::square;
  const attn::TemperatureResult r = attn::temperature_attention(Q3(), K3(), v3, mask, 0.3, false);
  CHECK(r.hull.rows() == 0);
  CHECK(r.attention.weights(0, 0) == 1.0);  // causal row 0 sees key 0 only
  CHECK(r.attention.weights(0, 1) == 0.0);
  for (const attn::Check& c : r.checks) CHECK(c.pass);
  // Empty rows under the zero policy stay zero.
  attn::MaskSpec none;
  attn::BoolMatrix allowed(3, 3);
  allowed << true, false, false, false, false, false, true, true, true;
  none.allowed = allowed;
  attn::AttentionOptions zero;
  zero.empty_rows = attn::EmptyRows::zero;
  const attn::TemperatureResult z = attn::temperature_attention(Q3(), K3(), V3(), none, 2.0, true, zero);
  CHECK(z.attention.output.row(1).cwiseAbs().maxCoeff() == 0.0);
  CHECK(z.hull_excess[1] == 0.0);
  CHECK_CODE(attn::temperature_attention(Q3(), K3(), V3(), none, 2.0, true), attn::ErrorCode::no_allowed_key);
}

TEST_CASE("temperature: tau must be finite and positive outside hard mode", "[lesson][temperature][errors]") {
  CHECK_CODE(attn::temperature_attention(Q3(), K3(), V3(), {}, 0.0, false), attn::ErrorCode::invalid_field);
  CHECK_CODE(attn::temperature_attention(Q3(), K3(), V3(), {}, -1.0, false), attn::ErrorCode::invalid_field);
  CHECK_CODE(attn::temperature_attention(Q3(), K3(), V3(), {}, NAN, false), attn::ErrorCode::invalid_field);
  CHECK_CODE(attn::temperature_attention(Q3(), K3(), V3(), {}, INFINITY, false), attn::ErrorCode::invalid_field);
  CHECK_NOTHROW(attn::temperature_attention(Q3(), K3(), V3(), {}, 0.0, true));  // hard ignores τ
  CHECK_CODE(attn::temperature_attention(Q3(), M({{1, 0, 0}}), V3(), {}, 1.0, false), attn::ErrorCode::shape_mismatch);
}
