// Masks panel: prefix isolation under a causal mask (with the unmasked control), key padding,
// a query with no allowed key under both policies, and the two causal alignments for Tq != Tk.
#include <algorithm>
#include <cmath>
#include <string>

#include "panels.hpp"
#include "lesson_ui.hpp"
#include "widgets/plots.hpp"

namespace app {

namespace {

std::vector<std::string> numbered(const char* prefix, attn::Index n) {
  std::vector<std::string> out;
  for (attn::Index i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

void draw_masks_panel(AppState& s, Ui& ui) {
  MasksState& m = s.lesson.masks;
  const attn::LessonReplica& model = s.lesson.model;
  const std::vector<std::string>& tokens = model.tokens;
  const int t = static_cast<int>(tokens.size());
  const float fs = ImGui::GetFontSize();

  txt::para(
      "A mask decides which keys a query may use. It is applied to the scores before the softmax, so a "
      "masked key gets exactly zero weight and its value never enters the sum. The model here is the "
      "lesson script's own head (torch seed 17, replayed) on \"The cat sat on the mat\".");
  txt::note(
      "Masks here are allowed masks: true = may attend. PyTorch's attn_mask and key_padding_mask use "
      "true = blocked. Hatched cells are masked.");
  style::error_box(m.error);

  // Columns start at x0 and x0 + col_w + gap.
  const txt::TwoColumns cols = txt::two_columns(0.5f);
  const float x0 = cols.x0, gap = cols.gap, col_w = cols.left_w;
  const bool two_col = cols.two;

  // --- 1. prefix isolation -----------------------------------------------------------
  txt::begin_column(col_w);
  style::heading(ui.fonts, "Changing the future cannot reach the past");
  ImGui::SetNextItemWidth(col_w * 0.32f);
  float amount = static_cast<float>(m.amount);
  if (ImGui::SliderFloat("added to positions", &amount, -1000.0f, 1000.0f, "%+.0f"))
    set_masks_prefix(s, m.from, amount);
  ImGui::SameLine();
  ImGui::TextUnformatted(">=");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(fs * 4.0f);
  int from = m.from;
  if (ImGui::SliderInt("##from", &from, 1, std::max(1, t - 1))) set_masks_prefix(s, from, m.amount);
  const attn::PrefixIsolationResult& pr = m.prefix;
  ImGui::PushFont(ui.fonts.bold);
  ImGui::Text("causal: prefix change = %s", exact_number(pr.causal_prefix_change).c_str());
  ImGui::PopFont();
  ImGui::SameLine(0, fs * 1.5f);
  ImGui::TextDisabled("no mask (control): %s", short_number(pr.unmasked_prefix_change, 3).c_str());
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
             " are the prefix. Under the causal mask they did not move at all (a difference of exactly 0, "
             "not merely small); without a mask every row moved. The highlighted row is the last one of the prefix.")
                .c_str());
  txt::end_column(col_w);

  // --- 2. key padding ------------------------------------------------------------------
  if (two_col) ImGui::SameLine(x0 + col_w + gap);
  txt::begin_column(col_w);
  style::heading(ui.fonts, "Key padding");
  ImGui::SetNextItemWidth(col_w * 0.45f);
  int valid = m.valid_length;
  if (ImGui::SliderInt("valid length", &valid, 1, t)) set_masks_padding(s, valid);
  const attn::KeyPaddingResult& kp = m.padding;
  HeatmapSpec spec;  // padded query rows are marked beside the map, padded keys are hatched
  spec.values = &kp.attention.weights;
  spec.allowed = &kp.attention.allowed;
  spec.row_labels = &tokens;
  spec.col_labels = &tokens;
  spec.version = s.generation;
  spec.numbers = true;
  spec.legend = false;
  const char* kIgnored = "\xE2\x86\x90 ignored by the loss";  // beside the padded query rows
  spec.width = col_w - ImGui::CalcTextSize(kIgnored).x - fs;
  spec.max_cell = 40.0f;
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
  txt::note(
      "Padded keys (hatched columns) get exactly 0 weight. Padded query rows still produce outputs: "
      "attention does not know they are padding, so the task loss or readout must skip them.");
  ImGui::Text("largest weight on a padded key: %s", exact_number(kp.max_padded_weight).c_str());
  ImGui::Text("+100 on padded positions moves valid rows by %s, padded rows by %s",
              exact_number(kp.valid_rows_change).c_str(), short_number(kp.padded_rows_change, 3).c_str());
  txt::end_column(col_w);

  // --- 3. an empty row -----------------------------------------------------------------
  txt::begin_column(col_w);
  style::heading(ui.fonts, "A query with no allowed key");
  txt::note(
      "Click a cell to allow or mask it. The default policy refuses a row with nothing to attend to, "
      "as the lesson's reference does; the zero policy (PyTorch >= 2.5, FlashAttention) returns a zero row.");
  if (ImGui::RadioButton("policy: error (default)", !m.zero_policy)) set_masks_zero_policy(s, false);
  ImGui::SameLine(0, fs);
  if (ImGui::RadioButton("policy: zero", m.zero_policy)) set_masks_zero_policy(s, true);
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
    g.version = s.generation;
    g.numbers = true;
    g.legend = false;
    g.width = col_w;
    g.max_cell = 40.0f;
    const HeatmapEvent ge = heatmap("empty_grid", g, ui.gpu);
    if (ge.clicked_row >= 0 && ge.hovered_col >= 0) toggle_masks_empty_cell(s, ge.clicked_row, ge.hovered_col);
  }
  if (ImGui::Button("Allow everything")) set_masks_empty_allowed(s, attn::BoolMatrix::Constant(t, t, true));
  ImGui::SameLine();
  if (ImGui::Button("Mask every key of \"cat\"")) {
    attn::BoolMatrix b = attn::BoolMatrix::Constant(t, t, true);
    if (t > 1) b.row(1).setConstant(false);
    set_masks_empty_allowed(s, b);
  }
  if (!m.zero_policy) {
    if (er.rejected) {
      // The refusal as the core reported it (code and message), kept as data by empty_row_demo.
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(160, 20, 30, 255));
      txt::para(("\xE2\x9A\xA0 refused (" + er.error_code + "): " + er.error_message).c_str());
      ImGui::PopStyleColor();
    } else {
      ImGui::TextColored(ImVec4(0.1f, 0.5f, 0.2f, 1.0f), "Every row has an allowed key: the default policy accepts.");
    }
    txt::note("The weights drawn above are the zero policy's; under the default policy this case has no result.");
  } else {
    txt::note(
        "Zero policy: a row with no allowed key gets zero weights and a zero output. Its weights do not "
        "sum to 1, so they are not a distribution; code downstream must know that.");
  }
  txt::end_column(col_w);

  // --- 4. causal alignments for Tq != Tk -----------------------------------------------
  if (two_col) ImGui::SameLine(x0 + col_w + gap);
  txt::begin_column(col_w);
  style::heading(ui.fonts, "Causal with Tq \xE2\x89\xA0 Tk: two meanings");
  int tq = m.tq, tk = m.tk;
  ImGui::SetNextItemWidth(col_w * 0.3f);
  if (ImGui::SliderInt("Tq (queries)", &tq, 1, 8)) set_masks_causal(s, tq, m.tk);
  ImGui::SameLine(0, fs);
  ImGui::SetNextItemWidth(col_w * 0.3f);
  if (ImGui::SliderInt("Tk (keys)", &tk, 1, 8)) set_masks_causal(s, m.tq, tk);
  const attn::CausalAlignmentTable& ca = m.causal;
  const std::vector<std::string> q_labels = numbered("q", ca.tq), k_labels = numbered("k", ca.tk);
  const float half = std::floor((col_w - fs) * 0.5f);
  for (int k = 0; k < 2; ++k) {
    if (k) ImGui::SameLine(0, fs);
    ImGui::BeginGroup();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(k == 0 ? "top-left" : "bottom-right");
    ImGui::PopFont();
    ImGui::TextDisabled(k == 0 ? "PyTorch is_causal: j \xE2\x89\xA4 i" : "FlashAttention 2.1+: j \xE2\x89\xA4 i+Tk-Tq");
    HeatmapSpec c;
    c.values = k == 0 ? &m.top_left : &m.bottom_right;
    c.allowed = k == 0 ? &ca.top_left : &ca.bottom_right;
    c.row_labels = &q_labels;
    c.col_labels = &k_labels;
    c.vmin = 0.0;
    c.vmax = 1.6;  // allowed cells in a calm mid-range colour
    c.value_name = "allowed";
    c.version = s.generation;
    c.legend = false;
    c.width = half;
    c.max_cell = 30.0f;
    heatmap(k == 0 ? "top_left" : "bottom_right", c, ui.gpu);
    ImGui::EndGroup();
  }
  if (ca.square_refused)
    txt::note(("Plain \"causal\" is refused for this shape: " + ca.square_message).c_str());
  else
    txt::note("Tq = Tk: both alignments agree, so plain \"causal\" is accepted.");
  txt::note(
      "Top-left fits a decoder that starts at the first key; bottom-right fits decoding with a key/value "
      "cache, where the queries are the last Tq positions.");
  txt::end_column(col_w);

  style::heading(ui.fonts, "Checks");
  style::check_lines(pr.checks);
  style::check_lines(kp.checks);
  style::check_lines(er.checks);
  style::check_lines(ca.checks);
  draw_recall_strip(s, ui, "masking");
}

}  // namespace app
