#include "learn/optim.hpp"

#include <cmath>

namespace attn::learn {

void adam_step(double* params, const double* grads, std::size_t n, AdamState& st, const AdamConfig& cfg) {
  if (st.m.size() != n) {
    st.m.assign(n, 0.0);
    st.v.assign(n, 0.0);
    st.step = 0;
  }
  st.step += 1;
  // β^t by repeated multiplication: exact integer powers, the same on every platform.
  double b1t = 1.0, b2t = 1.0;
  for (long i = 0; i < st.step; ++i) {
    b1t *= cfg.beta1;
    b2t *= cfg.beta2;
  }
  const double bias_correction1 = 1.0 - b1t;
  const double bias_correction2_sqrt = std::sqrt(1.0 - b2t);
  const double step_size = cfg.lr / bias_correction1;
  for (std::size_t i = 0; i < n; ++i) {
    double g = grads[i];
    if (cfg.weight_decay != 0.0) g = g + cfg.weight_decay * params[i];
    st.m[i] = st.m[i] * cfg.beta1 + g * (1.0 - cfg.beta1);
    st.v[i] = st.v[i] * cfg.beta2 + (1.0 - cfg.beta2) * (g * g);
    const double denom = std::sqrt(st.v[i]) / bias_correction2_sqrt + cfg.eps;
    params[i] = params[i] - step_size * (st.m[i] / denom);
  }
}

double clip_grad_norm(double* grads, std::size_t n, double max_norm) {
  double sq = 0.0;
  for (std::size_t i = 0; i < n; ++i) sq += grads[i] * grads[i];
  const double total = std::sqrt(sq);
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1.0)
    for (std::size_t i = 0; i < n; ++i) grads[i] *= coef;
  return total;
}

}  // namespace attn::learn
