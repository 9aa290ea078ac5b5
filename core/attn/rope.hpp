// attn/rope.hpp — rotary position embedding (RoPE).
//
// RoPE (Su et al. 2021, "RoFormer", §3.4.2, eq. 34): position m rotates each feature pair
// (2i, 2i+1) of a query or key by the angle m·θ_i, θ_i = base^(−2i/d), base = 10000:
//   x'_{2i}   = x_{2i} cos mθ_i − x_{2i+1} sin mθ_i
//   x'_{2i+1} = x_{2i} sin mθ_i + x_{2i+1} cos mθ_i
// so that (R_m q)·(R_n k) depends on m − n only (§3.4.1, eq. 16). It is applied to Q and K after
// the projections, never to V. An odd last feature (d odd) is left as it is.
#pragma once

#include <vector>

#include "attn/types.hpp"

namespace attn {

/// RoPE of every row of x (T×d): row t is rotated for position positions[t] (default t).
/// Errors: empty_sequence (T or d = 0), shape_mismatch (positions.size() != T), invalid_field
/// (|position| > 1e6, or base not finite and > 1), non_finite, too_large.
Matrix apply_rope(const Matrix& x, const std::vector<long long>& positions = {}, double base = 10000.0);

}  // namespace attn
