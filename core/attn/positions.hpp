// attn/positions.hpp — position signals.
#pragma once

#include "attn/types.hpp"

namespace attn {

/// The position signal an experiment attaches to its rows.
///   none        no position information (self-attention is then permutation-equivariant)
///   sinusoidal  Vaswani et al. 2017 §3.5 (sinusoidal_positions below), added to X
///   rope        Su et al. 2021 (attn/rope.hpp, apply_rope), rotates Q and K after the projections
///               (each head's d_k features on their own), never V
enum class PositionKind { none, sinusoidal, rope };

/// "none" / "sinusoidal" / "rope" (the JSON spelling).
const char* position_kind_name(PositionKind k);

/// Sinusoidal position encoding (Vaswani et al. 2017, §3.5), T×d_model:
///   PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).
/// Computed with attn::det functions (bit-identical native and wasm).
/// Throws Error(empty_sequence) for T or d_model = 0, Error(too_large) past the limits.
Matrix sinusoidal_positions(Index t, Index d_model);

}  // namespace attn
