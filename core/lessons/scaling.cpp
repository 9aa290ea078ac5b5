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

void require_in(const char* name, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi))
    throw Error(ErrorCode::invalid_field, std::string(name) + " must be between " + std::to_string(lo) +
                                              " and " + std::to_string(hi) + ", got " + std::to_string(v));
}

// Index of the bin for x in [−range, range) split into `bins`; −1 below, bins above.
int bin_of(double x, double range, int bins) {
  if (x < -range) return -1;
  if (x >= range) return bins;
  const int b = static_cast<int>(std::floor((x + range) / (2.0 * range) * bins));
  return std::min(std::max(b, 0), bins - 1);
}

void count(double x, double range, int bins, std::vector<int>& hist, int& below, int& above) {
  const int b = bin_of(x, range, bins);
  if (b < 0) ++below;
  else if (b >= bins) ++above;
  else ++hist[static_cast<size_t>(b)];
}

struct Moments {
  double mean, variance;
};
Moments moments(const std::vector<double>& xs) {
  double s = 0.0;
  for (double x : xs) s += x;
  const double mean = s / static_cast<double>(xs.size());
  double ss = 0.0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return {mean, ss / static_cast<double>(xs.size() - 1)};
}

// Softmax of one row (max subtracted) → largest weight and entropy in nats.
void softmax_stats(const std::vector<double>& s, double& max_w, double& entropy) {
  double m = s[0];
  for (double x : s) m = std::max(m, x);
  std::vector<double> e(s.size());
  double z = 0.0;
  for (size_t j = 0; j < s.size(); ++j) z += (e[j] = det::exp(s[j] - m));
  max_w = 0.0;
  entropy = 0.0;
  for (double x : e) {
    const double w = x / z;
    max_w = std::max(max_w, w);
    if (w > 0.0) entropy -= w * det::log(w);
  }
}

}  // namespace

ScalingStudy::ScalingStudy(const ScalingInput& in) : in_(in), rng_(in.seed) {
  if (in.d_ks.empty()) throw Error(ErrorCode::empty_sequence, "d_ks is empty: give at least one d_k");
  if (in.d_ks.size() > 16) throw Error(ErrorCode::invalid_field, "at most 16 values of d_k");
  for (int d : in.d_ks) require_in("d_k", d, 1, 4096);
  require_in("samples", in.samples, 2, 100000);
  require_in("bins", in.bins, 1, 1000);
  if (!std::isfinite(in.range) || !(in.range > 0))
    throw Error(ErrorCode::invalid_field, "range must be a finite number > 0");
  require_in("keys", in.keys, 2, 512);
  require_in("rows", in.rows, 1, 10000);
  double sum_d = 0.0;
  for (int d : in.d_ks) sum_d += d;
  const double jacobian_work = static_cast<double>(in.rows) * in.keys * in.keys * static_cast<double>(in.d_ks.size());
  if (in.samples * sum_d > kMaxScalingWork || static_cast<double>(in.rows) * in.keys * sum_d > kMaxScalingWork ||
      jacobian_work > kMaxScalingWork)
    throw Error(ErrorCode::too_large, "samples x sum(d_k), rows x keys x sum(d_k) and rows x keys^2 x (number of "
                                      "d_k) must each stay <= " +
                                          std::to_string(static_cast<long long>(kMaxScalingWork)) +
                                          " (a few tenths of a second); lower samples, rows, keys or d_k");
  total_units_ = static_cast<long long>(in.d_ks.size()) * (2LL * in.samples + in.rows);
  r_.input = in;
  for (int b = 0; b <= in.bins; ++b) r_.bin_edges.push_back(-in.range + 2.0 * in.range * b / in.bins);
  r_.uniform_entropy = det::log(static_cast<double>(in.keys));
  const std::vector<double> equal(static_cast<size_t>(in.keys), 0.0);
  r_.uniform_gradient_norm = softmax_jacobian_norm(equal.data(), nullptr, in.keys, 1.0);
  begin_d_k();
}

void ScalingStudy::begin_d_k() {
  const int d = in_.d_ks[d_index_];
  dot_ = DotProductStats{};
  dot_.d_k = d;
  dot_.histogram.assign(static_cast<size_t>(in_.bins), 0);
  dot_.scaled_histogram.assign(static_cast<size_t>(in_.bins), 0);
  dots_.assign(static_cast<size_t>(in_.samples), 0.0);
  scaled_.assign(dots_.size(), 0.0);
  q_.assign(static_cast<size_t>(d), 0.0);
  k_.assign(q_.size(), 0.0);
  phase_ = 0;
  t_ = 0;
}

long long ScalingStudy::advance(long long max_units) {
  long long n = 0;
  const long long limit = std::max(1LL, max_units);
  while (!done_ && n < limit) {
    step();
    ++n;
  }
  units_done_ += n;
  return n;
}

// One unit; a phase's closing arithmetic runs with its last unit, in scaling_study's order.
void ScalingStudy::step() {
  const int d = in_.d_ks[d_index_];
  const double root = std::sqrt(static_cast<double>(d));
  const double n = in_.samples;
  if (phase_ == 0) {
    // 1. N independent pairs (q, k), components N(0, 1).
    for (double& x : q_) x = rng_.normal();
    for (double& x : k_) x = rng_.normal();
    double dot = 0.0;
    for (int i = 0; i < d; ++i) dot += q_[static_cast<size_t>(i)] * k_[static_cast<size_t>(i)];
    dots_[static_cast<size_t>(t_)] = dot;
    scaled_[static_cast<size_t>(t_)] = dot / root;
    count(dot, in_.range, in_.bins, dot_.histogram, dot_.below, dot_.above);
    count(dot / root, in_.range, in_.bins, dot_.scaled_histogram, dot_.scaled_below, dot_.scaled_above);
    if (++t_ < in_.samples) return;
    const Moments m = moments(dots_), ms = moments(scaled_);
    dot_.mean = m.mean;
    dot_.variance = m.variance;
    dot_.scaled_mean = ms.mean;
    dot_.scaled_variance = ms.variance;
    dot_.variance_tolerance = 5.0 * std::sqrt((2.0 + 6.0 / d) / n);
    tied_ = 0.0;
    phase_ = 1;
    t_ = 0;
    return;
  }
  if (phase_ == 1) {
    // 2. Tied Q = K: the self-score q·q.
    double qq = 0.0;
    for (double& x : q_) {
      x = rng_.normal();
      qq += x * x;
    }
    tied_ += qq;
    if (++t_ < in_.samples) return;
    dot_.tied_mean = tied_ / n;
    dot_.tied_scaled_mean = dot_.tied_mean / root;
    dot_.tied_tolerance = 5.0 * std::sqrt(2.0 / (d * n));
    worst_var_ = std::max(worst_var_, std::fabs(dot_.variance / d - 1.0) / dot_.variance_tolerance);
    worst_scaled_ = std::max(worst_scaled_, std::fabs(dot_.scaled_variance - 1.0) / dot_.variance_tolerance);
    worst_tied_ = std::max(worst_tied_, std::fabs(dot_.tied_mean / d - 1.0) / dot_.tied_tolerance);
    r_.dot.push_back(std::move(dot_));
    sat_ = SaturationStats{};
    sat_.d_k = d;
    row_.assign(static_cast<size_t>(in_.keys), 0.0);
    row_scaled_.assign(row_.size(), 0.0);
    key_.assign(q_.size(), 0.0);
    phase_ = 2;
    t_ = 0;
    return;
  }
  // 3. Saturation: `rows` softmax rows of one query against `keys` keys.
  for (double& x : q_) x = rng_.normal();
  for (int j = 0; j < in_.keys; ++j) {
    double dot = 0.0;
    for (int i = 0; i < d; ++i) dot += q_[static_cast<size_t>(i)] * (key_[static_cast<size_t>(i)] = rng_.normal());
    row_[static_cast<size_t>(j)] = dot;
    row_scaled_[static_cast<size_t>(j)] = dot / root;
  }
  double mw, h;
  softmax_stats(row_, mw, h);
  sat_.max_weight += mw / in_.rows;
  sat_.entropy += h / in_.rows;
  softmax_stats(row_scaled_, mw, h);
  sat_.scaled_max_weight += mw / in_.rows;
  sat_.scaled_entropy += h / in_.rows;
  // The softmax Jacobian at its input, by the backward pass (scale 1: the logits are given).
  sat_.gradient_norm_unscaled += softmax_jacobian_norm(row_.data(), nullptr, in_.keys, 1.0) / in_.rows;
  sat_.gradient_norm_scaled += softmax_jacobian_norm(row_scaled_.data(), nullptr, in_.keys, 1.0) / in_.rows;
  if (++t_ < in_.rows) return;
  r_.saturation.push_back(sat_);
  if (++d_index_ < in_.d_ks.size()) {
    begin_d_k();
    return;
  }
  finish();
}

void ScalingStudy::finish() {
  ScalingResult& r = r_;
  r.checks.push_back(check_at_most("var(q.k) = d_k: worst |var/d_k - 1| in units of 5 standard errors",
                                   worst_var_, 1.0));
  r.checks.push_back(check_at_most("var(q.k/sqrt(d_k)) = 1: worst |var - 1| in units of 5 standard errors",
                                   worst_scaled_, 1.0));
  r.checks.push_back(check_at_most("tied Q = K: mean self-score q.q = d_k: worst |mean/d_k - 1| in units of "
                                   "5 standard errors",
                                   worst_tied_, 1.0));
  const SaturationStats& last = r.saturation.back();
  if (last.d_k >= 256)
    r.checks.push_back(check_above("unscaled softmax saturates: mean largest weight at d_k = " +
                                       std::to_string(last.d_k),
                                   last.max_weight, 0.9));
  double drift = 0.0;
  for (const SaturationStats& s : r.saturation)
    drift = std::max(drift, std::fabs(s.scaled_max_weight - r.saturation.front().scaled_max_weight));
  r.checks.push_back(check_at_most("scaled softmax does not saturate with d_k: max drift of the mean largest weight",
                                   drift, 0.15));
  // The buffers of the last d_k are not needed any more.
  dots_ = {};
  scaled_ = {};
  done_ = true;
}

const ScalingResult& ScalingStudy::result() const {
  if (!done_) throw Error(ErrorCode::invalid_field, "the scaling study is not complete");
  return r_;
}

ScalingResult scaling_study(const ScalingInput& in) {
  ScalingStudy study(in);
  study.advance(study.total_units());
  return study.result();
}

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
