// lessons/check.hpp — one falsifiable claim of the lesson with what was measured.
//
// Every experiment's result carries its claims as `Check`s; panels show them next to the figure
// and tests assert `pass`. This header has no other dependency, so an experiment includes it alone.
#pragma once

#include <string>

namespace attn {

/// One falsifiable claim with what was measured.
/// pass = (measured <= limit) when expect_at_most, else (measured > limit).
struct Check {
  std::string claim;     ///< e.g. "rows sum to 1: max |sum - 1|"
  double measured = 0;   ///< the figure shown next to the claim
  double limit = 0;      ///< the threshold it is held to
  bool expect_at_most = true;
  bool pass = false;
};
Check check_at_most(std::string claim, double measured, double limit);
Check check_above(std::string claim, double measured, double limit);

}  // namespace attn
