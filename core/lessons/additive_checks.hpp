// lessons/additive_checks.hpp — the lesson's claims about an additive read (Bahdanau et al. 2015,
// §3.1: a_j = softmax_j(e_j) over valid positions, c = Σ_j a_j h_j), measured on a result of
// attn/additive.hpp. The math returns numbers; these say whether they honour the claims.
#pragma once

#include <vector>

#include "attn/additive.hpp"
#include "attn/types.hpp"
#include "lessons/check.hpp"

namespace attn {

/// Three claims on r = additive_attention(s, h, ...), h Tk×d_h the encoder states it read:
/// the weights sum to 1 (|Σ a_j − 1| <= 1e-12), invalid positions get weight exactly 0, and
/// c = Σ_j a_j h_j (max |difference| over d_h <= 1e-12, the sum recomputed here). Never throws
/// when r came from additive_attention with this h.
std::vector<Check> additive_checks(const AdditiveResult& r, const Matrix& h);

/// Two claims on r = compare_score_functions(s, h, ...): each scoring function's weights form a
/// distribution (max over the four rows of |Σ − 1| <= 1e-12) and each context is Σ_j a_j h_j
/// (max |difference| <= 1e-12). Never throws when r came from compare_score_functions with this h.
std::vector<Check> scoring_checks(const ScoringComparison& r, const Matrix& h);

}  // namespace attn
