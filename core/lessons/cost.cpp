#include "lessons/cost.hpp"
#include "lessons/timing.hpp"  // median

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/kernels/fast_attention.hpp"
#include "attn/random.hpp"

namespace attn {
namespace {

using u64 = std::uint64_t;

// invalid_field below lo, too_large above hi (a size the cost model can count but refuses).
void require_count(const char* name, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v < lo)
    throw Error(ErrorCode::invalid_field, std::string(name) + " must be at least " + std::to_string(lo) + ", got " +
                                              std::to_string(v));
  if (v > hi)
    throw Error(ErrorCode::too_large, std::string(name) + " = " + std::to_string(v) + " exceeds the limit of " +
                                          std::to_string(hi));
}

void require_tokens(const char* name, std::int64_t v) {
  if (v == 0) throw Error(ErrorCode::empty_sequence, std::string(name) + " = 0: there is nothing to attend over");
  require_count(name, v, 1, kCostMaxTokens);
}

}  // namespace

int dtype_bytes(CostDtype d) {
  switch (d) {
    case CostDtype::float16:
    case CostDtype::bfloat16: return 2;
    case CostDtype::float32: return 4;
    case CostDtype::float64: return 8;
  }
  return 4;
}

const char* dtype_name(CostDtype d) {
  switch (d) {
    case CostDtype::float16: return "float16";
    case CostDtype::bfloat16: return "bfloat16";
    case CostDtype::float32: return "float32";
    case CostDtype::float64: return "float64";
  }
  return "float32";
}

bool dtype_from_name(const std::string& name, CostDtype* out) {
  for (CostDtype d : {CostDtype::float16, CostDtype::bfloat16, CostDtype::float32, CostDtype::float64})
    if (name == dtype_name(d)) {
      *out = d;
      return true;
    }
  return false;
}

WindowCount causal_window_count(std::int64_t t, std::int64_t w) {
  require_tokens("T", t);
  require_count("window w", w, 1, kCostMaxTokens);
  WindowCount c;
  c.t = t;
  c.w = w;
  const u64 T = static_cast<u64>(t), W = static_cast<u64>(w);
  c.causal_pairs = T * (T + 1) / 2;
  // Query i sees min(i + 1, w) keys: 1, 2, ..., w for the first w queries, then w each.
  c.visible_pairs = W >= T ? c.causal_pairs : W * (W + 1) / 2 + (T - W) * W;
  c.hidden_pairs = c.causal_pairs - c.visible_pairs;
  c.hidden_fraction = static_cast<double>(c.hidden_pairs) / static_cast<double>(c.causal_pairs);
  return c;
}

CostResult attention_cost(const CostInput& in) {
  require_tokens("T", in.t);
  if (in.d_model == 0) throw Error(ErrorCode::empty_sequence, "d_model = 0: the vectors have no features");
  require_count("d_model", in.d_model, 1, kCostMaxWidth);
  require_count("heads", in.heads, 1, kCostMaxWidth);
  if (in.d_model % in.heads != 0)
    throw Error(ErrorCode::invalid_field, "heads = " + std::to_string(in.heads) + " must divide d_model = " +
                                              std::to_string(in.d_model) + " (d_k = d_model / heads)");
  require_count("kv_groups", in.kv_groups, 1, kCostMaxWidth);
  if (in.heads % in.kv_groups != 0)
    throw Error(ErrorCode::invalid_field, "kv_groups = " + std::to_string(in.kv_groups) + " must divide heads = " +
                                              std::to_string(in.heads) + " (each K/V head serves heads/groups queries)");
  require_count("layers", in.layers, 1, kCostMaxLayers);
  require_count("context", in.context, 1, kCostMaxContext);

  CostResult r;
  r.input = in;
  r.window = causal_window_count(in.t, in.causal_width);
  const u64 T = static_cast<u64>(in.t), D = static_cast<u64>(in.d_model), H = static_cast<u64>(in.heads);
  r.d_k = in.d_model / in.heads;
  const u64 dk = static_cast<u64>(r.d_k);

  r.pairwise_flops_per_head = 4 * T * T * dk;
  r.pairwise_flops = 4 * T * T * D;
  r.projection_flops = 8 * T * D * D;
  r.pairwise_share = static_cast<double>(r.pairwise_flops) /
                     (static_cast<double>(r.pairwise_flops) + static_cast<double>(r.projection_flops));
  r.crossover_t = 2 * in.d_model;  // 4·T²·d = 8·T·d² ⇔ T = 2d

  r.scores_bytes_f32 = T * T * 4;
  r.scores_bytes_f64 = T * T * 8;
  r.scores_bytes_all_f32 = r.scores_bytes_f32 * H;
  r.scores_bytes_all_f64 = r.scores_bytes_f64 * H;

  r.tile_q = std::min<std::int64_t>(kernels::kDefaultTileQ, in.t);
  r.tile_k = std::min<std::int64_t>(kernels::kDefaultTileK, in.t);
  r.tiled_bytes_f32 = kernels::tiled_workspace_bytes(in.t, in.t, r.d_k, r.d_k, sizeof(float));
  r.tiled_bytes_f64 = kernels::tiled_workspace_bytes(in.t, in.t, r.d_k, r.d_k, sizeof(double));

  const u64 per_head_token = 2 * static_cast<u64>(in.layers) * dk * static_cast<u64>(dtype_bytes(in.cache_dtype));
  const u64 ctx = static_cast<u64>(in.context);
  const u64 kept = std::min(ctx, static_cast<u64>(in.causal_width));
  auto cache = [&](const char* name, std::int64_t n_kv) {
    KvCacheCost c;
    c.name = name;
    c.kv_heads = n_kv;
    c.bytes = per_head_token * static_cast<u64>(n_kv) * ctx;
    c.window_bytes = per_head_token * static_cast<u64>(n_kv) * kept;
    r.kv_cache.push_back(c);
  };
  cache("multi-head", in.heads);
  cache("grouped-query", in.kv_groups);
  cache("multi-query", 1);

  r.conventions = {
      "one multiply-add = 2 FLOPs; softmax, scaling and masking are not counted",
      "pairwise: Q K^T and weights V, 2 T^2 d_k multiply-adds per head: 4 T^2 d_model FLOPs over all heads",
      "projections: Q, K, V and output, four d_model x d_model matrices on T rows: 8 T d_model^2 FLOPs",
      "stored matrix: T x T elements per head, as the dense kernel keeps it",
      "K/V cache: 2 (K and V) x layers x context x K/V heads x d_k x bytes per element",
      "causal window of width w: query i sees keys i-w+1 .. i (w keys, itself included)",
  };
  return r;
}

// --- timing -------------------------------------------------------------------------------------

namespace {

void require_timing(const KernelTimingInput& in) {
  require_count("T", in.t, 1, 4096);
  require_count("d", in.d, 1, 512);
  require_count("warmups", in.warmups, 0, 10);
  require_count("repeats", in.repeats, 1, 21);
}

// Q, K, V: T×d each, N(0, 1), drawn Q, K, V row by row from one Rng.
void seeded_qkv(int t, int d, std::uint64_t seed, kernels::RowMatrix<double>* q, kernels::RowMatrix<double>* k,
                kernels::RowMatrix<double>* v) {
  Rng rng(seed);
  for (kernels::RowMatrix<double>* m : {q, k, v}) {
    m->resize(t, d);
    for (Index i = 0; i < t; ++i)
      for (Index j = 0; j < d; ++j) (*m)(i, j) = rng.normal();
  }
}

template <class T>
void time_kernels(const KernelTimingInput& in, const kernels::RowMatrix<T>& q, const kernels::RowMatrix<T>& k,
                  const kernels::RowMatrix<T>& v, KernelTiming& out, double tolerance) {
  kernels::KernelResult<T> dense, tiled;
  auto timed = [](auto&& fn) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto run_dense = [&] { dense = kernels::dense_attention<T>(q, k, v); };
  auto run_tiled = [&] { tiled = kernels::tiled_attention<T>(q, k, v); };
  for (int i = 0; i < in.warmups; ++i) run_dense(), run_tiled();
  for (int i = 0; i < in.repeats; ++i) {  // alternated, so drift hits both alike
    out.dense_seconds.push_back(timed(run_dense));
    out.tiled_seconds.push_back(timed(run_tiled));
  }
  out.dense_extra_bytes = dense.extra_bytes;
  out.tiled_extra_bytes = tiled.extra_bytes;
  out.max_output_diff = static_cast<double>((dense.output - tiled.output).cwiseAbs().maxCoeff());
  out.checks.push_back(check_at_most("dense and tiled outputs agree: max |dense - tiled|", out.max_output_diff,
                                     tolerance));
}

}  // namespace

KernelTiming time_dense_vs_tiled(const KernelTimingInput& in) {
  require_timing(in);
  KernelTiming out;
  out.input = in;
  kernels::RowMatrix<double> q, k, v;
  seeded_qkv(in.t, in.d, in.seed, &q, &k, &v);
  if (in.dtype == KernelDtype::float64) {
    time_kernels<double>(in, q, k, v, out, 1e-10);
  } else {
    const kernels::MatrixF qf = q.cast<float>(), kf = k.cast<float>(), vf = v.cast<float>();
    time_kernels<float>(in, qf, kf, vf, out, 1e-4);
  }
  out.dense_median = median(out.dense_seconds);
  out.tiled_median = median(out.tiled_seconds);
  out.flops = 4.0 * in.t * static_cast<double>(in.t) * in.d;
  // Achieved rate: the same FLOP count over each kernel's median (a clock too coarse to see the run gives 0).
  out.dense_gflops = out.dense_median > 0 ? out.flops / out.dense_median * 1e-9 : 0.0;
  out.tiled_gflops = out.tiled_median > 0 ? out.flops / out.tiled_median * 1e-9 : 0.0;
  out.isa = kernels::isa_name(kernels::active_isa());
  out.caveat =
      "One timing on this machine (" + out.isa + ", one thread, forward only, median of " +
      std::to_string(in.repeats) + " after " + std::to_string(in.warmups) +
      " warm-up). It is not a verdict on either kernel or on attention as an architecture: hardware, "
      "shapes, dtype and the browser's clock all move it. Both kernels do the same O(T^2 d) "
      "arithmetic; tiling changes how much memory is stored and moved, not how many multiply-adds are done.";
  return out;
}

double entry_quantile(const Matrix& m, double q) {
  if (m.size() == 0) throw Error(ErrorCode::empty_sequence, "the matrix has no entries");
  if (!(q >= 0.0 && q <= 1.0)) throw Error(ErrorCode::invalid_field, "quantile q must be in [0, 1]");
  std::vector<double> v(m.data(), m.data() + m.size());
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

Matrix timed_attention_weights(int t, int d, std::uint64_t seed) {
  KernelTimingInput in;
  in.t = t;
  in.d = d;
  in.seed = seed;
  require_timing(in);
  kernels::RowMatrix<double> q, k, v;
  seeded_qkv(t, d, seed, &q, &k, &v);
  kernels::KernelOptions opt;
  opt.keep_weights = true;
  return kernels::dense_attention<double>(q, k, v, {}, opt).weights;
}

}  // namespace attn
