// Cost panel: what dense attention spends — pairwise and projection arithmetic, stored T×T
// matrices, the tiled kernel's working set, K/V cache bytes (multi-head, grouped-query,
// multi-query), what a causal sliding window hides — and a timing of the dense and tiled kernels
// on this machine, with the T×T weights of the timed attention drawn by the heatmap shader.
// Every figure comes from core/attn/cost.hpp through cost_state.hpp; this file only formats.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "lesson_ui.hpp"
#include "panels.hpp"

namespace app {

namespace {

// 12,345,678 — the exact count, grouped by thousands.
std::string grouped(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

// "48.8 GiB" (binary prefixes for bytes).
std::string bytes(std::uint64_t v) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double x = static_cast<double>(v);
  int u = 0;
  while (x >= 1024.0 && u < 6) x /= 1024.0, ++u;
  return u == 0 ? grouped(v) + " B" : short_number(x, 3) + " " + units[u];
}

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

void draw_cost_panel(AppState& s, Ui& ui) {
  CostState& c = s.cost;
  const attn::CostResult& r = c.result;
  const attn::CostInput& in = r.input;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "Every query scores every key, so dense attention does work and stores numbers in proportion to T\xC2\xB2. "
      "The counts below are exact for the sizes you type; the conventions are listed at the end.");
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
  txt::begin_column(left_w);
  style::heading(ui.fonts, "Arithmetic and stored matrices");
  if (ImGui::BeginTable("##work", 3, tf, ImVec2(left_w, 0))) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 0.85f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.45f);
    row2("d_k = d_model / heads", std::to_string(r.d_k));
    row2("Q\xC2\xB7K^T and weights\xC2\xB7V (4T\xC2\xB2" "d)", flops(static_cast<double>(r.pairwise_flops)),
         grouped(r.pairwise_flops));
    row2("projections Q, K, V, O (8Td\xC2\xB2)", flops(static_cast<double>(r.projection_flops)),
         grouped(r.projection_flops));
    row2("pairwise share of the two", short_number(100.0 * r.pairwise_share, 3) + " %",
         "equal at T = " + grouped(static_cast<std::uint64_t>(r.crossover_t)));
    row2("T\xC3\x97T matrix, one head, f32", bytes(r.scores_bytes_f32), grouped(r.scores_bytes_f32) + " B");
    row2("T\xC3\x97T matrix, one head, f64", bytes(r.scores_bytes_f64), grouped(r.scores_bytes_f64) + " B");
    row2(("T\xC3\x97T matrices, " + std::to_string(in.heads) + " heads, f32").c_str(), bytes(r.scores_bytes_all_f32),
         grouped(r.scores_bytes_all_f32) + " B");
    row2(("tiled, " + std::to_string(r.tile_q) + "\xC3\x97" + std::to_string(r.tile_k) + " tiles, f32").c_str(),
         bytes(r.tiled_bytes_f32), grouped(r.tiled_bytes_f32) + " B");
    row2("tiled, f64", bytes(r.tiled_bytes_f64), grouped(r.tiled_bytes_f64) + " B");
    ImGui::EndTable();
  }
  txt::note(
      "The tiled kernel (FlashAttention's scheme) never stores the T\xC3\x97T matrix: its working set is a tile "
      "of queries and keys plus running row statistics. It still does every one of the 4T\xC2\xB2" "d FLOPs.");
  txt::end_column(left_w);

  // --- K/V cache and the window
  if (two_col) ImGui::SameLine(x0 + left_w + gap);
  txt::begin_column(right_w);
  style::heading(ui.fonts, ("K/V cache for " + grouped(static_cast<std::uint64_t>(in.context)) + " tokens").c_str());
  if (ImGui::BeginTable("##cache", 4, tf, ImVec2(right_w, 0))) {
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
      ImGui::TextUnformatted(bytes(k.bytes).c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s bytes", grouped(k.bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(bytes(k.window_bytes).c_str());
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("%" PRId64 " layers, %s, d_k %" PRId64 "; windowed: the last %s tokens only", in.layers,
                      attn::dtype_name(in.cache_dtype), r.d_k,
                      grouped(static_cast<std::uint64_t>(std::min(in.causal_width, in.context))).c_str());
  txt::note(
      "Grouped-query attention lets several query heads share one K/V head; multi-query shares one for all. "
      "That shrinks the cache, not the T\xC2\xB2 score work.");
  const attn::WindowCount& wc = r.window;
  style::heading(ui.fonts, "Causal sliding window");
  txt::para(("Width w = " + grouped(static_cast<std::uint64_t>(wc.w)) + ": each query sees itself and the " +
             grouped(static_cast<std::uint64_t>(wc.w - 1)) + " keys before it. Of the " + grouped(wc.causal_pairs) +
             " (query, key) pairs full causal attention allows, it hides " + grouped(wc.hidden_pairs) + " (" +
             short_number(100.0 * wc.hidden_fraction, 4) + " %).")
                .c_str());
  txt::note("A window changes what a query can see; evidence further back is lost, not just cheaper.");
  txt::end_column(right_w);

  // --- timing and the weights map
  style::heading(ui.fonts, "Dense and tiled kernels, timed here");
  attn::KernelTimingInput ti = c.timing_input;
  txt::begin_column(left_w);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("T");
  for (int t : {128, 256, 512, 1024, 2048}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::to_string(t).c_str(), ti.t == t)) {
      ti.t = t;
      set_cost_timing_input(s, ti);
    }
  }
  ImGui::AlignTextToFramePadding();
  ImGui::Text("d = %d,", ti.d);
  ImGui::SameLine();
  if (ImGui::RadioButton("float32", ti.dtype == attn::KernelDtype::float32)) {
    ti.dtype = attn::KernelDtype::float32;
    set_cost_timing_input(s, ti);
  }
  ImGui::SameLine();
  if (ImGui::RadioButton("float64", ti.dtype == attn::KernelDtype::float64)) {
    ti.dtype = attn::KernelDtype::float64;
    set_cost_timing_input(s, ti);
  }
  ImGui::SameLine(0, fs);
  if (ImGui::Button("Time dense vs tiled")) run_cost_timing(s);
  if (c.timing) {
    const attn::KernelTiming& k = *c.timing;
    if (ImGui::BeginTable("##timing", 4, tf, ImVec2(left_w, 0))) {
      ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch, 0.7f);
      ImGui::TableSetupColumn("median", ImGuiTableColumnFlags_WidthStretch, 0.7f);
      ImGui::TableSetupColumn("GFLOP/s", ImGuiTableColumnFlags_WidthStretch, 0.6f);
      ImGui::TableSetupColumn("extra memory", ImGuiTableColumnFlags_WidthStretch, 0.8f);
      ImGui::TableHeadersRow();
      auto row = [&](const char* name, double median, std::uint64_t extra) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(duration(median).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(median > 0 ? short_number(k.flops / median * 1e-9, 3).c_str() : "-");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(bytes(extra).c_str());
      };
      row("dense", k.dense_median, k.dense_extra_bytes);
      row("tiled", k.tiled_median, k.tiled_extra_bytes);
      ImGui::EndTable();
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

  style::heading(ui.fonts, "How these are counted");
  for (const std::string& line : r.conventions) txt::note(("\xE2\x80\xA2 " + line).c_str());
}

}  // namespace app
