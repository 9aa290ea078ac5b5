// tests/attn/test_detmath_positions.cpp — attn::det elementary functions and sinusoidal positions.
//
// det::exp/log/sin/cos are compared with the platform's std:: functions (glibc natively, musl
// under node), measured in ulps of the std:: result; for sin/cos near a zero of the function
// the error is measured against ulp(1) instead (the absolute error of the argument reduction).
// Limits: exp, log <= 2 ulp; sin, cos <= 4 ulp. Measured on the native build (glibc):
// exp 1, log 1, sin 2, cos 2 ulp worst case over these sweeps.
#include <attn/detmath.hpp>
#include <attn/positions.hpp>

#include <cstdint>
#include <limits>

#include "support/support.hpp"

using namespace attn_test;

namespace {
// Distance in units in the last place of `ref` (0 when equal).
double ulps(double x, double ref) {
  if (x == ref) return 0.0;
  const double ulp = std::nextafter(std::fabs(ref), INFINITY) - std::fabs(ref);
  return std::fabs(x - ref) / ulp;
}
const double kUlp1 = std::numeric_limits<double>::epsilon();  // ulp(1) = 2^-52

struct Sweep {
  double worst = 0.0, at = 0.0;
  void see(double e, double x) {
    if (e > worst || e != e) worst = e, at = x;
  }
};
}  // namespace

TEST_CASE("detmath: exp matches std::exp within 2 ulp", "[detmath]") {
  Sweep s;
  // 200001 points over [-700, 700] plus small arguments.
  for (int i = -100000; i <= 100000; ++i) {
    const double x = 0.007 * i + 1e-7 * (i % 13);
    s.see(ulps(attn::det::exp(x), std::exp(x)), x);
  }
  for (int i = -2000; i <= 2000; ++i) {
    const double x = i * 1e-9;
    s.see(ulps(attn::det::exp(x), std::exp(x)), x);
  }
  for (int i = 0; i <= 40000; ++i) {  // subnormal results (-745.1 .. -708) and near overflow (700 .. 709.78)
    const double lo = -745.1 + i * (745.1 - 708.0) / 40000, hi = 700.0 + i * 9.78 / 40000;
    s.see(ulps(attn::det::exp(lo), std::exp(lo)), lo);
    s.see(ulps(attn::det::exp(hi), std::exp(hi)), hi);
  }
  INFO("worst " << fmt17(s.worst) << " ulp at x = " << fmt17(s.at));
  CHECK(s.worst <= 2.0);
  CHECK(attn::det::exp(0.0) == 1.0);
  CHECK(attn::det::exp(1.0) == Approx(2.718281828459045).epsilon(1e-15));
  CHECK(attn::det::exp(710.0) == INFINITY);
  CHECK(attn::det::exp(-746.0) == 0.0);
  CHECK(attn::det::exp(-INFINITY) == 0.0);
  CHECK(attn::det::exp(INFINITY) == INFINITY);
  CHECK(std::isnan(attn::det::exp(std::nan(""))));
  // Subnormal range: within 2 ulp of the subnormal result where it has full-ish precision.
  CHECK(ulps(attn::det::exp(-720.0), std::exp(-720.0)) <= 2.0);
}

TEST_CASE("detmath: log matches std::log within 2 ulp", "[detmath]") {
  Sweep s;
  for (int i = -3000; i <= 3000; ++i) {  // x = 10^(i/10) · (1 + small), 1e-300 .. 1e300
    const double x = std::pow(10.0, i / 10.0) * (1.0 + 1e-3 * (i % 7));
    s.see(ulps(attn::det::log(x), std::log(x)), x);
  }
  for (int i = 1; i <= 100000; ++i) {  // around 1, where log is small
    const double x = 0.5 + i * 1e-5;
    const double ref = std::log(x);
    // Near x = 1 the result is tiny: measure against ulp(1) there.
    s.see(std::min(ulps(attn::det::log(x), ref), std::fabs(attn::det::log(x) - ref) / kUlp1), x);
  }
  INFO("worst " << fmt17(s.worst) << " ulp at x = " << fmt17(s.at));
  CHECK(s.worst <= 2.0);
  CHECK(attn::det::log(1.0) == 0.0);
  CHECK(attn::det::log(0.0) == -INFINITY);
  CHECK(std::isnan(attn::det::log(-1.0)));
  CHECK(std::isnan(attn::det::log(std::nan(""))));
  CHECK(attn::det::log(INFINITY) == INFINITY);
  CHECK(ulps(attn::det::log(5e-324), std::log(5e-324)) <= 2.0);
}

TEST_CASE("detmath: sin and cos match std within 4 ulp", "[detmath]") {
  Sweep ss, sc;
  auto err = [](double got, double ref) {
    // ulps of the result, or absolute error in ulp(1) where the result is small (< 1/4).
    return std::fabs(ref) < 0.25 ? std::min(ulps(got, ref), std::fabs(got - ref) / kUlp1) : ulps(got, ref);
  };
  for (int i = -200000; i <= 200000; ++i) {  // |x| <= 100
    const double x = 5e-4 * i + 1e-9 * (i % 11);
    ss.see(err(attn::det::sin(x), std::sin(x)), x);
    sc.see(err(attn::det::cos(x), std::cos(x)), x);
  }
  for (int i = 0; i < 20000; ++i) {  // up to the documented 1e6
    const double x = 50.0 * i + 0.123;
    ss.see(err(attn::det::sin(x), std::sin(x)), x);
    sc.see(err(attn::det::cos(x), std::cos(x)), x);
  }
  {
    INFO("sin worst " << fmt17(ss.worst) << " at x = " << fmt17(ss.at));
    CHECK(ss.worst <= 4.0);
  }
  {
    INFO("cos worst " << fmt17(sc.worst) << " at x = " << fmt17(sc.at));
    CHECK(sc.worst <= 4.0);
  }
  CHECK(attn::det::sin(0.0) == 0.0);
  CHECK(attn::det::cos(0.0) == 1.0);
  CHECK(std::isnan(attn::det::sin(2e6)));  // beyond the documented range: NaN, not a wrong value
  CHECK(std::isnan(attn::det::cos(-2e6)));
  CHECK(std::isnan(attn::det::sin(std::nan(""))));
}

TEST_CASE("detmath: pow", "[detmath]") {
  CHECK(attn::det::pow(10000.0, 0.5) == Approx(100.0).epsilon(1e-14));
  CHECK(attn::det::pow(2.0, 10.0) == Approx(1024.0).epsilon(1e-14));
  CHECK(attn::det::pow(10000.0, 0.0) == 1.0);
  for (int i = 1; i <= 64; ++i) {
    const double e = i / 64.0;
    INFO("10000^" << e);
    CHECK(attn::det::pow(10000.0, e) == Approx(std::pow(10000.0, e)).epsilon(1e-14));
  }
}

TEST_CASE("positions: sinusoidal encoding against hand values", "[positions]") {
  // PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)); d = 4:
  // columns 0, 1 use frequency 1; columns 2, 3 use 1/10000^(2/4) = 1/100.
  const Matrix pe = attn::sinusoidal_positions(3, 4);
  REQUIRE(pe.rows() == 3);
  REQUIRE(pe.cols() == 4);
  const double tol = 1e-15;
  CHECK_MATRIX_NEAR(pe.row(0), M({{0, 1, 0, 1}}), 0.0);
  CHECK_MATRIX_NEAR(pe.row(1), M({{std::sin(1.0), std::cos(1.0), std::sin(0.01), std::cos(0.01)}}), tol);
  CHECK_MATRIX_NEAR(pe.row(2), M({{std::sin(2.0), std::cos(2.0), std::sin(0.02), std::cos(0.02)}}), tol);

  SECTION("odd d_model and a longer sequence against the formula") {
    const Index t = 50, d = 7;
    const Matrix p = attn::sinusoidal_positions(t, d);
    Matrix ref(t, d);
    for (Index pos = 0; pos < t; ++pos)
      for (Index c = 0; c < d; ++c) {
        const double two_i = static_cast<double>(c - c % 2);
        const double angle = static_cast<double>(pos) / std::pow(10000.0, two_i / static_cast<double>(d));
        ref(pos, c) = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
      }
    CHECK_MATRIX_NEAR(p, ref, 1e-13);  // angles up to 49 carry a few ulp of the frequency
  }
}
