// Masks panel: prefix isolation under a causal mask (with the unmasked control), the weights a
// mask leaves on a grid the learner edits (causal at first), key padding,
// a query with no allowed key under both policies, and the two causal alignments for Tq != Tk.
#include "panels/masks.hpp"
#include "panels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/patch.hpp"
#include "panels/recall.hpp"
#include "panels/lesson_ui.hpp"
#include "widgets/plots.hpp"
#include "learn/json_obj.hpp"

namespace app {

constexpr char kRecall[] = "masking";  // the check-yourself strip under the panel's checks
constexpr PanelDef kPanel = own_state_panel<MasksState, masks_state_json, apply_masks_json, masks_inputs_json, draw_masks_panel, kRecall>(
    "masks", "Masks", "causal, padding, empty rows", "Masks: what a query may not see");  // its entry in the panel table (registry.cpp)
const PanelDef& masks_panel() { return kPanel; }

bool set_masks_prefix(MasksState& m, int from, double amount) {
  return guarded(m.error, [&] {
    attn::PrefixIsolationResult r = attn::prefix_isolation(lesson_model().x, lesson_model().weights, from, amount);
    m.from = from;
    m.amount = amount;
    m.prefix = std::move(r);
    changed();
  });
}

bool set_masks_padding(MasksState& m, int valid_length) {
  return guarded(m.error, [&] {
    const int t = static_cast<int>(lesson_model().x.rows());
    attn::require_range("valid length", valid_length, 1, t);
    std::vector<bool> valid(static_cast<size_t>(t), false);
    for (int j = 0; j < valid_length; ++j) valid[static_cast<size_t>(j)] = true;
    attn::KeyPaddingResult r = attn::key_padding_experiment(lesson_model().x, lesson_model().weights, valid, 100.0);
    m.valid_length = valid_length;
    m.padding = std::move(r);
    changed();
  });
}

bool set_masks_empty_allowed(MasksState& m, const attn::BoolMatrix& allowed) {
  const attn::SelfAttentionResult& a = lesson_model().attention;
  return guarded(m.error, [&] {
    attn::MaskSpec spec;
    spec.allowed = allowed;
    attn::EmptyRowDemo r = attn::empty_row_demo(a.query, a.key, a.value, spec);
    m.empty_allowed = allowed;
    m.empty = std::move(r);
    changed();
  });
}

bool toggle_masks_empty_cell(MasksState& m, int row, int col) {
  if (row < 0 || col < 0 || row >= m.empty_allowed.rows() || col >= m.empty_allowed.cols()) {
    m.error = ErrorInfo{"invalid_field", "cell (" + std::to_string(row) + ", " + std::to_string(col) +
                                             ") is outside the " + std::to_string(m.empty_allowed.rows()) + "x" +
                                             std::to_string(m.empty_allowed.cols()) + " mask"};
    return false;
  }
  attn::BoolMatrix b = m.empty_allowed;
  b(row, col) = !b(row, col);
  return set_masks_empty_allowed(m, b);
}

void set_masks_zero_policy(MasksState& m, bool zero) {
  m.zero_policy = zero;
  changed();
}

bool set_masks_causal(MasksState& m, int tq, int tk) {
  return guarded(m.error, [&] {
    attn::require_range("Tq", tq, 1, 16);
    attn::require_range("Tk", tk, 1, 16);
    attn::CausalAlignmentTable r = attn::causal_alignments(tq, tk);
    m.top_left = bool_to_matrix(r.top_left);
    m.bottom_right = bool_to_matrix(r.bottom_right);
    m.tq = tq;
    m.tk = tk;
    m.causal = std::move(r);
    changed();
  });
}

void init_masks(MasksState& m) {
  const int t = static_cast<int>(lesson_model().x.rows());
  set_masks_prefix(m, 3, 100.0);
  set_masks_padding(m, 4);
  // Opens on a working causal mask; the all-masked row is one click away ("Mask every key of ...").
  set_masks_empty_allowed(m, attn::causal_mask(t, t, attn::Causal::square));
  set_masks_causal(m, 3, 5);
}

Json masks_inputs_json(const MasksState& m) {
  return ::attn::obj({{"from", m.from},
              {"amount", m.amount},
              {"valid_length", m.valid_length},
              {"empty_allowed", attn::to_json(m.empty_allowed)},
              {"zero_policy", m.zero_policy},
              {"tq", m.tq},
              {"tk", m.tk}});
}

Json masks_state_json(const MasksState& m) {
  return ::attn::obj({{"inputs", masks_inputs_json(m)},
              {"result",
               ::attn::obj({{"tokens", lesson_model().tokens},
                {"prefix", attn::to_json(m.prefix)},
                {"padding", attn::to_json(m.padding)},
                {"empty_rows", attn::to_json(m.empty)},
                {"causal", attn::to_json(m.causal)},
                {"checks", all_checks({&m.prefix.checks, &m.padding.checks, &m.empty.checks, &m.causal.checks})}})},
              {"error", error_value(m.error)}});
}

bool apply_masks_json(MasksState& m, const Json& patch) {
  int from = m.from, valid = m.valid_length, tq = m.tq, tk = m.tk;
  double amount = m.amount;
  bool prefix = false, padding = false, causal = false;
  bool ok = true;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "from")
      from = get_int(v, "from", -1000000, 1000000), prefix = true;
    else if (k == "amount")
      amount = get_double(v, "amount"), prefix = true;
    else if (k == "valid_length")
      valid = get_int(v, "valid_length", -1000000, 1000000), padding = true;
    else if (k == "tq")
      tq = get_int(v, "tq", -1000000, 1000000), causal = true;
    else if (k == "tk")
      tk = get_int(v, "tk", -1000000, 1000000), causal = true;
    else if (k == "zero_policy")
      set_masks_zero_policy(m, get_bool(v, "zero_policy"));
    else if (k == "empty_allowed") {
      attn::MaskSpec spec = attn::mask_from_json(::attn::obj({{"allowed", v}}));
      ok = ok && set_masks_empty_allowed(m, *spec.allowed);
    } else if (k == "toggle") {
      if (!v.is_array() || v.size() != 2) refuse("toggle takes [row, col]");
      ok = ok &&
           toggle_masks_empty_cell(m, get_int(v[0], "row", -1000000, 1000000), get_int(v[1], "col", -1000000, 1000000));
    } else
      refuse("unknown masks input '" + k + "'");
  });
  if (ok && prefix) ok = set_masks_prefix(m, from, amount);
  if (ok && padding) ok = set_masks_padding(m, valid);
  if (ok && causal) ok = set_masks_causal(m, tq, tk);
  return ok;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

std::vector<std::string> numbered(const char* prefix, attn::Index n) {
  std::vector<std::string> out;
  for (attn::Index i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

// 1. Prefix isolation: a change to later positions moves no earlier row under the causal mask.
static void draw_prefix_isolation(MasksState& m, Ui& ui, float col_w) {
  const std::vector<std::string>& tokens = lesson_model().tokens;
  const int t = static_cast<int>(tokens.size());
  const float fs = ImGui::GetFontSize();
  txt::begin_column(col_w);
  style::heading(ui.fonts, "Changing the future cannot reach the past");
  ImGui::SetNextItemWidth(col_w * 0.32f);
  float amount = static_cast<float>(m.amount);
  if (widgets::slider_float("added to positions", &amount, -1000.0f, 1000.0f, "%+.0f"))
    set_masks_prefix(m, m.from, amount);
  widgets::same_line_if_fits(widgets::text_width(">=") + ImGui::GetStyle().ItemSpacing.x + fs * 4.0f);
  ImGui::TextUnformatted(">=");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(fs * 4.0f);
  int from = m.from;
  if (widgets::slider_int("##from", &from, 1, std::max(1, t - 1))) set_masks_prefix(m, from, m.amount);
  const attn::PrefixIsolationResult& pr = m.prefix;
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextWrapped("causal: prefix change = %s", exact_number(pr.causal_prefix_change).c_str());
  ImGui::PopFont();
  widgets::dim_after(("no mask (control): " + short_number(pr.unmasked_prefix_change, 3)).c_str(), fs * 1.5f);
  {
    std::vector<std::string> labels;
    for (int i = 0; i < t; ++i) labels.push_back(std::to_string(i) + " " + tokens[static_cast<size_t>(i)]);
    double top = 1e-12;
    for (double v : pr.unmasked_row_change) top = std::max(top, v);
    for (double v : pr.causal_row_change) top = std::max(top, v);
    plot::bar_table(
        "prefix_bars", labels,
        {plot::BarColumn{"causal: max |\xCE\x94 output|", pr.causal_row_change, top, style::accent_u32()},
         plot::BarColumn{"no mask: max |\xCE\x94 output|", pr.unmasked_row_change, top, IM_COL32(214, 120, 20, 255)}},
        col_w, static_cast<int>(pr.from) - 1);
  }
  txt::note(("Rows 0.." + std::to_string(pr.from - 1) +
             " are the prefix (the highlighted row is its last). A causal difference of exactly 0 is not merely small.")
                .c_str());
  txt::end_column(col_w);
}

// 3. Key padding: padded keys get no weight; padded query rows still produce outputs.
static void draw_key_padding(MasksState& m, Ui& ui, float col_w) {
  const std::vector<std::string>& tokens = lesson_model().tokens;
  const int t = static_cast<int>(tokens.size());
  const float fs = ImGui::GetFontSize();
  txt::begin_column(col_w);
  style::heading(ui.fonts, "Key padding");
  ImGui::SetNextItemWidth(col_w * 0.45f);
  int valid = m.valid_length;
  if (widgets::slider_int("valid length", &valid, 1, t)) set_masks_padding(m, valid);
  const attn::KeyPaddingResult& kp = m.padding;
  HeatmapSpec spec;  // padded query rows are marked beside the map, padded keys are hatched
  spec.values = &kp.attention.weights;
  spec.allowed = &kp.attention.allowed;
  spec.row_labels = &tokens;
  spec.col_labels = &tokens;
  spec.version = generation();
  spec.numbers = true;
  spec.legend = false;
  const char* kIgnored = "\xE2\x86\x90 ignored by the loss";  // beside the padded query rows
  spec.width = col_w - ImGui::CalcTextSize(kIgnored).x - fs;
  spec.max_cell = 32.0f;
  const ImVec2 h0 = ImGui::GetCursorScreenPos();
  const HeatmapEvent ev = heatmap("padding", spec, ui.gpu);
  const float right = ImGui::GetItemRectMax().x;
  const float cell_h = t > 0 ? ev.grid_height / static_cast<float>(t) : 0.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int i = 0; i < t; ++i) {
    if (!(i < static_cast<int>(kp.ignored_by_loss.size()) && kp.ignored_by_loss[static_cast<size_t>(i)])) continue;
    const float y = h0.y + ev.grid_top + cell_h * (static_cast<float>(i) + 0.5f) - fs * 0.5f;
    dl->AddText(ImVec2(right + fs * 0.4f, y), IM_COL32(176, 90, 10, 255), kIgnored);
  }
  txt::note("Padded keys (hatched) get exactly 0 weight. Padded query rows still produce outputs: the loss "
            "must skip them.");
  ImGui::TextWrapped("largest weight on a padded key: %s", exact_number(kp.max_padded_weight).c_str());
  ImGui::TextWrapped("+100 on padded positions moves valid rows by %s, padded rows by %s",
              exact_number(kp.valid_rows_change).c_str(), short_number(kp.padded_rows_change, 3).c_str());
  txt::end_column(col_w);
}

// 2. The weights a mask leaves, on a grid the learner clicks (causal at first); a query with no
// allowed key under the two policies.
static void draw_empty_row(MasksState& m, Ui& ui, float col_w) {
  const std::vector<std::string>& tokens = lesson_model().tokens;
  const int t = static_cast<int>(tokens.size());
  const float fs = ImGui::GetFontSize();
  txt::begin_column(col_w);
  style::heading(ui.fonts, "The weights a mask leaves");
  txt::note("Causal at first: each query sees itself and the keys before it. Click a cell to allow or mask it.");
  if (ImGui::RadioButton("policy: error (default)", !m.zero_policy)) set_masks_zero_policy(m, false);
  widgets::same_line_if_fits(widgets::check_width("policy: zero"), fs);
  if (ImGui::RadioButton("policy: zero", m.zero_policy)) set_masks_zero_policy(m, true);
  widgets::same_line_if_fits(widgets::text_width("(?)"));
  style::help_marker(
      "Mask a whole row and the query has nothing to attend to: the default policy refuses that, as the "
      "lesson's reference does; the zero policy (PyTorch \xE2\x89\xA5 2.5, FlashAttention) returns a zero row.");
  const attn::EmptyRowDemo& er = m.empty;
  {
    std::vector<std::string> er_rows;
    for (int i = 0; i < t; ++i)
      er_rows.push_back(
          tokens[static_cast<size_t>(i)] +
          (i < static_cast<int>(er.empty_row.size()) && er.empty_row[static_cast<size_t>(i)] ? " (empty)" : ""));
    HeatmapSpec g;
    g.values = &er.zero_policy.weights;
    g.allowed = &er.allowed;
    g.row_labels = &er_rows;
    g.col_labels = &tokens;
    g.version = generation();
    g.numbers = true;
    g.legend = false;
    g.width = col_w;
    g.max_cell = 32.0f;
    const HeatmapEvent ge = heatmap("empty_grid", g, ui.gpu);
    if (ge.clicked_row >= 0 && ge.hovered_col >= 0) toggle_masks_empty_cell(m, ge.clicked_row, ge.hovered_col);
  }
  if (ImGui::Button("Causal")) set_masks_empty_allowed(m, attn::causal_mask(t, t, attn::Causal::square));
  widgets::same_line_if_fits(widgets::button_width("Allow everything"));
  if (ImGui::Button("Allow everything")) set_masks_empty_allowed(m, attn::BoolMatrix::Constant(t, t, true));
  widgets::same_line_if_fits(widgets::button_width("Mask every key of \"cat\""));
  if (ImGui::Button("Mask every key of \"cat\"")) {
    attn::BoolMatrix b = attn::BoolMatrix::Constant(t, t, true);
    if (t > 1) b.row(1).setConstant(false);
    set_masks_empty_allowed(m, b);
  }
  if (!m.zero_policy) {
    if (er.rejected) {
      // The refusal as the core reported it (code and message), kept as data by empty_row_demo.
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(160, 20, 30, 255));
      txt::para(("\xE2\x9A\xA0 refused (" + er.error_code + "): " + er.error_message).c_str());
      ImGui::PopStyleColor();
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.1f, 0.5f, 0.2f, 1.0f));
      txt::para("Every row has an allowed key: both policies give the weights above.");
      ImGui::PopStyleColor();
    }
    if (er.rejected)
      txt::note("The weights drawn above are the zero policy's; under the default policy this case has no result.");
  } else {
    txt::note(
        "Zero policy: a row with no allowed key gets zero weights and a zero output. Its weights do not "
        "sum to 1, so they are not a distribution; code downstream must know that.");
  }
  txt::end_column(col_w);
}

// 4. The two causal alignments for Tq != Tk (top-left and bottom-right).
static void draw_causal_alignments(MasksState& m, Ui& ui, float col_w) {
  const float fs = ImGui::GetFontSize();
  txt::begin_column(col_w);
  style::heading(ui.fonts, "Causal with Tq \xE2\x89\xA0 Tk: two meanings");
  int tq = m.tq, tk = m.tk;
  ImGui::SetNextItemWidth(col_w * 0.3f);
  if (widgets::slider_int("Tq (queries)", &tq, 1, 8)) set_masks_causal(m, tq, m.tk);
  // Against the visible edge: on a wide canvas this row has always reached a little past its column.
  widgets::same_line_if_fits(widgets::labeled_width(col_w * 0.3f, "Tk (keys)"), fs, true);
  ImGui::SetNextItemWidth(col_w * 0.3f);
  if (widgets::slider_int("Tk (keys)", &tk, 1, 8)) set_masks_causal(m, m.tq, tk);
  const attn::CausalAlignmentTable& ca = m.causal;
  const std::vector<std::string> q_labels = numbered("q", ca.tq), k_labels = numbered("k", ca.tk);
  const bool beside = col_w > fs * 20.0f;  // narrow: one map under the other
  const float half = beside ? std::floor((col_w - fs) * 0.5f) : col_w;
  for (int k = 0; k < 2; ++k) {
    if (k && beside) ImGui::SameLine(0, fs);
    ImGui::BeginGroup();  // its caption wraps at the column's edge, as it always did
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(k == 0 ? "top-left" : "bottom-right");
    ImGui::PopFont();
    widgets::dim_wrapped(k == 0 ? "PyTorch is_causal: j \xE2\x89\xA4 i" : "FlashAttention 2.1+: j \xE2\x89\xA4 i+Tk-Tq");
    HeatmapSpec c;
    c.values = k == 0 ? &m.top_left : &m.bottom_right;
    c.allowed = k == 0 ? &ca.top_left : &ca.bottom_right;
    c.row_labels = &q_labels;
    c.col_labels = &k_labels;
    c.vmin = 0.0;
    c.vmax = 1.6;  // allowed cells in a calm mid-range colour
    c.value_name = "allowed";
    c.version = generation();
    c.legend = false;
    c.width = half;
    c.max_cell = 26.0f;
    heatmap(k == 0 ? "top_left" : "bottom_right", c, ui.gpu);
    ImGui::EndGroup();
  }
  if (ca.square_refused)
    txt::note(("Plain \"causal\" is refused for this shape: " + ca.square_message).c_str());
  else
    txt::note("Tq = Tk: both alignments agree, so plain \"causal\" is accepted.");
  style::details("Which fits which decoder", [&] {
    txt::note(
        "Top-left fits a decoder that starts at the first key; bottom-right fits decoding with a key/value "
        "cache, where the queries are the last Tq positions.");
  });
  txt::end_column(col_w);
}

void draw_masks_panel(MasksState& m, Ui& ui) {
  txt::para(
      "A mask, applied to the scores before the softmax, decides which keys a query may use. Try adding to the "
      "later positions, or another mask; notice which rows and weights stay exactly unchanged or zero.");
  txt::note("The lesson script's head (torch seed 17) on \"The cat sat on the mat\". Hatched cells are masked "
            "(true = may attend; PyTorch's masks use true = blocked).");
  style::error_box(m.error);

  // Columns start at x0 and x0 + col_w + gap.
  const txt::TwoColumns cols = txt::two_columns(0.5f);
  const float x0 = cols.x0, gap = cols.gap, col_w = cols.left_w;
  const bool two_col = cols.two;

  // --- 1. prefix isolation -----------------------------------------------------------
  draw_prefix_isolation(m, ui, col_w);

  // --- 2. the mask's weights (causal at first) and an empty row: beside 1 on a wide page ---
  if (two_col) ImGui::SameLine(x0 + col_w + gap);
  draw_empty_row(m, ui, col_w);

  // --- 3. key padding ------------------------------------------------------------------
  draw_key_padding(m, ui, col_w);

  // --- 4. causal alignments for Tq != Tk -----------------------------------------------
  if (two_col) ImGui::SameLine(x0 + col_w + gap);
  draw_causal_alignments(m, ui, col_w);

  // Every section's claims as one list.
  style::check_lines({m.prefix.checks, m.empty.checks, m.padding.checks, m.causal.checks});
}

}  // namespace app
