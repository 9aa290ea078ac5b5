// learn/linear_f32_avx2.cpp — the float32 linear layer (learn/linear_f32_impl.hpp) eight floats per
// register, compiled with -mavx2 and contraction off (x86-64 only; core/CMakeLists.txt). Called only
// after a run-time check that the CPU has AVX2 (layers_f32.cpp). The same bits as the SSE2 and wasm
// builds: a wider register runs more independent sums at once, never a different order.
#if !defined(__AVX2__)
#error "linear_f32_avx2.cpp must be compiled with -mavx2"
#endif
#define ATTN_LINEAR_F32_NS linear_f32_avx2
#include "learn/linear_f32_impl.hpp"

namespace attn::learn::detail {
void linear_f32_avx2(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc) {
  linear_f32_avx2::linear(out, inp, weight, bias, n, ic, oc);
}
}  // namespace attn::learn::detail
