// Soft to hard: softmax(scores / τ) from uniform-ish to argmax; every output stays inside the
// convex hull of the values; argmax gives no useful gradient.
#include "panels/temperature.hpp"
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

constexpr char kRecall[] = "temperature";  // the check-yourself strip under the panel's checks
constexpr PanelDef kPanel = own_state_panel<TemperatureState, temperature_state_json, apply_temperature_json, temperature_inputs_json, draw_temperature_panel, kRecall>(
    "temperature", "Soft to hard", "temperature, argmax, hull", "Soft to hard: temperature down to argmax");  // its entry in the panel table (registry.cpp)
const PanelDef& temperature_panel() { return kPanel; }

bool set_temperature(TemperatureState& t, double temperature, bool hard) {
  const attn::SelfAttentionResult& a = lesson_model().attention;
  return guarded(t.error, [&] {
    attn::TemperatureResult r = attn::temperature_attention(a.query, a.key, t.values2d, {}, temperature, hard);
    attn::TemperatureGradientTrend trend;
    if (!hard)
      trend = attn::temperature_gradient_trend(temperature, r.gradient_norm, kReferenceTemperature,
                                               t.reference_gradient_norm);
    t.temperature = temperature;
    t.hard = hard;
    t.result = std::move(r);
    t.gradient_trend = std::move(trend);
    changed();
  });
}

void init_temperature(TemperatureState& t) {
  const attn::SelfAttentionResult& a = lesson_model().attention;
  t.values2d = a.value.leftCols(2);
  // The caption's reference norms: the lesson model is fixed, so they are measured once.
  t.reference_gradient_norm =
      attn::temperature_attention(a.query, a.key, t.values2d, {}, kReferenceTemperature, false).gradient_norm;
  set_temperature(t, kDefaultTemperature, false);
}

Json temperature_inputs_json(const TemperatureState& t) {
  return ::attn::obj({{"temperature", t.temperature}, {"hard", t.hard}});
}

Json temperature_state_json(const TemperatureState& t) {
  Json r = attn::to_json(t.result);
  r["tokens"] = lesson_model().tokens;
  r["values"] = attn::to_json(t.values2d);
  r["gradient_trend"] = t.hard ? Json(nullptr) : attn::to_json(t.gradient_trend);
  return ::attn::obj({{"inputs", temperature_inputs_json(t)}, {"result", std::move(r)}, {"error", error_value(t.error)}});
}

bool apply_temperature_json(TemperatureState& t, const Json& patch) {
  double tau = t.temperature;
  bool hard = t.hard;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "temperature")
      tau = get_double(v, "temperature");
    else if (k == "hard")
      hard = get_bool(v, "hard");
    else
      refuse("unknown temperature input '" + k + "'");
  });
  return set_temperature(t, tau, hard);
}

// --- drawing -------------------------------------------------------------------------------

namespace {

// The values (2-D points), their hull (from the core), and every query's output.
void hull_plot(const attn::TemperatureResult& r, const attn::Matrix& values, const std::vector<std::string>& tokens,
               float width, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  const ImVec2 p1(p0.x + width, p0.y + height);
  dl->AddRectFilled(p0, p1, IM_COL32(255, 255, 255, 255), 8.0f);
  dl->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border), 8.0f);
  if (values.cols() != 2 || values.rows() == 0) return;
  const attn::Matrix& out = r.attention.output;
  double lo_x = values(0, 0), hi_x = lo_x, lo_y = values(0, 1), hi_y = lo_y;
  auto grow = [&](double x, double y) {
    lo_x = std::min(lo_x, x), hi_x = std::max(hi_x, x), lo_y = std::min(lo_y, y), hi_y = std::max(hi_y, y);
  };
  for (attn::Index j = 0; j < values.rows(); ++j) grow(values(j, 0), values(j, 1));
  for (attn::Index i = 0; i < out.rows(); ++i) grow(out(i, 0), out(i, 1));
  const float margin = fs * 2.5f;
  const double sx = std::max(hi_x - lo_x, 1e-9), sy = std::max(hi_y - lo_y, 1e-9);
  const double scale = std::min((width - 2 * margin) / sx, (height - 2 * margin) / sy);
  const ImVec2 mid(0.5f * (p0.x + p1.x), 0.5f * (p0.y + p1.y));
  const double cx = 0.5 * (lo_x + hi_x), cy = 0.5 * (lo_y + hi_y);
  auto px = [&](double x, double y) {
    return ImVec2(mid.x + static_cast<float>((x - cx) * scale), mid.y - static_cast<float>((y - cy) * scale));
  };
  dl->PushClipRect(p0, p1, true);
  const ImVec2 o = px(0, 0);
  if (o.x > p0.x && o.x < p1.x) dl->AddLine(ImVec2(o.x, p0.y + 4), ImVec2(o.x, p1.y - 4), IM_COL32(225, 225, 225, 255));
  if (o.y > p0.y && o.y < p1.y) dl->AddLine(ImVec2(p0.x + 4, o.y), ImVec2(p1.x - 4, o.y), IM_COL32(225, 225, 225, 255));
  // Hull polygon (counter-clockwise in data space, so clockwise on screen: fill as a convex polygon).
  std::vector<ImVec2> hull;
  for (attn::Index k = 0; k < r.hull.rows(); ++k) hull.push_back(px(r.hull(k, 0), r.hull(k, 1)));
  if (hull.size() >= 3) dl->AddConvexPolyFilled(hull.data(), static_cast<int>(hull.size()), IM_COL32(31, 111, 178, 28));
  for (size_t k = 0; k < hull.size() && hull.size() >= 2; ++k)
    dl->AddLine(hull[k], hull[(k + 1) % hull.size()], IM_COL32(31, 111, 178, 150), 1.5f);
  for (attn::Index j = 0; j < values.rows(); ++j) {
    const ImVec2 q = px(values(j, 0), values(j, 1));
    dl->AddCircleFilled(q, 5.0f, IM_COL32(31, 111, 178, 255));
    const std::string label =
        "v " + (j < static_cast<attn::Index>(tokens.size()) ? tokens[static_cast<size_t>(j)] : "?");
    dl->AddText(ImVec2(q.x + 7, q.y - fs - 1), IM_COL32(31, 80, 140, 255), label.c_str());
  }
  // Outputs: a dot each; a label only where it does not collide with one already placed.
  std::vector<ImVec4> placed;
  for (attn::Index i = 0; i < out.rows(); ++i) {
    const ImVec2 q = px(out(i, 0), out(i, 1));
    dl->AddCircleFilled(q, 4.5f, IM_COL32(214, 120, 20, 255));
    dl->AddCircle(q, 4.5f, IM_COL32(255, 255, 255, 255), 12, 1.5f);
    const std::string label = i < static_cast<attn::Index>(tokens.size()) ? tokens[static_cast<size_t>(i)] : "?";
    const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
    const ImVec4 box(q.x + 6, q.y + 1, q.x + 6 + ts.x, q.y + 1 + ts.y);
    bool clear = true;
    for (const ImVec4& b : placed) clear = clear && (box.z < b.x || box.x > b.z || box.w < b.y || box.y > b.w);
    if (!clear) continue;
    placed.push_back(box);
    dl->AddText(ImVec2(box.x, box.y), IM_COL32(150, 80, 10, 255), label.c_str());
  }
  dl->PopClipRect();
}

}  // namespace

void draw_temperature_panel(TemperatureState& t, Ui& ui) {
  const attn::TemperatureResult& r = t.result;
  const std::vector<std::string>& tokens = lesson_model().tokens;
  const float fs = ImGui::GetFontSize();

  txt::para(
      "Divide the scores by a temperature \xCF\x84 before the softmax. Large \xCF\x84 flattens every row towards "
      "uniform; small \xCF\x84 sharpens it until, in the limit, each query takes only its best key: argmax, a hard "
      "lookup. The model is the lesson's head on \"The cat sat on the mat\"; its values are cut to their first "
      "two features so they can be drawn.");
  style::error_box(t.error);

  float tau = static_cast<float>(t.temperature);
  ImGui::BeginDisabled(t.hard);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 18.0f, "temperature \xCF\x84"));
  if (widgets::slider_float("temperature \xCF\x84", &tau, 0.01f, 100.0f, "%.3g", ImGuiSliderFlags_Logarithmic))
    set_temperature(t, tau, false);
  ImGui::EndDisabled();
  bool first = true;
  for (double preset : {0.01, kDefaultTemperature, 1.0, 10.0}) {
    const std::string label = "\xCF\x84 = " + short_number(preset, 3);
    widgets::same_line_if_fits(widgets::button_width(label.c_str()), first ? fs : -1.0f);
    first = false;
    if (ImGui::Button(label.c_str())) set_temperature(t, preset, false);
  }
  widgets::same_line_if_fits(widgets::check_width("argmax (the \xCF\x84 \xE2\x86\x92 0 limit)"),
                             fs);
  bool hard = t.hard;
  if (ImGui::Checkbox("argmax (the \xCF\x84 \xE2\x86\x92 0 limit)", &hard)) set_temperature(t, t.temperature, hard);

  const txt::TwoColumns cols = txt::two_columns(0.52f);
  const float left_w = cols.left_w, right_w = cols.right_w;

  txt::begin_column(left_w);
  style::heading(ui.fonts,
                 t.hard ? "Weights: argmax" : ("Weights at \xCF\x84 = " + short_number(t.temperature, 3)).c_str());
  HeatmapSpec spec = numbered_spec(r.attention.weights, tokens, tokens, generation(), left_w, 50.0f);
  spec.allowed = &r.attention.allowed;
  heatmap("temperature_weights", spec, ui.gpu);
  plot::bar_table(
      "rows", tokens,
      {plot::BarColumn{"largest weight", r.max_weight, 1.0, style::accent_u32()},
       plot::BarColumn{"entropy (nats)", r.entropy, r.uniform_entropy > 0.0 ? r.uniform_entropy : 1.0,  // one key: 0 nats
                       IM_COL32(60, 140, 110, 255)},
       plot::BarColumn{"\xE2\x80\x96"
                       "dw/ds\xE2\x80\x96",
                       r.gradient_norm,
                       // soft: the core's largest row norm; hard: the probe's norms are 0 (or n/a)
                       t.hard || !(t.gradient_trend.max_norm > 0.0) ? 1.0 : t.gradient_trend.max_norm,
                       IM_COL32(120, 90, 170, 255)}},
      left_w);
  cols.to_right();
  style::heading(ui.fonts, "Outputs stay inside the values' hull");
  hull_plot(r, t.values2d, tokens, right_w, std::min(right_w * 0.8f, fs * 20.0f));
  txt::note(
      "Blue: the six values and their convex hull. Orange: each query's output (labelled where there is "
      "room), a weighted average of the values with weights that sum to 1, so it cannot leave the hull at any "
      "temperature. At argmax each output sits exactly on a value.");
  style::heading(ui.fonts, "Gradient");
  txt::para(r.gradient_note.c_str());
  if (!t.hard) txt::para(t.gradient_trend.caption.c_str());
  if (!t.hard)
    txt::note(
        "Hard argmax is piecewise constant in the scores: its gradient is zero almost everywhere (and "
        "undefined at ties), so training could not move the scores through it. That is why attention is soft. "
        "Tick argmax to see a finite-difference probe measure it.");
  txt::end_column(right_w);

  draw_checks(ui, r.checks);
}

}  // namespace app
