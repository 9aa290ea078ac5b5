// lessons/cost.hpp — what dense attention costs, counted exactly: arithmetic, stored
// bytes, the tiled kernel's working set, K/V cache bytes, and what a causal sliding window hides;
// and a timing of the two fast kernels (kernels/fast_attention.hpp) on seeded inputs.
//
// Conventions (say them wherever a figure is shown):
//   FLOPs      one multiply-add = 2 FLOPs; softmax, scaling and masking are not counted.
//   pairwise   Q·Kᵀ (T·T·d_k multiply-adds per head) and weights·V (T·T·d_k per head, d_v = d_k):
//              4·T²·d_k per head, 4·T²·d_model over h heads (d_model = h·d_k). O(T²d).
//   projection Q, K, V and output projections, four d_model×d_model matrices applied to T rows:
//              4·T·d_model² multiply-adds = 8·T·d_model² FLOPs. O(T·d²). Vaswani et al. 2017,
//              table 1 (self-attention O(n²·d) per layer).
//   bytes      a stored T×T score/weight matrix: T²·sizeof(float) per head; ×h for all heads.
//   K/V cache  per layer and token, K and V of n_kv heads of width d_k:
//              2·layers·context·n_kv·d_k·bytes_per_element; multi-head n_kv = h, grouped-query
//              n_kv = groups (Ainslie et al. 2023), multi-query n_kv = 1 (Shazeer 2019).
//   causal_width  causal sliding window of width w: query i sees keys i−w+1 .. i (w keys, itself
//              included; MaskSpec::half_width = w − 1 with causal gives the same mask). Visible pairs
//              Σ_i min(i+1, w) = w(w+1)/2 + (T−w)·w for w < T; full causal T(T+1)/2; hidden
//              (T−w)(T−w+1)/2. A cache needs only the last w tokens of K/V.
// Every count is an exact unsigned 64-bit integer; the limits below keep them below 2^60.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lessons/check.hpp"
#include "attn/types.hpp"

namespace attn {

/// Input limits of attention_cost (past them: Error(too_large)).
inline constexpr std::int64_t kCostMaxTokens = std::int64_t(1) << 20;   ///< T and w
inline constexpr std::int64_t kCostMaxWidth = std::int64_t(1) << 16;    ///< d_model
inline constexpr std::int64_t kCostMaxLayers = 1024;
inline constexpr std::int64_t kCostMaxContext = std::int64_t(1) << 24;  ///< cache context, tokens

/// Element type of a cache or a stored matrix.
enum class CostDtype { float16, bfloat16, float32, float64 };
/// 2, 2, 4, 8.
int dtype_bytes(CostDtype d);
/// "float16", "bfloat16", "float32", "float64".
const char* dtype_name(CostDtype d);
/// Inverse of dtype_name; false for anything else.
bool dtype_from_name(const std::string& name, CostDtype* out);

struct CostInput {
  std::int64_t t = 4096;          ///< sequence length T, 1..kCostMaxTokens
  std::int64_t d_model = 4096;    ///< model width, 1..kCostMaxWidth
  std::int64_t heads = 32;        ///< h, divides d_model (d_k = d_model / h)
  std::int64_t kv_groups = 8;     ///< grouped-query: K/V heads, divides h
  std::int64_t layers = 32;       ///< layers holding a K/V cache, 1..kCostMaxLayers
  std::int64_t context = 100000;  ///< cached tokens, 1..kCostMaxContext
  CostDtype cache_dtype = CostDtype::float16;
  /// Causal sliding-window width w (keys per query, itself included), 1..kCostMaxTokens; JSON
  /// "causal_width", also accepted as "window". Not the mask's symmetric half-width (MaskSpec::half_width).
  std::int64_t causal_width = 4096;
};

struct KvCacheCost {
  std::string name;            ///< "multi-head", "grouped-query", "multi-query"
  std::int64_t kv_heads = 0;   ///< n_kv
  std::uint64_t bytes = 0;     ///< 2·layers·context·n_kv·d_k·bytes_per_element
  std::uint64_t window_bytes = 0;  ///< the same with only the last min(w, context) tokens kept
};

struct WindowCount {
  std::int64_t t = 0, w = 0;
  std::uint64_t causal_pairs = 0;   ///< T(T+1)/2
  std::uint64_t visible_pairs = 0;  ///< Σ_i min(i+1, w)
  std::uint64_t hidden_pairs = 0;   ///< causal_pairs − visible_pairs
  double hidden_fraction = 0;       ///< hidden_pairs / causal_pairs
};

struct CostResult {
  CostInput input;
  std::int64_t d_k = 0;                     ///< d_model / h
  std::uint64_t pairwise_flops = 0;         ///< 4·T²·d_model (all heads)
  std::uint64_t pairwise_flops_per_head = 0;  ///< 4·T²·d_k
  std::uint64_t projection_flops = 0;       ///< 8·T·d_model²
  double pairwise_share = 0;                ///< pairwise / (pairwise + projection)
  std::int64_t crossover_t = 0;             ///< T at which pairwise = projection: 2·d_model
  std::uint64_t scores_bytes_f32 = 0;       ///< one head's T×T matrix, float32
  std::uint64_t scores_bytes_f64 = 0;       ///< float64
  std::uint64_t scores_bytes_all_f32 = 0;   ///< h heads
  std::uint64_t scores_bytes_all_f64 = 0;
  std::int64_t tile_q = 0, tile_k = 0;      ///< the tiled kernel's tile, clamped to T
  std::uint64_t tiled_bytes_f32 = 0;        ///< kernels::tiled_workspace_bytes, one head
  std::uint64_t tiled_bytes_f64 = 0;
  std::vector<KvCacheCost> kv_cache;        ///< multi-head, grouped-query, multi-query
  WindowCount window;
  std::vector<std::string> conventions;     ///< the counting rules above, one line each
};

/// Exact counts for `in`. Errors: empty_sequence (T or d_model = 0), invalid_field (a negative
/// value, heads not dividing d_model, kv_groups not dividing heads, layers/context/causal_width < 1),
/// too_large (past the limits above).
CostResult attention_cost(const CostInput& in);

/// The window count alone (T >= 1, w >= 1; same errors as attention_cost).
WindowCount causal_window_count(std::int64_t t, std::int64_t w);

// --- timing -------------------------------------------------------------------------------------

enum class KernelDtype { float32, float64 };

struct KernelTimingInput {
  int t = 512;           ///< 1..4096
  int d = 64;            ///< d_k = d_v, 1..512
  KernelDtype dtype = KernelDtype::float32;
  std::uint64_t seed = 17;
  int warmups = 1;       ///< 0..10
  int repeats = 5;       ///< 1..21
};

struct KernelTiming {
  KernelTimingInput input;
  std::vector<double> dense_seconds, tiled_seconds;  ///< `repeats` each, after the warm-ups
  double dense_median = 0, tiled_median = 0;
  double flops = 0;                 ///< 4·T²·d (the same for both kernels)
  double dense_gflops = 0, tiled_gflops = 0;  ///< flops / median · 1e-9 (0 when a median is 0)
  std::uint64_t dense_extra_bytes = 0, tiled_extra_bytes = 0;  ///< as the kernels report
  double max_output_diff = 0;       ///< max |dense − tiled| over the outputs
  std::string isa;                  ///< kernels::isa_name(active_isa())
  std::string clock = "std::chrono::steady_clock";
  std::string caveat;
  std::vector<Check> checks;        ///< outputs agree (float32: 1e-4, float64: 1e-10)
};

/// Q, K, V (T×d each, row-major, N(0,1) from Rng(seed), drawn Q then K then V row by row):
/// dense_attention and tiled_attention (no mask, default scale and tiles) alternated, warm-ups
/// then `repeats` timed runs each; medians. Errors: invalid_field (a value out of its range).
KernelTiming time_dense_vs_tiled(const KernelTimingInput& in);

/// The T×T weights of the same seeded Q, K (row = query, column = key) through
/// dense_attention<double> with keep_weights. Errors as time_dense_vs_tiled (t, d, seed only).
Matrix timed_attention_weights(int t, int d, std::uint64_t seed);

/// The q-quantile of m's entries by nearest rank (the ⌊q·n⌋-th smallest, 0-based, clamped to n−1):
/// the top of the Cost panel's colour range. Errors: empty_sequence (no entries), invalid_field
/// (q outside [0, 1] or NaN).
double entry_quantile(const Matrix& m, double q);

}  // namespace attn
