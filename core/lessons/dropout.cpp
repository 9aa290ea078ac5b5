#include "lessons/dropout.hpp"

#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/random.hpp"

namespace attn {

AttentionDropout apply_attention_dropout(const AttentionResult& r, const Matrix& v, double p, std::uint64_t seed) {
  if (!std::isfinite(p) || p < 0.0 || p > 1.0)
    throw Error(ErrorCode::invalid_field, "dropout p must be a number in [0, 1], got " + std::to_string(p));
  const Index tq = r.weights.rows(), tk = r.weights.cols();
  if (v.rows() != tk)
    throw Error(ErrorCode::shape_mismatch, "value is " + shape_str(v) + " but the weights have Tk=" +
                                               std::to_string(tk) + " columns");
  require_finite(v, "value");
  AttentionDropout d;
  d.p = p;
  d.seed = seed;
  // 1. One Bernoulli(1 − p) draw per entry, row-major: keep iff u >= p (u in [0, 1)).
  Rng rng(seed);
  d.keep = BoolMatrix(tq, tk);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) d.keep(i, j) = rng.uniform01() >= p;
  // 2. Inverted scaling of the kept weights; p = 1 keeps nothing and divides by nothing.
  d.dropped_weights = Matrix::Zero(tq, tk);
  if (p < 1.0) {
    const double factor = 1.0 / (1.0 - p);
    for (Index i = 0; i < tq; ++i)
      for (Index j = 0; j < tk; ++j)
        if (d.keep(i, j)) d.dropped_weights(i, j) = r.weights(i, j) * factor;
  }
  // 3. Output over allowed keys in key order, exactly as attention() sums (p = 0: bit-identical).
  const Index dv = v.cols();
  d.output_dropped = Matrix::Zero(tq, dv);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) {
      if (!r.allowed(i, j)) continue;
      const double a = d.dropped_weights(i, j);
      for (Index c = 0; c < dv; ++c) d.output_dropped(i, c) += a * v(j, c);
    }
  double worst_sum = 0.0, max_dropped = 0.0;
  bool finite = true;
  for (Index i = 0; i < tq; ++i) {
    double s = 0.0;
    for (Index j = 0; j < tk; ++j) {
      s += d.dropped_weights(i, j);
      max_dropped = std::max(max_dropped, std::fabs(d.dropped_weights(i, j)));
      finite = finite && std::isfinite(d.dropped_weights(i, j));
    }
    d.row_sums.push_back(s);
    const bool empty = static_cast<size_t>(i) < r.empty_row.size() && r.empty_row[static_cast<size_t>(i)];
    if (!empty) worst_sum = std::max(worst_sum, std::fabs(s - 1.0));
  }
  d.checks.push_back(check_at_most("returned weights are the pre-dropout ones: rows sum to 1: max |sum - 1|",
                                   max_row_sum_error(r.weights, r.empty_row), 1e-12));
  if (p == 0.0) {
    d.checks.push_back(check_at_most("p = 0 is no dropout: max |output_dropped - output| (bitwise)",
                                     max_abs_diff(d.output_dropped, r.output), 0.0));
  } else if (p == 1.0) {
    d.checks.push_back(check_at_most("p = 1 drops everything, no division by zero: max |dropped weight|",
                                     finite ? max_dropped : INFINITY, 0.0));
  } else {
    d.checks.push_back(check_above("sampled row sums differ from 1: max |sum - 1|", worst_sum, 0.0));
  }
  return d;
}

}  // namespace attn
