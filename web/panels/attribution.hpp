// web/panels/attribution.hpp — the Attribution panel: its inputs and results, its setters, its
// state() and set() JSON and link inputs; drawn in attribution.cpp.
//
// Every input change goes through a setter, which recomputes through the core (attn::attribution,
// set_weight_keep_distribution). On attn::Error the panel keeps its last good inputs and result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct Ui;

struct AttributionState {
  std::vector<std::string> keys{"the", "black", "cat"};  ///< labels of the editable row's keys
  attn::Vector weights;                                  ///< Tk, a distribution (inputs, last good)
  attn::Matrix values;                                   ///< Tk×d_v
  int selected_key = 2;                                  ///< key whose interventions are spelled out

  attn::AttributionResult counterexample;  ///< the lesson's (0.99 on a zero value), fixed
  attn::AttributionResult result;          ///< the editable row
  attn::Matrix weight_row;                 ///< 1×Tk copy of result.weights for the heatmap
  std::optional<ErrorInfo> error;
};

/// The lesson's counterexample and the "chat" row (cannot fail).
void init_attribution(AttributionState& a);
// --- Attribution ----------------------------------------------------------------
bool set_attribution(AttributionState& a, const std::vector<std::string>& keys, const attn::Vector& weights,
                     const attn::Matrix& values);
/// Set weight `key`, rescaling the others so the row stays a distribution (the core's rule).
bool set_attribution_weight(AttributionState& a, int key, double value);
bool set_attribution_value(AttributionState& a, int key, int dim, double value);
void select_attribution_key(AttributionState& a, int key);
/// "chat" (le chat noir's row, default), "counterexample" (the lesson's), "small_weight".
bool attribution_preset(AttributionState& a, const std::string& name);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: {keys, weights, values, selected_key}.
attn::Json attribution_inputs_json(const AttributionState& a);
/// {"inputs", "result": {counterexample, row, checks}, "error"}.
attn::Json attribution_state_json(const AttributionState& a);
/// set({attribution: patch}) through the setters; false when a setter refused (the error is in
/// AttributionState::error). A malformed patch throws PatchError (reported as invalid_field).
bool apply_attribution_json(AttributionState& a, const attn::Json& patch);

/// Weight a_j next to contribution ‖a_j v_j‖, the 0.99-on-zero counterexample, interventions.
void draw_attribution_panel(AttributionState& a, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& attribution_panel();

}  // namespace app
