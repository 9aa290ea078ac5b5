// lessons/temperature.hpp — from soft attention to hard selection.
//
//   soft:  weights = softmax over allowed keys of (scale · q·k) / τ, τ > 0 (τ = 1: ordinary attention;
//          τ → 0 approaches argmax, τ → ∞ approaches uniform over allowed keys)
//   hard:  the τ → 0 limit taken exactly: weight 1/m on each of the m allowed keys whose score equals
//          the row maximum (ties split evenly), 0 elsewhere.
// Either way each valid row's output Σ_j w_j v_j is a convex combination of the values, so it lies
// in their convex hull (the lesson: "for each valid row before dropout, the output is a convex
// combination of projected values"). For d_v = 2 the hull is computed (Andrew's monotone chain)
// and each output's distance outside it measured; for other d_v the per-coordinate range is used.
// Gradient, measured rather than written down: in soft mode ∂w/∂s comes from the softmax backward
// of learn::attention_backward (it equals (diag(w) − w wᵀ)/τ, the softmax Jacobian; what its norm does
// as τ moves is measured by temperature_gradient_trend); in hard mode a
// central finite-difference probe perturbs each allowed score and finds the selection unchanged,
// so its gradient is 0 almost everywhere (and does not exist at ties): no useful learning signal —
// the reason the lesson uses soft attention.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "lessons/check.hpp"

namespace attn {

struct TemperatureResult {
  double temperature = 1.0;        ///< τ used (ignored by hard mode)
  bool hard = false;
  AttentionResult attention;       ///< weights at τ (or hard), output, scores (scale·q·k, before /τ)
  std::vector<double> max_weight;  ///< Tq: largest weight of each row
  std::vector<double> entropy;     ///< Tq: −Σ w ln w, nats
  double uniform_entropy = 0.0;    ///< ln Tk, nats: a uniform row over every key, the most any row can have
  /// Tq: Frobenius norm of ∂weights/∂scores (scores = scale·q·k, before /τ). Soft: by the backward
  /// pass; hard: by the finite-difference probe, NaN (JSON null) where !gradient_probed.
  std::vector<double> gradient_norm;
  /// Tq: the row's whole Jacobian was measured. False only in hard mode at a tie (the top score
  /// shared by 2+ keys: the selection jumps, ∂w/∂s does not exist) or when the top two scores are
  /// closer than the probe can resolve (8 steps of 4 ulps).
  std::vector<bool> gradient_probed;
  /// Hard mode: largest |Δw_l / Δs_j| over every probed (row, key j, weight l) — the measured value
  /// of the "no useful gradient" check; probed_partials counts them (keys of a tied top score and
  /// masked keys are not probed). 0 and 0 in soft mode.
  double probe_max = 0.0;
  int probed_partials = 0;
  Matrix hull;                     ///< d_v = 2: hull vertices of the value rows, counter-clockwise (H×2);
                                   ///< 0×2 otherwise
  std::vector<double> hull_excess; ///< Tq: how far each output lies outside the hull (0 inside; empty rows 0)
  std::string gradient_note;       ///< how the gradient was measured and what it shows
  std::vector<Check> checks;
};

/// Central finite-difference step of the hard-mode probe, relative to the row's score gap (top
/// score minus the next distinct one), floored at 4 ulps of the row's largest |score|.
inline constexpr double kArgmaxProbeStep = 1e-6;

/// Attention with temperature or hard selection. q: Tq×d_k, k: Tk×d_k, v: Tk×d_v; scale default
/// 1/sqrt(d_k). Errors: invalid_field (τ not finite or <= 0 in soft mode; use hard mode for
/// τ → 0), and every error of attention() (no_allowed_key unless empty_rows = zero, ...).
TemperatureResult temperature_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const MaskSpec& mask, double temperature, bool hard,
                                        const AttentionOptions& options = {});

/// Frobenius norm of the softmax Jacobian of one row, ‖∂w/∂s‖_F with w = softmax over the allowed
/// keys of scale·s. s: n scores (read only where allowed), allowed: n flags (1 = allowed; nullptr =
/// all), n >= 1; weights (n, or nullptr) receives w. Measured by the backward pass, not a formula:
/// learn::attention_forward with one query q = (1), keys k_j = (s_j), d_k = 1 and the given scale
/// (so the score is scale·s_j), then for each l one learn::attention_backward with the one-hot
/// value column v = e_l (d_v = 1) and upstream 1: dk_j = ∂w_l/∂s_j, row l of the Jacobian (the
/// softmax backward w_j(δ_jl − w_l)·scale, so the Jacobian is scale·(diag(w) − w wᵀ)). A masked
/// key, an underflowed weight and an empty row contribute 0. Cost O(n²).
double softmax_jacobian_norm(const double* s, const unsigned char* allowed, int n, double scale,
                             double* weights = nullptr);

/// What ‖∂w/∂s‖ does between a reference temperature and the current one, worded from the two
/// measured sets of row norms (TemperatureResult::gradient_norm). The Jacobian is
/// (diag(w) − w wᵀ)/τ, so each row's norm times τ is the bracket's norm: of the change in the mean
/// norm, the 1/τ factor accounts for τ_ref/τ and the bracket (how saturated the rows are) for the rest.
struct TemperatureGradientTrend {
  double temperature = 1.0, reference_temperature = 1.0;
  double mean_norm = 0.0;            ///< mean over the rows of ‖∂w/∂s‖_F at τ
  double reference_mean_norm = 0.0;  ///< the same at τ_ref
  double max_norm = 0.0;             ///< largest row norm at τ: the full scale of the page's bars
  double ratio = 1.0;                ///< mean_norm / reference_mean_norm
  double factor_ratio = 1.0;         ///< τ_ref / τ: the change of the 1/τ factor alone
  double bracket_ratio = 1.0;        ///< ratio / factor_ratio: the change of the mean ‖diag(w) − w wᵀ‖_F
  std::string caption;               ///< the page's sentence, worded from the figures above
};

/// Compares the soft-mode row norms at τ with those at τ_ref (the same rows, equal counts).
/// Errors: invalid_field (a temperature not finite or <= 0, no rows, unequal counts, a norm not
/// finite or < 0, a zero reference mean).
TemperatureGradientTrend temperature_gradient_trend(double temperature, const std::vector<double>& norms,
                                                    double reference_temperature,
                                                    const std::vector<double>& reference_norms);

/// Convex hull of 2-D points (rows of an n×2 matrix), counter-clockwise, no collinear vertices;
/// 1 or 2 rows for degenerate sets. Errors: shape_mismatch (cols != 2), empty_sequence, non_finite.
Matrix convex_hull_2d(const Matrix& points);

/// Distance by which point p (2) lies outside the hull (from convex_hull_2d): 0 inside or on it.
double hull_distance_2d(const Matrix& hull, double px, double py);

}  // namespace attn
