// json/kernel_json.hpp — the "kernel" and "tile" fields of the JSON attention op.
//
//   {"op":"attention", ..., "kernel":"dense"|"tiled", "tile":N}
//
// "dense" (the default) is attn::attention, the float64 reference that stores the Tq×Tk
// matrices. "tiled" runs kernels::tiled_attention (float64, online softmax, no Tq×Tk matrix in
// the kernel) with tiles of N queries × N keys (1..4096; default 128 × 256); the reply has the
// same fields, its weights rebuilt from the kernel's per-row statistics (fast_attention.hpp,
// tiled_attention_result). "tile" is only accepted with "kernel":"tiled".
#pragma once

#include <nlohmann/json.hpp>

#include "attn/attention.hpp"

namespace attn::kernels {

/// Attention for one JSON request with the kernel it names. Throws Error(invalid_field) for a
/// "kernel" other than "dense"/"tiled" or a bad "tile", and attention()'s errors.
AttentionResult attention_for_request(const nlohmann::json& request, const Matrix& q, const Matrix& k,
                                      const Matrix& v, const MaskSpec& mask, const AttentionOptions& options);

}  // namespace attn::kernels
