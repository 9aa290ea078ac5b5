// attn/det_tanh.hpp — deterministic tanh, logistic sigmoid (additive attention, GRU) and erf (GELU).
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

/// The error function erf(x) = 2/sqrt(π) ∫₀ˣ e^{−t²} dt (torch.erf; GELU's Φ(x) = (1 + erf(x/√2))/2).
/// |x| < 6: Abramowitz & Stegun 7.1.6, erf x = 2/sqrt(π) e^{−x²} Σ_{n≥0} 2ⁿ x^{2n+1} / (1·3···(2n+1)),
/// whose terms are all positive (no cancellation), summed until a term no longer moves the sum;
/// |x| >= 6: ±1 (erfc(6) ≈ 2.2e−17 is below half an ulp of 1). NaN in, NaN out. Accuracy: ~1e−15
/// absolute.
double erf(double x);

}  // namespace attn::det
