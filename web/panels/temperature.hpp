// web/panels/temperature.hpp — the Soft to hard panel: its inputs and result (on the lesson's model,
// lesson_model.hpp), its setter, its state() and set() JSON and link inputs; drawn in temperature.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct Ui;

struct TemperatureState {
  double temperature = 1.0;        ///< τ (soft mode), > 0
  bool hard = false;               ///< the τ → 0 limit: argmax selection
  attn::TemperatureResult result;  ///< on the lesson model's Q, K and the first two features of V
  attn::Matrix values2d;           ///< T×2: the values whose hull is drawn
  std::optional<ErrorInfo> error;
};

/// τ = 1, soft (cannot fail).
void init_temperature(TemperatureState& t);
/// Recompute through attn::temperature_attention; false (error recorded, last good kept) on bad input.
bool set_temperature(TemperatureState& t, double temperature, bool hard);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: {temperature, hard}.
attn::Json temperature_inputs_json(const TemperatureState& t);
/// {"inputs", "result": attn::to_json(TemperatureResult) + tokens, values, "error"}.
attn::Json temperature_state_json(const TemperatureState& t);
/// set({temperature: patch}); false when the setter refused. A malformed patch throws PatchError.
bool apply_temperature_json(TemperatureState& t, const attn::Json& patch);

/// Temperature from soft to argmax; outputs inside the values' hull.
void draw_temperature_panel(TemperatureState& t, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& temperature_panel();

}  // namespace app
