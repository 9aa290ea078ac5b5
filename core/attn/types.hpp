// attn/types.hpp — the matrix types every part of the core shares.
//
// Shapes: rows are positions (tokens), columns are features.
// Storage is Eigen::RowMajor so that row i of a Tq×Tk weight matrix is
// contiguous and can be handed to a heatmap texture as-is (row = query).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace attn {

using Index = Eigen::Index;
/// Dense double matrix, row-major (positions × features, or queries × keys).
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Allowed mask, row-major Tq×Tk: true = this query may attend to this key.
/// (PyTorch's nn.MultiheadAttention uses the opposite: true = blocked.)
using BoolMatrix = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;

}  // namespace attn
