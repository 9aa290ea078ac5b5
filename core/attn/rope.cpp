#include "attn/rope.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {

Matrix apply_rope(const Matrix& x, const std::vector<long long>& positions, double base) {
  require_shape_limits(x, "x", "T", "d");
  require_finite(x, "x");
  if (!std::isfinite(base) || !(base > 1.0))
    throw Error(ErrorCode::invalid_field, "RoPE base must be a finite number > 1");
  const Index t = x.rows(), d = x.cols();
  if (!positions.empty() && static_cast<Index>(positions.size()) != t)
    throw Error(ErrorCode::shape_mismatch, "positions has " + std::to_string(positions.size()) +
                                               " entries but x has T=" + std::to_string(t) + " rows");
  Matrix out = x;
  for (Index i = 0; 2 * i + 1 < d; ++i) {
    // θ_i = base^(−2i/d)
    const double theta = 1.0 / det::pow(base, static_cast<double>(2 * i) / static_cast<double>(d));
    for (Index row = 0; row < t; ++row) {
      const long long m = positions.empty() ? row : positions[static_cast<size_t>(row)];
      if (m > 1000000 || m < -1000000)
        throw Error(ErrorCode::invalid_field, "position " + std::to_string(m) + " is outside -1e6..1e6");
      const double angle = static_cast<double>(m) * theta;
      const double c = det::cos(angle), s = det::sin(angle);
      const double a = x(row, 2 * i), b = x(row, 2 * i + 1);
      out(row, 2 * i) = a * c - b * s;
      out(row, 2 * i + 1) = a * s + b * c;
    }
  }
  return out;
}

}  // namespace attn
