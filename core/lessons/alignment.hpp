// lessons/alignment.hpp — the lesson's alignment experiment: a constructed cross-attention read
// (the black cat -> le chat noir), contexts = weights·values, and its claims.
#pragma once

#include <string>
#include <vector>

#include "attn/types.hpp"
#include "lessons/check.hpp"

namespace attn {

// Alignment: a constructed cross-attention read (not measured from a model).

struct AlignmentRead {
  std::vector<std::string> queries;  ///< target tokens (rows), e.g. le chat noir
  std::vector<std::string> keys;     ///< source tokens (columns), e.g. the black cat
  Matrix weights;                    ///< Tq×Tk, each row a distribution
  Matrix values;                     ///< Tk×d_v
  Matrix contexts;                   ///< Tq×d_v, contexts = weights·values
  /// contributions[i] is Tk×d_v: row j = weights(i,j)·values(j) (the terms of context i).
  std::vector<Matrix> contributions;
  std::vector<Check> checks;         ///< rows sum to 1; contexts inside the values' hull
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

}  // namespace attn
