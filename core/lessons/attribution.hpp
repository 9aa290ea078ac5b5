// lessons/attribution.hpp — attention weight vs value contribution, with interventions.
//
// For one query row with weights a (Tk, a distribution) over values V (Tk×d_v):
//   output          o = Σ_j a_j v_j                                   (Vaswani et al. 2017, eq. 1)
//   contribution    c_j = a_j v_j,  shown as ‖c_j‖₂ next to a_j
//   zero value j    o' = o − a_j v_j              → change ‖o − o'‖₂ (= ‖c_j‖₂)
//   remove key j    o' = Σ_{i≠j} a_i v_i / Σ_{i≠j} a_i   (softmax over the remaining keys is the
//                   renormalised distribution)    → change ‖o − o'‖₂; impossible when no other key
//                   has weight (reported as NaN / JSON null, flagged)
// The lesson's point: an attention map is not a causal explanation — a weight of 0.99 on a zero
// value contributes nothing (weights (0.99, 0.01) on values (0,0), (10,20) give (0.1, 0.2)).
#pragma once

#include <vector>

#include "lessons/check.hpp"
#include "attn/types.hpp"

namespace attn {

struct AttributionResult {
  Vector weights;                    ///< Tk: a_j
  Matrix values;                     ///< Tk×d_v
  Matrix contributions;              ///< Tk×d_v: row j = a_j·v_j
  Vector contribution_norms;         ///< Tk: ‖a_j·v_j‖₂
  Vector output;                     ///< d_v: Σ_j a_j·v_j, summed in key order
  Vector zero_value_change;          ///< Tk: ‖o − o(v_j := 0)‖₂
  Vector remove_key_change;          ///< Tk: ‖o − o(key j removed)‖₂; NaN where impossible
  std::vector<bool> remove_key_possible;  ///< Tk: some other key has weight > 0
  Index top_weight_key = 0;          ///< argmax a_j (first on ties)
  Index top_contribution_key = 0;    ///< argmax ‖a_j·v_j‖ (first on ties)
  std::vector<Check> checks;
};

/// Attribution of one row. weights: Tk, each >= 0, summing to 1 within 1e-9; values: Tk×d_v.
/// Errors: empty_sequence (Tk or d_v = 0), shape_mismatch (weights.size() != values.rows()),
/// non_finite, invalid_field (a negative weight or a sum off 1, naming the entry), too_large.
AttributionResult attribution(const Vector& weights, const Matrix& values);

/// The lesson's counterexample: attribution((0.99, 0.01), [(0, 0), (10, 20)]), output (0.1, 0.2);
/// its checks add "the top-weight key contributes nothing".
AttributionResult attribution_counterexample();

}  // namespace attn
