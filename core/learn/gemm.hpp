// learn/gemm.hpp — the accumulating matrix product under every learning layer and the softmaxes'
// shifted exp, with the widest registers the machine has (learn/gemm_lanes.hpp explains why the
// width never changes a bit).
#pragma once

#include <cstdint>

namespace attn::learn {

/// C[i·ldc + j] += Σ_p A[i·a_rs + p·a_cs] · B[p·ldb + j] for i < M, j < N (row-major C M×N with
/// leading dimension ldc, B K×N with ldb; A addressed by row and column strides, so Aᵀ is a
/// stride swap). Each sum runs C's value first, then p ascending, one rounding per multiply and
/// per add: the bits of the plain triple loop on every target and instruction set. Natively on
/// x86-64 it runs 4 doubles per register (AVX2) when the CPU has them, else 2 (SSE2); in wasm 2
/// (simd128). No checks (an inner loop): callers pass valid shapes.
void gemm_acc(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int m, int n,
              int k);

/// The floating-point operations of every matrix product since the program started: 2·M·N·K per
/// gemm_acc call (and per linear_forward of few rows, which takes dot products instead), a
/// multiply and an add per term. Elementwise work (softmax, tanh, sigmoid, LayerNorm, Adam) is
/// not counted. Benchmarks read it before and after a step: the FLOPs a step's products did.
std::uint64_t gemm_flops();

/// The register width gemm_acc uses on this machine, in doubles (2 or 4), and its name
/// ("sse2/simd128", "avx2"): benchmarks print it.
int gemm_lanes();
const char* gemm_isa_name();

/// Tests only: force a width (2 or 4; a width the CPU lacks falls back to 2) so that each build
/// can be compared with the others; 0 restores the automatic choice.
void gemm_force_lanes(int lanes);

/// out[j] = det::exp(in[j] − shift) for j < n (out may equal in): the bits of that scalar call,
/// computed 4 (AVX2) or 2 doubles at a time (learn/gemm_lanes.hpp). The softmaxes' exp(z − max).
void exp_shifted(double* out, const double* in, double shift, int n);

/// out[j] = det::tanh(a[j] + b[j]) and det::sigmoid(a[j] + b[j]) for j < n (out may be a or b):
/// the bits of those scalar calls, in lanes (the GRU's gates, Bahdanau's tanh).
void tanh_of_sum(double* out, const double* a, const double* b, int n);
void sigmoid_of_sum(double* out, const double* a, const double* b, int n);

/// out[r·n + j] = det::tanh(a[r·a_rs + j] + b[r·n + j]) for r < rows, j < n: the bits of those
/// scalar calls (out may be b; it may be a only when rows is 1). a_rs = 0 adds one row a to every
/// row of b: Bahdanau's tanh(W_s s + W_h h_j) over all j at once.
void tanh_of_rows(double* out, const double* a, long a_rs, const double* b, int rows, int n);

namespace detail {
void exp_shifted_avx2(double* out, const double* in, double shift, int n);
void tanh_of_rows_avx2(double* out, const double* a, long a_rs, const double* b, int rows, int n);
void sigmoid_of_sum_avx2(double* out, const double* a, const double* b, int n);
void gemm_acc_avx2(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int m, int n,
                   int k);
}  // namespace detail

}  // namespace attn::learn
