// attn/det_tanh.hpp — deterministic tanh and logistic sigmoid (additive attention, LSTM).
//
// Built, like attn/detmath.hpp, only from IEEE-754 +, −, ×, ÷, sqrt and attn::det::exp, so
// native and wasm agree to the bit (std::tanh differs between glibc and musl in the last bits).
// Accuracy: a few ulp.
#pragma once

namespace attn::det {

/// tanh(x). |x| < 1: sinh(x) by its Taylor series to x^21/21! (no cancellation near 0), then
/// sinh / sqrt(1 + sinh²); |x| >= 1: (1 − e^{−2|x|}) / (1 + e^{−2|x|}) with the sign of x.
/// tanh(±inf) = ±1; NaN in, NaN out.
double tanh(double x);

/// Logistic sigmoid σ(x) = 1 / (1 + e^{−x}) (PyTorch's torch.sigmoid); σ(−inf) = 0, σ(inf) = 1.
double sigmoid(double x);

}  // namespace attn::det
