#include "attn/detmath.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace attn::det {
namespace {
// ln 2 split so that k·kLn2Hi is exact for |k| < 2^11 (Cody & Waite).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double exp(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return kInf;
  if (x < -745.1332191019412) return 0.0;
  // 1. x = k·ln2 + r with |r| <= ln2/2.
  // Round to nearest even by the 1.5·2^52 shift (|x·kInvLn2| < 1100 here): what std::nearbyint gives
  // in the default rounding mode, without a libm call. volatile-free: -ffp-contract=off and no
  // -ffast-math keep the two additions.
  constexpr double kShift = 6755399441055744.0;  // 1.5 · 2^52
  const double k = (x * kInvLn2 + kShift) - kShift;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // 2. e^r by its Taylor series to r^17/17! (< 2^-60 relative for |r| <= 0.35), Horner form.
  double p = 1.0 / 355687428096000.0;  // 1/17!
  static constexpr double kInvFact[] = {
      1.0 / 20922789888000.0, 1.0 / 1307674368000.0, 1.0 / 87178291200.0, 1.0 / 6227020800.0,
      1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
      1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  for (double c : kInvFact) p = p * r + c;
  // 3. scale by 2^k exactly (ldexp rounds once if the result is subnormal).
  const int ki = static_cast<int>(k);
  if (ki >= -1021 && ki <= 1023) {  // p·2^k is normal: multiplying by an exact power of two is exact
    const std::uint64_t bits = static_cast<std::uint64_t>(ki + 1023) << 52;
    double scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
  }
  return std::ldexp(p, ki);
}

double log(double x) {
  if (x != x || x < 0.0) return kNaN;
  if (x == 0.0) return -kInf;
  if (x == kInf) return kInf;
  // 1. x = m·2^e with m in [sqrt(1/2), sqrt(2)).
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    e -= 1;
  }
  // 2. log m = 2·atanh(f), f = (m−1)/(m+1), |f| <= 0.1716; series to f^41.
  const double f = (m - 1.0) / (m + 1.0);
  const double f2 = f * f;
  double s = 1.0 / 41.0;
  for (int n = 39; n >= 1; n -= 2) s = s * f2 + 1.0 / n;
  const double log_m = 2.0 * f * s;
  // 3. add e·ln2 in two parts so the large term stays exact.
  return (e * kLn2Hi + (log_m + e * kLn2Lo));
}

namespace {
// π/2 in three parts (each with trailing zero bits so k·part is exact for |k| < 2^20).
constexpr double kPio2_1 = 1.57079632673412561417e+00;
constexpr double kPio2_2 = 6.07710050630396597660e-11;
constexpr double kPio2_3 = 2.02226624871116645580e-21;
constexpr double kTwoOverPi = 6.36619772367581382433e-01;

// The polynomial in r² with these coefficients, highest power first, by Horner from s = 0
// (each step one rounded multiply and one rounded add: this file is built with -ffp-contract=off).
double horner_r2(const double (&coeffs)[12], double r) {
  const double r2 = r * r;
  double s = 0.0;
  for (double c : coeffs) s = s * r2 + c;
  return s;
}

// sin and cos of |r| <= π/4 by Taylor series (to r^23 / r^22).
double sin_kernel(double r) {
  static constexpr double kCoeffs[] = {-1.0 / 25852016738884976640000.0, 1.0 / 51090942171709440000.0,
                          -1.0 / 121645100408832000.0, 1.0 / 355687428096000.0,
                          -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0,
                          1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0, 1.0};
  return r * horner_r2(kCoeffs, r);
}
double cos_kernel(double r) {
  static constexpr double kCoeffs[] = {-1.0 / 1124000727777607680000.0, 1.0 / 2432902008176640000.0,
                          -1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
                          -1.0 / 87178291200.0, 1.0 / 479001600.0, -1.0 / 3628800.0,
                          1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0, -0.5, 1.0};
  return horner_r2(kCoeffs, r);
}
// Reduce x to r in [-π/4, π/4] and the quadrant n mod 4.
bool reduce(double x, double& r, int& quadrant) {
  if (!(std::fabs(x) <= 1e6)) return false;
  const double k = std::nearbyint(x * kTwoOverPi);
  r = ((x - k * kPio2_1) - k * kPio2_2) - k * kPio2_3;
  quadrant = static_cast<int>(static_cast<long long>(k) & 3);
  return true;
}
}  // namespace

double sin(double x) {
  double r;
  int q;
  if (!reduce(x, r, q)) return kNaN;
  switch (q) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
  }
}

double cos(double x) {
  double r;
  int q;
  if (!reduce(x, r, q)) return kNaN;
  switch (q) {
    case 0: return cos_kernel(r);
    case 1: return -sin_kernel(r);
    case 2: return -cos_kernel(r);
    default: return sin_kernel(r);
  }
}

double pow(double base, double e) { return exp(e * log(base)); }

}  // namespace attn::det
