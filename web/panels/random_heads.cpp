// Random-init heads panel: multi-head self-attention with seeded random weights.
#include "panels/random_heads.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "json/lesson_json.hpp"
#include "attn/linalg.hpp"
#include "panels/patch.hpp"
#include "panels/ui.hpp"
#include "panels/lesson_ui.hpp"
#include "panels/registry.hpp"
#include "widgets/plots.hpp"
#include "learn/json_obj.hpp"

namespace app {

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"heads", "Random-init heads", "routing, nothing learned", "Random-init heads: routing without learning",
    heads_state_json, apply_heads_json, error_of<&AppState::heads>, heads_link_inputs, draw_heads_panel};
const PanelDef& heads_panel() { return kPanel; }

// --- Random heads -----------------------------------------------------------

namespace {
// The anatomy of the chosen head and row of h.result (the core's), and its labels for drawing.
void compute_anatomy(HeadsState& h) {
  h.anatomy = attn::head_anatomy(h.result, h.anatomy_head, h.anatomy_row);
  const attn::HeadAnatomy& a = h.anatomy;
  h.anatomy_masked.clear();  // drawn "masked" where the mask forbids the key
  for (size_t j = 0; j < a.scaled.size(); ++j) h.anatomy_masked.push_back(a.allowed[j] ? a.scaled[j] : std::nan(""));
  h.anatomy_features.clear();
  for (int c = 0; c < std::max(a.d_k, a.d_v); ++c) h.anatomy_features.push_back(std::to_string(c + 1));
  h.anatomy_output = "(";
  for (size_t c = 0; c < a.output.size(); ++c) h.anatomy_output += (c ? ", " : "") + short_number(a.output[c], 3);
  h.anatomy_output += ")";
}
}  // namespace

bool set_heads_input(AppState& s, const attn::RandomHeadsInput& in) {
  HeadsState& h = s.heads;
  return guarded(h.error, [&] {
    attn::RandomHeadsResult r = attn::random_heads(in);
    std::vector<std::vector<double>> sums;
    for (const attn::AttentionResult& head : r.heads) sums.push_back(row_sums(head.weights));
    h.input = in;
    h.result = std::move(r);
    h.row_sums = std::move(sums);
    if (in.valid_length > 0) h.padding_length = in.valid_length;
    // fewer heads or tokens than before: the anatomy moves to the last one there is
    h.anatomy_head = std::min(h.anatomy_head, static_cast<int>(h.result.heads.size()) - 1);
    h.anatomy_row = std::min(h.anatomy_row, static_cast<int>(h.result.tokens.size()) - 1);
    compute_anatomy(h);
    changed();
  });
}

bool set_heads_anatomy(HeadsState& h, int head, int query_row) {
  return guarded(h.error, [&] {
    attn::head_anatomy(h.result, head, query_row);  // refuses a head or row out of range, naming it
    h.anatomy_head = head;
    h.anatomy_row = query_row;
    compute_anatomy(h);
    changed();
  });
}

namespace {

bool apply_heads(AppState& s, const Json& patch) {
  HeadsState& h = s.heads;
  attn::RandomHeadsInput in = h.input;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (read_sentence_field(k, *it, in, h.sentence_text)) {
      continue;
    } else if (k == "heads") {
      in.heads = get_number<int>(*it, "heads", -1000000, 1000000);
    } else if (k == "d_k") {
      in.d_k = get_number<int>(*it, "d_k", -1000000, 1000000);
    } else if (k == "causal") {
      in.causal = get_bool(*it, "causal");
    } else if (k == "key_padding") {
      in.valid_length = get_bool(*it, "key_padding") ? h.padding_length : -1;
    } else if (k == "valid_length") {
      in.valid_length = it->is_null() ? -1 : get_number<int>(*it, "valid_length", -1000000, 1000000);
    } else if (k == "positions") {
      in.positions = get_positions(*it);
    } else if (k == "init") {
      const std::string init = get_string(*it, "init");
      if (init != "core" && init != "torch_replica") throw PatchError{"init must be \"core\" or \"torch_replica\""};
      in.init = init == "core" ? attn::HeadsInit::core : attn::HeadsInit::torch_replica;
    } else if (k == "head" || k == "query_row" || k == "anatomy_step") {
      // the anatomy's choices, applied after the inputs (a new sentence may change the rows)
    } else {
      throw PatchError{"unknown heads input '" + k + "'"};
    }
  }
  if (!set_heads_input(s, in)) return false;
  if (patch.contains("anatomy_step")) h.anatomy_step = get_number<int>(patch["anatomy_step"], "anatomy_step", 1, kAnatomySteps);
  if (!patch.contains("head") && !patch.contains("query_row")) return true;
  const int head = patch.contains("head") ? get_number<int>(patch["head"], "head", -1000000, 1000000) : h.anatomy_head;
  const int row = patch.contains("query_row") ? get_number<int>(patch["query_row"], "query_row", -1000000, 1000000)
                                              : h.anatomy_row;
  return set_heads_anatomy(h, head, row);
}

}  // namespace

namespace {
// state().heads.anatomy: the head and query row, q, k, v (T×" "d_k, T×" "d_v), and the row's raw_scores
// (q·kⱼ), scaled, masked (null where not allowed, as the JSON contract writes masked scores),
// weights and output.
Json anatomy_json(const HeadsState& h) {
  const attn::HeadAnatomy& a = h.anatomy;
  Json masked = Json::array();
  for (size_t j = 0; j < a.scaled.size(); ++j) masked.push_back(a.allowed[j] ? Json(a.scaled[j]) : Json(nullptr));
  return ::attn::obj({{"head", a.head}, {"query_row", a.query_row}, {"step", h.anatomy_step},
                      {"d_k", a.d_k}, {"d_v", a.d_v}, {"scale", a.scale},
                      {"q", attn::to_json(a.q)}, {"k", attn::to_json(a.k)}, {"v", attn::to_json(a.v)},
                      {"raw_scores", a.raw_scores}, {"scaled", a.scaled}, {"masked", masked},
                      {"weights", a.weights}, {"output", a.output}});
}
}  // namespace

Json heads_state_json(const AppState& s) {
  const HeadsState& h = s.heads;
  Json heads_rows = Json::array();
  for (const auto& r : h.row_sums) heads_rows.push_back(vector_json(r));
  return ::attn::obj({{"inputs", ::attn::obj({{"sentence", h.input.sentence}, {"seed", h.input.seed}, {"d_model", h.input.d_model},
                          {"heads", h.input.heads}, {"d_k", h.input.d_k}, {"causal", h.input.causal},
                          {"key_padding", h.input.valid_length >= 0},
                          {"valid_length", h.input.valid_length >= 0 ? Json(h.input.valid_length) : Json(nullptr)},
                          {"positions", positions_name(h.input.positions)},
                          {"init", h.input.init == attn::HeadsInit::core ? "core" : "torch_replica"},
                          {"head", h.anatomy_head}, {"query_row", h.anatomy_row}})},
              {"sentence_text", h.sentence_text},
              {"result", attn::to_json(h.result)},
              {"anatomy", anatomy_json(h)},
              {"row_sums", heads_rows},
              {"error", error_value(h.error)}});
}

Json heads_link_inputs(const AppState& s) {
  const HeadsState& h = s.heads;
  return ::attn::obj({{"sentence", h.input.sentence}, {"seed", h.input.seed}, {"d_model", h.input.d_model},
              {"heads", h.input.heads}, {"d_k", h.input.d_k}, {"causal", h.input.causal},
              {"valid_length", h.input.valid_length >= 0 ? Json(h.input.valid_length) : Json(nullptr)},
              {"positions", positions_name(h.input.positions)},
              {"init", h.input.init == attn::HeadsInit::core ? "core" : "torch_replica"},
              {"head", h.anatomy_head}, {"query_row", h.anatomy_row}});
}

bool apply_heads_json(AppState& s, const Json& patch) { return apply_heads(s, patch); }

// --- drawing -------------------------------------------------------------------------------

// One heatmap per head, side by side (wrapping into rows when narrow), one legend per row.
static void draw_head_maps(const HeadsState& h, Ui& ui) {
  const attn::RandomHeadsResult& r = h.result;
  const float fs = ImGui::GetFontSize();
  const bool numbers = h.numbers_in_cells;
  const int n = static_cast<int>(r.heads.size());
  const float spacing = fs * 1.5f;
  const float legend_w = fs * 4.5f;
  const float avail = ImGui::GetContentRegionAvail().x - legend_w;
  const float min_w = fs * 14.0f;
  const int per_row = std::max(1, std::min(n, static_cast<int>((avail + spacing) / (min_w + spacing))));
  const float w = std::floor((avail - spacing * (per_row - 1)) / per_row);
  HeatmapEvent ev;
  for (int k = 0; k < n; ++k) {
    if (k % per_row != 0) ImGui::SameLine(0, spacing);
    ImGui::BeginGroup();
    ImGui::PushID(k);
    const attn::AttentionResult& head = r.heads[static_cast<size_t>(k)];
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("head %d", k + 1);
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextDisabled("scale %s", short_number(head.scale, 4).c_str());
    HeatmapSpec spec;
    spec.values = &head.weights;
    spec.allowed = &head.allowed;
    spec.row_labels = &r.tokens;
    spec.col_labels = &r.tokens;
    spec.row_sums = k < static_cast<int>(h.row_sums.size()) ? &h.row_sums[static_cast<size_t>(k)] : nullptr;
    spec.vmin = 0.0;
    spec.vmax = 1.0;
    spec.version = generation();
    spec.numbers = numbers;
    spec.width = w;
    spec.legend = false;
    ev = heatmap("head", spec, ui.gpu);
    ImGui::PopID();
    ImGui::EndGroup();
    if (k % per_row == per_row - 1 || k == n - 1) {
      // The row's legend, level with the cells.
      ImGui::SameLine(0, spacing * 0.5f);
      ImGui::BeginGroup();
      ImGui::Dummy(ImVec2(1, ImGui::GetTextLineHeightWithSpacing() + ev.grid_top - ImGui::GetStyle().ItemSpacing.y));
      ImGui::PushID(k);
      heatmap_legend("legend", 0.0, 1.0, h.input.causal || h.input.valid_length >= 0,
                     std::max(ev.grid_height, fs * 6.0f), ui.gpu);
      ImGui::PopID();
      ImGui::EndGroup();
    }
  }
}

constexpr std::size_t kAnatomyTableTokens = 24;  // one line per key: a longer row would run for screens

// The anatomy of one head, step by step: Q, K, V; the raw scores of the chosen query row; ÷√d_k; the
// mask; the softmax; the output. Everything drawn comes from the panel's state (lessons::head_anatomy).
static void draw_head_anatomy(HeadsState& h, Ui& ui) {
  const attn::HeadAnatomy& a = h.anatomy;
  const attn::RandomHeadsResult& r = h.result;
  const float fs = ImGui::GetFontSize();
  style::heading(ui.fonts, "Anatomy of one head");
  int head = a.head + 1, row = a.query_row;
  bool pick = false;
  ImGui::SetNextItemWidth(fs * 7.0f);
  if (r.heads.size() > 1 && widgets::slider_int("head##anatomy", &head, 1, static_cast<int>(r.heads.size()))) pick = true;
  if (r.heads.size() > 1) widgets::same_line_if_fits(widgets::labeled_width(fs * 8.0f, "query row"), fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 8.0f);
  if (ImGui::BeginCombo("query row", r.tokens[static_cast<size_t>(row)].c_str())) {
    for (int i = 0; i < static_cast<int>(r.tokens.size()); ++i)
      if (ImGui::Selectable((std::to_string(i + 1) + "  " + r.tokens[static_cast<size_t>(i)]).c_str(), i == row)) {
        row = i;
        pick = true;
      }
    ImGui::EndCombo();
  }
  if (pick) set_heads_anatomy(h, head - 1, row);
  static const char* const kStep[kAnatomySteps] = {"1 project: Q, K, V", "2 scores q\xC2\xB7k", "3 \xC3\xB7\xE2\x88\x9A" "d\xE2\x82\x96",
                                                   "4 mask", "5 softmax", "6 weights \xC2\xB7 V"};
  widgets::same_line_if_fits(widgets::labeled_width(fs * 10.0f, "step"), fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 10.0f);
  widgets::slider_int("step", &h.anatomy_step, 1, kAnatomySteps, kStep[h.anatomy_step - 1]);
  widgets::same_line_if_fits(widgets::button_width("all steps"));
  if (ImGui::Button("all steps")) h.anatomy_step = kAnatomySteps;

  // 1. Q = X·W_q, K = X·W_k, V = X·W_v (this head's columns; RoPE already applied to Q and K when on)
  // Side by side where three fit, else one under another (a phone).
  const float avail = ImGui::GetContentRegionAvail().x;
  const float map_w = avail >= fs * 30.0f ? std::min(avail / 3.0f - fs, fs * 16.0f) : std::min(avail, fs * 16.0f);
  const char* names[3] = {"Q = X\xC2\xB7W_q", "K = X\xC2\xB7W_k", "V = X\xC2\xB7W_v"};
  const attn::Matrix* mats[3] = {&a.q, &a.k, &a.v};
  for (int m = 0; m < 3; ++m) {
    if (m > 0) widgets::same_line_if_fits(map_w, fs);
    ImGui::BeginGroup();
    ImGui::PushID(m);
    ImGui::Text("%s  (%d\xC3\x97%d)", names[m], static_cast<int>(mats[m]->rows()), static_cast<int>(mats[m]->cols()));
    HeatmapSpec spec;
    spec.values = mats[m];
    spec.row_labels = &r.tokens;
    spec.col_labels = &h.anatomy_features;
    spec.vmin = -std::max(a.qkv_abs_max, 1e-12);
    spec.vmax = std::max(a.qkv_abs_max, 1e-12);
    spec.map = ColorMap::sunset;
    spec.value_name = "value";
    spec.col_axis = "feature";
    spec.row_axis = "token";
    spec.version = generation();
    spec.width = map_w;
    spec.max_cell = fs * 1.6f;
    spec.legend = false;
    spec.selected_row = m == 0 ? a.query_row : -1;
    static const char* const kIds[3] = {"anatomy Q", "anatomy K", "anatomy V"};  // the text mirror's table names
    heatmap(kIds[m], spec, ui.gpu);
    ImGui::PopID();
    ImGui::EndGroup();
  }
  if (h.anatomy_step < 2) return;

  // 2-5. the chosen query's row, one key per line: raw scores, scaled, masked, softmax
  if (r.tokens.size() > kAnatomyTableTokens) {
    widgets::dim_wrapped(("The step-by-step table is drawn for sentences of up to " + std::to_string(kAnatomyTableTokens) +
                          " tokens; this one has " + std::to_string(r.tokens.size()) +
                          ". state().heads.anatomy holds every key's numbers.")
                             .c_str());
    return;
  }
  ImGui::TextWrapped("Query \"%s\" (row %d, outlined in Q) against every key:", r.tokens[static_cast<size_t>(a.query_row)].c_str(),
                     a.query_row + 1);
  std::vector<plot::BarColumn> cols;
  cols.push_back(plot::BarColumn{"q\xC2\xB7k\xE2\xB1\xBC (raw)", a.raw_scores, std::max(a.raw_abs_max, 1e-12)});
  if (h.anatomy_step >= 3)
    cols.push_back(plot::BarColumn{"\xC3\xB7\xE2\x88\x9A" "d\xE2\x82\x96 = " + short_number(a.scale, 3) + "\xC3\x97", a.scaled,
                                   std::max(a.scaled_abs_max, 1e-12)});
  if (h.anatomy_step >= 4) {
    plot::BarColumn masked{"mask", h.anatomy_masked, std::max(a.scaled_abs_max, 1e-12)};
    masked.nan_text = "masked";
    cols.push_back(masked);
  }
  if (h.anatomy_step >= 5) cols.push_back(plot::BarColumn{"softmax: weight", a.weights, 1.0, IM_COL32(200, 90, 40, 255)});
  plot::bar_table("anatomy_row", r.tokens, cols, ImGui::GetContentRegionAvail().x, a.query_row);
  if (h.anatomy_step < 6) return;
  ImGui::Text("output = \xCE\xA3\xE2\xB1\xBC weight\xE2\xB1\xBC \xC2\xB7 v\xE2\xB1\xBC = %s  (d_v = %d)", h.anatomy_output.c_str(), a.d_v);
  widgets::dim_wrapped("A weighted average of V's rows: it lies inside their convex hull. Bars below 0 are drawn empty; "
                       "their numbers are shown.");
}

void draw_heads_panel(AppState& s, Ui& ui) {
  HeadsState& h = s.heads;
  const attn::RandomHeadsResult& r = h.result;
  const float fs = ImGui::GetFontSize();

  style::paragraph(
      "Each head scores every query against every key with its own random W_q and W_k; nothing here was "
      "trained. Try Re-roll or more heads; notice that random heads already route, each differently.");
  style::details("What a random map tells", [&] {
    style::note(
        "Every head projects the same token embeddings with its own randomly initialised W_q and W_k "
        "(PyTorch's default laws, drawn from the seed), scores each query against each key, divides by "
        "\xE2\x88\x9A" "d_k and takes a softmax over the keys it may see. Its rows are uneven because its "
        "projections are random, not because it knows any syntax. Differences between these heads are differences "
        "between random draws, not specialisation. Even for trained heads a map is a hypothesis to test by "
        "intervening, not an explanation.");
  });
  style::error_box(h.error);

  // --- inputs: every change goes through set_heads_input (the core validates ranges)
  attn::RandomHeadsInput in = h.input;
  bool changed = false;
  const float field = fs * 7.0f;
  if (widgets::sentence_field(h.sentence_text)) {
    in.sentence = h.sentence_text;
    changed = true;
  }
  widgets::same_line_if_fits(widgets::labeled_width(field, "seed"), fs * 1.5f);
  ImGui::SetNextItemWidth(field);
  std::uint64_t seed = in.seed;
  const std::uint64_t one = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &one, nullptr, "%llu")) {
    in.seed = seed;
    changed = true;
  }
  widgets::same_line_if_fits(widgets::button_width("Re-roll"));
  if (ImGui::Button("Re-roll")) {
    in.seed = in.seed + 1;
    changed = true;
  }

  ImGui::SetNextItemWidth(field);
  if (ImGui::InputInt("d_model", &in.d_model)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(field, "heads"), fs * 1.5f);
  ImGui::SetNextItemWidth(field);
  if (widgets::slider_int("heads", &in.heads, 1, 8)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(field, "d_k"), fs * 1.5f);
  ImGui::SetNextItemWidth(field);
  if (ImGui::InputInt("d_k", &in.d_k)) changed = true;

  if (ImGui::Checkbox("causal mask", &in.causal)) changed = true;
  widgets::same_line_if_fits(widgets::check_width("key padding"), fs * 1.5f);
  bool padding = in.valid_length >= 0;
  if (ImGui::Checkbox("key padding", &padding)) {
    in.valid_length = padding ? std::min<int>(h.padding_length, static_cast<int>(r.tokens.size())) : -1;
    changed = true;
  }
  if (padding) {
    widgets::same_line_if_fits(widgets::labeled_width(field, "valid length"));
    ImGui::SetNextItemWidth(field);
    int valid = in.valid_length;
    if (widgets::slider_int("valid length", &valid, 1, std::max(1, static_cast<int>(r.tokens.size())))) {
      in.valid_length = valid;
      changed = true;
    }
  }
  // Positions: none, sinusoidal (added to X), RoPE (rotates each head's Q and K).
  widgets::same_line_if_fits(widgets::position_choice_width(), fs * 1.5f);
  if (widgets::position_choice(in.positions)) changed = true;
  // Init: the core's seeded laws, or torch's own generator replayed (the lesson's exact numbers).
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 21.0f, "init"));
  const char* inits[] = {"seeded (the core's generator)", "PyTorch replica (torch's generator)"};
  int init = in.init == attn::HeadsInit::core ? 0 : 1;
  if (ImGui::Combo("init", &init, inits, 2)) {
    in.init = init == 0 ? attn::HeadsInit::core : attn::HeadsInit::torch_replica;
    changed = true;
  }
  widgets::same_line_if_fits(widgets::text_width("(?)"));
  style::help_marker(
      "Seeded: PyTorch's default laws (N(0,1) embeddings, U(\xC2\xB1" "1/\xE2\x88\x9A" "d_model) weights) drawn from the "
      "core's own generator, identical natively and in the browser. PyTorch replica: torch.manual_seed(seed) "
      "replayed exactly (mt19937, float uniforms, normal_'s Box-Muller, kaiming_uniform_), so seed 17 with one "
      "head of d_k 8 reproduces the lesson's printed matrix.");
  const char* lesson_button = "The lesson's script: seed 17, 1 head, d_k 8";
  widgets::same_line_if_fits(widgets::button_width(lesson_button), fs * 1.5f);
  if (widgets::wrapped_button(lesson_button)) {
    in = attn::RandomHeadsInput{};
    in.init = attn::HeadsInit::torch_replica;
    in.heads = 1;
    in.d_k = 8;
    h.sentence_text = in.sentence;
    changed = true;
  }
  widgets::same_line_if_fits(widgets::check_width("numbers in cells"), fs * 1.5f);
  bool& numbers = h.numbers_in_cells;
  ImGui::Checkbox("numbers in cells", &numbers);
  if (changed) set_heads_input(s, in);

  const int t = static_cast<int>(r.tokens.size());
  if (h.input.init == attn::HeadsInit::torch_replica) {
    const bool lesson = h.input.seed == 17 && h.input.heads == 1 && h.input.d_k == 8 && h.input.d_model == 8 &&
                        h.input.sentence == attn::RandomHeadsInput{}.sentence && !h.input.causal &&
                        h.input.valid_length < 0 && h.input.positions == attn::PositionKind::none;
    ImGui::PushStyleColor(ImGuiCol_Text, style::accent());
    ImGui::TextWrapped("%s", lesson ? "PyTorch replica, seed 17, one head of d_k 8: exactly the matrix the lesson's "
                                      "script prints (torch's generator replayed; see the Lesson script panel)."
                                    : "PyTorch replica: the numbers torch.manual_seed(seed) would give for this setup.");
    ImGui::PopStyleColor();
  }
  std::string allowed = h.input.causal ? "causal (itself and earlier keys)" : "all keys";
  if (h.input.valid_length >= 0 && h.input.valid_length < t)
    allowed += ", keys " + std::to_string(h.input.valid_length) + (h.input.valid_length + 1 < t ? ".." + std::to_string(t - 1) : "") +
               " are padding";
  char summary[320];
  std::snprintf(summary, sizeof summary,
                "%d tokens \xC2\xB7 d_model %d \xC2\xB7 %d head%s of d_k %d \xC2\xB7 allowed: %s. Hatched cells are masked.", t,
                h.input.d_model, h.input.heads, h.input.heads == 1 ? "" : "s", h.input.d_k, allowed.c_str());
  widgets::dim_wrapped(summary);

  // --- one heatmap per head, side by side (wrapping into rows when narrow), one legend per row
  draw_head_maps(h, ui);
  style::check_lines(r.checks);
  draw_head_anatomy(h, ui);

  draw_recall_strip(s, ui, "heads");
  const std::string learned = "Heads trained in this page, ablated and patched: Learned heads (" +
                              panel_number(static_cast<std::size_t>(panel_index("learned_heads"))) + ")";
  if (widgets::wrapped_button(learned.c_str())) show_panel(s, "learned_heads");
}

}  // namespace app
