// tests/lessons/test_cost.cpp — the cost model: exact cost counts (FLOPs, bytes, K/V cache, sliding
// window) against numbers derived by hand, the window count against the core's own masks, and
// the dense-vs-tiled timing (only that it ran and agreed; timings are never held to a number).
#include <lessons/cost.hpp>
#include <attn/kernels/fast_attention.hpp>
#include <attn/masks.hpp>
#include <attn/random.hpp>

#include <algorithm>
#include <cmath>

#include "support/support.hpp"

using namespace attn_test;

namespace {
// A cost input with every field written, in CostInput's order: T, d_model, heads, K/V groups,
// cached layers, cached tokens, cache dtype, causal window width.
attn::CostInput cost_input(std::int64_t t, std::int64_t d_model, std::int64_t heads, std::int64_t kv_groups,
                           std::int64_t layers, std::int64_t context, attn::CostDtype cache_dtype,
                           std::int64_t causal_width) {
  return attn::CostInput{t, d_model, heads, kv_groups, layers, context, cache_dtype, causal_width};
}

// T = 4, d_model = 8, 4 heads (d_k = 2), 2 K/V groups, 3 layers, 5 cached tokens, window 2.
attn::CostInput small_input() { return cost_input(4, 8, 4, 2, 3, 5, attn::CostDtype::float16, 2); }
}  // namespace

TEST_CASE("cost: FLOPs and stored bytes by hand for T=4 d_model=8 h=4", "[cost]") {
  const attn::CostResult r = attn::attention_cost(small_input());
  CHECK(r.d_k == 2);
  // One head: Q·Kᵀ is 4×4 scores of 2 multiply-adds = 32; weights·V is 4×2 outputs of 4 = 32.
  // 64 multiply-adds = 128 FLOPs per head; 4 heads = 512 (= 4·T²·d_model = 4·16·8).
  CHECK(r.pairwise_flops_per_head == 128u);
  CHECK(r.pairwise_flops == 512u);
  // Each projection: 4 rows × 8 outputs × 8 multiply-adds = 256 MA = 512 FLOPs; Q, K, V, O: 2048.
  CHECK(r.projection_flops == 2048u);
  CHECK(r.pairwise_share == Approx(512.0 / 2560.0).epsilon(1e-15));
  CHECK(r.crossover_t == 16);  // 4·T²·8 = 8·T·64 at T = 16
  // 16 scores per head: 64 bytes in float32, 128 in float64; 4 heads: 256 and 512.
  CHECK(r.scores_bytes_f32 == 64u);
  CHECK(r.scores_bytes_f64 == 128u);
  CHECK(r.scores_bytes_all_f32 == 256u);
  CHECK(r.scores_bytes_all_f64 == 512u);
}

TEST_CASE("cost: K/V cache bytes by hand for MHA GQA and MQA", "[cost]") {
  const attn::CostResult r = attn::attention_cost(small_input());
  REQUIRE(r.kv_cache.size() == 3);
  // K and V (2) × 3 layers × 5 tokens × n_kv heads × d_k 2 × 2 bytes = 120·n_kv.
  CHECK(r.kv_cache[0].name == "multi-head");
  CHECK(r.kv_cache[0].kv_heads == 4);
  CHECK(r.kv_cache[0].bytes == 480u);
  CHECK(r.kv_cache[1].name == "grouped-query");
  CHECK(r.kv_cache[1].bytes == 240u);
  CHECK(r.kv_cache[2].name == "multi-query");
  CHECK(r.kv_cache[2].bytes == 120u);
  // Window 2: only 2 of the 5 tokens kept, 48·n_kv.
  CHECK(r.kv_cache[0].window_bytes == 192u);
  CHECK(r.kv_cache[2].window_bytes == 48u);

  // A 100,000-token context, 32 layers, 32 heads of 128 in float16: 2·32·100000·32·128·2 bytes
  // = 52,428,800,000 (≈ 48.8 GiB); 8 K/V groups: a quarter, 13,107,200,000.
  const attn::CostResult b =
      attn::attention_cost(cost_input(4096, 4096, 32, 8, 32, 100000, attn::CostDtype::float16, 4096));
  CHECK(b.kv_cache[0].bytes == 52428800000ull);
  CHECK(b.kv_cache[1].bytes == 13107200000ull);
  CHECK(b.kv_cache[2].bytes == 1638400000ull);
}

TEST_CASE("cost: causal sliding window T=4 w=2 counted by hand", "[cost]") {
  // Query 0 sees {0}, 1 sees {0,1}, 2 sees {1,2}, 3 sees {2,3}: 7 pairs. Full causal: 1+2+3+4 = 10.
  // Hidden: (2,0), (3,0), (3,1) = 3, a fraction 3/10.
  const attn::WindowCount c = attn::causal_window_count(4, 2);
  CHECK(c.causal_pairs == 10u);
  CHECK(c.visible_pairs == 7u);
  CHECK(c.hidden_pairs == 3u);
  CHECK(c.hidden_fraction == 0.3);
  // w >= T hides nothing; w = 1 leaves the diagonal only (T of T(T+1)/2).
  CHECK(attn::causal_window_count(4, 9).hidden_pairs == 0u);
  CHECK(attn::causal_window_count(5, 1).visible_pairs == 5u);
}

TEST_CASE("cost: window count equals the core's causal + window mask", "[cost]") {
  // Width w = keys i-w+1..i, i.e. MaskSpec::window = w - 1 with a causal mask.
  for (attn::Index t = 1; t <= 24; ++t)
    for (long long w = 1; w <= 27; ++w) {
      attn::MaskSpec spec;
      spec.causal = attn::Causal::square;
      spec.half_width = w - 1;
      const attn::BoolMatrix allowed = attn::build_allowed(spec, t, t);
      const attn::BoolMatrix causal = attn::causal_mask(t, t, attn::Causal::square);
      const attn::WindowCount c = attn::causal_window_count(t, w);
      INFO("T=" << t << " w=" << w);
      CHECK(c.visible_pairs == static_cast<std::uint64_t>(allowed.count()));
      CHECK(c.causal_pairs == static_cast<std::uint64_t>(causal.count()));
    }
  // Long: T = 2^20, w = 4096, summed query by query.
  std::uint64_t visible = 0;
  const std::int64_t t = std::int64_t(1) << 20, w = 4096;
  for (std::int64_t i = 0; i < t; ++i) visible += static_cast<std::uint64_t>(std::min<std::int64_t>(i + 1, w));
  const attn::WindowCount c = attn::causal_window_count(t, w);
  CHECK(c.visible_pairs == visible);
  CHECK(c.hidden_pairs == static_cast<std::uint64_t>(t) * (t + 1) / 2 - visible);
}

TEST_CASE("cost: tiled working set is what the tiled kernel reports", "[cost]") {
  // T=300, d_model=128, h=2: d_k = 64; the kernel's default tile 128×256 fits inside T.
  attn::CostInput in = cost_input(300, 128, 2, 1, 32, 100000, attn::CostDtype::float16, 16);
  const attn::CostResult r = attn::attention_cost(in);
  CHECK(r.tile_q == attn::kernels::kDefaultTileQ);
  CHECK(r.tile_k == attn::kernels::kDefaultTileK);
  attn::kernels::RowMatrix<double> q = attn::kernels::RowMatrix<double>::Ones(300, 64);
  attn::kernels::MatrixF qf = attn::kernels::MatrixF::Ones(300, 64);
  // The kernel's extra_bytes adds one byte per query (its empty-row flags) to the tile workspace.
  CHECK(r.tiled_bytes_f64 + 300 == attn::kernels::tiled_attention<double>(q, q, q).extra_bytes);
  CHECK(r.tiled_bytes_f32 + 300 == attn::kernels::tiled_attention<float>(qf, qf, qf).extra_bytes);
  // Far below one stored 300×300 matrix.
  CHECK(r.tiled_bytes_f32 < r.scores_bytes_f32);
  // T smaller than a tile: the tile shrinks to T.
  in.t = 50;
  const attn::CostResult s = attn::attention_cost(in);
  CHECK(s.tile_q == 50);
  CHECK(s.tile_k == 50);
}

TEST_CASE("cost: bad input gets the documented codes", "[cost]") {
  attn::CostInput in = small_input();
  in.t = 0;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::empty_sequence);
  in.t = attn::kCostMaxTokens + 1;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::too_large);
  in = small_input();
  in.t = -3;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::invalid_field);
  in = small_input();
  in.d_model = 0;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::empty_sequence);
  in = small_input();
  in.heads = 3;  // 8 % 3 != 0
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::invalid_field);
  in = small_input();
  in.kv_groups = 3;  // 4 % 3 != 0
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::invalid_field);
  in = small_input();
  in.causal_width = 0;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::invalid_field);
  in = small_input();
  in.layers = 0;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::invalid_field);
  in = small_input();
  in.context = attn::kCostMaxContext + 1;
  CHECK_ATTN_ERROR(attn::attention_cost(in), attn::ErrorCode::too_large);
  // At the limits every count still fits (no wrap-around): 4·T²·d = 2^2·2^40·2^16.
  in = small_input();
  in.t = attn::kCostMaxTokens;
  in.d_model = attn::kCostMaxWidth;
  in.heads = 1;
  in.kv_groups = 1;
  in.layers = attn::kCostMaxLayers;
  in.context = attn::kCostMaxContext;
  in.cache_dtype = attn::CostDtype::float64;
  const attn::CostResult r = attn::attention_cost(in);
  CHECK(r.pairwise_flops == (std::uint64_t(1) << 58));
  CHECK(r.kv_cache[0].bytes == (std::uint64_t(1) << 54));  // 2·2^10·2^24·2^16·8
}

TEST_CASE("cost: dense vs tiled timing runs and agrees", "[cost]") {
  for (attn::KernelDtype dt : {attn::KernelDtype::float32, attn::KernelDtype::float64}) {
    attn::KernelTimingInput in;
    in.t = 96;
    in.d = 16;
    in.dtype = dt;
    in.repeats = 3;
    const attn::KernelTiming r = attn::time_dense_vs_tiled(in);
    CHECK(r.dense_seconds.size() == 3);
    CHECK(r.tiled_seconds.size() == 3);
    CHECK(r.dense_median > 0);
    CHECK(r.tiled_median > 0);
    CHECK(r.flops == 4.0 * 96 * 96 * 16);
    // The achieved rate is the FLOP count over each median, worked here from the timings.
    const double dense_rate = 4.0 * 96 * 96 * 16 / r.dense_median * 1e-9, tiled_rate = 4.0 * 96 * 96 * 16 / r.tiled_median * 1e-9;
    CHECK(std::fabs(r.dense_gflops - dense_rate) <= 1e-12 * dense_rate);
    CHECK(std::fabs(r.tiled_gflops - tiled_rate) <= 1e-12 * tiled_rate);
    // The 96×96 matrix plus one empty-row flag byte per query.
    CHECK(r.dense_extra_bytes == 96u * 96u * (dt == attn::KernelDtype::float32 ? 4u : 8u) + 96u);
    REQUIRE(r.checks.size() == 1);
    CHECK(r.checks[0].pass);
    CHECK(!r.caveat.empty());
  }
  attn::KernelTimingInput bad;
  bad.t = 0;
  CHECK_ATTN_ERROR(attn::time_dense_vs_tiled(bad), attn::ErrorCode::invalid_field);
  bad.t = 5000;
  CHECK_ATTN_ERROR(attn::time_dense_vs_tiled(bad), attn::ErrorCode::too_large);
}

TEST_CASE("cost: heatmap weights are softmax(Q K^T / sqrt(d)) of the seeded Q and K", "[cost]") {
  const int t = 7, d = 4;
  // The documented draw order: Q then K (then V), row by row, N(0, 1) from Rng(seed).
  attn::Rng rng(5);
  Matrix q(t, d), k(t, d);
  for (Index i = 0; i < t; ++i)
    for (Index j = 0; j < d; ++j) q(i, j) = rng.normal();
  for (Index i = 0; i < t; ++i)
    for (Index j = 0; j < d; ++j) k(i, j) = rng.normal();
  const Matrix w = attn::timed_attention_weights(t, d, 5);
  REQUIRE(w.rows() == t);
  REQUIRE(w.cols() == t);
  double worst = 0;
  for (Index i = 0; i < t; ++i) {
    std::vector<double> e(t);
    double sum = 0;
    for (Index j = 0; j < t; ++j) {
      double s = 0;
      for (Index c = 0; c < d; ++c) s += q(i, c) * k(j, c);
      e[static_cast<size_t>(j)] = std::exp(s / 2.0);  // sqrt(4) = 2
      sum += e[static_cast<size_t>(j)];
    }
    for (Index j = 0; j < t; ++j) worst = std::max(worst, std::fabs(w(i, j) - e[static_cast<size_t>(j)] / sum));
  }
  CHECK(worst < 1e-13);
}

TEST_CASE("cost: entry quantile by nearest rank", "[cost]") {
  // Entries 0..9 (shuffled): the 0.5-quantile is the 5th smallest (0-based) = 5; 0.999 → index 9.
  const Matrix m = M({{3, 9, 0, 7, 1}, {8, 2, 6, 4, 5}});
  CHECK(attn::entry_quantile(m, 0.5) == 5.0);
  CHECK(attn::entry_quantile(m, 0.0) == 0.0);
  CHECK(attn::entry_quantile(m, 0.999) == 9.0);
  CHECK(attn::entry_quantile(m, 1.0) == 9.0);
  CHECK_ATTN_ERROR(attn::entry_quantile(m, 1.5), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::entry_quantile(m, std::nan("")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::entry_quantile(Matrix(0, 0), 0.5), attn::ErrorCode::empty_sequence);
}
