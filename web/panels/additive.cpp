// Additive attention (Bahdanau et al. 2015): a decoder stepping through "le chat noir" over
// "the black cat", one soft read of the source per step; four scoring functions on the same states.
#include "panels/additive.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/patch.hpp"
#include "lesson_ui.hpp"
#include "imgui_stdlib.h"

namespace app {

// --- state: inputs, setters, state() and set() ---------------------------------------------

using attn::Json;
using attn::Matrix;
using attn::Vector;

bool set_additive_input(AppState& s, const attn::AdditiveDecoderInput& in) {
  AdditiveState& a = s.additive;
  return guarded(a.error, [&] {
    attn::AdditiveDecoderDemo r = attn::additive_decoder_demo(in);
    a.input = in;
    a.source_text = in.source;
    a.target_text = in.target;
    a.step = std::max(0, std::min(static_cast<int>(r.steps.size()) - 1, a.step));
    a.result = std::move(r);
    ++s.generation;
  });
}

void set_additive_step(AppState& s, int step) {
  AdditiveState& a = s.additive;
  a.step = std::max(0, std::min(static_cast<int>(a.result.steps.size()) - 1, step));
  ++s.generation;
}

void init_additive(AppState& s) { set_additive_input(s, attn::AdditiveDecoderInput{}); }

namespace {
Json additive_inputs_only(const AppState& s) {
  const AdditiveState& ad = s.additive;
  return Json{{"source", ad.input.source}, {"target", ad.input.target}, {"seed", ad.input.seed},
              {"d_h", ad.input.d_h},       {"d_s", ad.input.d_s},       {"d_a", ad.input.d_a}};
}
}  // namespace

Json additive_inputs_json(const AppState& s) {
  Json in = additive_inputs_only(s);
  in["step"] = s.additive.step;  // a link also carries the step spelled out
  return in;
}

Json additive_state_json(const AppState& s) {
  const AdditiveState& ad = s.additive;
  Json additive_checks = Json::array();
  for (const attn::Check& k : ad.result.checks) additive_checks.push_back(attn::to_json(k));
  if (ad.step >= 0 && ad.step < static_cast<int>(ad.result.steps.size())) {
    const attn::AdditiveDecoderStep& st = ad.result.steps[static_cast<size_t>(ad.step)];
    for (const attn::Check& k : st.attention_checks) additive_checks.push_back(attn::to_json(k));
    for (const attn::Check& k : st.comparison_checks) additive_checks.push_back(attn::to_json(k));
  }
  Json r = attn::to_json(ad.result);
  r["checks_shown"] = additive_checks;
  return Json{{"inputs", additive_inputs_only(s)}, {"step", ad.step}, {"result", std::move(r)}, {"error", error_value(ad.error)}};
}

bool apply_additive_json(AppState& s, const Json& patch) {
  AdditiveState& a = s.additive;
  attn::AdditiveDecoderInput in = a.input;
  bool recompute = false, has_step = false;
  int step = 0;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "source")
      in.source = get_string(v, "source"), a.source_text = in.source, recompute = true;
    else if (k == "target")
      in.target = get_string(v, "target"), a.target_text = in.target, recompute = true;
    else if (k == "seed")
      in.seed = get_lesson_seed(v), recompute = true;
    else if (k == "d_h")
      in.d_h = get_int(v, "d_h", -1000000, 1000000), recompute = true;
    else if (k == "d_s")
      in.d_s = get_int(v, "d_s", -1000000, 1000000), recompute = true;
    else if (k == "d_a")
      in.d_a = get_int(v, "d_a", -1000000, 1000000), recompute = true;
    else if (k == "step")
      step = get_int(v, "step", -1000000, 1000000), has_step = true;
    else
      refuse("unknown additive input '" + k + "'");
  });
  if (recompute && !set_additive_input(s, in)) return false;
  if (has_step) set_additive_step(s, step);
  return true;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

std::string vec_text(const attn::Vector& v) {
  std::string s = "(";
  for (attn::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + short_number(v(i), 3);
  return s + ")";
}

}  // namespace

void draw_additive_panel(AppState& s, Ui& ui) {
  AdditiveState& a = s.additive;
  const attn::AdditiveDecoderDemo& r = a.result;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "Bahdanau, Cho and Bengio (2015) let an RNN decoder look back at every encoder state h_j instead of one "
      "final summary. At each step the previous decoder state s scores each source position, "
      "e_j = v_a^T tanh(W_s s + W_h h_j + b); a softmax over the valid positions gives weights a_j; the context "
      "c = \xCE\xA3 a_j h_j feeds the next step. The decoder itself stays sequential: one step per target word.");
  txt::note(("Note: " + r.note + ".").c_str());
  style::error_box(a.error);

  // --- inputs
  attn::AdditiveDecoderInput in = a.input;
  bool changed = false;
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 11.0f, "source"));
  if (ImGui::InputText("source", &a.source_text)) in.source = a.source_text, changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 11.0f, "target"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 11.0f, "target"));
  if (ImGui::InputText("target", &a.target_text)) in.target = a.target_text, changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 6.5f, "seed"), fs);
  ImGui::SetNextItemWidth(fs * 6.5f);
  std::uint64_t seed = in.seed;
  const std::uint64_t one = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &one, nullptr, "%llu")) in.seed = seed, changed = true;
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.5f, "d_h"));
  if (ImGui::InputInt("d_h", &in.d_h)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 5.5f, "d_s"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.5f, "d_s"));
  if (ImGui::InputInt("d_s", &in.d_s)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 5.5f, "d_a"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.5f, "d_a"));
  if (ImGui::InputInt("d_a", &in.d_a)) changed = true;
  widgets::dim_after("(the comparison of scores needs d_s = d_h)", fs);
  if (changed) set_additive_input(s, in);

  const int tq = static_cast<int>(r.steps.size());
  const int step = a.step;
  // --- stepping
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
  ImGui::BeginDisabled(step <= 0);
  if (ImGui::Button("< previous step")) set_additive_step(s, step - 1);
  ImGui::EndDisabled();
  widgets::same_line_if_fits(widgets::button_width("next step >"), -1.0f);
  ImGui::BeginDisabled(step >= tq - 1);
  if (ImGui::Button("next step >")) set_additive_step(s, step + 1);
  ImGui::EndDisabled();
  ImGui::SameLine(0, fs);
  if (step >= 0 && step < tq) {
    ImGui::AlignTextToFramePadding();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("step %d of %d: emitting \"%s\"", step + 1, tq,
                r.steps[static_cast<size_t>(step)].target_token.c_str());
    ImGui::PopFont();
  }

  // Columns start at x0 and x0 + left_w + gap.
  const txt::TwoColumns cols = txt::two_columns(0.45f);
  const float x0 = cols.x0, gap = cols.gap, left_w = cols.left_w, right_w = cols.right_w;
  const bool two_col = cols.two;

  txt::begin_column(left_w);
  style::heading(ui.fonts, "Weights per step (rows: target, columns: source)");
  HeatmapSpec spec;
  spec.values = &r.alignment;
  spec.row_labels = &r.target_tokens;
  spec.col_labels = &r.source_tokens;
  spec.version = s.generation;
  spec.numbers = true;
  spec.width = left_w;
  spec.max_cell = 64.0f;
  spec.selected_row = step;
  spec.row_axis = "target step";
  spec.col_axis = "source word";
  const HeatmapEvent ev = heatmap("alignment", spec, ui.gpu);
  if (ev.clicked_row >= 0) set_additive_step(s, ev.clicked_row);
  widgets::dim_wrapped("Click a row to jump to that step.");
  style::heading(ui.fonts, "One step");
  txt::para("1. The previous decoder state s scores every source state h_j (additive score e_j).");
  txt::para("2. A softmax over the valid source positions turns the scores into weights a_j.");
  txt::para("3. The context c = \xCE\xA3 a_j h_j is a blend of the source states.");
  txt::para("4. The next state comes from s, the emitted word and c: s' = tanh(A s + B y + C c), a stand-in "
            "recurrence here (teacher forcing: the target word is given).");
  txt::note("The decoder stays sequential: each step needs the state of the one before. Within a step, the scores "
            "of all source positions can be computed together.");
  txt::end_column(left_w);

  if (two_col) ImGui::SameLine(x0 + left_w + gap);
  txt::begin_column(right_w);
  if (step >= 0 && step < tq) {
    const attn::AdditiveDecoderStep& st = r.steps[static_cast<size_t>(step)];
    const attn::AdditiveResult& ar = st.attention;
    style::heading(ui.fonts, ("Step " + std::to_string(step + 1) + " in numbers").c_str());
    txt::para(("decoder state s = " + vec_text(st.state)).c_str());
    if (widgets::begin_table_fit("##step", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp, right_w, static_cast<int>(ar.weights.size()) + 1)) {
      ImGui::TableSetupColumn("source j", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableSetupColumn("score e_j", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableSetupColumn("weight a_j", ImGuiTableColumnFlags_WidthStretch, 1.0f);
      ImGui::TableSetupColumn("h_j", ImGuiTableColumnFlags_WidthStretch, 2.6f);
      ImGui::TableHeadersRow();
      for (attn::Index j = 0; j < ar.weights.size(); ++j) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(j < static_cast<attn::Index>(r.source_tokens.size())
                                   ? r.source_tokens[static_cast<size_t>(j)].c_str()
                                   : "?");
        ImGui::TableNextColumn();
        const bool valid = static_cast<size_t>(j) >= ar.key_valid.size() || ar.key_valid[static_cast<size_t>(j)];
        ImGui::TextUnformatted(valid ? short_number(ar.scores(j), 4).c_str() : "padding");
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(ar.weights(j), 4).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(vec_text(r.encoder_states.row(j).transpose()).c_str());
      }
      widgets::end_table_fit();
    }
    ImGui::PushFont(ui.fonts.bold);
    txt::para(("context c = \xCE\xA3 a_j h_j = " + vec_text(ar.context)).c_str());
    ImGui::PopFont();

    style::heading(ui.fonts, "Four scores on the same states");
    const attn::ScoringComparison& cmp = st.comparison;
    if (cmp.weights.rows() > 0) {
      HeatmapSpec c;
      c.values = &cmp.weights;
      c.row_labels = &cmp.names;
      c.col_labels = &r.source_tokens;
      c.row_axis = "score";
      c.col_axis = "source word";
      c.version = s.generation;
      c.numbers = true;
      c.legend = false;
      c.width = right_w;
      c.max_cell = 56.0f;
      heatmap("comparison", c, ui.gpu);
      txt::note(
          "dot: s\xC2\xB7h_j.  scaled dot: s\xC2\xB7h_j/\xE2\x88\x9A"
          "d (Vaswani et al. 2017).  general: s^T W h_j "
          "(Luong et al. 2015).  additive: Bahdanau's e_j. Same states, different weights: the scoring "
          "function is a modelling choice, and none of these is trained here.");
      style::check_lines(st.comparison_checks);
    } else {
      txt::note("The comparison needs d_s = d_h (dot products of s with h_j).");
    }
    style::check_lines(st.attention_checks);
  }
  txt::end_column(right_w);

  style::heading(ui.fonts, "Checks");
  style::check_lines(r.checks);
  draw_recall_strip(s, ui, "additive");
}

}  // namespace app
