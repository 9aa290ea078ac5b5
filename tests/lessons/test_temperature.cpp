// tests/lessons/test_temperature.cpp — temperature, hard argmax, convex hull.
#include <lessons/temperature.hpp>
#include <lessons/torch_replica.hpp>

#include "support/support.hpp"

using namespace attn_test;

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
  // Three keys: a uniform row's entropy is ln 3 = 1.0986122886681098 nats (by hand).
  CHECK(std::fabs(one.uniform_entropy - 1.0986122886681098) < 1e-15);
  // softmax(s/τ) with τ = 0.5 is softmax with twice the scale (1/sqrt 2 · 2).
  const attn::TemperatureResult half = attn::temperature_attention(Q3(), K3(), V3(), {}, 0.5, false);
  CHECK(max_diff(half.attention.weights, naive_attention(Q3(), K3(), V3(), {}, 2.0 / std::sqrt(2.0)).weights) < 1e-15);
  // The scores field keeps scale·q·k (before /τ).
  CHECK(std::fabs(half.attention.scores(0, 0) - 1.0 / std::sqrt(2.0)) < 1e-16);
  CHECK_ALL_PASS(half.checks);
}

TEST_CASE("temperature: hard argmax splits ties evenly - no Jacobian at the tie", "[lesson][temperature]") {
  // q = (1, 0) against keys (1,0), (1,0), (0,1): scores tie on keys 0 and 1 → weights (½, ½, 0);
  // values (0,0), (2,0), (0,2) → output (1, 0).
  const Matrix q = M({{1, 0}}), k = M({{1, 0}, {1, 0}, {0, 1}}), v = M({{0, 0}, {2, 0}, {0, 2}});
  const attn::TemperatureResult h = attn::temperature_attention(q, k, v, {}, 1.0, true);
  CHECK(h.attention.weights(0, 0) == 0.5);
  CHECK(h.attention.weights(0, 1) == 0.5);
  CHECK(h.attention.weights(0, 2) == 0.0);
  CHECK(h.attention.output(0, 0) == 1.0);
  CHECK(h.attention.output(0, 1) == 0.0);
  // At the tie the selection jumps (keys 0, 1 swap on any perturbation): no Jacobian for the row;
  // the probe measures key 2's three partial derivatives, all exactly 0.
  CHECK(std::isnan(h.gradient_norm[0]));
  CHECK_FALSE(h.gradient_probed[0]);
  CHECK(h.probed_partials == 3);
  CHECK(h.probe_max == 0.0);
  CHECK(h.gradient_note.find("no useful") != std::string::npos);
  CHECK(h.gradient_note.find("finite-difference probe") != std::string::npos);
  REQUIRE(h.checks.size() == 3);
  CHECK(h.checks[2].measured == h.probe_max);
  CHECK_ALL_PASS(h.checks);
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

namespace {
// Independent reference: softmax of one row of τ-divided scores over the allowed keys, with std::exp.
std::vector<double> ref_softmax(const std::vector<double>& s, const std::vector<bool>& ok, double tau) {
  double m = -INFINITY, z = 0.0;
  for (size_t j = 0; j < s.size(); ++j)
    if (ok[j]) m = std::max(m, s[j]);
  std::vector<double> w(s.size(), 0.0);
  for (size_t j = 0; j < s.size(); ++j)
    if (ok[j]) z += (w[j] = std::exp((s[j] - m) / tau));
  for (double& x : w) x /= z;
  return w;
}

// ‖∂w/∂s‖_F by central differences, Richardson-extrapolated ((4 D(h/2) − D(h))/3, error O(h⁴)),
// h = 1e-3·τ (the softmax varies on the scale τ in s).
double ref_jacobian_norm_fd(const std::vector<double>& s, const std::vector<bool>& ok, double tau) {
  const double h = 1e-3 * tau;
  double norm2 = 0.0;
  for (size_t j = 0; j < s.size(); ++j) {
    if (!ok[j]) continue;
    auto central = [&](double step) {
      std::vector<double> sp = s, sm = s;
      sp[j] += step;
      sm[j] -= step;
      const std::vector<double> wp = ref_softmax(sp, ok, tau), wm = ref_softmax(sm, ok, tau);
      std::vector<double> d(s.size());
      for (size_t l = 0; l < s.size(); ++l) d[l] = (wp[l] - wm[l]) / (2.0 * step);
      return d;
    };
    const std::vector<double> d1 = central(h), d2 = central(h / 2);
    for (size_t l = 0; l < s.size(); ++l) {
      const double d = (4.0 * d2[l] - d1[l]) / 3.0;
      norm2 += d * d;
    }
  }
  return std::sqrt(norm2);
}

// The closed form ‖diag(w) − w wᵀ‖_F / τ at the returned weights.
double formula_jacobian_norm(const Matrix& w, Index i, double tau) {
  double g2 = 0.0;
  for (Index j = 0; j < w.cols(); ++j)
    for (Index l = 0; l < w.cols(); ++l) {
      const double jac = (j == l ? w(i, j) : 0.0) - w(i, j) * w(i, l);
      g2 += jac * jac;
    }
  return std::sqrt(g2) / tau;
}
}  // namespace

TEST_CASE("temperature: the backward pass's gradient norm - finite differences and the formula agree",
          "[lesson][temperature][gradient]") {
  attn::MaskSpec causal;
  causal.causal = attn::Causal::square;
  const Matrix q4 = M({{0.3, -1.2, 0.5}, {2.0, 0.1, -0.7}, {-0.4, 0.8, 1.5}, {1.1, 1.1, -0.2}});
  const Matrix k4 = M({{0.9, 0.2, -0.3}, {-1.0, 0.6, 0.4}, {0.2, -0.5, 1.3}, {0.7, 0.7, 0.7}});
  const Matrix v4 = M({{1, 0}, {0, 1}, {2, 2}, {-1, 3}});
  struct Case {
    Matrix q, k, v;
    attn::MaskSpec mask;
  };
  const std::vector<Case> cases = {{Q3(), K3(), V3(), {}}, {Q3(), K3(), V3(), causal}, {q4, k4, v4, {}},
                                   {q4, k4, v4, causal}};
  for (const Case& c : cases) {
    for (double tau : {0.05, 0.3, 1.0, 4.0, 50.0}) {
      const attn::TemperatureResult r = attn::temperature_attention(c.q, c.k, c.v, c.mask, tau, false);
      const attn::AttentionResult& a = r.attention;
      for (Index i = 0; i < a.scores.rows(); ++i) {
        std::vector<double> s;
        std::vector<bool> ok;
        for (Index j = 0; j < a.scores.cols(); ++j) {
          s.push_back(a.allowed(i, j) ? a.scores(i, j) : 0.0);
          ok.push_back(a.allowed(i, j));
        }
        const double fd = ref_jacobian_norm_fd(s, ok, tau), old = formula_jacobian_norm(a.weights, i, tau);
        const double g = r.gradient_norm[static_cast<size_t>(i)];
        INFO("tau " << tau << " row " << i << ": backward " << g << ", fd " << fd << ", formula " << old);
        CHECK(r.gradient_probed[static_cast<size_t>(i)]);
        CHECK(std::fabs(g - fd) <= 1e-8 * std::max(fd, 1e-3 / tau));
        CHECK(std::fabs(g - old) <= 1e-12 * std::max(old, 1.0));
      }
    }
  }
}

TEST_CASE("temperature: softmax_jacobian_norm by the backward pass - masks - scale - one key",
          "[lesson][temperature][gradient]") {
  // Two allowed keys of three, scores (0.4, masked, −1.1), scale 2: w = softmax(0.8, −2.2) = (p, 0, 1 − p),
  // ∂w/∂s = 2·[[p(1−p), −p(1−p)], [−p(1−p), p(1−p)]] on the allowed keys: norm 4·p(1−p).
  const double s[3] = {0.4, 1e300, -1.1};
  const unsigned char ok[3] = {1, 0, 1};
  double w[3];
  const double g = attn::softmax_jacobian_norm(s, ok, 3, 2.0, w);
  const double p = 1.0 / (1.0 + std::exp(-3.0));
  CHECK(std::fabs(w[0] - p) < 1e-15);
  CHECK(w[1] == 0.0);
  CHECK(std::fabs(g - 4.0 * p * (1.0 - p)) < 1e-15);
  // One key: w = 1 whatever its score; the Jacobian is 0. No allowed key: 0 as well.
  const double one = 3.0;
  CHECK(attn::softmax_jacobian_norm(&one, nullptr, 1, 1.0) == 0.0);
  const unsigned char none[3] = {0, 0, 0};
  CHECK(attn::softmax_jacobian_norm(s, none, 3, 1.0) == 0.0);
  // Uniform over n keys: ‖diag(w) − w wᵀ‖_F = √(n − 1)/n.
  const double zeros[8] = {};
  CHECK(std::fabs(attn::softmax_jacobian_norm(zeros, nullptr, 8, 1.0) - std::sqrt(7.0) / 8.0) < 1e-15);
}

TEST_CASE("temperature: argmax gradient by a finite-difference probe - 0 away from ties",
          "[lesson][temperature][gradient]") {
  // No ties in Q3·K3ᵀ/√2: every row probed, every partial derivative exactly 0.
  const attn::TemperatureResult h = attn::temperature_attention(Q3(), K3(), V3(), {}, 1.0, true);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(h.gradient_probed[i]);
    CHECK(h.gradient_norm[i] == 0.0);
  }
  CHECK(h.probed_partials == 27);  // 3 rows × 3 keys perturbed × 3 weights
  CHECK(h.probe_max == 0.0);
  REQUIRE(h.checks.size() == 3);
  CHECK(h.checks[2].measured == 0.0);
  CHECK(h.checks[2].claim.find("finite-difference probe (27 partial derivatives)") != std::string::npos);
  CHECK(h.checks[2].pass);
  // Keys 0 and 1 a hair apart (score gap 7e-10): still resolved (step 7e-16, 6 ulps), still 0.
  const Matrix q = M({{1, 0}}), k = M({{1, 0}, {1 - 1e-9, 0}, {0, 1}}), v = M({{0, 0}, {2, 0}, {0, 2}});
  const attn::TemperatureResult near = attn::temperature_attention(q, k, v, {}, 1.0, true);
  CHECK(near.gradient_probed[0]);
  CHECK(near.gradient_norm[0] == 0.0);
  CHECK(near.probed_partials == 9);
  // Causal rows probe only their allowed keys: 1 + 2 + 3 keys × as many weights.
  attn::MaskSpec causal;
  causal.causal = attn::Causal::square;
  const attn::TemperatureResult c = attn::temperature_attention(Q3(), K3(), V3(), causal, 1.0, true);
  CHECK(c.probed_partials == 1 + 4 + 9);
  CHECK(c.probe_max == 0.0);
  // Soft mode runs no probe and has no argmax check.
  const attn::TemperatureResult soft = attn::temperature_attention(Q3(), K3(), V3(), {}, 1.0, false);
  CHECK(soft.probed_partials == 0);
  CHECK(soft.checks.size() == 2);
}

TEST_CASE("temperature: outputs stay in the convex hull of 2-D values at every tau", "[lesson][temperature]") {
  for (double tau : {1e-3, 0.1, 1.0, 10.0, 1e4}) {
    const attn::TemperatureResult r = attn::temperature_attention(Q3(), K3(), V3(), {}, tau, false);
    INFO("tau " << tau);
    REQUIRE(r.hull.rows() == 3);
    for (double e : r.hull_excess) CHECK(e <= 1e-12);
    CHECK_ALL_PASS(r.checks);
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
  CHECK_ATTN_ERROR(attn::convex_hull_2d(M({{0, 0, 0}})), attn::ErrorCode::shape_mismatch);
}

TEST_CASE("temperature: d_v other than 2 uses the value range - and masks still apply", "[lesson][temperature]") {
  const Matrix v3 = M({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}});
  attn::MaskSpec mask;
  mask.causal = attn::Causal::square;
  const attn::TemperatureResult r = attn::temperature_attention(Q3(), K3(), v3, mask, 0.3, false);
  CHECK(r.hull.rows() == 0);
  CHECK(r.attention.weights(0, 0) == 1.0);  // causal row 0 sees key 0 only
  CHECK(r.attention.weights(0, 1) == 0.0);
  CHECK_ALL_PASS(r.checks);
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
  CHECK_ATTN_ERROR(attn::temperature_attention(Q3(), K3(), V3(), none, 2.0, true), attn::ErrorCode::no_allowed_key);
}

TEST_CASE("temperature: tau must be finite and positive outside hard mode", "[lesson][temperature][errors]") {
  CHECK_ATTN_ERROR(attn::temperature_attention(Q3(), K3(), V3(), {}, 0.0, false), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::temperature_attention(Q3(), K3(), V3(), {}, -1.0, false), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::temperature_attention(Q3(), K3(), V3(), {}, NAN, false), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::temperature_attention(Q3(), K3(), V3(), {}, INFINITY, false), attn::ErrorCode::invalid_field);
  CHECK_NOTHROW(attn::temperature_attention(Q3(), K3(), V3(), {}, 0.0, true));  // hard ignores τ
  CHECK_ATTN_ERROR(attn::temperature_attention(Q3(), M({{1, 0, 0}}), V3(), {}, 1.0, false), attn::ErrorCode::shape_mismatch);
}

TEST_CASE("temperature: the gradient trend is worded from the norms it is given", "[lesson][temperature]") {
  // Hand-made norms, one case per verdict. Mean, ratio and the two factors by hand:
  // {2, 4} at τ 0.5 against {1, 1} at τ 1: mean 3, ratio 3, 1/τ grew 2×, bracket 1.5×: both up.
  const attn::TemperatureGradientTrend both = attn::temperature_gradient_trend(0.5, {2, 4}, 1.0, {1, 1});
  CHECK(both.mean_norm == 3.0);
  CHECK(both.reference_mean_norm == 1.0);
  CHECK(both.max_norm == 4.0);
  CHECK(both.ratio == 3.0);
  CHECK(both.factor_ratio == 2.0);
  CHECK(both.bracket_ratio == 1.5);
  CHECK_THAT(both.caption, Catch::Matchers::Contains("At τ = 0.5 the rows' mean ‖dw/ds‖ is 3, 3× its value at τ = 1 (1)"));
  CHECK_THAT(both.caption, Catch::Matchers::Contains("1/τ factor changed 2× and the bracket 1.5×"));
  CHECK_THAT(both.caption, Catch::Matchers::Contains("both pushed the same way: the gradient grew as τ fell"));
  // {3} at τ 0.25 against {1} at τ 1: ratio 3, 1/τ grew 4×, the bracket fell to 0.75×: 1/τ wins.
  const attn::TemperatureGradientTrend factor = attn::temperature_gradient_trend(0.25, {3}, 1.0, {1});
  CHECK(factor.bracket_ratio == 0.75);
  CHECK_THAT(factor.caption, Catch::Matchers::Contains("changed 4× and the bracket 0.75× as the rows sharpened"));
  CHECK_THAT(factor.caption, Catch::Matchers::Contains("the 1/τ factor wins: the gradient grew as τ fell"));
  // {0.5} at τ 0.1 against {1} at τ 1: ratio 0.5, 1/τ grew 10×, the bracket fell to 0.05×: saturation wins.
  const attn::TemperatureGradientTrend bracket = attn::temperature_gradient_trend(0.1, {0.5}, 1.0, {1});
  CHECK(std::fabs(bracket.bracket_ratio - 0.05) < 1e-16);
  CHECK_THAT(bracket.caption, Catch::Matchers::Contains("0.5× its value"));
  CHECK_THAT(bracket.caption, Catch::Matchers::Contains("the bracket wins: the gradient shrank as τ fell"));
  // Warmer: {0.2} at τ 10 against {1} at τ 1: 1/τ fell to 0.1×, bracket 2×: 1/τ wins, shrank as τ rose.
  const attn::TemperatureGradientTrend warm = attn::temperature_gradient_trend(10.0, {0.2}, 1.0, {1});
  CHECK_THAT(warm.caption, Catch::Matchers::Contains("as the rows flattened, so the 1/τ factor wins: the gradient shrank as τ rose"));
  // The reference itself, and refusals.
  const attn::TemperatureGradientTrend same = attn::temperature_gradient_trend(1.0, {0.7}, 1.0, {0.7});
  CHECK(same.ratio == 1.0);
  CHECK_THAT(same.caption, Catch::Matchers::Contains("is 0.7. This is the reference τ"));
  CHECK_ATTN_ERROR(attn::temperature_gradient_trend(0.0, {1}, 1.0, {1}), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::temperature_gradient_trend(0.5, {1, 2}, 1.0, {1}), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::temperature_gradient_trend(0.5, {1}, 1.0, {0}), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::temperature_gradient_trend(0.5, {NAN}, 1.0, {1}), attn::ErrorCode::invalid_field);
}

TEST_CASE("temperature: on the lesson's head the measured trend matches the Jacobian formula", "[lesson][temperature]") {
  const attn::LessonReplica m = attn::lesson_replica();
  const attn::SelfAttentionResult& a = m.attention;
  const Matrix v2 = a.value.leftCols(2);
  // Row norms by the formula ‖diag(w) − w wᵀ‖_F / τ on the panel's weights, not by the backward pass.
  auto mean_formula = [&](double tau) {
    const attn::TemperatureResult r = attn::temperature_attention(a.query, a.key, v2, {}, tau, false);
    double s = 0;
    for (Index i = 0; i < r.attention.weights.rows(); ++i) s += formula_jacobian_norm(r.attention.weights, i, tau);
    return std::make_pair(s / static_cast<double>(r.attention.weights.rows()), r);
  };
  for (double tau : {0.01, 0.1, 0.25, 10.0}) {
    const auto [mean, r] = mean_formula(tau);
    const auto [ref_mean, ref] = mean_formula(1.0);
    const attn::TemperatureGradientTrend t =
        attn::temperature_gradient_trend(tau, r.gradient_norm, 1.0, ref.gradient_norm);
    INFO("tau " << tau << ": " << t.caption);
    CHECK(std::fabs(t.mean_norm - mean) <= 1e-12 * std::max(1.0, mean));
    CHECK(std::fabs(t.reference_mean_norm - ref_mean) <= 1e-12);
    // The verdict follows this test's own ratio and bracket (mean norm × τ is the mean bracket).
    const bool grew = mean > ref_mean, colder = tau < 1.0, bracket_grew = mean * tau > ref_mean * 1.0;
    const std::string outcome = std::string("the gradient ") + (grew ? "grew" : "shrank") + " as τ " + (colder ? "fell" : "rose");
    CHECK_THAT(t.caption, Catch::Matchers::Contains(outcome));
    CHECK_THAT(t.caption, Catch::Matchers::Contains(
                              colder == bracket_grew ? "both pushed" : (colder == grew ? "the 1/τ factor wins" : "the bracket wins")));
  }
}
