// tests/lessons/test_scaling.cpp — scaling by sqrt(d_k): var(q·k) ≈ d_k, scaling restores 1, tied Q = K,
// saturation, and row-max subtraction.
#include <attn/random.hpp>
#include <lessons/scaling.hpp>
#include <cstring>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("scaling: sampled var(q.k) is d_k and var(q.k/sqrt(d_k)) is 1 - d_k 1..512", "[lesson][scaling]") {
  attn::ScalingInput in;  // d_k = 1, 2, 4, …, 512; N = 2000; seed 17
  const attn::ScalingResult r = attn::scaling_study(in);
  REQUIRE(r.dot.size() == 10);
  for (const attn::DotProductStats& s : r.dot) {
    INFO("d_k " << s.d_k << ": var " << s.variance << ", scaled var " << s.scaled_variance << ", tied " << s.tied_mean);
    // Tolerance derived independently here: var of the sample variance of S = Σ q_i k_i is
    // (E S^4 − d²)/N = (3d² + 6d − d²)/N (E (q k)^4 = 9, so the 4th cumulant per term is 6);
    // 5 standard errors relative to d: 5·sqrt((2 + 6/d)/N).
    const double d = s.d_k, tol = 5.0 * std::sqrt((2.0 + 6.0 / d) / in.samples);
    CHECK(std::fabs(s.variance / d - 1.0) <= tol);
    CHECK(std::fabs(s.scaled_variance - 1.0) <= tol);
    // Scaled variance is the variance divided by d_k (up to rounding).
    CHECK(std::fabs(s.scaled_variance - s.variance / d) <= 1e-9 * s.scaled_variance);
    // Tied Q = K: q·q is chi-square(d), mean d, variance 2d → 5·sqrt(2/(dN)) relative.
    CHECK(std::fabs(s.tied_mean / d - 1.0) <= 5.0 * std::sqrt(2.0 / (d * in.samples)));
    CHECK(std::fabs(s.tied_scaled_mean - s.tied_mean / std::sqrt(d)) <= 1e-9 * s.tied_mean);
    // Histograms count every sample.
    int total = s.below + s.above, scaled_total = s.scaled_below + s.scaled_above;
    for (int c : s.histogram) total += c;
    for (int c : s.scaled_histogram) scaled_total += c;
    CHECK(total == in.samples);
    CHECK(scaled_total == in.samples);
  }
  // Raw scores spread out with d_k (sd sqrt(512) ≈ 22.6 vs a ±8 window), scaled ones do not.
  CHECK(r.dot.back().below + r.dot.back().above > in.samples / 2);
  CHECK(r.dot.back().scaled_below + r.dot.back().scaled_above < in.samples / 100);
  CHECK(r.bin_edges.size() == 33);
  CHECK(r.bin_edges.front() == -8.0);
  CHECK(r.bin_edges.back() == 8.0);
  CHECK_ALL_PASS(r.checks);
}

TEST_CASE("scaling: unscaled softmax saturates with d_k - scaled does not", "[lesson][scaling]") {
  const attn::ScalingResult r = attn::scaling_study(attn::ScalingInput{});
  const attn::SaturationStats& first = r.saturation.front();
  const attn::SaturationStats& last = r.saturation.back();
  CHECK(first.d_k == 1);
  CHECK(last.d_k == 512);
  CHECK(last.max_weight > 0.9);               // nearly one-hot
  CHECK(last.entropy < 0.3);                  // far below ln 8 ≈ 2.079
  CHECK(last.scaled_max_weight < 0.5);
  CHECK(last.scaled_entropy > 1.5);
  CHECK(std::fabs(r.uniform_entropy - std::log(8.0)) < 1e-15);
  // At d_k = 1 the scale is 1: both curves coincide exactly.
  CHECK(first.max_weight == first.scaled_max_weight);
}

TEST_CASE("scaling: the same seed gives the same numbers", "[lesson][scaling]") {
  attn::ScalingInput in;
  in.d_ks = {3, 7};
  in.samples = 50;
  in.rows = 5;
  const attn::ScalingResult a = attn::scaling_study(in), b = attn::scaling_study(in);
  CHECK(a.dot[1].variance == b.dot[1].variance);
  CHECK(a.saturation[0].entropy == b.saturation[0].entropy);
  // Independent replay for d_k = 1, N = 2: draws q0, k0, q1, k1 from Rng(17); the unbiased
  // sample variance of two numbers a, b is (a − b)²/2.
  attn::ScalingInput two;
  two.d_ks = {1};
  two.samples = 2;
  two.rows = 1;
  attn::Rng rng(17);
  const double q0 = rng.normal(), k0 = rng.normal(), q1 = rng.normal(), k1 = rng.normal();
  const double x = q0 * k0, y = q1 * k1;
  const attn::ScalingResult t = attn::scaling_study(two);
  CHECK(std::fabs(t.dot[0].mean - (x + y) / 2) < 1e-15);
  CHECK(std::fabs(t.dot[0].variance - (x - y) * (x - y) / 2) < 1e-14);
  in.seed = 18;
  CHECK(attn::scaling_study(in).dot[1].variance != a.dot[1].variance);
}

TEST_CASE("scaling: the softmax's gradient norm by the backward pass - replayed by hand",
          "[lesson][scaling][gradient]") {
  // d_k = 1 then 4, N = 2, one row of two keys: Rng(17) draws, per d_k, q0 k0 q1 k1 (d_k each), two
  // tied q, then the row's q and its two keys. With two keys, w = (p, 1 − p) and the softmax
  // Jacobian [[p(1−p), −p(1−p)], [−p(1−p), p(1−p)]] has Frobenius norm 2·p(1−p).
  attn::ScalingInput in;
  in.d_ks = {1, 4};
  in.samples = 2;
  in.rows = 1;
  in.keys = 2;
  const attn::ScalingResult r = attn::scaling_study(in);
  attn::Rng rng(17);
  for (int d : in.d_ks) {
    for (int t = 0; t < 4 * d + 2 * d; ++t) rng.normal();  // the pairs and the tied draws
    std::vector<double> q(static_cast<size_t>(d));
    for (double& x : q) x = rng.normal();
    double dot[2] = {0.0, 0.0};
    for (double& s : dot)
      for (int i = 0; i < d; ++i) s += q[static_cast<size_t>(i)] * rng.normal();
    auto norm = [](double a, double b) {
      const double p = 1.0 / (1.0 + std::exp(b - a));
      return 2.0 * p * (1.0 - p);
    };
    const attn::SaturationStats& st = r.saturation[d == 1 ? 0 : 1];
    INFO("d_k " << d << ": dots " << dot[0] << ", " << dot[1]);
    CHECK(std::fabs(st.gradient_norm_unscaled - norm(dot[0], dot[1])) < 1e-15);
    CHECK(std::fabs(st.gradient_norm_scaled - norm(dot[0] / std::sqrt(d), dot[1] / std::sqrt(d))) < 1e-15);
  }
  CHECK(r.saturation[0].gradient_norm_unscaled == r.saturation[0].gradient_norm_scaled);  // scale 1 at d_k = 1
  CHECK(std::fabs(r.uniform_gradient_norm - 0.5) < 1e-15);  // two equal logits: 2·(1/2)(1/2)
}

TEST_CASE("scaling: the unscaled gradient norm falls with d_k - the scaled one does not",
          "[lesson][scaling][gradient]") {
  const attn::ScalingResult r = attn::scaling_study(attn::ScalingInput{});  // 8 keys, 200 rows
  CHECK(std::fabs(r.uniform_gradient_norm - std::sqrt(7.0) / 8.0) < 1e-15);
  const attn::SaturationStats& first = r.saturation.front();
  const attn::SaturationStats& last = r.saturation.back();
  CHECK(first.gradient_norm_unscaled == first.gradient_norm_scaled);
  // Seeded figures (d_k 1: 0.345 both; 512: 0.071 unscaled, 0.369 scaled), held loosely: the
  // unscaled norm at 512 is under a third of the scaled one, which stays near its d_k = 1 value.
  CHECK(last.gradient_norm_unscaled < last.gradient_norm_scaled / 3.0);
  for (const attn::SaturationStats& s : r.saturation) {
    INFO("d_k " << s.d_k << ": " << s.gradient_norm_unscaled << " unscaled, " << s.gradient_norm_scaled << " scaled");
    CHECK(std::fabs(s.gradient_norm_scaled - first.gradient_norm_scaled) < 0.1);
    CHECK(s.gradient_norm_unscaled >= 0.0);
  }
}

TEST_CASE("scaling: out-of-range inputs are refused with their codes", "[lesson][scaling][errors]") {
  attn::ScalingInput in;
  in.d_ks = {};
  CHECK_ATTN_ERROR(attn::scaling_study(in), attn::ErrorCode::empty_sequence);
  in.d_ks = {0};
  CHECK_ATTN_ERROR(attn::scaling_study(in), attn::ErrorCode::invalid_field);
  in.d_ks = {4};
  in.samples = 1;
  CHECK_ATTN_ERROR(attn::scaling_study(in), attn::ErrorCode::invalid_field);
  in.samples = 100000;
  in.d_ks = {4096, 4096};
  CHECK_ATTN_ERROR(attn::scaling_study(in), attn::ErrorCode::too_large);
  in = attn::ScalingInput{};
  in.d_ks = {1};
  in.keys = 512;
  in.rows = 39;  // 39·512² > 1e7: the Jacobians' work
  CHECK_ATTN_ERROR(attn::scaling_study(in), attn::ErrorCode::too_large);
  in.rows = 38;
  in.samples = 2;
  CHECK_NOTHROW(attn::scaling_study(in));
  in = attn::ScalingInput{};
  in.range = 0;
  CHECK_ATTN_ERROR(attn::scaling_study(in), attn::ErrorCode::invalid_field);
}

TEST_CASE("softmax stability: logits 1000 - 1001 overflow naively - not with the row max", "[lesson][scaling]") {
  const attn::SoftmaxStability s = attn::softmax_stability({1000.0, 1001.0});
  CHECK(s.naive_overflowed);
  CHECK(std::isinf(s.naive_exp[0]));
  CHECK(std::isnan(s.naive_weights[0]));  // inf / inf
  // By hand: softmax(1000, 1001) = softmax(0, 1) = (1/(1+e), e/(1+e)).
  const double e = std::exp(1.0);
  CHECK(std::fabs(s.stable_weights[0] - 1.0 / (1.0 + e)) < 1e-15);
  CHECK(std::fabs(s.stable_weights[1] - e / (1.0 + e)) < 1e-15);
  CHECK(s.row_max == 1001.0);
  CHECK_ALL_PASS(s.checks);
}

TEST_CASE("softmax stability: the subtraction does not undo saturation", "[lesson][scaling]") {
  // Gap 40: weights (e^-40/(1+e^-40), 1/(1+e^-40)) whether or not the logits sit near 1000.
  const attn::SoftmaxStability hi = attn::softmax_stability({1000.0, 1040.0});
  const attn::SoftmaxStability lo = attn::softmax_stability({0.0, 40.0});
  const double t = std::exp(-40.0);
  CHECK(std::fabs(hi.stable_weights[0] - t / (1.0 + t)) < 1e-30);
  CHECK(hi.stable_weights[0] == lo.stable_weights[0]);
  CHECK(hi.max_weight > 1.0 - 1e-15);
  CHECK(hi.entropy < 1e-15);
  CHECK_FALSE(lo.naive_overflowed);
  CHECK_ATTN_ERROR(attn::softmax_stability({}), attn::ErrorCode::empty_sequence);
  CHECK_ATTN_ERROR(attn::softmax_stability({1.0, INFINITY}), attn::ErrorCode::non_finite);
}

TEST_CASE("softmax stability: naive and stable agree where nothing overflows, saturated either way", "[lesson][scaling]") {
  // Logits (0, 40) do not overflow: the naive weights are the stable ones to rounding.
  const attn::SoftmaxStability lo = attn::softmax_stability({0.0, 40.0});
  CHECK(lo.naive_stable_difference <= 1e-15);
  const attn::SoftmaxStability hi = attn::softmax_stability({1000.0, 1001.0});
  CHECK(std::isnan(hi.naive_stable_difference));  // inf/inf: the overflow is not hidden
  CHECK(hi.caption.find("overflows") != std::string::npos);

  // The row the sampler draws first, recomputed by hand from the same generator: d_k 1, 2 keys.
  attn::Rng rng(5);
  const double q = rng.normal(), l0 = q * rng.normal(), l1 = q * rng.normal();
  const double w1 = 1.0 / (1.0 + std::exp(l0 - l1)), w0 = 1.0 - w1;
  const attn::RowMaxOnSaturatedRows one = attn::row_max_on_saturated_rows(1, 2, 1, 5);
  CHECK(std::fabs(one.mean_max_weight_stable - std::max(w0, w1)) < 1e-12);
  CHECK(std::fabs(one.largest_abs_logit - std::max(std::fabs(l0), std::fabs(l1))) == 0.0);

  // The default rows (d_k 512 unscaled) stay far from overflow, agree to rounding and stay
  // saturated; at d_k 1 the same measurement is not saturated, so the check can fail.
  const attn::RowMaxOnSaturatedRows& sat = hi.saturated;
  CHECK(sat.largest_abs_logit < 709.0);
  CHECK(sat.max_abs_difference <= 1e-12);
  CHECK(sat.mean_max_weight_stable > 0.9);
  CHECK(std::fabs(sat.mean_max_weight_naive - sat.mean_max_weight_stable) <= 1e-12);
  CHECK(attn::row_max_on_saturated_rows(1, 8, 200, 17).mean_max_weight_stable < 0.9);
  CHECK_ALL_PASS(hi.checks);
  CHECK_ATTN_ERROR(attn::row_max_on_saturated_rows(0), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::row_max_on_saturated_rows(4096, 512, 10000), attn::ErrorCode::too_large);
}

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Every number of two results, bit for bit (doubles by their bit patterns, so -0 != 0).
void require_same_bits(const attn::ScalingResult& a, const attn::ScalingResult& b) {
  REQUIRE(a.dot.size() == b.dot.size());
  REQUIRE(a.saturation.size() == b.saturation.size());
  REQUIRE(a.bin_edges.size() == b.bin_edges.size());
  for (size_t i = 0; i < a.bin_edges.size(); ++i) CHECK(bits(a.bin_edges[i]) == bits(b.bin_edges[i]));
  CHECK(bits(a.uniform_entropy) == bits(b.uniform_entropy));
  CHECK(bits(a.uniform_gradient_norm) == bits(b.uniform_gradient_norm));
  for (size_t i = 0; i < a.dot.size(); ++i) {
    const attn::DotProductStats &x = a.dot[i], &y = b.dot[i];
    INFO("d_k " << x.d_k);
    CHECK(x.d_k == y.d_k);
    for (auto f : {&attn::DotProductStats::mean, &attn::DotProductStats::variance, &attn::DotProductStats::scaled_mean,
                   &attn::DotProductStats::scaled_variance, &attn::DotProductStats::variance_tolerance,
                   &attn::DotProductStats::tied_mean, &attn::DotProductStats::tied_scaled_mean,
                   &attn::DotProductStats::tied_tolerance})
      CHECK(bits(x.*f) == bits(y.*f));
    CHECK(x.histogram == y.histogram);
    CHECK(x.scaled_histogram == y.scaled_histogram);
    CHECK((x.below == y.below && x.above == y.above && x.scaled_below == y.scaled_below &&
           x.scaled_above == y.scaled_above));
  }
  for (size_t i = 0; i < a.saturation.size(); ++i) {
    const attn::SaturationStats &x = a.saturation[i], &y = b.saturation[i];
    INFO("saturation d_k " << x.d_k);
    CHECK(x.d_k == y.d_k);
    for (auto f : {&attn::SaturationStats::max_weight, &attn::SaturationStats::entropy,
                   &attn::SaturationStats::scaled_max_weight, &attn::SaturationStats::scaled_entropy,
                   &attn::SaturationStats::gradient_norm_unscaled, &attn::SaturationStats::gradient_norm_scaled})
      CHECK(bits(x.*f) == bits(y.*f));
  }
  REQUIRE(a.checks.size() == b.checks.size());
  for (size_t i = 0; i < a.checks.size(); ++i) {
    CHECK(a.checks[i].claim == b.checks[i].claim);
    CHECK(bits(a.checks[i].measured) == bits(b.checks[i].measured));
    CHECK(a.checks[i].pass == b.checks[i].pass);
  }
}

// Runs the study in slices of `slice` units; checks the progress counts on the way.
attn::ScalingResult sliced(const attn::ScalingInput& in, long long slice) {
  attn::ScalingStudy study(in);
  long long calls = 0, last = 0;
  while (!study.done()) {
    const long long ran = study.advance(slice);
    REQUIRE(ran >= 1);
    REQUIRE(ran <= slice);
    REQUIRE(study.units_done() == last + ran);
    last = study.units_done();
    ++calls;
  }
  CHECK(study.units_done() == study.total_units());
  CHECK(calls == (study.total_units() + slice - 1) / slice);
  CHECK(study.advance(slice) == 0);  // nothing left
  return study.result();
}

}  // namespace

TEST_CASE("scaling: the study in slices gives the one-shot result bit for bit", "[lesson][scaling]") {
  attn::ScalingInput in;  // several d_k, one past 256 (the saturation check), small N
  in.d_ks = {1, 3, 64, 300};
  in.samples = 300;
  in.rows = 20;
  in.seed = 5;
  const attn::ScalingResult one_shot = attn::scaling_study(in);
  const long long total = static_cast<long long>(in.d_ks.size()) * (2 * in.samples + in.rows);
  CHECK(attn::ScalingStudy(in).total_units() == total);
  for (long long slice : {1LL, 2LL, 7LL, 299LL, 300LL, 301LL, 1000LL, total, total + 5}) {
    INFO("slice " << slice);
    require_same_bits(sliced(in, slice), one_shot);
  }
  // The page's study: d_k = 1..512, N = 2000, seed 17, one unit at a time and in frames' slices.
  const attn::ScalingInput page;
  const attn::ScalingResult page_once = attn::scaling_study(page);
  require_same_bits(sliced(page, 1), page_once);
  require_same_bits(sliced(page, 4099), page_once);
}

TEST_CASE("scaling: a study refuses what scaling_study refuses - and has no result before the end",
          "[lesson][scaling][errors]") {
  attn::ScalingInput bad;
  bad.samples = 1;
  CHECK_ATTN_ERROR(attn::ScalingStudy{bad}, attn::ErrorCode::invalid_field);
  bad = attn::ScalingInput{};
  bad.d_ks = {};
  CHECK_ATTN_ERROR(attn::ScalingStudy{bad}, attn::ErrorCode::empty_sequence);
  attn::ScalingInput in;
  in.d_ks = {2};
  in.samples = 10;
  in.rows = 3;
  attn::ScalingStudy study(in);
  CHECK(study.total_units() == 23);
  CHECK(study.advance(0) == 1);  // at least one unit per call
  CHECK_ATTN_ERROR(study.result(), attn::ErrorCode::invalid_field);
  study.advance(100);
  CHECK(study.done());
  CHECK(study.result().dot.size() == 1);
}

TEST_CASE("scaling: the raw and scaled histograms share one axis - widths compare by eye", "[lesson][scaling]") {
  for (int d_k : {1, 64, 512}) {
    const attn::ScalingHistograms h = attn::scaling_histograms(d_k, 17, 2000, 100, 81);
    REQUIRE(h.study.dot.size() == 1);
    const attn::DotProductStats& d = h.study.dot[0];
    INFO("d_k " << d_k << ": " << h.caption);
    // One x range, ±4√d_k, and the same 81 bins for both.
    const double range = 4.0 * std::sqrt(static_cast<double>(d_k));
    CHECK(h.lo == -range);
    CHECK(h.hi == range);
    REQUIRE(d.histogram.size() == 81);
    REQUIRE(d.scaled_histogram.size() == 81);
    // One y range: the taller of the two peaks, found here independently.
    int peak = 0;
    for (size_t b = 0; b < 81; ++b) peak = std::max({peak, d.histogram[b], d.scaled_histogram[b]});
    CHECK(h.y_max == peak);
    // Every sample is counted once in each histogram (inside, below or above).
    int n = d.below + d.above, ns = d.scaled_below + d.scaled_above;
    for (size_t b = 0; b < 81; ++b) n += d.histogram[b], ns += d.scaled_histogram[b];
    CHECK(n == 2000);
    CHECK(ns == 2000);
    // q·k/√d_k is q·k divided by √d_k, so the measured widths differ by exactly √d_k (up to rounding).
    CHECK(std::fabs(h.narrowing - std::sqrt(static_cast<double>(d_k))) <= 1e-9 * std::sqrt(static_cast<double>(d_k)));
    CHECK(std::fabs(h.sd - std::sqrt(d.variance)) == 0.0);
    CHECK(h.caption.find("from " + std::string(d_k == 64 ? "-32 to 32" : d_k == 1 ? "-4 to 4" : "-90.5 to 90.5")) !=
          std::string::npos);
    CHECK(h.caption.find("counts from 0 to " + std::to_string(peak)) != std::string::npos);
    if (d_k == 1) {
      CHECK(d.histogram == d.scaled_histogram);  // dividing by √1 moves no sample
      CHECK(h.caption.find("coincide") != std::string::npos);
    } else {
      // The scaled scores sit in the middle of the shared axis: none beyond ±6 (a 6-sigma event).
      const double width = 2.0 * range / 81.0;
      for (size_t b = 0; b < 81; ++b) {
        const double centre = -range + (static_cast<double>(b) + 0.5) * width;
        if (std::fabs(centre) > 6.0 + width) CHECK(d.scaled_histogram[b] == 0);
      }
      CHECK(h.y_max == *std::max_element(d.scaled_histogram.begin(), d.scaled_histogram.end()));
      CHECK(h.caption.find("× narrower (√d_k = " + std::string(d_k == 64 ? "8" : "22.6") + ")") != std::string::npos);
    }
  }
  CHECK_ATTN_ERROR(attn::scaling_histograms(0), attn::ErrorCode::invalid_field);
}
