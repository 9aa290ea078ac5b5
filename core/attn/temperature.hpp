// attn/temperature.hpp — from soft attention to hard selection (issue 4, item 6).
//
//   soft:  weights = softmax over allowed keys of (scale · q·k) / τ, τ > 0 (τ = 1: ordinary attention;
//          τ → 0 approaches argmax, τ → ∞ approaches uniform over allowed keys)
//   hard:  the τ → 0 limit taken exactly: weight 1/m on each of the m allowed keys whose score equals
//          the row maximum (ties split evenly), 0 elsewhere.
// Either way each valid row's output Σ_j w_j v_j is a convex combination of the values, so it lies
// in their convex hull (the lesson: "for each valid row before dropout, the output is a convex
// combination of projected values"). For d_v = 2 the hull is computed (Andrew's monotone chain)
// and each output's distance outside it measured; for other d_v the per-coordinate range is used.
// Gradient: ∂w/∂s = (diag(w) − w wᵀ)/τ for softmax (Jacobian of softmax); the hard selection is
// piecewise constant in the scores, so its gradient is 0 almost everywhere (and undefined at
// ties): no useful learning signal — the reason the lesson uses soft attention.
#pragma once

#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/experiments.hpp"

namespace attn {

struct TemperatureResult {
  double temperature = 1.0;        ///< τ used (ignored by hard mode)
  bool hard = false;
  AttentionResult attention;       ///< weights at τ (or hard), output, scores (scale·q·k, before /τ)
  std::vector<double> max_weight;  ///< Tq: largest weight of each row
  std::vector<double> entropy;     ///< Tq: −Σ w ln w, nats
  std::vector<double> gradient_norm;  ///< Tq: Frobenius norm of ∂weights/∂scores; 0 in hard mode
  Matrix hull;                     ///< d_v = 2: hull vertices of the value rows, counter-clockwise (H×2);
                                   ///< 0×2 otherwise
  std::vector<double> hull_excess; ///< Tq: how far each output lies outside the hull (0 inside; empty rows 0)
  std::string gradient_note;       ///< why argmax gives no useful gradient
  std::vector<Check> checks;
};

/// Attention with temperature or hard selection. q: Tq×d_k, k: Tk×d_k, v: Tk×d_v; scale default
/// 1/sqrt(d_k). Errors: invalid_field (τ not finite or <= 0 in soft mode; use hard mode for
/// τ → 0), and every error of attention() (no_allowed_key unless empty_rows = zero, ...).
TemperatureResult temperature_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const MaskSpec& mask, double temperature, bool hard,
                                        const AttentionOptions& options = {});

/// Convex hull of 2-D points (rows of an n×2 matrix), counter-clockwise, no collinear vertices;
/// 1 or 2 rows for degenerate sets. Errors: shape_mismatch (cols != 2), empty_sequence, non_finite.
Matrix convex_hull_2d(const Matrix& points);

/// Distance by which point p (2) lies outside the hull (from convex_hull_2d): 0 inside or on it.
double hull_distance_2d(const Matrix& hull, double px, double py);

}  // namespace attn
