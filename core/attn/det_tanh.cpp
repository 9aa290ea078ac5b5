#include "attn/det_tanh.hpp"

#include <cmath>

#include "attn/detmath.hpp"

namespace attn::det {

double tanh(double x) {
  if (x != x) return x;
  const double ax = std::fabs(x);
  if (ax < 1.0) {
    // 1. sinh(x) = x + x³/3! + … + x²¹/21!  (the next term is < 2^-65 relative for |x| < 1).
    const double x2 = x * x;
    double s = 1.0 / 51090942171709440000.0;  // 1/21!
    static constexpr double kInvOddFact[] = {
        1.0 / 121645100408832000.0, 1.0 / 355687428096000.0, 1.0 / 1307674368000.0,
        1.0 / 6227020800.0,         1.0 / 39916800.0,        1.0 / 362880.0,
        1.0 / 5040.0,               1.0 / 120.0,             1.0 / 6.0,
        1.0};
    for (double c : kInvOddFact) s = s * x2 + c;
    const double sh = x * s;
    // 2. cosh = sqrt(1 + sinh²) (sqrt is correctly rounded), tanh = sinh / cosh.
    return sh / std::sqrt(1.0 + sh * sh);
  }
  // 3. |x| >= 1: no cancellation in 1 − e^{−2|x|}; det::exp underflows to 0 for large |x|.
  const double t = exp(-2.0 * ax);
  const double r = (1.0 - t) / (1.0 + t);
  return x < 0 ? -r : r;
}

double sigmoid(double x) {
  if (x != x) return x;
  return 1.0 / (1.0 + exp(-x));
}

double erf(double x) {
  if (x != x) return x;
  const double a = x < 0.0 ? -x : x;
  if (a >= 6.0) return x < 0.0 ? -1.0 : 1.0;
  const double two_a2 = 2.0 * a * a;
  double term = a, sum = a;
  for (int n = 1; n < 400; ++n) {
    term = term * two_a2 / static_cast<double>(2 * n + 1);
    const double next = sum + term;
    if (next == sum) break;
    sum = next;
  }
  const double r = 1.1283791670955126 * exp(-(a * a)) * sum;  // 2/sqrt(π)
  return x < 0.0 ? -r : r;
}

}  // namespace attn::det
