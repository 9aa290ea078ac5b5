// learn/linear_f32_avx512.cpp — the float32 linear layer (learn/linear_f32_impl.hpp) sixteen floats
// per register, compiled with -mavx512f and contraction off (x86-64 only; core/CMakeLists.txt). Called
// only after a run-time check that the CPU has AVX-512F (layers_f32.cpp). The same bits as the AVX2,
// SSE2 and wasm builds: a wider register runs more independent sums at once, never a different order.
#if !defined(__AVX512F__)
#error "linear_f32_avx512.cpp must be compiled with -mavx512f"
#endif
#define ATTN_LINEAR_F32_NS linear_f32_avx512
#include "learn/linear_f32_impl.hpp"

namespace attn::learn::detail {
void linear_f32_avx512(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc) {
  linear_f32_avx512::linear(out, inp, weight, bias, n, ic, oc);
}
}  // namespace attn::learn::detail
