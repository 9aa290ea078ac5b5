// lessons/random_heads.hpp — the random-init heads experiment: seeded multi-head self-attention on
// a sentence, with masks and a position signal, and its claims.
//
// The lesson's experiments are pure functions: each takes plain inputs and returns a plain struct
// that a panel draws and a test checks; panels never recompute any of these numbers. Every result
// carries its own claims as `Check`s (lessons/check.hpp) with the measured value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/positions.hpp"
#include "attn/random.hpp"
#include "attn/types.hpp"
#include "lessons/check.hpp"

namespace attn {

// Random-init heads on a sentence.

/// Where random_heads takes its embedding and weights from.
///   core           attn::Rng(seed), PyTorch's default laws (the same law, not the same numbers)
///   torch_replica  torch's own CPU generator replayed (lessons/torch_replica.hpp, torch_init): with
///                  seed 17, d_model 8, one head of d_k 8 on the lesson's sentence, the matrix the
///                  lesson's script prints
enum class HeadsInit { core, torch_replica };

struct RandomHeadsInput {
  std::string sentence = "The cat sat on the mat";
  std::uint64_t seed = 17;
  int d_model = 8;
  int heads = 2;                 ///< 1..8
  int d_k = 4;                   ///< per head; d_v = d_k
  bool causal = false;
  int valid_length = -1;         ///< key padding: keys >= valid_length are padding; -1 = none
  PositionKind positions = PositionKind::none;
  HeadsInit init = HeadsInit::core;
};

struct RandomHeadsResult {
  std::vector<std::string> tokens;  ///< T tokens
  Matrix x;                         ///< T×d_model embeddings (+ positions when on)
  std::vector<Matrix> q, k, v;      ///< per head: T×d_k queries and keys (after RoPE when on), T×d_v values
  std::vector<AttentionResult> heads;
  std::vector<Check> checks;        ///< rows sum to 1; masked weights are 0; ...
};

/// The anatomy of one head for one query row: every step of scaled dot-product attention
/// (Vaswani et al. 2017, eq. 1) as its own numbers, X·W_q, X·W_k, X·W_v → Q, K, V → the raw scores
/// q·kⱼ → × 1/√d_k → the allowed mask → softmax → the weights · V → the output.
struct HeadAnatomy {
  int head = 0, query_row = 0, d_k = 0, d_v = 0;
  double scale = 1.0;                 ///< the scale used (1/√d_k)
  Matrix q, k, v;                     ///< T×d_k, T×d_k, T×d_v: the head's queries, keys, values
  std::vector<double> raw_scores;     ///< T: q_row·k_j for every key, summed in feature order
  std::vector<double> scaled;         ///< T: raw × scale (the JSON contract's `scores` where allowed)
  std::vector<bool> allowed;          ///< T: the allowed mask's row
  std::vector<double> weights;        ///< T: softmax of the scaled scores over allowed keys (0 elsewhere)
  std::vector<double> output;         ///< d_v: Σ_j weights_j · v_j, the row's context vector
  /// Display ranges: the row's largest |raw score| and |scaled score| (over every key, allowed or
  /// not) and the largest |entry| of q, k and v together (a symmetric colour range for the three).
  double raw_abs_max = 0.0, scaled_abs_max = 0.0, qkv_abs_max = 0.0;
};

/// One head's anatomy for `query_row` of a random_heads result: the head's q, k, v as the experiment
/// computed them, the row's scores worked out step by step the way attention() sums them (so `scaled`
/// equals its scores bit for bit where allowed), and the row of its weights and output. Throws
/// Error(invalid_field) naming `head` (0..heads−1) or `query_row` (0..T−1) when out of range.
HeadAnatomy head_anatomy(const RandomHeadsResult& r, int head, int query_row);

/// Seeded random initialisation with PyTorch's default laws, drawn in this order from one
/// Rng(seed): embedding (vocab×d_model, N(0,1)), then W_q, W_k, W_v (d_model×(h·d_k),
/// U(±1/sqrt(d_model))). Then multi-head self-attention with the chosen masks.
/// HeadsInit::torch_replica draws them instead with torch_init(sentence, seed, d_model, heads·d_k).
/// Throws Error: empty_sequence (no tokens), invalid_field (heads outside 1..8, d_model or
/// d_k outside 1..512, valid_length outside 1..T; torch_replica: heads·d_k above 512 or
/// vocab·d_model below 16), too_large (more than kMaxHeadsTokens tokens).
RandomHeadsResult random_heads(const RandomHeadsInput& in);
inline constexpr int kMaxHeadsTokens = 512;

/// A sentence's tokens (T) and their embedding rows x (T×d_model).
struct EmbeddedSentence {
  std::vector<std::string> tokens;
  Matrix x;
};

/// Tokenise `sentence`, build its vocabulary (first occurrence order), draw the vocab×d_model
/// embedding table from `rng` (embedding_init: N(0,1), as nn.Embedding) and look up each token's row.
/// The random heads and the position-symmetry experiment draw their embedding this way first.
/// Throws Error: empty_sequence (no tokens), too_large (more than kMaxHeadsTokens tokens).
EmbeddedSentence embed_sentence(const std::string& sentence, int d_model, Rng& rng);

}  // namespace attn
