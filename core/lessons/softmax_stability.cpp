// The row-max subtraction experiment (Scaling panel): run once per edit of the logits, so in wasm
// it is compiled for size with the other lessons (core/CMakeLists.txt); the sampling study keeps -O3.
#include "lessons/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/random.hpp"
#include "lessons/temperature.hpp"

namespace attn {
namespace {
std::string g(double x, int digits) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*g", digits, x);
  return b;
}

// Softmax of one row, naively (exp of the raw logits) or with the row max subtracted first.
std::vector<double> softmax_row(const std::vector<double>& ls, bool subtract_max) {
  const double m = subtract_max ? *std::max_element(ls.begin(), ls.end()) : 0.0;
  std::vector<double> w;
  double s = 0.0;
  for (double l : ls) {
    w.push_back(det::exp(l - m));
    s += w.back();
  }
  for (double& x : w) x /= s;
  return w;
}
}  // namespace

RowMaxOnSaturatedRows row_max_on_saturated_rows(int d_k, int keys, int rows, std::uint64_t seed) {
  if (d_k < 1 || d_k > 4096) throw Error(ErrorCode::invalid_field, "d_k must be 1..4096, got " + std::to_string(d_k));
  if (keys < 2 || keys > 512) throw Error(ErrorCode::invalid_field, "keys must be 2..512, got " + std::to_string(keys));
  if (rows < 1 || rows > 10000) throw Error(ErrorCode::invalid_field, "rows must be 1..10000, got " + std::to_string(rows));
  if (static_cast<double>(rows) * keys * d_k > kMaxScalingWork)
    throw Error(ErrorCode::too_large, "rows x keys x d_k is over " + std::to_string(static_cast<long long>(kMaxScalingWork)));
  RowMaxOnSaturatedRows r;
  r.d_k = d_k;
  r.keys = keys;
  r.rows = rows;
  r.seed = seed;
  Rng rng(seed);
  std::vector<double> q(static_cast<size_t>(d_k)), logits(static_cast<size_t>(keys));
  double naive_sum = 0.0, stable_sum = 0.0;
  for (int row = 0; row < rows; ++row) {
    for (double& x : q) x = rng.normal();
    for (double& l : logits) {
      l = 0.0;
      for (double x : q) l += x * rng.normal();
      r.largest_abs_logit = std::max(r.largest_abs_logit, std::fabs(l));
    }
    const std::vector<double> naive = softmax_row(logits, false), stable = softmax_row(logits, true);
    double mn = 0.0, ms = 0.0;
    for (size_t j = 0; j < naive.size(); ++j) {
      // NaN (an overflow) must count as the worst difference, not vanish in std::max.
      const double d = std::fabs(naive[j] - stable[j]);
      r.max_abs_difference = std::isnan(d) ? d : std::max(r.max_abs_difference, d);
      mn = std::max(mn, naive[j]);
      ms = std::max(ms, stable[j]);
    }
    naive_sum += mn;
    stable_sum += ms;
  }
  r.mean_max_weight_naive = naive_sum / rows;
  r.mean_max_weight_stable = stable_sum / rows;
  return r;
}

SoftmaxStability softmax_stability(const std::vector<double>& logits) {
  if (logits.empty()) throw Error(ErrorCode::empty_sequence, "logits is empty: give at least one number");
  if (static_cast<Index>(logits.size()) > kMaxTokens)
    throw Error(ErrorCode::too_large, "at most " + std::to_string(kMaxTokens) + " logits");
  for (size_t j = 0; j < logits.size(); ++j)
    if (!std::isfinite(logits[j]))
      throw Error(ErrorCode::non_finite, "logits[" + std::to_string(j) + "] is not a finite number");
  SoftmaxStability r;
  r.logits = logits;
  r.row_max = *std::max_element(logits.begin(), logits.end());
  // 1. Naive: exp of the raw logits (overflows to inf past ~709.78), then normalise.
  double z = 0.0;
  for (double l : logits) {
    r.naive_exp.push_back(det::exp(l));
    z += r.naive_exp.back();
  }
  for (double e : r.naive_exp) {
    r.naive_weights.push_back(e / z);
    if (!std::isfinite(e)) r.naive_overflowed = true;
  }
  // 2. Stable: subtract the row max first (every exponent <= 0, the largest term is 1).
  r.stable_weights = softmax_row(logits, true);
  double sum = 0.0;
  bool finite = true;
  for (size_t j = 0; j < logits.size(); ++j) {
    const double w = r.stable_weights[j];
    finite = finite && std::isfinite(w);
    sum += w;
    r.max_weight = std::max(r.max_weight, w);
    if (w > 0.0) r.entropy -= w * det::log(w);
    const double d = std::fabs(r.naive_weights[j] - w);
    r.naive_stable_difference = std::isnan(d) ? d : std::max(r.naive_stable_difference, d);
  }
  // Independent of `logits` and deterministic: measured once, not on every edit of the logits.
  static const RowMaxOnSaturatedRows saturated = row_max_on_saturated_rows();
  r.saturated = saturated;
  const RowMaxOnSaturatedRows& sr = r.saturated;
  r.checks.push_back(check_at_most("row-max subtraction: weights are finite and sum to 1: |sum - 1|",
                                   finite ? std::fabs(sum - 1.0) : INFINITY, 1e-12));
  r.checks.push_back(check_at_most("on logits that do not overflow (" + std::to_string(sr.rows) + " unscaled rows, d_k " +
                                       std::to_string(sr.d_k) + "), naive and stable softmax agree to rounding: "
                                       "max |naive - stable|",
                                   sr.max_abs_difference, 1e-12));
  r.checks.push_back(check_above("the subtraction does not undo saturation: mean largest weight with it on those rows",
                                 sr.mean_max_weight_stable, 0.9));
  r.caption = (r.naive_overflowed ? std::string("exp() of these logits overflows a double, and inf/inf is NaN. ")
                                  : "These logits do not overflow exp(): naive and stable weights differ by " +
                                        g(r.naive_stable_difference, 3) + ". ") +
              "Subtracting the row max gives finite weights (largest " + g(r.max_weight, 4) + ", entropy " +
              g(r.entropy, 4) + " nats). On " + std::to_string(sr.rows) + " unscaled rows of " +
              std::to_string(sr.keys) + " keys at d_k " + std::to_string(sr.d_k) + " (largest |logit| " +
              g(sr.largest_abs_logit, 3) + ", no overflow) the two differ by at most " + g(sr.max_abs_difference, 3) +
              ", and the mean largest weight is " + g(sr.mean_max_weight_naive, 4) + " without the subtraction, " +
              g(sr.mean_max_weight_stable, 4) + " with it: the subtraction " +
              (sr.max_abs_difference <= 1e-12 ? "fixes overflow, not saturation." : "changed the weights here.");
  return r;
}

}  // namespace attn
