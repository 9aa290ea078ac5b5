// tests/kernels/test_fast_exp.cpp — the vectorised exp of the softmax (simd.hpp) against std::exp.
// Bounds: float relative error <= 4 ulp (4.8e-7) on [−87.3, 88.3]; double <= 4 ulp (8.9e-16) on
// [−708, 709]; edge values exact: exp(0) = 1, exp(−inf) = 0, NaN → NaN, overflow → +inf,
// results below the smallest normal → 0.
#include <cmath>
#include <limits>
#include <vector>

#include "support/support.hpp"

using namespace attn_test;
namespace kn = attn::kernels;

namespace {

template <class T>
double worst_relative_error(T lo, T hi, int n) {
  std::vector<T> x(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = lo + (hi - lo) * static_cast<T>(i) / static_cast<T>(n - 1);
  std::vector<T> y = x;
  kn::exp_inplace(y.data(), y.size());  // n is odd: exercises the padded tail
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    const long double want = std::exp(static_cast<long double>(x[static_cast<size_t>(i)]));
    const double rel = static_cast<double>(std::fabs((static_cast<long double>(y[static_cast<size_t>(i)]) - want) / want));
    if (!(rel <= worst)) worst = rel;
  }
  return worst;
}

}  // namespace

TEST_CASE("vectorised exp is accurate to a few ulp") {
  IsaGuard guard;
  for (kn::Isa isa : kn::available_isas()) {
    REQUIRE(kn::set_isa(isa));
    const double ef = worst_relative_error<float>(-87.3f, 88.3f, 100001);
    const double ed = worst_relative_error<double>(-708.0, 709.0, 100001);
    const double ed_small = worst_relative_error<double>(-1.0, 1.0, 10001);
    INFO("isa " << isa_label(isa) << ": float " << ef << ", double " << ed << " (|x| <= 1: " << ed_small << ")");
    CHECK(ef <= 4 * std::numeric_limits<float>::epsilon());
    CHECK(ed <= 4 * std::numeric_limits<double>::epsilon());
    CHECK(ed_small <= 4 * std::numeric_limits<double>::epsilon());
  }
}

TEST_CASE("vectorised exp edge values") {
  IsaGuard guard;
  for (kn::Isa isa : kn::available_isas()) {
    REQUIRE(kn::set_isa(isa));
    INFO("isa " << isa_label(isa));
    const float inf_f = std::numeric_limits<float>::infinity();
    std::vector<float> f = {0.0f, -inf_f, std::nanf(""), 89.0f, inf_f, -90.0f, -87.0f, 1.0f, -1.0f};
    kn::exp_inplace(f.data(), f.size());
    CHECK(f[0] == 1.0f);
    CHECK(f[1] == 0.0f);
    CHECK(std::isnan(f[2]));
    CHECK(f[3] == inf_f);
    CHECK(f[4] == inf_f);
    CHECK(f[5] == 0.0f);
    CHECK(f[6] > 0.0f);
    CHECK(std::fabs(f[7] - 2.7182817f) <= 2e-7f * 2.7182817f);
    const double inf_d = std::numeric_limits<double>::infinity();
    std::vector<double> d = {0.0, -inf_d, std::nan(""), 710.0, inf_d, -746.0, -700.0};
    kn::exp_inplace(d.data(), d.size());
    CHECK(d[0] == 1.0);
    CHECK(d[1] == 0.0);
    CHECK(std::isnan(d[2]));
    CHECK(d[3] == inf_d);
    CHECK(d[4] == inf_d);
    CHECK(d[5] == 0.0);
    CHECK(d[6] > 0.0);
  }
}
