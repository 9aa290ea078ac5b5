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

// check(isa) with each instruction set the machine has active in turn (the automatic one restored after).
template <class Check>
void for_each_isa(Check&& check) {
  IsaGuard guard;
  for (kn::Isa isa : kn::available_isas()) {
    REQUIRE(kn::set_isa(isa));
    check(isa);
  }
}

}  // namespace

TEST_CASE("vectorised exp is accurate to a few ulp") {
  for_each_isa([](kn::Isa isa) {
    const double ef = worst_relative_error<float>(-87.3f, 88.3f, 100001);
    const double ed = worst_relative_error<double>(-708.0, 709.0, 100001);
    const double ed_small = worst_relative_error<double>(-1.0, 1.0, 10001);
    INFO("isa " << isa_label(isa) << ": float " << ef << ", double " << ed << " (|x| <= 1: " << ed_small << ")");
    CHECK(ef <= 4 * std::numeric_limits<float>::epsilon());
    CHECK(ed <= 4 * std::numeric_limits<double>::epsilon());
    CHECK(ed_small <= 4 * std::numeric_limits<double>::epsilon());
  });
}

namespace {

// exp_inplace over {0, −inf, NaN, above_overflow, +inf, below_underflow, near_underflow, extra...}:
// exactly 1, 0, NaN, +inf, +inf, 0 and a positive number; returns the results (extra ones after).
template <class T>
std::vector<T> check_exp_edges(T above_overflow, T below_underflow, T near_underflow, std::vector<T> extra = {}) {
  const T inf = std::numeric_limits<T>::infinity();
  std::vector<T> x = {T(0), -inf, std::numeric_limits<T>::quiet_NaN(), above_overflow, inf, below_underflow,
                      near_underflow};
  x.insert(x.end(), extra.begin(), extra.end());
  kn::exp_inplace(x.data(), x.size());
  INFO((sizeof(T) == 4 ? "float" : "double"));
  CHECK(x[0] == T(1));
  CHECK(x[1] == T(0));
  CHECK(std::isnan(x[2]));
  CHECK(x[3] == inf);
  CHECK(x[4] == inf);
  CHECK(x[5] == T(0));
  CHECK(x[6] > T(0));
  return x;
}

}  // namespace

TEST_CASE("vectorised exp edge values") {
  for_each_isa([](kn::Isa isa) {
    INFO("isa " << isa_label(isa));
    const std::vector<float> f = check_exp_edges<float>(89.0f, -90.0f, -87.0f, {1.0f, -1.0f});
    CHECK(std::fabs(f[7] - 2.7182817f) <= 2e-7f * 2.7182817f);
    check_exp_edges<double>(710.0, -746.0, -700.0);
  });
}
