#include "attn/attention.hpp"

#include <cmath>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

void check_inputs(const Matrix& q, const Matrix& k, const Matrix& v) {
  require_shape_limits(q, "query", "Tq", "d_k");
  require_shape_limits(k, "key", "Tk", "d_k");
  require_shape_limits(v, "value", "Tk", "d_v");
  if (q.cols() != k.cols())
    throw Error(ErrorCode::shape_mismatch, "query is " + shape_str(q) + " and key is " +
                                               shape_str(k) + ": both need the same width d_k");
  if (k.rows() != v.rows())
    throw Error(ErrorCode::shape_mismatch, "key is " + shape_str(k) + " and value is " +
                                               shape_str(v) +
                                               ": one value row per key row (Tk) is needed");
  if (q.rows() * k.rows() > kMaxPairs)
    throw Error(ErrorCode::too_large, "Tq*Tk = " + std::to_string(q.rows() * k.rows()) +
                                          " scores exceed the limit of " +
                                          std::to_string(kMaxPairs));
  require_finite(q, "query");
  require_finite(k, "key");
  require_finite(v, "value");
}

}  // namespace

Matrix masked_softmax(const Matrix& scores, const BoolMatrix& allowed, std::vector<bool>* empty_row) {
  const Index tq = scores.rows(), tk = scores.cols();
  Matrix w = Matrix::Zero(tq, tk);
  if (empty_row) empty_row->assign(static_cast<size_t>(tq), false);
  for (Index i = 0; i < tq; ++i) {
    // 1. row max over allowed keys only (for stability; masked entries are not scores).
    bool any = false;
    double row_max = 0.0;
    for (Index j = 0; j < tk; ++j)
      if (allowed(i, j) && (!any || scores(i, j) > row_max)) {
        row_max = scores(i, j);
        any = true;
      }
    if (!any) {
      if (empty_row) (*empty_row)[static_cast<size_t>(i)] = true;
      continue;
    }
    // 2. exponentiate and sum in key order; 3. normalise.
    double sum = 0.0;
    for (Index j = 0; j < tk; ++j)
      if (allowed(i, j)) {
        w(i, j) = det::exp(scores(i, j) - row_max);
        sum += w(i, j);
      }
    for (Index j = 0; j < tk; ++j)
      if (allowed(i, j)) w(i, j) /= sum;
  }
  return w;
}

AttentionResult attention_with_allowed(const Matrix& q, const Matrix& k, const Matrix& v,
                                       const BoolMatrix& allowed, const AttentionOptions& options) {
  check_inputs(q, k, v);
  const Index tq = q.rows(), tk = k.rows(), dk = q.cols(), dv = v.cols();
  if (allowed.rows() != tq || allowed.cols() != tk)
    throw Error(ErrorCode::shape_mismatch, "allowed mask is " + std::to_string(allowed.rows()) +
                                               "x" + std::to_string(allowed.cols()) +
                                               " but Tq x Tk = " + std::to_string(tq) + "x" +
                                               std::to_string(tk));
  AttentionResult r;
  r.scale = options.scale ? *options.scale : 1.0 / std::sqrt(static_cast<double>(dk));
  if (!std::isfinite(r.scale) || !(r.scale > 0.0))
    throw Error(ErrorCode::invalid_scale,
                "scale must be a finite number > 0 (default 1/sqrt(d_k)), got " +
                    std::to_string(r.scale));
  r.allowed = allowed;

  // 1. scaled scores for allowed pairs only; dot products summed in feature order.
  r.scores = Matrix::Zero(tq, tk);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) {
      if (!allowed(i, j)) continue;
      double s = 0.0;
      for (Index c = 0; c < dk; ++c) s += q(i, c) * k(j, c);
      s *= r.scale;
      if (!std::isfinite(s))
        throw Error(ErrorCode::non_finite,
                    "score for query " + std::to_string(i) + ", key " + std::to_string(j) +
                        " overflowed (q·k·scale is not finite); inputs are too large");
      r.scores(i, j) = s;
    }

  // 2. softmax over allowed keys; empty rows per policy.
  r.weights = masked_softmax(r.scores, allowed, &r.empty_row);
  for (Index i = 0; i < tq; ++i)
    if (r.empty_row[static_cast<size_t>(i)] && options.empty_rows == EmptyRows::error)
      throw Error(ErrorCode::no_allowed_key,
                  "query row " + std::to_string(i) +
                      " has no allowed key (every key is masked for it); fix the mask, or "
                      "choose empty_rows = \"zero\" to get a zero output for such rows");

  // 3. output = weights · V over allowed keys only.
  r.output = Matrix::Zero(tq, dv);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) {
      if (!allowed(i, j)) continue;
      const double a = r.weights(i, j);
      for (Index c = 0; c < dv; ++c) r.output(i, c) += a * v(j, c);
    }
  return r;
}

AttentionResult attention(const Matrix& q, const Matrix& k, const Matrix& v, const MaskSpec& mask,
                          const AttentionOptions& options) {
  check_inputs(q, k, v);  // before building a Tq×Tk mask from unchecked sizes
  return attention_with_allowed(q, k, v, build_allowed(mask, q.rows(), k.rows()), options);
}

double max_row_sum_error(const Matrix& weights, const std::vector<bool>& empty_row) {
  double worst = 0.0;
  for (Index i = 0; i < weights.rows(); ++i) {
    if (static_cast<size_t>(i) < empty_row.size() && empty_row[static_cast<size_t>(i)]) continue;
    double s = 0.0;
    for (Index j = 0; j < weights.cols(); ++j) s += weights(i, j);
    const double e = std::fabs(s - 1.0);
    if (e > worst || e != e) worst = e;
  }
  return worst;
}

}  // namespace attn
