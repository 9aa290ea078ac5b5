// attn/heads.hpp — projected attention heads.
//
// One head (self-attention): Q = X·W_q, K = X·W_k, V = X·W_v with
//   X: T×d_model, W_q, W_k: d_model×d_k, W_v: d_model×d_v.
// Note: PyTorch's nn.Linear stores weight as out×in and computes x·weightᵀ;
// pass weightᵀ here.
//
// Multi-head (Vaswani et al. 2017, §3.2.2): with h heads, W_q is d_model×(h·d_k)
// and head i uses columns i·d_k … (i+1)·d_k − 1 of X·W_q (PyTorch's
// in_proj layout); likewise K and V (h·d_v). Head outputs are concatenated in
// head order (Tq×(h·d_v)) and multiplied by W_o ((h·d_v)×d_out) when given.
// The default scale is 1/sqrt(d_k) of the *head*, never of d_model.
#pragma once

#include <optional>
#include <vector>

#include "attn/attention.hpp"

namespace attn {

struct HeadWeights {
  Matrix w_q;  ///< d_model×d_k
  Matrix w_k;  ///< d_model×d_k
  Matrix w_v;  ///< d_model×d_v
};

struct SelfAttentionResult {
  Matrix query, key, value;  ///< the projections X·W_q, X·W_k, X·W_v
  AttentionResult attention;
};

/// Single-head self-attention of X (T×d_model).
/// Throws the errors of attention() plus shape_mismatch when a weight's rows != d_model
/// or W_q and W_k differ in width, non_finite for NaN/inf weights.
SelfAttentionResult self_attention(const Matrix& x, const HeadWeights& w, const MaskSpec& mask = {},
                                   const AttentionOptions& options = {});

struct MultiHeadWeights {
  int heads = 1;              ///< h >= 1; w_q/w_k widths must be divisible by h (d_k = width/h)
  Matrix w_q;                 ///< d_model_q×(h·d_k)
  Matrix w_k;                 ///< d_model_kv×(h·d_k)
  Matrix w_v;                 ///< d_model_kv×(h·d_v)
  std::optional<Matrix> w_o;  ///< (h·d_v)×d_out, optional
};

struct MultiHeadResult {
  Matrix output;                       ///< concat·W_o (Tq×d_out), or concat when W_o is absent
  Matrix concat;                       ///< Tq×(h·d_v), head outputs side by side in head order
  std::vector<AttentionResult> heads;  ///< per head: weights Tq×Tk, scores, output Tq×d_v
};

/// Multi-head cross-attention: queries from x_query (Tq×d_model_q), keys and values from
/// x_key_value (Tk×d_model_kv). For self-attention pass the same X twice.
/// Throws invalid_field (heads < 1 or widths not divisible by heads), shape_mismatch,
/// and the errors of attention() (the mask applies to every head).
MultiHeadResult multi_head_attention(const Matrix& x_query, const Matrix& x_key_value,
                                     const MultiHeadWeights& w, const MaskSpec& mask = {},
                                     const AttentionOptions& options = {});

}  // namespace attn
