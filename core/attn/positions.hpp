// attn/positions.hpp — position signals.
#pragma once

#include "attn/types.hpp"

namespace attn {

/// Sinusoidal position encoding (Vaswani et al. 2017, §3.5), T×d_model:
///   PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).
/// Computed with attn::det functions (bit-identical native and wasm).
/// Throws Error(empty_sequence) for T or d_model = 0, Error(too_large) past the limits.
Matrix sinusoidal_positions(Index t, Index d_model);

}  // namespace attn
