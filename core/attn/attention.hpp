// attn/attention.hpp — scaled dot-product attention (Vaswani et al. 2017, eq. 1).
//
//   scores  = scale · Q·Kᵀ                 (Tq×Tk), scale defaults to 1/sqrt(d_k)
//   weights = softmax over ALLOWED keys, row by row
//   output  = weights · V                  (Tq×d_v)
//
// Masked keys are excluded from the row max, the normaliser and the value
// sum — never multiplied by zero — so a huge or garbage value in a masked key
// changes nothing (0 · 1e300 · 1e300 would be inf, 0 · inf NaN).
// A query row with no allowed key is an error by default (the lesson's
// reference raises); EmptyRows::zero instead gives zero weights and a zero
// output for that row and flags it (PyTorch >= 2.5, FlashAttention).
#pragma once

#include <optional>
#include <vector>

#include "attn/masks.hpp"
#include "attn/types.hpp"

namespace attn {

enum class EmptyRows { error, zero };

struct AttentionOptions {
  std::optional<double> scale;  ///< multiplies Q·Kᵀ; default 1/sqrt(d_k); must be finite and > 0
  EmptyRows empty_rows = EmptyRows::error;
};

struct AttentionResult {
  Matrix output;                ///< Tq×d_v context vectors, one per query
  Matrix weights;               ///< Tq×Tk, each non-empty row a distribution over allowed keys
  Matrix scores;                ///< Tq×Tk scaled scores; only entries with allowed(i,j) hold a score,
                                ///< the others are 0 and must be read through `allowed`
  BoolMatrix allowed;           ///< Tq×Tk allowed mask actually used
  std::vector<bool> empty_row;  ///< Tq flags: row had no allowed key (only with EmptyRows::zero)
  double scale = 1.0;           ///< the scale actually used
};

/// Scaled dot-product attention with an allowed mask built from `mask`.
/// q: Tq×d_k, k: Tk×d_k, v: Tk×d_v (Tq != Tk and d_v != d_k are fine).
/// Throws Error with: empty_sequence (a dimension is 0), shape_mismatch (widths/lengths
/// differ, naming both shapes), non_finite (NaN/inf input, or a score overflowing),
/// invalid_scale, no_allowed_key (naming the row; EmptyRows::error), causal_alignment_required,
/// invalid_mask, too_large (Tq·Tk > kMaxPairs or a size past linalg.hpp's limits).
AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v,
                          const MaskSpec& mask = {}, const AttentionOptions& options = {});

/// Same, with a ready Tq×Tk allowed matrix (true = may attend).
AttentionResult attention_with_allowed(const Matrix& q, const Matrix& k, const Matrix& v,
                                       const BoolMatrix& allowed,
                                       const AttentionOptions& options = {});

/// Softmax of each row of `scores` over the entries where `allowed` is true
/// (row max subtracted over allowed entries only). Rows with no allowed entry
/// are all zero and flagged in `empty_row` (callers decide whether that is an error).
Matrix masked_softmax(const Matrix& scores, const BoolMatrix& allowed, std::vector<bool>* empty_row);

/// max over non-empty rows of |Σ_j weights(i,j) − 1| (0 when every row is empty).
double max_row_sum_error(const Matrix& weights, const std::vector<bool>& empty_row = {});

}  // namespace attn
