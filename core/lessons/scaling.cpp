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

ScalingHistograms scaling_histograms(int d_k, std::uint64_t seed, int samples, int rows, int bins) {
  require_in("d_k", d_k, 1, 4096);
  ScalingInput in;
  in.d_ks = {d_k};
  in.seed = seed;
  in.samples = samples;
  in.rows = rows;
  in.bins = bins;
  in.range = 4.0 * std::sqrt(static_cast<double>(d_k));  // the raw scores' ±4 sd: the scaled ones fit inside
  ScalingHistograms h;
  h.study = scaling_study(in);
  const DotProductStats& d = h.study.dot[0];
  h.lo = -in.range;
  h.hi = in.range;
  for (int c : d.histogram) h.y_max = std::max(h.y_max, c);
  for (int c : d.scaled_histogram) h.y_max = std::max(h.y_max, c);
  h.sd = std::sqrt(d.variance);
  h.scaled_sd = std::sqrt(d.scaled_variance);
  h.narrowing = h.scaled_sd > 0 ? h.sd / h.scaled_sd : 0.0;
  auto g = [](double x, int digits) {
    char b[48];
    std::snprintf(b, sizeof b, "%.*g", digits, x);
    return std::string(b);
  };
  h.caption = "Both histograms share one axis: scores from " + g(h.lo, 3) + " to " + g(h.hi, 3) + ", counts from 0 to " +
              std::to_string(h.y_max) + ", in the same " + std::to_string(bins) +
              " bins, so their widths compare by eye. Measured standard deviation at d_k = " + std::to_string(d_k) +
              ": " + g(h.sd, 3) + " without the scale, " + g(h.scaled_sd, 3) + " with it" +
              (d_k == 1 ? std::string(": dividing by √1 changes nothing, so the two coincide.")
                        : ", " + g(h.narrowing, 3) + "× narrower (√d_k = " + g(std::sqrt(static_cast<double>(d_k)), 3) +
                              ").");
  return h;
}

}  // namespace attn
