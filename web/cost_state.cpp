#include "cost_state.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "app_state.hpp"
#include "attn/error.hpp"
#include "json/lesson_json.hpp"

namespace app {

using attn::Json;

namespace {

[[noreturn]] void invalid(const std::string& message) { throw attn::Error(attn::ErrorCode::invalid_field, message); }

// An integer from a patch; the core judges the range (a huge value stays huge: too_large).
std::int64_t get_integer(const Json& j, const std::string& key) {
  if (!j.is_number()) invalid(key + " must be an integer");
  const double d = j.get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) invalid(key + " must be an integer");
  if (d > 4e18) return std::int64_t(1) << 62;
  if (d < -4e18) return -(std::int64_t(1) << 62);
  return j.is_number_integer() ? j.get<std::int64_t>() : static_cast<std::int64_t>(d);
}

int clamp_int(std::int64_t v) { return static_cast<int>(std::max<std::int64_t>(-1000000000, std::min<std::int64_t>(v, 1000000000))); }

bool compute_weights(AppState& s, const attn::KernelTimingInput& in) {
  CostState& c = s.cost;
  return guarded(c.error, [&] {
    attn::Matrix w = attn::timed_attention_weights(in.t, in.d, in.seed);
    c.weights_max = w.size() ? w.maxCoeff() : 0.0;
    c.weights_top = w.size() ? attn::entry_quantile(w, 0.999) : 0.0;
    c.weights = std::move(w);
    c.weights_t = in.t;
    c.weights_d = in.d;
    c.weights_seed = in.seed;
    c.probe_row = std::min(c.probe_row, in.t - 1);
    c.probe_col = std::min(c.probe_col, in.t - 1);
    ++c.weights_version;
    c.pending = false;
    ++s.generation;
  });
}

}  // namespace

bool set_cost_input(AppState& s, const attn::CostInput& in) {
  CostState& c = s.cost;
  return guarded(c.error, [&] {
    attn::CostResult r = attn::attention_cost(in);
    c.input = in;
    c.result = std::move(r);
    ++s.generation;
  });
}

bool set_cost_timing_input(AppState& s, const attn::KernelTimingInput& in) {
  CostState& c = s.cost;
  // Warm-ups and repeats are only used by a run: refuse bad ones now, with the core's ranges
  // (time_dense_vs_tiled); T, d and the seed are judged by the weights map below.
  const bool runs_ok = guarded(c.error, [&] {
    if (in.warmups < 0 || in.warmups > 10) invalid("warmups must be between 0 and 10, got " + std::to_string(in.warmups));
    if (in.repeats < 1 || in.repeats > 21) invalid("repeats must be between 1 and 21, got " + std::to_string(in.repeats));
  });
  if (!runs_ok) return false;
  const bool map_changes = in.t != c.weights_t || in.d != c.weights_d || in.seed != c.weights_seed;
  if (map_changes && !compute_weights(s, in)) return false;
  const attn::KernelTimingInput& old = c.timing_input;
  if (in.t != old.t || in.d != old.d || in.dtype != old.dtype || in.seed != old.seed) c.timing.reset();
  c.timing_input = in;
  ++s.generation;
  return true;
}

bool run_cost_timing(AppState& s) {
  CostState& c = s.cost;
  return guarded(c.error, [&] {
    attn::KernelTiming t = attn::time_dense_vs_tiled(c.timing_input);
    c.timing = std::move(t);
    ++c.timing_runs;
    ++s.generation;
  });
}

void show_cost_panel(AppState& s, bool now) {
  CostState& c = s.cost;
  if (c.weights_t != 0) return;
  c.pending = true;
  if (now) tick_cost(s);
}

void tick_cost(AppState& s) {
  CostState& c = s.cost;
  if (!c.pending) return;
  c.pending = false;
  if (c.weights_t == 0) compute_weights(s, c.timing_input);
}

void set_cost_probe(AppState& s, int row, int col) {
  CostState& c = s.cost;
  const int n = std::max(1, c.weights_t);
  c.probe_row = std::max(0, std::min(n - 1, row));
  c.probe_col = std::max(0, std::min(n - 1, col));
}

Json cost_inputs_json(const AppState& s) {
  const CostState& c = s.cost;
  const attn::KernelTimingInput& ti = c.timing_input;
  const attn::CostInput& in = c.input;
  return Json{{"t", in.t}, {"d_model", in.d_model}, {"heads", in.heads}, {"kv_groups", in.kv_groups}, {"layers", in.layers},
              {"context", in.context}, {"cache_dtype", attn::dtype_name(in.cache_dtype)}, {"window", in.causal_width},
              {"timing_t", ti.t}, {"timing_d", ti.d}, {"timing_dtype", ti.dtype == attn::KernelDtype::float32 ? "float32" : "float64"},
              {"seed", ti.seed}, {"repeats", ti.repeats}};
}

Json cost_state_json(const AppState& s) {
  const CostState& c = s.cost;
  Json probe = nullptr;
  if (c.weights.rows() > 0 && c.probe_row < c.weights.rows() && c.probe_col < c.weights.cols())
    probe = Json{{"row", c.probe_row}, {"col", c.probe_col}, {"weight", c.weights(c.probe_row, c.probe_col)}};
  Json checks = Json::array();
  if (c.timing)
    for (const attn::Check& k : c.timing->checks) checks.push_back(attn::to_json(k));
  Json out{
      {"inputs", cost_inputs_json(s)},
      {"result",
       {{"counts", attn::to_json(c.result)},
        {"timing", c.timing ? attn::to_json(*c.timing) : Json(nullptr)},
        {"timing_runs", c.timing_runs},
        {"weights",
         {{"t", c.weights_t}, {"d", c.weights_d}, {"seed", c.weights_seed}, {"rows", c.weights.rows()},
          {"cols", c.weights.cols()}, {"probe", probe}}},
        {"checks", checks}}},
      {"error", c.error ? Json{{"code", c.error->code}, {"message", c.error->message}} : Json(nullptr)}};
  if (c.pending) out["pending"] = true;  // the weights map waits for the next frame (omitted once done)
  return out;
}

bool apply_cost_json(AppState& s, const Json& patch) {
  CostState& c = s.cost;
  attn::CostInput in = c.input;
  attn::KernelTimingInput ti = c.timing_input;
  bool counts = false, timing_in = false, run = false, has_probe = false;
  int probe_r = 0, probe_c = 0;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (k == "t") in.t = get_integer(v, k), counts = true;
    else if (k == "d_model") in.d_model = get_integer(v, k), counts = true;
    else if (k == "heads") in.heads = get_integer(v, k), counts = true;
    else if (k == "kv_groups") in.kv_groups = get_integer(v, k), counts = true;
    else if (k == "layers") in.layers = get_integer(v, k), counts = true;
    else if (k == "context") in.context = get_integer(v, k), counts = true;
    else if (k == "window" || k == "causal_width") in.causal_width = get_integer(v, k), counts = true;
    else if (k == "cache_dtype") {
      if (!v.is_string() || !attn::dtype_from_name(v.get<std::string>(), &in.cache_dtype))
        invalid("cache_dtype must be \"float16\", \"bfloat16\", \"float32\" or \"float64\"");
      counts = true;
    } else if (k == "timing_t") ti.t = clamp_int(get_integer(v, k)), timing_in = true;
    else if (k == "timing_d") ti.d = clamp_int(get_integer(v, k)), timing_in = true;
    else if (k == "repeats") ti.repeats = clamp_int(get_integer(v, k)), timing_in = true;
    else if (k == "seed") {
      const std::int64_t seed = get_integer(v, k);
      if (seed < 0) invalid("seed must be an integer >= 0");
      ti.seed = static_cast<std::uint64_t>(seed), timing_in = true;
    } else if (k == "timing_dtype") {
      if (!v.is_string() || (v.get<std::string>() != "float32" && v.get<std::string>() != "float64"))
        invalid("timing_dtype must be \"float32\" or \"float64\"");
      ti.dtype = v.get<std::string>() == "float32" ? attn::KernelDtype::float32 : attn::KernelDtype::float64;
      timing_in = true;
    } else if (k == "run_timing") {
      if (!v.is_boolean()) invalid("run_timing must be true or false");
      run = v.get<bool>();
    } else if (k == "probe") {
      if (!v.is_array() || v.size() != 2) invalid("probe must be [row, col]");
      probe_r = clamp_int(get_integer(v[0], "probe row"));
      probe_c = clamp_int(get_integer(v[1], "probe col"));
      has_probe = true;
    } else {
      invalid("unknown cost input '" + k +
              "' (t, d_model, heads, kv_groups, layers, context, cache_dtype, window, timing_t, timing_d, "
              "timing_dtype, seed, repeats, run_timing, probe)");
    }
  }
  if (counts && !set_cost_input(s, in)) return false;
  if (timing_in && !set_cost_timing_input(s, ti)) return false;
  if (has_probe) set_cost_probe(s, probe_r, probe_c);
  if (run && !run_cost_timing(s)) return false;
  return true;
}

}  // namespace app
