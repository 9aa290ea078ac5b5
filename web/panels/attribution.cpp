// Attribution panel: the weight a_j next to the contribution ‖a_j v_j‖, the lesson's
// counterexample (0.99 on a zero value), and two interventions per key.
#include "panels/attribution.hpp"
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

constexpr char kRecall[] = "attribution";  // the check-yourself strip under the panel's checks
constexpr PanelDef kPanel = own_state_panel<AttributionState, attribution_state_json, apply_attribution_json, attribution_inputs_json, draw_attribution_panel, kRecall>(
    "attribution", "Attribution", "weight is not contribution", "Attribution: a large weight is not a large effect");  // its entry in the panel table (registry.cpp)
const PanelDef& attribution_panel() { return kPanel; }

bool set_attribution(AttributionState& a, const std::vector<std::string>& keys, const Vector& weights, const Matrix& values) {
  return guarded(a.error, [&] {
    if (static_cast<attn::Index>(keys.size()) != weights.size())
      throw attn::Error(attn::ErrorCode::shape_mismatch,
                        std::to_string(keys.size()) + " key labels for " + std::to_string(weights.size()) + " weights");
    if (weights.size() > 8) throw attn::Error(attn::ErrorCode::too_large, "the panel draws at most 8 keys");
    attn::AttributionResult r = attn::attribution(weights, values);
    a.keys = keys;
    a.weights = weights;
    a.values = values;
    a.weight_row = r.weights.transpose();
    a.result = std::move(r);
    a.selected_key = std::max(0, std::min(static_cast<int>(weights.size()) - 1, a.selected_key));
    changed();
  });
}

bool set_attribution_weight(AttributionState& a, int key, double value) {
  Matrix row = a.weights.transpose();  // the core's rule works on a row of a weight matrix
  if (!guarded(a.error, [&] { attn::set_weight_keep_distribution(row, 0, key, value); })) return false;
  return set_attribution(a, a.keys, row.row(0).transpose(), a.values);
}

bool set_attribution_value(AttributionState& a, int key, int dim, double value) {
  if (key < 0 || key >= a.values.rows() || dim < 0 || dim >= a.values.cols()) {
    a.error = ErrorInfo{"invalid_field", "value (" + std::to_string(key) + ", " + std::to_string(dim) +
                                             ") is outside the " + attn::shape_str(a.values) + " value matrix"};
    return false;
  }
  Matrix v = a.values;
  v(key, dim) = value;
  return set_attribution(a, a.keys, a.weights, v);
}

void select_attribution_key(AttributionState& a, int key) {
  a.selected_key = std::max(0, std::min(static_cast<int>(a.weights.size()) - 1, key));
  changed();
}

bool attribution_preset(AttributionState& a, const std::string& name) {
  if (name == "chat") {
    Vector w(3);
    w << 0.1, 0.1, 0.8;
    Matrix v(3, 2);
    v << 1, 0, 0, 1, 2, 0;
    a.selected_key = 2;
    return set_attribution(a, {"the", "black", "cat"}, w, v);
  }
  if (name == "counterexample") {
    a.selected_key = 0;
    return set_attribution(a, {"zero value", "(10, 20)"}, a.counterexample.weights, a.counterexample.values);
  }
  a.error = ErrorInfo{"invalid_field", "unknown preset '" + name + "' (chat, counterexample)"};
  return false;
}

void init_attribution(AttributionState& a) {
  a.counterexample = attn::attribution_counterexample();
  attribution_preset(a, "chat");
}

Json attribution_inputs_json(const AttributionState& a) {
  return ::attn::obj({{"keys", a.keys},
              {"weights", attn::to_json(a.weights)},
              {"values", attn::to_json(a.values)},
              {"selected_key", a.selected_key}});
}

Json attribution_state_json(const AttributionState& a) {
  return ::attn::obj({{"inputs", attribution_inputs_json(a)},
              {"result",
               ::attn::obj({{"counterexample", attn::to_json(a.counterexample)},
                {"row", attn::to_json(a.result)},
                {"checks", all_checks({&a.counterexample.checks, &a.result.checks})}})},
              {"error", error_value(a.error)}});
}

bool apply_attribution_json(AttributionState& a, const Json& patch) {
  std::vector<std::string> keys = a.keys;
  Vector w = a.weights;
  Matrix v = a.values;
  bool matrices = false, ok = true;
  each(patch, [&](const std::string& k, const Json& x) {
    if (k == "weights") {
      const std::vector<double> n = get_numbers(x, "weights");
      w = Eigen::Map<const Vector>(n.data(), static_cast<attn::Index>(n.size()));
      matrices = true;
    } else if (k == "values") {
      v = attn::matrix_from_json(x, "values");
      matrices = true;
    } else if (k == "keys") {
      if (!x.is_array()) refuse("keys must be an array of strings");
      keys.clear();
      for (const Json& t : x) keys.push_back(get_string(t, "keys"));
      matrices = true;
    } else if (k == "selected_key") {
      select_attribution_key(a, get_int(x, "selected_key", -1000000, 1000000));
    } else if (k == "preset") {
      ok = ok && attribution_preset(a, get_string(x, "preset"));
      keys = a.keys, w = a.weights, v = a.values;
    } else if (k == "set_weight") {
      if (!x.is_object() || !x.contains("key") || !x.contains("value")) refuse("set_weight needs {key, value}");
      ok =
          ok && set_attribution_weight(a, get_int(x["key"], "key", -1000000, 1000000), get_double(x["value"], "value"));
      w = a.weights;
    } else {
      refuse("unknown attribution input '" + k + "'");
    }
  });
  if (!ok) return false;
  if (matrices) {
    // Labels follow the number of keys when only the numbers were given.
    if (!patch.contains("keys") && static_cast<attn::Index>(keys.size()) != w.size()) {
      keys.clear();
      for (attn::Index j = 0; j < w.size(); ++j) keys.push_back("key " + std::to_string(j));
    }
    return set_attribution(a, keys, w, v);
  }
  return true;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

std::vector<double> to_std(const attn::Vector& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

double max_of(const attn::Vector& v) {
  double m = 1e-12;
  for (attn::Index i = 0; i < v.size(); ++i)
    if (std::isfinite(v(i))) m = std::max(m, v(i));
  return m;
}

}  // namespace

void draw_attribution_panel(AttributionState& a, Ui& ui) {
  const attn::AttributionResult& r = a.result;
  const attn::AttributionResult& ce = a.counterexample;
  const float fs = ImGui::GetFontSize();

  txt::para("Try: drag a weight towards 1 on a value near zero. Notice that the output hardly moves: a 0.99 weight "
            "can contribute nothing, so an attention map is not a causal explanation.");
  style::details("Weight vs contribution", [] {
    txt::para(
        "A weight says how much of a key's value a query takes; the contribution a_j v_j is what that value "
        "actually adds to the output. A heatmap shows the weights only. A large weight on a value near zero "
        "adds nothing, and a small weight on a large value can dominate.");
    txt::note(
        "Test by intervening (change a value, remove a key) and measure the effect, and remember that residual "
        "paths and other heads also feed the output.");
  });
  style::error_box(a.error);

  const txt::TwoColumns cols = txt::two_columns(0.42f);
  const float left_w = cols.left_w, right_w = cols.right_w;

  // --- the lesson's counterexample -----------------------------------------------------
  txt::begin_column(left_w);
  style::heading(ui.fonts, "The lesson's counterexample");
  txt::para("Weights (0.99, 0.01) on values (0, 0) and (10, 20).");
  {
    std::vector<std::string> labels;
    for (attn::Index j = 0; j < ce.values.rows(); ++j)
      labels.push_back("v = (" + short_number(ce.values(j, 0), 3) + ", " + short_number(ce.values(j, 1), 3) + ")");
    plot::bar_table(
        "counterexample", labels,
        {plot::BarColumn{"weight a_j", to_std(ce.weights), 1.0, style::accent_u32()},
         plot::BarColumn{"\xE2\x80\x96"
                         "a_j v_j\xE2\x80\x96",
                         to_std(ce.contribution_norms), max_of(ce.contribution_norms), IM_COL32(214, 120, 20, 255)}},
        left_w, static_cast<int>(ce.top_weight_key));
  }
  ImGui::PushFont(ui.fonts.bold);
  txt::para("output = 0.99\xC2\xB7(0, 0) + 0.01\xC2\xB7(10, 20)");
  txt::para(("       = " + txt::vec_text(ce.output, 4)).c_str());
  ImGui::PopFont();
  txt::note(
      "The brightest cell of this row's heatmap would point at the first key, which contributes exactly "
      "nothing. Everything in the output comes from the key with weight 0.01.");
  style::check_lines(ce.checks);

  // --- an editable row ---------------------------------------------------------------
  cols.to_right();
  style::heading(ui.fonts, "Your row: weights, values, interventions");
  txt::note("Drag a weight (the others rescale so the row stays a distribution), type values, pick a key.");
  if (ImGui::Button("le chat noir: the \"chat\" row")) attribution_preset(a, "chat");
  widgets::same_line_if_fits(widgets::button_width("the counterexample"));
  if (ImGui::Button("the counterexample")) attribution_preset(a, "counterexample");
  const int tk = static_cast<int>(r.weights.size());
  const int dv = static_cast<int>(r.values.cols());
  if (widgets::begin_table_fit("##attr_inputs", 2 + dv, ImGuiTableFlags_SizingStretchProp, right_w, tk + 1)) {
    ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed, fs * 6.5f);
    ImGui::TableSetupColumn("weight a_j", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    for (int c = 0; c < dv; ++c)
      ImGui::TableSetupColumn(c == 0 ? "value x" : (c == 1 ? "value y" : "value"), ImGuiTableColumnFlags_WidthStretch,
                              1.0f);
    ImGui::TableHeadersRow();
    for (int j = 0; j < tk; ++j) {
      ImGui::PushID(j);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (ImGui::RadioButton(j < static_cast<int>(a.keys.size()) ? a.keys[static_cast<size_t>(j)].c_str() : "?",
                             a.selected_key == j))
        select_attribution_key(a, j);
      ImGui::TableNextColumn();
      double w = r.weights(j);
      const double lo = 0.0, hi = 1.0;
      ImGui::SetNextItemWidth(-FLT_MIN);
      if (widgets::slider_double("##w", &w, lo, hi, "%.3f")) set_attribution_weight(a, j, w);
      widgets::matrix_row_fields(r.values, j, 100, 0.0, [&](int c, double v) { set_attribution_value(a, j, c, v); });
      ImGui::PopID();
    }
    widgets::end_table_fit();
  }
  {
    static const std::vector<std::string> row{"query"};
    // The weights as a heatmap would show them: one row.
    HeatmapSpec spec = numbered_spec(a.weight_row, row, a.keys, generation(), right_w, 70.0f);
    spec.legend = false;
    heatmap("attr_row", spec, ui.gpu);
  }
  ImGui::PushFont(ui.fonts.bold);
  txt::para(("output = \xCE\xA3 a_j v_j = " + txt::vec_text(r.output, 4)).c_str());
  ImGui::PopFont();
  plot::bar_table(
      "interventions", a.keys,
      {plot::BarColumn{"weight a_j", to_std(r.weights), 1.0, style::accent_u32()},
       plot::BarColumn{"\xE2\x80\x96"
                       "a_j v_j\xE2\x80\x96",
                       to_std(r.contribution_norms), max_of(r.contribution_norms), IM_COL32(214, 120, 20, 255)},
       plot::BarColumn{"zero v: \xE2\x80\x96\xCE\x94o\xE2\x80\x96", to_std(r.zero_value_change),
                       max_of(r.zero_value_change), IM_COL32(120, 90, 170, 255)},
       plot::BarColumn{"remove: \xE2\x80\x96\xCE\x94o\xE2\x80\x96", to_std(r.remove_key_change),
                       max_of(r.remove_key_change), IM_COL32(60, 140, 110, 255)}},
      right_w, a.selected_key);
  const int j = a.selected_key;
  if (j >= 0 && j < tk) {
    const std::string key = a.keys[static_cast<size_t>(j)];
    txt::para(("\"" + key + "\" has weight " + short_number(r.weights(j), 4) +
               ". Zeroing its value moves the "
               "output by " +
               short_number(r.zero_value_change(j), 4) +
               " (exactly \xE2\x80\x96"
               "a_j v_j\xE2\x80\x96); " +
               (r.remove_key_possible[static_cast<size_t>(j)]
                    ? "removing the key (the softmax renormalises over the others) moves it by " +
                          short_number(r.remove_key_change(j), 4) + "."
                    : "removing it is impossible: no other key has weight."))
                  .c_str());
  }
  widgets::dimf("top weight: \"%s\"   \xC2\xB7   top contribution: \"%s\"",
                      a.keys[static_cast<size_t>(std::min<attn::Index>(r.top_weight_key, tk - 1))].c_str(),
                      a.keys[static_cast<size_t>(std::min<attn::Index>(r.top_contribution_key, tk - 1))].c_str());
  style::check_lines(r.checks);
  txt::end_column(right_w);

}

}  // namespace app
