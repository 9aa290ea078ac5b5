#include "lessons/check.hpp"

#include <cmath>
#include <cstdio>
#include <utility>

namespace attn {

Check check_at_most(std::string claim, double measured, double limit) {
  return Check{std::move(claim), measured, limit, true, measured <= limit};
}
Check check_above(std::string claim, double measured, double limit) {
  return Check{std::move(claim), measured, limit, false, measured > limit};
}


std::size_t checks_held(const std::vector<Check>& checks) {
  std::size_t n = 0;
  for (const Check& c : checks) n += c.pass ? 1 : 0;
  return n;
}

std::string measured_text(const Check& c) {
  char buf[64];
  const double m = c.measured;
  const bool rounding = c.expect_at_most && c.pass && c.limit <= 1e-6 && std::isfinite(m);
  if (rounding && m == 0.0) return "0";
  std::snprintf(buf, sizeof buf, "%.2g", rounding ? std::fabs(m) : m);
  return rounding ? "0 (rounding: " + std::string(buf) + ")" : std::string(std::isnan(m) ? "not a number" : buf);
}

}  // namespace attn
