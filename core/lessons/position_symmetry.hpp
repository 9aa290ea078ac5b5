// lessons/position_symmetry.hpp — what positions do to the permutation symmetry of self-attention.
//
// position_symmetry(): unmasked, position-free self-attention is permutation-equivariant,
// f(PX) = P f(X); sinusoidal positions (Vaswani et al. 2017, §3.5) or RoPE break it, and so does a
// causal mask with no positions at all; mean pooling over positions of an equivariant f is
// invariant: mean f(PX) = mean f(X).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/positions.hpp"
#include "attn/types.hpp"
#include "lessons/check.hpp"

namespace attn {

struct PositionSymmetryInput {
  std::string sentence = "The cat sat on the mat";
  std::uint64_t seed = 17;
  int d_model = 8;                                    ///< 1..512 (d_k = d_v = d_model, one head)
  std::vector<int> permutation = {2, 0, 5, 1, 4, 3};  ///< new row i = old row permutation[i]
  bool causal = false;
  PositionKind positions = PositionKind::none;        ///< attached to slots, after permuting
};

/// f on X and on P·X, side by side: what position_symmetry and permutation_experiment both report.
struct PermutedSelfAttention {
  std::vector<std::string> tokens, permuted_tokens;
  Matrix x, px;                ///< T×d_model embeddings, original and permuted (before positions)
  Matrix f_px, p_f_x;          ///< T×d_model: f(PX), P·f(X)
  double max_diff = 0;         ///< max |f(PX) − P f(X)|
  Matrix weights_x, weights_px;///< T×T attention weights of f(X) and f(PX)
};

struct PositionSymmetryResult : PermutedSelfAttention {
  Matrix f_x;                  ///< T×d_model: f(X)
  Vector pooled_x, pooled_px;  ///< d_model: mean over rows of f(X) and of f(PX)
  double pooled_diff = 0;      ///< max |difference| of the pooled summaries
  double rope_relative_diff = 0;  ///< RoPE only: |(R_2 q)·(R_5 k) − (R_9 q)·(R_12 k)|, q, k from X
  Matrix query_x, key_x, value_x;  ///< T×d_model: Q, K (rotated when RoPE) and V of f(X), not in the JSON
  std::vector<Check> checks;
};

/// Throws Error(invalid_field) unless p is a permutation of 0..t−1: "the permutation has N entries
/// but the sentence has T tokens", "permutation entry i is V; entries must be 0..T−1",
/// "permutation repeats V; each of 0..T−1 must appear exactly once".
void require_permutation(const std::vector<int>& p, Index t);

/// The permutation experiment (lessons/permutation.hpp's permutation_experiment is a view of it):
/// f = single-head self-attention, d_k = d_v = d_model, weights drawn from one Rng(seed) in this
/// order: the embedding table (embed_sentence, N(0,1)), then W_q, W_k, W_v (d_model×d_model,
/// U(±1/sqrt(d_model)), linear_init). Positions attach to slots after permuting: sinusoidal
/// (Vaswani et al. 2017 §3.5) is added to the rows, RoPE (Su et al. 2021) rotates Q and K by their
/// slot 0..T−1. Errors: invalid_field (d_model outside 1..512; a permutation that is not 0..T−1
/// each once, naming the problem), empty_sequence (no tokens), too_large (more than
/// kMaxHeadsTokens tokens).
PositionSymmetryResult position_symmetry(const PositionSymmetryInput& in);

}  // namespace attn
