// lessons/scaling.hpp — why scores are divided by sqrt(d_k).
//
// Vaswani et al. 2017, §3.2.1 footnote 4: if the components of q and k are independent with mean 0
// and variance 1, q·k = Σ_{i<d_k} q_i k_i has mean 0 and variance d_k; dividing by sqrt(d_k)
// restores variance 1. Here the claim is sampled (seeded attn::Rng, N(0,1) components):
//   variance     var(q·k) ≈ d_k and var(q·k/√d_k) ≈ 1, with histograms, for each d_k;
//   tied Q = K   the assumption fails: the self-score q·q = ‖q‖² has mean d_k (chi-square), not 0;
//   saturation   softmax over `keys` random keys: mean largest weight and mean entropy (nats)
//                against d_k, with and without the scale, and the mean Frobenius norm of the
//                softmax Jacobian ∂w/∂logits measured by the backward pass (a saturated row
//                passes back little gradient);
//   stability    softmax_stability(): exp(1000) overflows, subtracting the row max does not; on
//                unscaled d_k = 512 rows that do not overflow, naive and stable softmax agree to
//                rounding and the largest weight stays near 1 with and without the subtraction.
// Sampling tolerances are statistical and derived in the docs of ScalingResult::checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/random.hpp"
#include "lessons/check.hpp"

namespace attn {

struct ScalingInput {
  std::vector<int> d_ks = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};  ///< each 1..4096, at most 16 values
  int samples = 2000;       ///< N (q, k) pairs per d_k, 2..100000
  std::uint64_t seed = 17;
  int bins = 32;            ///< histogram bins over [−range, range], 1..1000
  double range = 8.0;       ///< histogram half-width in score units, finite > 0
  int keys = 8;             ///< keys per softmax row in the saturation study, 2..512
  int rows = 200;           ///< softmax rows per d_k in the saturation study, 1..10000
};

struct DotProductStats {
  int d_k = 0;
  double mean = 0, variance = 0;                ///< of q·k (sample mean, unbiased sample variance)
  double scaled_mean = 0, scaled_variance = 0;  ///< of q·k/√d_k
  double variance_tolerance = 0;  ///< relative: 5·sqrt((2 + 6/d_k)/N), 5 standard errors of var/d_k
  std::vector<int> histogram;         ///< bins counts of q·k in [−range, range]
  std::vector<int> scaled_histogram;  ///< same for q·k/√d_k
  int below = 0, above = 0;           ///< q·k outside the histogram range
  int scaled_below = 0, scaled_above = 0;
  double tied_mean = 0;           ///< mean self-score q·q (Q = K): ≈ d_k
  double tied_scaled_mean = 0;    ///< mean q·q/√d_k: ≈ √d_k, grows even with the scale
  double tied_tolerance = 0;      ///< relative: 5·sqrt(2/(d_k·N)), 5 standard errors of mean/d_k
};

struct SaturationStats {
  int d_k = 0;
  double max_weight = 0, entropy = 0;                ///< unscaled scores: means over rows
  double scaled_max_weight = 0, scaled_entropy = 0;  ///< scores/√d_k
  /// Mean over the rows of ‖∂w/∂l‖_F, the softmax Jacobian at its input l (keys×keys), by
  /// softmax_jacobian_norm (learn::attention_backward): l = q·k unscaled, l = q·k/√d_k scaled.
  /// It equals ‖diag(w) − w wᵀ‖_F: √(keys − 1)/keys for a uniform row, 0 for a one-hot row.
  double gradient_norm_unscaled = 0, gradient_norm_scaled = 0;
};

struct ScalingResult {
  ScalingInput input;
  std::vector<double> bin_edges;           ///< bins+1 edges from −range to range
  std::vector<DotProductStats> dot;        ///< one per d_k, in input order
  std::vector<SaturationStats> saturation; ///< one per d_k
  double uniform_entropy = 0;              ///< ln(keys): the entropy of a uniform row
  double uniform_gradient_norm = 0;        ///< softmax_jacobian_norm of equal logits: √(keys − 1)/keys
  /// Checks, each the worst over d_k of |estimate − target| / tolerance (<= 1 passes):
  /// var(q·k)/d_k and var(q·k/√d_k) vs 1 with tolerance 5·sqrt((2 + 6/d)/N) — for S = Σ q_i k_i,
  /// E S⁴ = 3d² + 6d (the fourth cumulant of q_i k_i is 6), so var(sample variance) ≈ (2d² + 6d)/N;
  /// mean(q·q)/d_k vs 1 with tolerance 5·sqrt(2/(dN)) — q·q is chi-square with variance 2d.
  /// Saturation: unscaled largest weight at the largest d_k > 0.9 when that d_k >= 256, and the
  /// scaled curve stays within 0.15 of its first value.
  std::vector<Check> checks;
};

/// Work limit of scaling_study: samples·Σd_k, rows·keys·Σd_k and rows·keys²·(number of d_k) (the
/// Jacobians: keys backward passes of O(keys) per row, scaled and unscaled) each at most this.
inline constexpr double kMaxScalingWork = 1e7;

/// Samples in this order from one Rng(seed): for each d_k, N pairs (q then k), then N tied q,
/// then `rows` rows (q then `keys` keys). Errors: invalid_field (a value out of its range above,
/// naming it), empty_sequence (no d_k), too_large (past kMaxScalingWork).
/// The same as ScalingStudy(in) advanced to the end in one call.
ScalingResult scaling_study(const ScalingInput& in);

/// scaling_study in slices, for a caller with a time budget per frame. A unit is one draw of the
/// study: a (q, k) pair, a tied q, or a saturation row of one q and `keys` keys — at most
/// (keys + 1)·d_k normal draws. total_units() = (number of d_k)·(2·samples + rows). However the
/// units are sliced (advance(1) repeatedly, or all at once), the result is bit-identical to
/// scaling_study(in): one Rng(seed), drawn and summed in the same order.
class ScalingStudy {
 public:
  /// Checks `in` as scaling_study does (same errors); nothing is drawn yet.
  explicit ScalingStudy(const ScalingInput& in);

  /// Runs at most `max_units` (>= 1; less is taken as 1) more units; returns how many ran
  /// (0 once done).
  long long advance(long long max_units);
  bool done() const { return done_; }
  long long units_done() const { return units_done_; }
  long long total_units() const { return total_units_; }
  /// The input being sampled.
  const ScalingInput& input() const { return in_; }
  /// The complete result (checks included). Error(invalid_field) "the scaling study is not
  /// complete" before done().
  const ScalingResult& result() const;

 private:
  void begin_d_k();
  void step();
  void finish();

  ScalingInput in_;
  ScalingResult r_;
  Rng rng_;
  long long units_done_ = 0, total_units_ = 0;
  bool done_ = false;
  size_t d_index_ = 0;  // into in_.d_ks
  int phase_ = 0;       // 0 pairs, 1 tied, 2 saturation rows
  int t_ = 0;           // units done in this phase
  DotProductStats dot_;
  SaturationStats sat_;
  std::vector<double> dots_, scaled_, q_, k_, row_, row_scaled_, key_;
  double tied_ = 0;
  double worst_var_ = 0, worst_scaled_ = 0, worst_tied_ = 0;
};

/// The raw and the scaled scores of one d_k on one shared axis: the same bins over the same x
/// range and one count scale for both, so their spreads compare by eye (drawn each on its own
/// range, the two would look alike whatever d_k).
struct ScalingHistograms {
  /// d_ks = {d_k}: histogram (q·k) and scaled_histogram (q·k/√d_k) over the same `bins` bins.
  ScalingResult study;
  double lo = 0, hi = 0;  ///< the shared x range, ±4√d_k: four standard deviations of the raw q·k
  int y_max = 0;          ///< the shared y range: the larger of the two histograms' peak counts
  double sd = 0, scaled_sd = 0;  ///< √ of the measured variances of q·k and q·k/√d_k
  double narrowing = 0;   ///< sd / scaled_sd: how much narrower the scaled histogram is (≈ √d_k)
  std::string caption;    ///< the page's sentence under the pair, worded from the figures above
};

/// scaling_study of the one d_k with `samples` pairs, `rows` saturation rows and `bins` bins over
/// ±4√d_k, plus the shared axis and its caption. Errors: those of scaling_study (d_k 1..4096, ...).
ScalingHistograms scaling_histograms(int d_k, std::uint64_t seed = 17, int samples = 2000, int rows = 100,
                                     int bins = 81);

/// The row-max subtraction measured where it could matter: `rows` softmax rows of `keys` unscaled
/// scores q·k with d_k components (N(0,1), Rng(seed): q then the keys, row by row), logits that
/// do not overflow exp(). Each row's softmax is computed naively (exp of the raw logits) and with
/// the row max subtracted; mathematically the two are equal (softmax(l − c) = softmax(l)), so
/// they differ only by rounding, and both stay as saturated as the scores make them.
struct RowMaxOnSaturatedRows {
  int d_k = 512, keys = 8, rows = 200;
  std::uint64_t seed = 17;
  double largest_abs_logit = 0;   ///< max |q·k| drawn: far below exp()'s overflow at ~709.78
  double max_abs_difference = 0;  ///< max over rows and keys of |naive − stable| weight
  double mean_max_weight_naive = 0, mean_max_weight_stable = 0;  ///< mean over rows of the largest weight
};

struct SoftmaxStability {
  std::vector<double> logits;
  double row_max = 0;
  std::vector<double> naive_exp;       ///< det::exp(logit): +inf past ~709.78
  std::vector<double> naive_weights;   ///< naive_exp / Σ naive_exp: NaN (inf/inf) after overflow
  bool naive_overflowed = false;
  std::vector<double> stable_weights;  ///< exp(logit − max) / Σ: always finite
  /// max |naive − stable| over these logits: rounding when nothing overflows, NaN after overflow
  double naive_stable_difference = 0;
  double max_weight = 0;               ///< largest stable weight (saturation: near 1)
  double entropy = 0;                  ///< −Σ w ln w of the stable weights, nats
  RowMaxOnSaturatedRows saturated;     ///< the same two softmaxes on unscaled d_k = 512 rows
  /// The page's sentence, worded from the figures above: whether these logits overflow, and the
  /// saturated rows' difference and largest weights with and without the subtraction.
  std::string caption;
  /// finite weights summing to 1; on the saturated rows, naive = stable to 1e-12 and the mean
  /// largest weight > 0.9 with the subtraction (it removes overflow, not saturation)
  std::vector<Check> checks;
};

/// Softmax of one row with and without the row-max subtraction, and the two compared on
/// RowMaxOnSaturatedRows{} (d_k 512, 8 keys, 200 rows, seed 17). logits: 1..4096 finite numbers.
/// Errors: empty_sequence, non_finite, too_large.
SoftmaxStability softmax_stability(const std::vector<double>& logits = {1000.0, 1001.0});

/// RowMaxOnSaturatedRows measured for d_k 1..4096, keys 2..512, rows 1..10000 with
/// rows·keys·d_k at most kMaxScalingWork. Errors: invalid_field naming the value out of range,
/// too_large.
RowMaxOnSaturatedRows row_max_on_saturated_rows(int d_k = 512, int keys = 8, int rows = 200, std::uint64_t seed = 17);

}  // namespace attn
