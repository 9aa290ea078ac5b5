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

/// The τ the panel opens at. The lesson's random-init head has small scores: at τ = 1 every row is
/// nearly uniform (largest weights 0.19–0.22 of 6 keys, uniform 0.167), at 0.1 they are visibly
/// peaked (0.35–0.66) and still soft.
inline constexpr double kDefaultTemperature = 0.1;
/// The τ the gradient caption compares with: ordinary attention.
inline constexpr double kReferenceTemperature = 1.0;

struct TemperatureState {
  double temperature = kDefaultTemperature;  ///< τ (soft mode), > 0
  bool hard = false;               ///< the τ → 0 limit: argmax selection
  attn::TemperatureResult result;  ///< on the lesson model's Q, K and the first two features of V
  std::vector<double> reference_gradient_norm;  ///< each row's ‖dw/ds‖ at kReferenceTemperature (soft)
  attn::TemperatureGradientTrend gradient_trend;  ///< soft mode: ‖dw/ds‖ at τ against the reference
  attn::Matrix values2d;           ///< T×2: the values whose hull is drawn
  std::optional<ErrorInfo> error;
};

/// τ = kDefaultTemperature, soft (cannot fail).
void init_temperature(TemperatureState& t);
/// Recompute through attn::temperature_attention; false (error recorded, last good kept) on bad input.
bool set_temperature(TemperatureState& t, double temperature, bool hard);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: {temperature, hard}.
attn::Json temperature_inputs_json(const TemperatureState& t);
/// {"inputs", "result": attn::to_json(TemperatureResult) + tokens, values, gradient_trend (soft
/// mode; null in hard mode), "error"}.
attn::Json temperature_state_json(const TemperatureState& t);
/// set({temperature: patch}); false when the setter refused. A malformed patch throws PatchError.
bool apply_temperature_json(TemperatureState& t, const attn::Json& patch);

/// Temperature from soft to argmax; outputs inside the values' hull.
void draw_temperature_panel(TemperatureState& t, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& temperature_panel();

}  // namespace app
