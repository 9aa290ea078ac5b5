// lessons/learned_heads/captions.hpp — the Learned heads panel's sentences worded from its numbers.
#pragma once

#include <string>
#include <vector>

namespace attn::lessons {

/// The loss plot's caption, worded from its curve: what is plotted (averaged over `stride` steps
/// when > 1) against log V = uniform_loss, the loss of a uniform guess; then where the other
/// positions' training loss ends (other_curve.back()) against log V — within 10% of it "near",
/// above "confidently wrong" (nothing predicts those tokens and no loss is taken there), below
/// "something there was predictable" — and `heldout_other`'s held-out figure at `heldout_step`
/// when heldout_step >= 0. Never throws.
std::string loss_curve_caption(double uniform_loss, const std::vector<double>& other_curve, int stride,
                               double heldout_other, int heldout_step);

}  // namespace attn::lessons
