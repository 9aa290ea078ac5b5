// Cost panel: what dense attention spends — pairwise and projection arithmetic, stored T×T
// matrices, the tiled kernel's working set, K/V cache bytes (multi-head, grouped-query,
// multi-query), what a causal sliding window hides — and a timing of the dense and tiled kernels
// on this machine, with the T×T weights of the timed attention drawn by the heatmap shader.
// Every figure comes from core/lessons/cost.hpp through the setters in this file; the drawing only formats.
#include "panels/cost.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state
#include "panels/registry.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "json/lesson_json.hpp"
#include "panels/lesson_ui.hpp"
#include "panels/ui.hpp"
#include "learn/json_obj.hpp"

namespace app {

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
    changed();
  });
}

}  // namespace

bool set_cost_input(AppState& s, const attn::CostInput& in) {
  CostState& c = s.cost;
  return guarded(c.error, [&] {
    attn::CostResult r = attn::attention_cost(in);
    c.input = in;
    c.result = std::move(r);
    changed();
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
  changed();
  return true;
}

bool run_cost_timing(AppState& s) {
  CostState& c = s.cost;
  return guarded(c.error, [&] {
    attn::KernelTiming t = attn::time_dense_vs_tiled(c.timing_input);
    c.timing = std::move(t);
    ++c.timing_runs;
    changed();
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
  return ::attn::obj({{"t", in.t}, {"d_model", in.d_model}, {"heads", in.heads}, {"kv_groups", in.kv_groups}, {"layers", in.layers},
              {"context", in.context}, {"cache_dtype", attn::dtype_name(in.cache_dtype)}, {"window", in.causal_width},
              {"timing_t", ti.t}, {"timing_d", ti.d}, {"timing_dtype", ti.dtype == attn::KernelDtype::float32 ? "float32" : "float64"},
              {"seed", ti.seed}, {"repeats", ti.repeats}});
}

Json cost_state_json(const AppState& s) {
  const CostState& c = s.cost;
  Json probe = nullptr;
  if (c.weights.rows() > 0 && c.probe_row < c.weights.rows() && c.probe_col < c.weights.cols())
    probe = ::attn::obj({{"row", c.probe_row}, {"col", c.probe_col}, {"weight", c.weights(c.probe_row, c.probe_col)}});
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
      {"error", c.error ? ::attn::obj({{"code", c.error->code}, {"message", c.error->message}}) : Json(nullptr)}};
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
              "' (t, d_model, heads, kv_groups, layers, context, cache_dtype, causal_width (or window), timing_t, timing_d, "
              "timing_dtype, seed, repeats, run_timing, probe)");
    }
  }
  if (counts && !set_cost_input(s, in)) return false;
  if (timing_in && !set_cost_timing_input(s, ti)) return false;
  if (has_probe) set_cost_probe(s, probe_r, probe_c);
  if (run && !run_cost_timing(s)) return false;
  return true;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

// "68.7 GFLOP" (decimal prefixes for operation counts).
std::string flops(double v) {
  const char* units[] = {"", "k", "M", "G", "T", "P", "E"};
  int u = 0;
  while (v >= 1000.0 && u < 6) v /= 1000.0, ++u;
  return short_number(v, 3) + " " + units[u] + "FLOP";
}

std::string duration(double s) {
  if (!(s >= 0)) return "-";
  if (s < 1e-3) return short_number(s * 1e6, 3) + " \xC2\xB5s";
  return short_number(s * 1e3, 3) + " ms";
}

// One integer input applied on Enter or when the field loses focus after an edit.
bool int_field(const char* label, std::int64_t* v, float width) {
  ImGui::SetNextItemWidth(width);
  ImGui::InputScalar(label, ImGuiDataType_S64, v, nullptr, nullptr, "%" PRId64);
  return ImGui::IsItemDeactivatedAfterEdit();
}

void row2(const char* name, const std::string& value, const std::string& exact = "") {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(name);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(value.c_str());
  ImGui::TableNextColumn();
  if (!exact.empty()) ImGui::TextDisabled("%s", exact.c_str());
}

}  // namespace

// The arithmetic and the stored matrices, dense and tiled.
static void draw_work_table(const attn::CostResult& r, Ui& ui, float left_w, ImGuiTableFlags tf) {
  const attn::CostInput& in = r.input;
  txt::begin_column(left_w);
  style::heading(ui.fonts, "Arithmetic and stored matrices");
  if (widgets::begin_table_fit("##work", 3, tf, left_w, 9)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 0.85f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.45f);
    row2("d_k = d_model / heads", std::to_string(r.d_k));
    row2("Q\xC2\xB7K^T and weights\xC2\xB7V (4T\xC2\xB2" "d)", flops(static_cast<double>(r.pairwise_flops)),
         grouped_number(r.pairwise_flops));
    row2("projections Q, K, V, O (8Td\xC2\xB2)", flops(static_cast<double>(r.projection_flops)),
         grouped_number(r.projection_flops));
    row2("pairwise share of the two", short_number(100.0 * r.pairwise_share, 3) + " %",
         "equal at T = " + grouped_number(static_cast<std::uint64_t>(r.crossover_t)));
    row2("T\xC3\x97T matrix, one head, f32", byte_size(r.scores_bytes_f32), grouped_number(r.scores_bytes_f32) + " B");
    row2("T\xC3\x97T matrix, one head, f64", byte_size(r.scores_bytes_f64), grouped_number(r.scores_bytes_f64) + " B");
    row2(("T\xC3\x97T matrices, " + std::to_string(in.heads) + " heads, f32").c_str(), byte_size(r.scores_bytes_all_f32),
         grouped_number(r.scores_bytes_all_f32) + " B");
    row2(("tiled, " + std::to_string(r.tile_q) + "\xC3\x97" + std::to_string(r.tile_k) + " tiles, f32").c_str(),
         byte_size(r.tiled_bytes_f32), grouped_number(r.tiled_bytes_f32) + " B");
    row2("tiled, f64", byte_size(r.tiled_bytes_f64), grouped_number(r.tiled_bytes_f64) + " B");
    widgets::end_table_fit();
  }
  txt::note(
      "The tiled kernel (FlashAttention's scheme) never stores the T\xC3\x97T matrix: its working set is a tile "
      "of queries and keys plus running row statistics. It still does every one of the 4T\xC2\xB2" "d FLOPs.");
  txt::end_column(left_w);
}

// The K/V cache for the context typed, and the causal sliding window's counts.
static void draw_cache_and_window(const attn::CostResult& r, Ui& ui, float right_w, ImGuiTableFlags tf) {
  const attn::CostInput& in = r.input;
  txt::begin_column(right_w);
  style::heading(ui.fonts, ("K/V cache for " + grouped_number(static_cast<std::uint64_t>(in.context)) + " tokens").c_str());
  if (widgets::begin_table_fit("##cache", 4, tf, right_w, static_cast<int>(r.kv_cache.size()) + 1)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("K/V heads", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("cache", ImGuiTableColumnFlags_WidthStretch, 0.9f);
    ImGui::TableSetupColumn("windowed", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const attn::KvCacheCost& k : r.kv_cache) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%" PRId64, k.kv_heads);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(byte_size(k.bytes).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s bytes", grouped_number(k.bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(byte_size(k.window_bytes).c_str());
    }
    widgets::end_table_fit();
  }
  ImGui::TextDisabled("%" PRId64 " layers, %s, d_k %" PRId64 "; windowed: the last %s tokens only", in.layers,
                      attn::dtype_name(in.cache_dtype), r.d_k,
                      grouped_number(static_cast<std::uint64_t>(std::min(in.causal_width, in.context))).c_str());
  txt::note(
      "Grouped-query attention lets several query heads share one K/V head; multi-query shares one for all. "
      "That shrinks the cache, not the T\xC2\xB2 score work.");
  const attn::WindowCount& wc = r.window;
  style::heading(ui.fonts, "Causal sliding window");
  txt::para(("Width w = " + grouped_number(static_cast<std::uint64_t>(wc.w)) + ": each query sees itself and the " +
             grouped_number(static_cast<std::uint64_t>(wc.w - 1)) + " keys before it. Of the " + grouped_number(wc.causal_pairs) +
             " (query, key) pairs full causal attention allows, it hides " + grouped_number(wc.hidden_pairs) + " (" +
             short_number(100.0 * wc.hidden_fraction, 4) + " %).")
                .c_str());
  txt::note("A window changes what a query can see; evidence further back is lost, not just cheaper.");
  txt::end_column(right_w);
}

// The dense and tiled kernels timed here: T, the element type, the button and the table.
static void draw_timing(AppState& s, Ui& ui, float left_w, ImGuiTableFlags tf) {
  const CostState& c = s.cost;
  const float fs = ImGui::GetFontSize();
  attn::KernelTimingInput ti = c.timing_input;
  txt::begin_column(left_w);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("T");
  for (int t : {128, 256, 512, 1024, 2048}) {
    widgets::same_line_if_fits(widgets::check_width(std::to_string(t).c_str()));
    if (ImGui::RadioButton(std::to_string(t).c_str(), ti.t == t)) {
      ti.t = t;
      set_cost_timing_input(s, ti);
    }
  }
  ImGui::AlignTextToFramePadding();
  ImGui::Text("d = %d,", ti.d);
  widgets::same_line_if_fits(widgets::check_width("float32"), -1.0f);
  if (ImGui::RadioButton("float32", ti.dtype == attn::KernelDtype::float32)) {
    ti.dtype = attn::KernelDtype::float32;
    set_cost_timing_input(s, ti);
  }
  widgets::same_line_if_fits(widgets::check_width("float64"), -1.0f);
  if (ImGui::RadioButton("float64", ti.dtype == attn::KernelDtype::float64)) {
    ti.dtype = attn::KernelDtype::float64;
    set_cost_timing_input(s, ti);
  }
  widgets::same_line_if_fits(widgets::button_width("Time dense vs tiled"), fs);
  if (ImGui::Button("Time dense vs tiled")) run_cost_timing(s);
  if (c.timing) {
    const attn::KernelTiming& k = *c.timing;
    if (widgets::begin_table_fit("##timing", 4, tf, left_w, 6)) {
      ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch, 0.7f);
      ImGui::TableSetupColumn("median", ImGuiTableColumnFlags_WidthStretch, 0.7f);
      ImGui::TableSetupColumn("GFLOP/s", ImGuiTableColumnFlags_WidthStretch, 0.6f);
      ImGui::TableSetupColumn("extra memory", ImGuiTableColumnFlags_WidthStretch, 0.8f);
      ImGui::TableHeadersRow();
      auto row = [&](const char* name, double median, double gflops, std::uint64_t extra) {
        widgets::text_row({name, duration(median), gflops > 0 ? short_number(gflops, 3) : "-", byte_size(extra)});
      };
      row("dense", k.dense_median, k.dense_gflops, k.dense_extra_bytes);
      row("tiled", k.tiled_median, k.tiled_gflops, k.tiled_extra_bytes);
      widgets::end_table_fit();
    }
    ImGui::TextDisabled("T = %d, d = %d, %s, %s; %s each, median of %d; run %d", k.input.t, k.input.d,
                        k.input.dtype == attn::KernelDtype::float32 ? "float32" : "float64", k.isa.c_str(),
                        flops(k.flops).c_str(), k.input.repeats, c.timing_runs);
    widgets::caveat_box(ui.fonts.bold, "What this timing does not show", k.caveat.c_str(), left_w);
    style::check_lines(k.checks);
  } else {
    txt::note("Not timed yet: the button runs both kernels (a warm-up, then the median of five runs each). "
              "At T = 2048 that takes a few seconds in a browser.");
  }
  txt::note("Browsers coarsen their clocks (Chromium: 0.1 ms steps without cross-origin isolation).");
  txt::end_column(left_w);
}

void draw_cost_panel(AppState& s, Ui& ui) {
  CostState& c = s.cost;
  const attn::CostResult& r = c.result;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "Every query scores every key, so dense attention does work and stores numbers in proportion to T\xC2\xB2. "
      "Try a larger T or a window w; notice which counts grow with T\xC2\xB2 (exact for the sizes you type; "
      "how they are counted is at the end).");
  style::error_box(c.error);
  if (c.pending) {  // the T×T weights map is computed before the next frame (show_cost_panel), not in this draw
    ImGui::TextDisabled("Computing the %d\xC3\x97%d weights map...", c.timing_input.t, c.timing_input.t);
    return;
  }

  // --- inputs (Enter or leaving a field applies it)
  {
    attn::CostInput e = c.input;
    bool changed = false;
    const float w = fs * 6.0f;
    // Each field goes on the current line only if it fits (narrow iframes, phones).
    const auto next = [&](const char* label, float width) { widgets::same_line_if_fits(widgets::labeled_width(width, label), fs); };
    changed |= int_field("T", &e.t, w);
    next("d_model", w);
    changed |= int_field("d_model", &e.d_model, w);
    next("heads", fs * 4.0f);
    changed |= int_field("heads", &e.heads, fs * 4.0f);
    next("window w", w);
    changed |= int_field("window w", &e.causal_width, w);
    changed |= int_field("layers", &e.layers, fs * 4.0f);
    next("cached tokens", w);
    changed |= int_field("cached tokens", &e.context, w);
    next("K/V groups", fs * 4.0f);
    changed |= int_field("K/V groups", &e.kv_groups, fs * 4.0f);
    next("cache dtype", fs * 6.5f);
    ImGui::SetNextItemWidth(fs * 6.5f);
    if (ImGui::BeginCombo("cache dtype", attn::dtype_name(e.cache_dtype))) {
      for (attn::CostDtype d : {attn::CostDtype::float16, attn::CostDtype::bfloat16, attn::CostDtype::float32,
                                attn::CostDtype::float64})
        if (ImGui::Selectable(attn::dtype_name(d), d == e.cache_dtype)) e.cache_dtype = d, changed = true;
      ImGui::EndCombo();
    }
    if (changed) set_cost_input(s, e);
  }

  const float avail = ImGui::GetContentRegionAvail().x;
  const float x0 = ImGui::GetCursorPosX();
  const float gap = fs * 1.5f;
  const bool two_col = avail > fs * 44;
  const float left_w = two_col ? std::floor((avail - gap) * 0.54f) : avail;
  const float right_w = two_col ? avail - gap - left_w : avail;
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;

  // --- arithmetic and memory
  draw_work_table(r, ui, left_w, tf);

  // --- K/V cache and the window
  if (two_col) ImGui::SameLine(x0 + left_w + gap);
  draw_cache_and_window(r, ui, right_w, tf);

  // --- timing and the weights map
  style::heading(ui.fonts, "Dense and tiled kernels, timed here");
  draw_timing(s, ui, left_w, tf);

  if (two_col) ImGui::SameLine(x0 + left_w + gap);
  txt::begin_column(right_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::Text("The %d\xC3\x97%d weights of the timed attention", c.weights_t, c.weights_t);
  ImGui::PopFont();
  HeatmapSpec spec;
  spec.values = &c.weights;
  spec.version = c.weights_version;
  spec.vmin = 0.0;
  spec.vmax = c.weights_top > 0 ? c.weights_top : 1.0;
  spec.width = right_w;
  spec.max_cell = 56.0f;
  heatmap("weights", spec, ui.gpu);
  txt::note(("Seeded random Q and K (seed " + std::to_string(c.weights_seed) + ", d = " + std::to_string(c.weights_d) +
             "), float64; 1/T = " + short_number(1.0 / std::max(1, c.weights_t), 3) +
             ". Colours top out at the 99.9th percentile, " + short_number(c.weights_top, 3) + " (largest " +
             short_number(c.weights_max, 3) + "). One texture coloured by the shader: hover a pixel for the exact "
             "weight of the cell it shows, or press Space on the map and walk the cells with the arrow keys.")
                .c_str());
  txt::end_column(right_w);

  style::details("How these are counted", [&] {
    for (const std::string& line : r.conventions) txt::note(("\xE2\x80\xA2 " + line).c_str());
  });
  draw_recall_strip(s, ui, "cost");
}

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"cost", "Cost", "FLOPs, bytes, caches, kernels", "Cost: what dense attention spends", cost_state_json,
    apply_cost_json, error_of<&AppState::cost>, cost_inputs_json, draw_cost_panel,
    show_cost_panel, [](AppState& s, bool) { tick_cost(s); }, [](const AppState& s) { return s.cost.pending; }};
const PanelDef& cost_panel() { return kPanel; }

}  // namespace app
