// attn/experiments.hpp — the lesson's experiments as pure functions.
//
// Each function takes plain inputs and returns a plain struct that a panel
// draws and a test checks; panels never recompute any of these numbers.
// Every result carries its own claims as `Check`s with the measured value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/types.hpp"

namespace attn {

/// One falsifiable claim with what was measured.
/// pass = (measured <= limit) when expect_at_most, else (measured > limit).
struct Check {
  std::string claim;     ///< e.g. "rows sum to 1: max |sum - 1|"
  double measured = 0;   ///< the figure shown next to the claim
  double limit = 0;      ///< the threshold it is held to
  bool expect_at_most = true;
  bool pass = false;
};
Check check_at_most(std::string claim, double measured, double limit);
Check check_above(std::string claim, double measured, double limit);

// ---------------------------------------------------------------------------
// Alignment: a constructed cross-attention read (not measured from a model).

struct AlignmentRead {
  std::vector<std::string> queries;  ///< target tokens (rows), e.g. le chat noir
  std::vector<std::string> keys;     ///< source tokens (columns), e.g. the black cat
  Matrix weights;                    ///< Tq×Tk, each row a distribution
  Matrix values;                     ///< Tk×d_v
  Matrix contexts;                   ///< Tq×d_v, contexts = weights·values
  /// contributions[i] is Tk×d_v: row j = weights(i,j)·values(j) (the terms of context i).
  std::vector<Matrix> contributions;
  std::vector<Check> checks;         ///< rows sum to 1; weights >= 0; contexts inside the values' hull
};

/// The lesson's constructed alignment: the black cat → le chat noir, weights
/// [[.8,.1,.1],[.1,.1,.8],[.1,.8,.1]], values (1,0), (0,1), (2,0).
AlignmentRead lesson_alignment();

/// contexts = weights·values for any Tq×Tk weights whose rows are distributions.
/// Throws Error: shape_mismatch (token counts vs matrix sizes, weights.cols != values.rows),
/// non_finite, invalid_field (a negative weight or a row sum off 1 by more than 1e-9, naming the row).
AlignmentRead alignment_read(std::vector<std::string> queries, std::vector<std::string> keys,
                             const Matrix& weights, const Matrix& values);

/// Set weights(row, col) = value (clamped to [0, 1]) and rescale the row's other entries
/// proportionally so the row still sums to 1 (evenly if they were all 0).
/// Throws Error(invalid_field) for an index outside the matrix, Error(non_finite) for NaN/inf.
void set_weight_keep_distribution(Matrix& weights, Index row, Index col, double value);

// ---------------------------------------------------------------------------
// Random-init heads on a sentence.

/// sinusoidal: Vaswani et al. 2017 §3.5, added to X. rope: Su et al. 2021 (attn/rope.hpp), rotates
/// Q and K after the projections (each head's d_k features on their own), never V.
enum class PositionSignal { none, sinusoidal, rope };

/// Where random_heads takes its embedding and weights from.
///   core           attn::Rng(seed), PyTorch's default laws (the same law, not the same numbers)
///   torch_replica  torch's own CPU generator replayed (attn/torch_replica.hpp, torch_init): with
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
  PositionSignal positions = PositionSignal::none;
  HeadsInit init = HeadsInit::core;
};

struct RandomHeadsResult {
  std::vector<std::string> tokens;  ///< T tokens
  Matrix x;                         ///< T×d_model embeddings (+ positions when on)
  std::vector<AttentionResult> heads;
  std::vector<Check> checks;        ///< rows sum to 1; masked weights are 0; ...
};

/// Seeded random initialisation with PyTorch's default laws, drawn in this order from one
/// Rng(seed): embedding (vocab×d_model, N(0,1)), then W_q, W_k, W_v (d_model×(h·d_k),
/// U(±1/sqrt(d_model))). Then multi-head self-attention with the chosen masks.
/// HeadsInit::torch_replica draws them instead with torch_init(sentence, seed, d_model, heads·d_k).
/// Throws Error: empty_sequence (no tokens), invalid_field (heads outside 1..8, d_model or
/// d_k outside 1..512, valid_length outside 1..T; torch_replica: heads·d_k above 512 or
/// vocab·d_model below 16), too_large (more than kMaxHeadsTokens tokens).
RandomHeadsResult random_heads(const RandomHeadsInput& in);
inline constexpr int kMaxHeadsTokens = 512;

// ---------------------------------------------------------------------------
// Permutation equivariance: f(P·X) against P·f(X).

struct PermutationInput {
  std::string sentence = "The cat sat on the mat";
  std::uint64_t seed = 17;
  int d_model = 8;
  std::vector<int> permutation = {2, 0, 5, 1, 4, 3};  ///< new row i = old row permutation[i]
  bool causal = false;
  PositionSignal positions = PositionSignal::none;    ///< added after permuting (positions stay put)
  int query = 0;                                      ///< query row for the K/V check
};

struct PermutationResult {
  std::vector<std::string> tokens;           ///< original order
  std::vector<std::string> permuted_tokens;  ///< P applied
  Matrix x, px;                              ///< T×d_model: X and P·X (before positions)
  Matrix f_px;                               ///< f(P·X)
  Matrix p_f_x;                              ///< P·f(X)
  double max_diff = 0;                       ///< max |f(P·X) − P·f(X)|
  Matrix weights_x, weights_px;              ///< attention weights of f(X) and f(P·X)
  // Permuting K and V together (same P) leaves one query's output unchanged.
  Vector query_output;                       ///< output row `query` with K, V in order
  Vector query_output_kv_permuted;           ///< same query, K and V rows permuted together
  double kv_diff = 0;
  std::vector<Check> checks;
};

/// f = single-head self-attention (d_k = d_v = d_model, as the lesson's script) with weights
/// drawn from Rng(seed) as random_heads does. Positions, when on, are added to the rows in
/// their new order (RoPE: Q and K rotated by their slot 0..T−1), which is what breaks
/// equivariance; a causal mask breaks it too.
/// Throws Error(invalid_field) for a permutation that is not 0..T−1 each once (naming the
/// problem), empty_sequence, too_large as random_heads.
PermutationResult permutation_experiment(const PermutationInput& in);

/// A uniformly random permutation of 0..n−1 (Fisher–Yates on Rng(seed)).
std::vector<int> random_permutation(int n, std::uint64_t seed);

}  // namespace attn
