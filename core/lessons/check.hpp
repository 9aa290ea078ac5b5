// lessons/check.hpp — one falsifiable claim of the lesson with what was measured.
//
// Every experiment's result carries its claims as `Check`s; panels show them next to the figure
// and tests assert `pass`. This header has no other dependency, so an experiment includes it alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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
/// The claim "measured <= limit" (an error held to a tolerance, e.g. max |row sum − 1| <= 1e-12),
/// with pass computed here; the units are the measured figure's. Never throws (NaN fails).
Check check_at_most(std::string claim, double measured, double limit);
/// The claim "measured > limit" (an effect that must be visible, e.g. equivariance breaking by more
/// than 1e-3), with pass computed here. Never throws (NaN fails).
Check check_above(std::string claim, double measured, double limit);

/// How many of `checks` pass: the panels' one line "N of M claims hold".
std::size_t checks_held(const std::vector<Check>& checks);
/// The measured figure as a learner reads it, to 2 significant digits. A claim that an error stays
/// at rounding size (at most a limit of 1e-6 or less) and holds reads "0" when it is exactly 0 and
/// "0 (rounding: 1.1e-16)" otherwise, not a bare 1.1e-16 that looks like a real effect.
std::string measured_text(const Check& c);

}  // namespace attn
