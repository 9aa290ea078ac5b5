// attn/linalg.hpp — small fixed-order linear algebra and input checks.
//
// Why not Eigen's operator*: its GEMM picks a blocking and SIMD path per
// platform (SSE/AVX natively, scalar in wasm), which changes the order of the
// additions and hence the last bits. These loops sum in index order on every
// platform, so native and browser results agree to the bit. They are the
// reference path for teaching sizes; speed kernels live elsewhere.
#pragma once

#include <string>
#include <vector>

#include "attn/types.hpp"

namespace attn {

/// Documented size limits; beyond them functions throw Error(too_large).
inline constexpr Index kMaxTokens = 4096;         ///< Tq, Tk
inline constexpr Index kMaxWidth = 4096;          ///< d_model, d_k, d_v, d_out, h·d_k
inline constexpr Index kMaxPairs = 4096 * 1024;   ///< Tq·Tk (4,194,304 scores)

/// C = A·B, A: n×m, B: m×p → n×p; each entry summed over m in index order.
/// Throws Error(shape_mismatch) when A.cols() != B.rows(), naming `what`.
Matrix matmul(const Matrix& a, const Matrix& b, const std::string& what = "A·B");

/// y = W·x, W: n×m, x: m → n; each entry summed over m in index order (W multiplies a column
/// vector, as in the papers' notation). No shape check: the caller has checked W.cols() == x.size().
Vector matvec(const Matrix& w, const Vector& x);

/// P·M: row i of the result is row p[i] of m (p a permutation of 0..m.rows()−1, checked by the
/// caller; p.size() rows out, each m.cols() wide).
Matrix permute_rows(const Matrix& m, const std::vector<int>& p);

/// max |a − b| over all entries. Throws Error(shape_mismatch) if shapes differ.
double max_abs_diff(const Matrix& a, const Matrix& b);

/// Throws Error(non_finite) naming `name[row][col]` at the first NaN/inf entry.
void require_finite(const Matrix& m, const std::string& name);

/// Throws Error(empty_sequence) if rows or cols are 0 and Error(too_large) past
/// the limits above; `rows_name`/`cols_name` are the field's terms (e.g. "Tq", "d_k").
void require_shape_limits(const Matrix& m, const std::string& name, const char* rows_name,
                          const char* cols_name);

/// "3x2" for error messages.
std::string shape_str(const Matrix& m);

}  // namespace attn
