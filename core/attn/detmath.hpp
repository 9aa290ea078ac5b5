// attn/detmath.hpp — deterministic elementary functions.
//
// Why: glibc (native) and musl (emscripten) implement exp/log/sin/cos with
// different code paths (glibc even switches to an FMA variant at run time), so
// their last bits can differ. The lesson promises "same seed, same numbers,
// native and browser", so every transcendental the core uses goes through
// these functions: plain IEEE-754 double +, −, ×, ÷, sqrt and ldexp/frexp,
// which are exactly specified, compiled with -ffp-contract=off (no fused
// multiply-add). Accuracy is a few ulp — far inside the 1e-12 the checks use.
#pragma once

namespace attn::det {

/// e^x. Overflows to +inf above ~709.78, underflows to 0 below ~-745.13; NaN in, NaN out.
double exp(double x);
/// Natural log for x > 0; log(0) = -inf; x < 0 or NaN gives NaN.
double log(double x);
/// sin(x) / cos(x) in radians, for |x| <= 1e6 (argument reduction by a 3-part π/2).
/// Larger |x| gives NaN rather than a silently wrong value.
double sin(double x);
double cos(double x);
/// base^e for base > 0, computed as exp(e·log(base)).
double pow(double base, double e);

}  // namespace attn::det
