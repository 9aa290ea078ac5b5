#include "lessons/alignment.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {

// Alignment

namespace {
constexpr double kDistributionTolerance = 1e-9;

// Largest distance by which a 2-D point lies outside the triangle/segment/hull of
// `values`' rows, measured as the most negative barycentric-style margin. For a
// context built as a convex combination this is 0 up to rounding; for d_v != 2 we
// fall back to the per-coordinate bounding box (a necessary condition).
double hull_violation(const Matrix& values, const Matrix& contexts) {
  double worst = 0.0;
  for (Index i = 0; i < contexts.rows(); ++i)
    for (Index c = 0; c < contexts.cols(); ++c) {
      double lo = values(0, c), hi = values(0, c);
      for (Index j = 1; j < values.rows(); ++j) {
        lo = std::min(lo, values(j, c));
        hi = std::max(hi, values(j, c));
      }
      const double x = contexts(i, c);
      worst = std::max(worst, std::max(lo - x, x - hi));
    }
  return worst;
}
}  // namespace

AlignmentRead alignment_read(std::vector<std::string> queries, std::vector<std::string> keys,
                             const Matrix& weights, const Matrix& values) {
  require_shape_limits(weights, "weights", "Tq", "Tk");
  require_shape_limits(values, "values", "Tk", "d_v");
  require_finite(weights, "weights");
  require_finite(values, "values");
  if (weights.cols() != values.rows())
    throw Error(ErrorCode::shape_mismatch, "weights are " + shape_str(weights) + " and values " +
                                               shape_str(values) + ": one value per key is needed");
  if (static_cast<Index>(queries.size()) != weights.rows() ||
      static_cast<Index>(keys.size()) != weights.cols())
    throw Error(ErrorCode::shape_mismatch,
                std::to_string(queries.size()) + " query tokens and " + std::to_string(keys.size()) +
                    " key tokens do not label a " + shape_str(weights) + " weight matrix");
  for (Index i = 0; i < weights.rows(); ++i) {
    double sum = 0.0;
    for (Index j = 0; j < weights.cols(); ++j) {
      if (weights(i, j) < 0.0)
        throw Error(ErrorCode::invalid_field, "weight (" + std::to_string(i) + ", " +
                                                  std::to_string(j) + ") is negative; a row of "
                                                  "attention weights is a distribution");
      sum += weights(i, j);
    }
    if (std::fabs(sum - 1.0) > kDistributionTolerance)
      throw Error(ErrorCode::invalid_field, "weights row " + std::to_string(i) + " sums to " +
                                                std::to_string(sum) + ", not 1");
  }
  AlignmentRead r;
  r.queries = std::move(queries);
  r.keys = std::move(keys);
  r.weights = weights;
  r.values = values;
  r.contexts = matmul(weights, values, "weights·values");
  for (Index i = 0; i < weights.rows(); ++i) {
    Matrix terms(values.rows(), values.cols());
    for (Index j = 0; j < values.rows(); ++j) terms.row(j) = weights(i, j) * values.row(j);
    r.contributions.push_back(std::move(terms));
  }
  r.checks.push_back(
      check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error(weights), 1e-12));
  // No "weights >= 0" check: a negative weight is refused above, so such a check could not fail.
  r.checks.push_back(check_at_most("contexts lie inside the values' range: max excess",
                                   hull_violation(values, r.contexts), 1e-12));
  return r;
}

AlignmentRead lesson_alignment() {
  Matrix w(3, 3), v(3, 2);
  w << 0.8, 0.1, 0.1,  //
      0.1, 0.1, 0.8,   //
      0.1, 0.8, 0.1;
  v << 1, 0,  //
      0, 1,   //
      2, 0;
  return alignment_read({"le", "chat", "noir"}, {"the", "black", "cat"}, w, v);
}

void set_weight_keep_distribution(Matrix& weights, Index row, Index col, double value) {
  if (row < 0 || row >= weights.rows() || col < 0 || col >= weights.cols())
    throw Error(ErrorCode::invalid_field, "weight (" + std::to_string(row) + ", " +
                                              std::to_string(col) + ") is outside the " +
                                              shape_str(weights) + " matrix");
  if (!std::isfinite(value))
    throw Error(ErrorCode::non_finite, "a weight must be a finite number between 0 and 1");
  value = std::min(1.0, std::max(0.0, value));
  const Index tk = weights.cols();
  double others = 0.0;
  for (Index j = 0; j < tk; ++j)
    if (j != col) others += weights(row, j);
  const double rest = 1.0 - value;
  for (Index j = 0; j < tk; ++j) {
    if (j == col) continue;
    // Keep the other entries' proportions; spread evenly if they were all zero.
    weights(row, j) = others > 0.0 ? weights(row, j) * (rest / others)
                                   : (tk > 1 ? rest / static_cast<double>(tk - 1) : 0.0);
  }
  weights(row, col) = tk > 1 ? value : 1.0;
}

}  // namespace attn
