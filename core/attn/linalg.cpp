#include "attn/linalg.hpp"

#include <cmath>

#include "attn/error.hpp"

namespace attn {

std::string shape_str(const Matrix& m) {
  return std::to_string(m.rows()) + "x" + std::to_string(m.cols());
}

Matrix matmul(const Matrix& a, const Matrix& b, const std::string& what) {
  if (a.cols() != b.rows())
    throw Error(ErrorCode::shape_mismatch, what + ": inner sizes differ (" + shape_str(a) +
                                               " times " + shape_str(b) + ")");
  Matrix c = Matrix::Zero(a.rows(), b.cols());
  // Loop order i, k, j: each c(i,j) still receives its terms in k order.
  for (Index i = 0; i < a.rows(); ++i)
    for (Index k = 0; k < a.cols(); ++k) {
      const double aik = a(i, k);
      for (Index j = 0; j < b.cols(); ++j) c(i, j) += aik * b(k, j);
    }
  return c;
}

Vector matvec(const Matrix& w, const Vector& x) {
  Vector y = Vector::Zero(w.rows());
  for (Index i = 0; i < w.rows(); ++i)
    for (Index j = 0; j < w.cols(); ++j) y(i) += w(i, j) * x(j);
  return y;
}

Matrix permute_rows(const Matrix& m, const std::vector<int>& p) {
  Matrix out(static_cast<Index>(p.size()), m.cols());
  for (size_t i = 0; i < p.size(); ++i) out.row(static_cast<Index>(i)) = m.row(p[i]);
  return out;
}

double max_abs_diff(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw Error(ErrorCode::shape_mismatch,
                "cannot compare a " + shape_str(a) + " matrix with a " + shape_str(b) + " one");
  double m = 0.0;
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j) {
      const double d = std::fabs(a(i, j) - b(i, j));
      if (d > m || d != d) m = d;
    }
  return m;
}

void require_finite(const Matrix& m, const std::string& name) {
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j)))
        throw Error(ErrorCode::non_finite, name + "[" + std::to_string(i) + "][" +
                                               std::to_string(j) + "] is " +
                                               (std::isnan(m(i, j)) ? "NaN" : "infinite") +
                                               "; every entry must be a finite number");
}

void require_shape_limits(const Matrix& m, const std::string& name, const char* rows_name,
                          const char* cols_name) {
  if (m.rows() == 0 || m.cols() == 0)
    throw Error(ErrorCode::empty_sequence, name + " is " + shape_str(m) + ": " + rows_name +
                                               " and " + cols_name + " must both be at least 1");
  if (m.rows() > kMaxTokens)
    throw Error(ErrorCode::too_large, name + " has " + rows_name + "=" + std::to_string(m.rows()) +
                                          " rows; the limit is " + std::to_string(kMaxTokens));
  if (m.cols() > kMaxWidth)
    throw Error(ErrorCode::too_large, name + " has " + cols_name + "=" + std::to_string(m.cols()) +
                                          "; the limit is " + std::to_string(kMaxWidth));
}

}  // namespace attn
