// learn/optim.hpp — Adam and global-norm gradient clipping, as PyTorch 1.13 does them.
#pragma once

#include <cstddef>
#include <vector>

namespace attn::learn {

/// torch.optim.Adam's fields and defaults (Kingma & Ba 2015, Algorithm 1, with bias correction).
/// weight_decay is PyTorch Adam's coupled L2 (g ← g + wd·θ before the moments), not AdamW.
struct AdamConfig {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

/// First and second moments (same layout as the parameters) and the step count.
struct AdamState {
  std::vector<double> m, v;
  long step = 0;
};

/// One Adam step over n parameters, in index order: t ← t+1, g ← g + wd·θ, m ← β1 m + (1−β1) g,
/// v ← β2 v + (1−β2) g², θ ← θ − (lr / (1 − β1^t)) · m / (sqrt(v) / sqrt(1 − β2^t) + eps)
/// (torch 1.13's _single_tensor_adam order of operations). Sizes the state on the first call.
void adam_step(double* params, const double* grads, std::size_t n, AdamState& state, const AdamConfig& cfg);

/// torch.nn.utils.clip_grad_norm_: total = sqrt(Σ g²) over all n gradients; if
/// max_norm / (total + 1e-6) < 1 every gradient is multiplied by it. Returns the total norm
/// before clipping.
double clip_grad_norm(double* grads, std::size_t n, double max_norm);

}  // namespace attn::learn
