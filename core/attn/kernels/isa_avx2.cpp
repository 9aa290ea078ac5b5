// attn/kernels/isa_avx2.cpp — the fast kernels compiled with -mavx2 -mfma (x86-64 only; see
// core/CMakeLists.txt). Only called after a run-time check that the CPU has AVX2 and FMA
// (fast_attention.cpp), so the library still runs on older x86-64 machines.
#if !defined(__AVX2__) || !defined(__FMA__)
#error "isa_avx2.cpp must be compiled with -mavx2 -mfma"
#endif
#define ATTN_ISA_NS isa_avx2
#define ATTN_EIGEN_NS attn_eigen_isa_avx2
#include "attn/kernels/isa_impl.hpp"
