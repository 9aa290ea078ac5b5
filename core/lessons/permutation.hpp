// lessons/permutation.hpp — permutation equivariance of self-attention: f(P·X) against P·f(X).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/positions.hpp"
#include "attn/types.hpp"
#include "lessons/check.hpp"
#include "lessons/position_symmetry.hpp"

namespace attn {

/// The position-symmetry inputs (the sentence, seed, d_model, permutation, causal mask and
/// positions, added after permuting so positions stay put) and the query row of the K/V check.
struct PermutationInput : PositionSymmetryInput {
  int query = 0;
};

/// The part of position_symmetry's result both views show (PermutedSelfAttention), the difference
/// map, and one query's output with K and V permuted together.
struct PermutationResult : PermutedSelfAttention {
  Matrix difference;                         ///< f(P·X) − P·f(X), entry by entry (the difference map)
  // Permuting K and V together (same P) leaves one query's output unchanged.
  Vector query_output;                       ///< output row `query` with K, V in order
  Vector query_output_kv_permuted;           ///< same query, K and V rows permuted together
  double kv_diff = 0;
  std::vector<Check> checks;
};

/// The permutation experiment seen from the K/V side: one implementation, position_symmetry
/// (lessons/position_symmetry.hpp), computes f(X), f(P·X) and P·f(X); this adds one query's output
/// with K and V permuted together, and its own claims. f = single-head self-attention
/// (d_k = d_v = d_model, as the lesson's script) with weights drawn from Rng(seed) as random_heads does. Positions, when on, are added to the rows in
/// their new order (RoPE: Q and K rotated by their slot 0..T−1), which is what breaks
/// equivariance; a causal mask breaks it too.
/// Throws Error(invalid_field) for a permutation that is not 0..T−1 each once (naming the
/// problem) or a query outside 0..T−1, empty_sequence, too_large as random_heads.
PermutationResult permutation_experiment(const PermutationInput& in);

/// A uniformly random permutation of 0..n−1 (Fisher–Yates on Rng(seed)).
std::vector<int> random_permutation(int n, std::uint64_t seed);

}  // namespace attn
