// attn/kernels/isa.hpp — the plain-data interface between the kernel API (fast_attention.cpp)
// and the kernels compiled once per instruction set (isa_generic.cpp, isa_avx2.cpp,
// isa_avx512.cpp).
// Internal header: no Eigen, no std containers, no exceptions cross it, so that nothing inline
// is shared between files compiled with different -m flags (see simd.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn::kernels::detail {

/// An allowed mask described, not stored (true = query i may attend to key j); the AND of:
///   causal:   j <= i + causal_offset
///   windowed: |i − j| <= window
///   key_valid (if not null): key_valid[j] != 0        (Tk flags)
///   allowed   (if not null): allowed[i·allowed_stride + j]  (row-major Tq×Tk, Eigen bool data)
struct MaskView {
  bool causal;
  std::ptrdiff_t causal_offset;
  bool windowed;
  std::ptrdiff_t window;  ///< clamped to <= Tq + Tk by the API
  const unsigned char* key_valid;
  const bool* allowed;
  std::ptrdiff_t allowed_stride;
};

/// One call of a kernel. Matrices are row-major with leading dimensions ld* (>= their width).
/// Zero-initialise (`KernelArgs<T> a{}`) and fill in.
template <class T>
struct KernelArgs {
  const T* q;  ///< Tq×d_k
  const T* k;  ///< Tk×d_k
  const T* v;  ///< Tk×d_v
  std::ptrdiff_t ldq, ldk, ldv;
  std::ptrdiff_t tq, tk, dk, dv;
  T scale;
  MaskView mask;
  std::ptrdiff_t tile_q, tile_k;  ///< tiled only, >= 1
  T* out;                         ///< Tq×d_v, leading dimension dv
  T* row_max;                     ///< optional, Tq: the softmax statistics m_i
  T* row_sum;                     ///< optional, Tq: ℓ_i = Σ_j exp(s_ij − m_i)
  unsigned char* empty;           ///< Tq flags out: row had no allowed key
  T* workspace;                   ///< tiled: tiled_workspace_elems(); dense: Tq×Tk (the weights)
  std::uint64_t (*clock_ns)();    ///< optional: phase timing (ns_* below)
  // Results.
  std::ptrdiff_t bad_i, bad_j;  ///< first non-finite allowed score found (−1: none)
  std::uint64_t ns_scores, ns_softmax, ns_values;
};

/// Query rows of a tile rounded up to this (the widest vector slab of any build: 2 × 16 floats
/// with AVX-512). One value for every build, so tiled_workspace_bytes() needs no instruction set.
inline constexpr std::ptrdiff_t kQueryPad = 32;
/// Keys of a tile are packed in blocks of the register-block height (<= this, in every build).
inline constexpr std::ptrdiff_t kKeyPackRows = 16;

/// Elements of T the tiled kernel needs as workspace for tile sizes (bq, bk):
/// packed Qᵀ (bq'·d_k) + scores/probabilities Sᵀ (bk·(bq' + pad)) + output accumulator Oᵀ
/// (d_v·(bq' + pad)) + 5 per-query vectors (bq') + the packed key tile ((bk + 16)·d_k), with
/// bq' = bq rounded up to kQueryPad and pad = kQueryPad (Sᵀ and Oᵀ rows are padded by one slab).
static inline std::ptrdiff_t tiled_workspace_elems(std::ptrdiff_t bq, std::ptrdiff_t bk,
                                                   std::ptrdiff_t dk, std::ptrdiff_t dv) {
  const std::ptrdiff_t bqp = (bq + kQueryPad - 1) / kQueryPad * kQueryPad;
  return bqp * dk + (bk + dv) * (bqp + kQueryPad) + 5 * bqp + (bk + kKeyPackRows) * dk;
}

// The entry points of one instruction-set build. Names are per namespace (isa_generic,
// isa_avx2, isa_avx512) so the builds never share a symbol.
#define ATTN_DECLARE_ISA(NS)                                                      \
  namespace NS {                                                                \
  void tiled(KernelArgs<float>& a);                                             \
  void tiled(KernelArgs<double>& a);                                            \
  void dense(KernelArgs<float>& a);                                             \
  void dense(KernelArgs<double>& a);                                            \
  void exp_inplace(float* x, std::ptrdiff_t n);                                 \
  void exp_inplace(double* x, std::ptrdiff_t n);                                \
  void gemm(const float* a, const float* b, float* c, std::ptrdiff_t m,         \
            std::ptrdiff_t n, std::ptrdiff_t k);                                \
  void gemm(const double* a, const double* b, double* c, std::ptrdiff_t m,      \
            std::ptrdiff_t n, std::ptrdiff_t k);                                \
  const char* build_name();                                                     \
  }

ATTN_DECLARE_ISA(isa_generic)
#if defined(__x86_64__) || defined(__i386__)
#define ATTN_HAVE_ISA_AVX2 1
ATTN_DECLARE_ISA(isa_avx2)
#if defined(__x86_64__)
#define ATTN_HAVE_ISA_AVX512 1
ATTN_DECLARE_ISA(isa_avx512)
#endif
#endif

}  // namespace attn::kernels::detail
