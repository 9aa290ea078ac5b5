// tests/learn/learn_support.hpp — finite differences and fixture comparison for the learning tests.
//
// Finite differences: central differences in double with one Richardson step,
// R = (4·D(h/2) − D(h)) / 3, D(h) = (f(x + h) − f(x − h)) / 2h, whose truncation error is O(h⁴);
// with h = 1e-3 the rounding error is about 1e-16·|f|/h and the truncation error about h⁴. Agreement is judged as the learning
// issue states it: |a − b| / max(|a|, |b|, 1e-8) <= 1e-6.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "attn/random.hpp"

namespace learn_test {

inline double rel_error(double a, double b) {
  return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1e-8});
}

/// Richardson-extrapolated central difference of f at x[i].
inline double numeric_grad(const std::function<double()>& f, double& xi, double h = 1e-3) {
  const double x0 = xi;
  auto central = [&](double step) {
    xi = x0 + step;
    const double up = f();
    xi = x0 - step;
    const double down = f();
    xi = x0;
    return (up - down) / (2.0 * step);
  };
  const double d1 = central(h), d2 = central(h / 2);
  return (4.0 * d2 - d1) / 3.0;
}

struct GradReport {
  int checked = 0, failed = 0;
  double worst = 0.0;
  std::string first_failures;
};

/// Compares analytic[i] with the finite difference of f in x[i] for the listed indices.
inline GradReport check_grads(const std::function<double()>& f, std::vector<double>& x,
                              const std::vector<double>& analytic, const std::vector<size_t>& indices,
                              const std::string& what) {
  GradReport r;
  for (size_t i : indices) {
    const double num = numeric_grad(f, x[i]);
    const double e = rel_error(analytic[i], num);
    ++r.checked;
    r.worst = std::max(r.worst, e);
    if (!(e <= 1e-6)) {
      ++r.failed;
      if (r.failed <= 5) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%s[%zu]: analytic %.12g, numeric %.12g, rel %.3g\n", what.c_str(), i,
                      analytic[i], num, e);
        r.first_failures += buf;
      }
    }
  }
  return r;
}

/// Every index below n, or `count` of them spread evenly (always including the first and last).
inline std::vector<size_t> sample_indices(size_t n, size_t count) {
  std::vector<size_t> out;
  if (n <= count) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (size_t k = 0; k < count; ++k) out.push_back(k * (n - 1) / (count - 1));
  return out;
}

inline std::vector<double> randn(attn::Rng& rng, size_t n, double scale = 1.0) {
  std::vector<double> v(n);
  for (double& x : v) x = scale * rng.normal();
  return v;
}

#define LEARN_CHECK_GRADS(report)                                            \
  do {                                                                       \
    const auto& rep_ = (report);                                             \
    INFO("checked " << rep_.checked << ", worst rel error " << rep_.worst    \
                    << "\n" << rep_.first_failures);                         \
    CHECK(rep_.checked > 0);                                                 \
    CHECK(rep_.failed == 0);                                                 \
  } while (0)

}  // namespace learn_test
