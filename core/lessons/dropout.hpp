// lessons/dropout.hpp — inverted attention dropout.
//
// Srivastava et al. 2014 (dropout), in the "inverted" form PyTorch uses (F.dropout, and
// F.scaled_dot_product_attention's dropout_p, applied to the attention weights):
//   keep(i, j) ~ Bernoulli(1 − p)              one draw per weight, seeded
//   dropped(i, j) = weights(i, j) · keep(i, j) / (1 − p)     (0 everywhere when p = 1: no division)
//   output_dropped = dropped · V              summed over allowed keys in key order
// The returned weights stay the pre-dropout ones (rows sum to 1); the dropped rows do not sum to 1
// in general — the lesson: "attention dropout can also make sampled row sums differ from one".
// p = 0 is bit-identical to no dropout (keep = 1, factor 1/(1 − 0) = 1, the same summation order).
// Randomness: attn::Rng(seed) (mt19937_64), one uniform01() per entry in row-major order over the
// whole Tq×Tk matrix (masked entries too, so the keep pattern does not depend on the mask);
// keep = u >= p. Same seed, same mask, native and wasm. (PyTorch's own masks differ: its generator
// is not ours.)
#pragma once

#include <cstdint>
#include <vector>

#include "attn/attention.hpp"
#include "attn/attention.hpp"
#include "lessons/check.hpp"

namespace attn {

struct AttentionDropout {
  double p = 0.0;
  std::uint64_t seed = 0;
  BoolMatrix keep;               ///< Tq×Tk: the Bernoulli(1 − p) draws
  Matrix dropped_weights;        ///< Tq×Tk: weights · keep / (1 − p); all 0 for p = 1
  Matrix output_dropped;         ///< Tq×d_v: dropped_weights · V
  std::vector<double> row_sums;  ///< Tq: Σ_j dropped_weights(i, j) (empty rows: 0)
  std::vector<Check> checks;
};

/// Dropout on the weights of `r` (an attention() result) with values v (Tk×d_v, the V of that call).
/// Errors: invalid_field (p not in [0, 1] or not finite), shape_mismatch (v.rows() != Tk),
/// non_finite (v).
AttentionDropout apply_attention_dropout(const AttentionResult& r, const Matrix& v, double p,
                                         std::uint64_t seed);

}  // namespace attn
