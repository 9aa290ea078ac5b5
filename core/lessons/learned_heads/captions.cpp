#include "lessons/learned_heads/captions.hpp"

#include <cmath>
#include <cstdio>

namespace attn::lessons {

std::string loss_curve_caption(double uniform_loss, const std::vector<double>& other_curve, int stride,
                               double heldout_other, int heldout_step) {
  auto g3 = [](double x) {
    char b[40];
    std::snprintf(b, sizeof b, "%.3g", x);
    return std::string(b);
  };
  std::string s = "Training loss of each step's batch at the predictable positions (the second copy of the run) and "
                  "at the other positions, against log V = " + g3(uniform_loss) + ", the loss of a uniform guess" +
                  (stride > 1 ? ", averaged over " + std::to_string(stride) + " steps" : std::string()) +
                  ". The other positions hold random tokens that nothing predicts, and no loss is taken there.";
  if (other_curve.empty()) return s;
  const double last = other_curve.back();
  s += " Their loss ends at " + g3(last);
  if (std::fabs(last - uniform_loss) <= 0.1 * uniform_loss)
    s += ", near log V: the model stays close to a uniform guess there.";
  else if (last > uniform_loss)
    s += ", above log V: the model grows confident at those positions and is wrong, which a uniform guess "
         "never is.";
  else
    s += ", below log V: something at those positions was predictable in these batches.";
  if (heldout_step >= 0 && std::isfinite(heldout_other))
    s += " Held out at step " + std::to_string(heldout_step) + ": " + g3(heldout_other) + ".";
  return s;
}

}  // namespace attn::lessons
