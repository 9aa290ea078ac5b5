#include "attn/heads.hpp"

#include <string>

#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

void check_weight(const Matrix& w, const char* name, Index d_in, const char* d_in_name) {
  require_shape_limits(w, name, d_in_name, "width");
  if (w.rows() != d_in)
    throw Error(ErrorCode::shape_mismatch, std::string(name) + " is " + shape_str(w) +
                                               " but needs " + std::to_string(d_in) + " rows (" +
                                               d_in_name + "); weights are stored in×out, the "
                                               "transpose of PyTorch's nn.Linear.weight");
  require_finite(w, name);
}

}  // namespace

SelfAttentionResult self_attention(const Matrix& x, const HeadWeights& w, const MaskSpec& mask,
                                   const AttentionOptions& options) {
  require_shape_limits(x, "x", "T", "d_model");
  require_finite(x, "x");
  check_weight(w.w_q, "w_q", x.cols(), "d_model");
  check_weight(w.w_k, "w_k", x.cols(), "d_model");
  check_weight(w.w_v, "w_v", x.cols(), "d_model");
  if (w.w_q.cols() != w.w_k.cols())
    throw Error(ErrorCode::shape_mismatch, "w_q is " + shape_str(w.w_q) + " and w_k is " +
                                               shape_str(w.w_k) + ": both need width d_k");
  SelfAttentionResult r;
  r.query = matmul(x, w.w_q, "x·w_q");
  r.key = matmul(x, w.w_k, "x·w_k");
  r.value = matmul(x, w.w_v, "x·w_v");
  r.attention = attention(r.query, r.key, r.value, mask, options);
  return r;
}

MultiHeadResult multi_head_attention(const Matrix& x_query, const Matrix& x_key_value,
                                     const MultiHeadWeights& w, const MaskSpec& mask,
                                     const AttentionOptions& options) {
  if (w.heads < 1 || w.heads > 64)
    throw Error(ErrorCode::invalid_field,
                "heads must be between 1 and 64, got " + std::to_string(w.heads));
  require_shape_limits(x_query, "x_query", "Tq", "d_model");
  require_shape_limits(x_key_value, "x_key_value", "Tk", "d_model");
  require_finite(x_query, "x_query");
  require_finite(x_key_value, "x_key_value");
  check_weight(w.w_q, "w_q", x_query.cols(), "d_model");
  check_weight(w.w_k, "w_k", x_key_value.cols(), "d_model");
  check_weight(w.w_v, "w_v", x_key_value.cols(), "d_model");
  const Index h = w.heads;
  if (w.w_q.cols() != w.w_k.cols())
    throw Error(ErrorCode::shape_mismatch, "w_q is " + shape_str(w.w_q) + " and w_k is " +
                                               shape_str(w.w_k) + ": both need width h*d_k");
  if (w.w_q.cols() % h != 0 || w.w_v.cols() % h != 0)
    throw Error(ErrorCode::invalid_field,
                "heads=" + std::to_string(h) + " must divide the widths of w_q (" +
                    std::to_string(w.w_q.cols()) + ") and w_v (" + std::to_string(w.w_v.cols()) +
                    ")");
  const Index dk = w.w_q.cols() / h, dv = w.w_v.cols() / h;
  if (w.w_o) {
    check_weight(*w.w_o, "w_o", h * dv, "h*d_v");
  }
  const Matrix q = matmul(x_query, w.w_q, "x_query·w_q");
  const Matrix k = matmul(x_key_value, w.w_k, "x_key_value·w_k");
  const Matrix v = matmul(x_key_value, w.w_v, "x_key_value·w_v");
  const BoolMatrix allowed = build_allowed(mask, q.rows(), k.rows());

  MultiHeadResult r;
  r.concat = Matrix::Zero(q.rows(), h * dv);
  for (Index i = 0; i < h; ++i) {
    // Head i reads columns i·d_k … (i+1)·d_k − 1 (PyTorch's layout).
    const Matrix qi = q.middleCols(i * dk, dk), ki = k.middleCols(i * dk, dk),
                 vi = v.middleCols(i * dv, dv);
    r.heads.push_back(attention_with_allowed(qi, ki, vi, allowed, options));
    r.concat.middleCols(i * dv, dv) = r.heads.back().output;
  }
  r.output = w.w_o ? matmul(r.concat, *w.w_o, "concat·w_o") : r.concat;
  return r;
}

}  // namespace attn
