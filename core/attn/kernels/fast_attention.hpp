// attn/kernels/fast_attention.hpp — fast exact attention: a dense path on Eigen's GEMM and a
// tiled, online-softmax path that never stores the Tq×Tk matrix; float32 and float64.
//
//   out = softmax_allowed(scale · Q·Kᵀ) · V      Q: Tq×d_k, K: Tk×d_k, V: Tk×d_v, out: Tq×d_v
//
// Same contract as attn::attention (attention.hpp): the same allowed masks (true = may attend;
// MaskSpec or a Tq×Tk BoolMatrix), masked keys excluded from the max, the normaliser and the
// value sum (never multiplied by zero), default scale 1/sqrt(d_k), and the same EmptyRows policy
// and error codes. What differs is the arithmetic, not the definition:
//
//   attention()        float64, fixed-order loops and det::exp: bit-identical native and wasm,
//                      stores scores and weights; for teaching sizes (kMaxPairs).
//   dense_attention    Eigen GEMM for Q·Kᵀ and P·V, vectorised softmax; stores the Tq×Tk
//                      probabilities (extra memory Tq·Tk·sizeof(T)).
//   tiled_attention    FlashAttention's tiling (Dao et al. 2022, alg. 1) with the online softmax
//                      (Milakov & Gimelshein 2018): per tile of queries a running max m_i,
//                      normaliser ℓ_i and output o_i, rescaled by exp(m_old − m_new) when a
//                      key tile raises the max. Extra memory O(Bq·(Bk + d_k + d_v)) elements
//                      (tiled_workspace_bytes); tiles with no allowed pair are skipped.
//
// Both fast paths use fused multiply-add where the hardware has it and a vectorised polynomial
// exp (simd.hpp), so their last bits depend on the instruction set: they agree with attention()
// to 1e-12 in float64 (tests/kernels), not to the bit. float32 against float64: within
// 2e-6·sqrt(d_k) for unit-scale inputs (tests/kernels/test_float32.cpp); bench/ reports it too.
//
// Instruction sets: on x86-64 the kernels are compiled three times, for the baseline, with
// AVX2+FMA and with AVX-512+FMA, and the widest build the CPU has is picked at run time
// (active_isa(); ATTN_KERNEL_ISA or set_isa force another); under emscripten there is one build
// with wasm simd128.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "attn/attention.hpp"
#include "attn/masks.hpp"
#include "attn/types.hpp"

namespace attn::kernels {

/// Row-major matrix of T (positions × features), as attn::Matrix is for double.
template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixF = RowMatrix<float>;

/// Limits of the fast kernels (past them: Error(too_large)). Wider than linalg.hpp's, which
/// bound what the reference path stores.
inline constexpr Index kMaxKernelTokens = Index(1) << 20;  ///< Tq, Tk
inline constexpr Index kMaxKernelWidth = 4096;             ///< d_k, d_v
inline constexpr Index kMaxDensePairs = Index(1) << 28;    ///< Tq·Tk for dense_attention
inline constexpr Index kDefaultTileQ = 128;                ///< queries per tile
inline constexpr Index kDefaultTileK = 256;                ///< keys per tile
inline constexpr Index kMaxTile = 4096;

/// Phase times of one call, nanoseconds (filled when KernelOptions::profile is set).
struct KernelProfile {
  std::uint64_t scores_ns = 0;   ///< Q·Kᵀ
  std::uint64_t softmax_ns = 0;  ///< scale, mask, max, exp, sums, rescaling
  std::uint64_t values_ns = 0;   ///< P·V
};

struct KernelOptions {
  std::optional<double> scale;             ///< default 1/sqrt(d_k); finite and > 0
  EmptyRows empty_rows = EmptyRows::error;
  Index tile_q = 0;                        ///< tiled: queries per tile, 0 = kDefaultTileQ
  Index tile_k = 0;                        ///< tiled: keys per tile, 0 = kDefaultTileK
  bool keep_weights = false;               ///< dense: return the Tq×Tk weights
  bool keep_stats = false;                 ///< return row_max / row_sum
  KernelProfile* profile = nullptr;        ///< if set, phase times are added to it
  /// Run the baseline build (SSE2 natively, simd128 in wasm) whatever active_isa() says: it
  /// gives the same bits natively and in the browser; the AVX2 and AVX-512 builds fuse
  /// multiply-adds and so round differently. Results a learner sees (the JSON op) use this.
  bool portable = false;
};

template <class T>
struct KernelResult {
  RowMatrix<T> output;            ///< Tq×d_v
  RowMatrix<T> weights;           ///< Tq×Tk, dense with keep_weights only (else 0×0)
  /// With keep_stats: the softmax statistics per query, in score units (scale already applied):
  /// weights(i,j) = exp(score(i,j) − row_max[i]) / row_sum[i] for allowed (i,j).
  /// Empty rows: row_max = −inf, row_sum = 0.
  std::vector<T> row_max, row_sum;
  std::vector<bool> empty_row;    ///< Tq flags (all false unless EmptyRows::zero)
  double scale = 1.0;             ///< the scale used
  std::size_t extra_bytes = 0;    ///< working memory the call allocated besides inputs and result
                                  ///< (dense: the Tq×Tk matrix; tiled: the tile workspace)
};

/// Dense fast attention with a mask spec (true = may attend; see masks.hpp).
/// q: Tq×d_k, k: Tk×d_k, v: Tk×d_v, any leading dimension (Ref binds without a copy to a
/// row-major matrix or block; a column-major argument is copied).
/// Throws Error with: empty_sequence, shape_mismatch, too_large (past the limits above, or
/// Tq·Tk > kMaxDensePairs), non_finite (NaN/inf input, or an allowed score q·k·scale that is
/// not finite), causal_alignment_required, invalid_mask, invalid_scale, no_allowed_key
/// (EmptyRows::error; names the first such row). Memory exhaustion throws std::bad_alloc.
template <class T>
KernelResult<T> dense_attention(const Eigen::Ref<const RowMatrix<T>>& q, const Eigen::Ref<const RowMatrix<T>>& k,
                                const Eigen::Ref<const RowMatrix<T>>& v, const MaskSpec& mask = {},
                                const KernelOptions& options = {});

/// Tiled online-softmax attention; arguments and errors as dense_attention (no pair limit).
/// Tile sizes: options.tile_q × options.tile_k (1..kMaxTile each; any size works, including 1,
/// sizes that do not divide Tq/Tk, and tiles larger than the sequence). Invalid tile sizes throw
/// Error(invalid_field).
template <class T>
KernelResult<T> tiled_attention(const Eigen::Ref<const RowMatrix<T>>& q, const Eigen::Ref<const RowMatrix<T>>& k,
                                const Eigen::Ref<const RowMatrix<T>>& v, const MaskSpec& mask = {},
                                const KernelOptions& options = {});

/// The same two with a ready Tq×Tk allowed matrix (true = may attend).
template <class T>
KernelResult<T> dense_attention_with_allowed(const Eigen::Ref<const RowMatrix<T>>& q,
                                             const Eigen::Ref<const RowMatrix<T>>& k,
                                             const Eigen::Ref<const RowMatrix<T>>& v, const BoolMatrix& allowed,
                                             const KernelOptions& options = {});
template <class T>
KernelResult<T> tiled_attention_with_allowed(const Eigen::Ref<const RowMatrix<T>>& q,
                                             const Eigen::Ref<const RowMatrix<T>>& k,
                                             const Eigen::Ref<const RowMatrix<T>>& v, const BoolMatrix& allowed,
                                             const KernelOptions& options = {});

/// The tiled kernel (float64) behind the same result struct as attention(), for the JSON
/// op's "kernel":"tiled". `output` comes from the tiled kernel; `weights` are rebuilt from its
/// per-row statistics (m_i, ℓ_i) as weights(i,j) = exp(s_ij − m_i)/ℓ_i with s_ij recomputed in
/// fixed order — the way FlashAttention recomputes attention in its backward pass — and
/// `scores`/`allowed` as attention() fills them. Runs the portable (baseline) build, so the
/// numbers are the same natively and in wasm, to the bit. Same input limits and errors as attention()
/// (it returns Tq×Tk matrices), plus invalid_field for a tile outside 1..kMaxTile.
AttentionResult tiled_attention_result(const Matrix& q, const Matrix& k, const Matrix& v,
                                       const MaskSpec& mask, const AttentionOptions& options,
                                       Index tile_q = 0, Index tile_k = 0);

/// Bytes of working memory tiled_attention uses for these sizes (0 tile = default).
std::size_t tiled_workspace_bytes(Index tq, Index tk, Index d_k, Index d_v, std::size_t elem_size,
                                  Index tile_q = 0, Index tile_k = 0);

/// x[i] = e^x[i], vectorised (the softmax's exp; simd.hpp): ~2 ulp; −inf → 0; results below
/// the smallest normal flush to 0; +inf above 88.376 (float) / 709.436 (double); NaN → NaN.
void exp_inplace(float* x, std::size_t n);
void exp_inplace(double* x, std::size_t n);

/// c = a·b (row-major, m×k times k×n) with the same Eigen GEMM build the dense kernel uses:
/// the benchmark's yardstick. Throws Error(shape_mismatch) when a.cols() != b.rows().
template <class T>
void eigen_gemm(const RowMatrix<T>& a, const RowMatrix<T>& b, RowMatrix<T>& c);

/// Instruction-set builds of the kernels (avx2 and avx512: x86-64 only).
enum class Isa { generic, avx2, avx512 };
/// The build in use. At start-up: the one named by the environment variable ATTN_KERNEL_ISA
/// ("generic", "avx2", "avx512") if this machine has it, else the widest the CPU (and OS)
/// supports — avx512 (AVX-512 F/DQ/VL/BW + FMA), avx2 (AVX2 + FMA), generic (x86-64 baseline
/// natively, simd128 in wasm). Change it with set_isa.
Isa active_isa();
/// Select a build (tests run every one, users may force a lower one); returns false (and changes
/// nothing) if it is not available on this machine.
bool set_isa(Isa isa);
/// Builds usable on this machine, narrowest first.
std::vector<Isa> available_isas();
/// What a build was compiled for: "avx512+fma", "avx2+fma", "sse2", "wasm simd128", ...;
/// "unavailable" for a build not compiled in.
const char* isa_name(Isa isa);
/// The Isa of a short name ("generic", "avx2", "avx512"; as ATTN_KERNEL_ISA), nullopt if unknown.
std::optional<Isa> parse_isa(std::string_view name);

}  // namespace attn::kernels
