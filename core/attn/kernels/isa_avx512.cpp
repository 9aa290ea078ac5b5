// attn/kernels/isa_avx512.cpp — the fast kernels compiled with AVX-512 (F, DQ, VL, BW) and FMA
// (x86-64 only; see core/CMakeLists.txt): 16-float / 8-double vectors and 32 vector registers.
// Only called after a run-time check that the CPU (and the OS) support them (fast_attention.cpp).
#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__) || !defined(__AVX512BW__) || \
    !defined(__FMA__)
#error "isa_avx512.cpp must be compiled with -mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma"
#endif
#define ATTN_ISA_NS isa_avx512
#define ATTN_EIGEN_NS attn_eigen_isa_avx512
#include "attn/kernels/isa_impl.hpp"
