// Dropout panel: inverted dropout on the attention weights. The weights the head returns stay the
// pre-dropout ones (rows sum to 1); the keep mask and the dropped weights are shown beside them.
#include "panels/dropout.hpp"
#include "panels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/patch.hpp"
#include "panels/recall.hpp"
#include "panels/lesson_ui.hpp"
#include "learn/json_obj.hpp"

namespace app {

constexpr char kRecall[] = "dropout";  // the check-yourself strip under the panel's checks
constexpr PanelDef kPanel = own_state_panel<DropoutState, dropout_state_json, apply_dropout_json, dropout_inputs_json, draw_dropout_panel, kRecall>(
    "dropout", "Dropout", "sampled rows, kept weights", "Dropout on attention weights");  // its entry in the panel table (registry.cpp)
const PanelDef& dropout_panel() { return kPanel; }

bool set_dropout(DropoutState& d, double p, std::uint64_t seed) {
  const attn::SelfAttentionResult& a = lesson_model().attention;
  return guarded(d.error, [&] {
    attn::AttentionDropout r = attn::apply_attention_dropout(a.attention, a.value, p, seed);
    d.keep = bool_to_matrix(r.keep);
    const Matrix sums = attn::matmul(a.attention.weights, Matrix::Ones(a.attention.weights.cols(), 1), "weights·1");
    d.weight_row_sums.assign(sums.data(), sums.data() + sums.size());
    d.p = p;
    d.seed = seed;
    d.result = std::move(r);
    changed();
  });
}

void init_dropout(DropoutState& d) { set_dropout(d, d.p, d.seed); }

Json dropout_inputs_json(const DropoutState& d) { return ::attn::obj({{"p", d.p}, {"seed", d.seed}}); }

Json dropout_state_json(const DropoutState& d) {
  Json r = attn::to_json(d.result);
  r["tokens"] = lesson_model().tokens;
  r["weights"] = attn::to_json(lesson_model().attention.attention.weights);
  return ::attn::obj({{"inputs", dropout_inputs_json(d)}, {"result", std::move(r)}, {"error", error_value(d.error)}});
}

bool apply_dropout_json(DropoutState& d, const Json& patch) {
  double p = d.p;
  std::uint64_t seed = d.seed;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "p")
      p = get_double(v, "p");
    else if (k == "seed")
      seed = get_lesson_seed(v);
    else
      refuse("unknown dropout input '" + k + "'");
  });
  return set_dropout(d, p, seed);
}

// --- drawing -------------------------------------------------------------------------------

void draw_dropout_panel(DropoutState& d, Ui& ui) {
  const attn::AttentionDropout& r = d.result;
  const attn::SelfAttentionResult& a = lesson_model().attention;
  const std::vector<std::string>& tokens = lesson_model().tokens;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "During training, attention dropout zeroes each weight with probability p and scales the survivors by "
      "1/(1 - p) (inverted dropout, as PyTorch does), so each weight keeps its expected value. A sampled row "
      "then no longer sums to 1: the output is no longer a convex combination of the values for that step.");
  txt::note(
      "The head still reports its pre-dropout weights, and those rows do sum to 1. The mask is drawn "
      "from the seed with the core's own generator: the same seed gives the same mask natively and in "
      "the browser, but not PyTorch's mask. At evaluation time there is no dropout.");
  style::error_box(d.error);

  const bool one_row = ImGui::GetContentRegionAvail().x > fs * 44;  // else the seed goes on a second line
  float p = static_cast<float>(d.p);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 14.0f, "p"));
  if (widgets::slider_float("p", &p, 0.0f, 1.0f, "%.2f")) set_dropout(d, p, d.seed);
  widgets::same_line_if_fits(widgets::button_width("p = 0"));
  if (ImGui::Button("p = 0")) set_dropout(d, 0.0, d.seed);
  widgets::same_line_if_fits(widgets::button_width("p = 1"));
  if (ImGui::Button("p = 1")) set_dropout(d, 1.0, d.seed);
  if (one_row) ImGui::SameLine(0, fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 7.0f);
  std::uint64_t seed = d.seed;
  const std::uint64_t one = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &one, nullptr, "%llu")) set_dropout(d, d.p, seed);
  widgets::same_line_if_fits(widgets::button_width("New mask"));
  if (ImGui::Button("New mask")) set_dropout(d, d.p, d.seed + 1);

  // The returned and the dropped weights side by side, sharing the colour range 0..1/(1 - p) (so a
  // kept weight looks brighter after the rescaling) and one legend; the keep mask below them.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float x0 = ImGui::GetCursorPosX();
  const float gap = fs * 1.5f;
  const float legend_w = fs * 4.0f;
  // Side by side while each map keeps some room; on a narrow canvas one under the other.
  const bool beside = avail > fs * 30.0f;
  const float w = beside ? std::floor((avail - gap - legend_w) / 2.0f) : avail - legend_w - fs * 0.6f;
  const double top = d.p < 1.0 ? 1.0 / (1.0 - d.p) : 1.0;
  auto pane = [&](const char* id, const char* title, const char* subtitle, const attn::Matrix& m,
                  const std::vector<double>* sums, double vmax, const char* value_name) {
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    widgets::dim_after(subtitle);
    HeatmapSpec spec;
    spec.values = &m;
    spec.row_labels = &tokens;
    spec.col_labels = &tokens;
    spec.row_sums = sums;
    spec.vmin = 0.0;
    spec.vmax = vmax;
    spec.value_name = value_name;
    spec.version = generation();
    spec.numbers = true;
    spec.legend = false;
    spec.width = w;
    spec.max_cell = 42.0f;
    const HeatmapEvent ev = heatmap(id, spec, ui.gpu);
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    return ev;
  };
  pane("pre", "weights (returned)", "rows sum to 1", a.attention.weights, &d.weight_row_sums, top, "weight");
  if (beside) ImGui::SameLine(x0 + w + gap);
  const HeatmapEvent ev = pane("dropped", "dropped weights", "weight \xC2\xB7 keep / (1 - p)", r.dropped_weights,
                               &r.row_sums, top, "dropped weight");
  ImGui::SameLine(0, fs * 0.6f);
  ImGui::BeginGroup();
  ImGui::Dummy(ImVec2(1, ImGui::GetTextLineHeightWithSpacing() + ev.grid_top - ImGui::GetStyle().ItemSpacing.y));
  heatmap_legend("legend", 0.0, top, false, std::max(ev.grid_height, fs * 6.0f), ui.gpu);
  ImGui::EndGroup();

  pane("keep", "keep mask", "1 = kept, drawn from the seed", d.keep, nullptr, 1.0, "kept");
  if (beside) ImGui::SameLine(x0 + w + gap);
  const float note_w = beside ? avail - w - gap : avail;
  txt::begin_column(note_w);
  ImGui::Dummy(ImVec2(0, fs * 1.5f));
  ImGui::PushFont(ui.fonts.bold);
  if (d.p == 0.0)
    txt::para("p = 0: nothing is dropped and the factor is 1; the output is bit for bit the output without dropout.");
  else if (d.p == 1.0)
    txt::para("p = 1: everything is dropped; the weights are set to 0 without dividing by 1 - p = 0.");
  else
    txt::para(
        "The sampled row sums (right of the dropped weights) differ from 1; the returned weights still sum to 1.");
  ImGui::PopFont();
  txt::note(
      "Each weight is kept with probability 1 - p and then divided by 1 - p, so its expected value is the "
      "weight itself; a single sample is not. The output of this step is the dropped weights times V.");
  txt::end_column(note_w);

  draw_checks(ui, r.checks);
}

}  // namespace app
