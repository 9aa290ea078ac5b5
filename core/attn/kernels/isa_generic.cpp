// attn/kernels/isa_generic.cpp — the fast kernels for the build's baseline instruction set:
// SSE2 on x86-64, wasm simd128 under emscripten (-msimd128, see core/CMakeLists.txt).
#define ATTN_ISA_NS isa_generic
#define ATTN_EIGEN_NS attn_eigen_isa_generic
#include "attn/kernels/isa_impl.hpp"
