// attn/additive.hpp — additive attention (Bahdanau et al. 2015) and other scoring functions.
//
// Bahdanau, Cho & Bengio 2015, "Neural machine translation by jointly learning to align and
// translate", §3.1 and appendix A.1.2 (eq. 6 in the arXiv v7 numbering of the lesson):
//   e_j = v_aᵀ tanh(W_s s + W_h h_j + b)        scores, one per source position j
//   a_j = softmax_j(e_j) over VALID source positions (invalid ones get weight exactly 0)
//   c   = Σ_j a_j h_j                            the context vector (d_h)
// Matrices here multiply column vectors, as in the paper: W_s is d_a×d_s, W_h is d_a×d_h
// (out×in — the opposite of the core's in×out projection layout, and the same as nn.Linear.weight).
// Luong, Pham & Manning 2015, "Effective approaches to attention-based NMT", eq. 8, gives the
// other scores compared here on the same states: dot sᵀh_j, general sᵀ W h_j (W: d_s×d_h), and
// scaled dot sᵀh_j/√d (Vaswani et al. 2017, eq. 1). tanh is attn::det::tanh (bit-identical native/wasm).
// The claims checked on these results (rows sum to 1, padding gets 0, c = Σ a_j h_j) are the
// lesson's: lessons/additive_checks.hpp.
#pragma once

#include <string>
#include <vector>

#include "attn/types.hpp"

namespace attn {

struct AdditiveParams {
  Matrix w_s;   ///< d_a×d_s
  Matrix w_h;   ///< d_a×d_h
  Vector bias;  ///< d_a
  Vector v;     ///< d_a
};

struct AdditiveResult {
  Vector scores;                ///< Tk: e_j; entries with key_valid false are 0 (read through key_valid)
  Vector weights;               ///< Tk: a_j, 0 on invalid positions
  Vector context;               ///< d_h: Σ a_j h_j
  std::vector<bool> key_valid;  ///< Tk flags actually used
  Vector query_part;            ///< d_a: W_s s (shared by every j)
  Matrix hidden;                ///< Tk×d_a: tanh(W_s s + W_h h_j + b), the layer v_a reads
};

/// Additive attention of one decoder state s (d_s) over encoder states h (Tk×d_h, rows are
/// positions). key_valid: empty = all valid, else Tk flags. Errors: empty_sequence (a size 0),
/// shape_mismatch (naming both shapes), non_finite, no_allowed_key (no valid position),
/// too_large.
AdditiveResult additive_attention(const Vector& s, const Matrix& h, const AdditiveParams& p,
                                  const std::vector<bool>& key_valid = {});

struct ScoringComparison {
  std::vector<std::string> names;  ///< "dot", "scaled_dot", "general", "additive" (rows below)
  Matrix scores;                   ///< 4×Tk, 0 where invalid
  Matrix weights;                  ///< 4×Tk, each row a distribution over valid positions
  Matrix contexts;                 ///< 4×d_h
  std::vector<bool> key_valid;
};

/// The four scoring functions on the same s (d_s) and h (Tk×d_h). Dot and scaled dot need
/// d_s = d_h; w_general is d_s×d_h. Errors: as additive_attention, plus shape_mismatch when
/// d_s != d_h or w_general's shape is not d_s×d_h.
ScoringComparison compare_score_functions(const Vector& s, const Matrix& h, const Matrix& w_general,
                                          const AdditiveParams& p, const std::vector<bool>& key_valid = {});

}  // namespace attn
