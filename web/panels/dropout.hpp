// web/panels/dropout.hpp — the Dropout panel: its inputs and result (on the lesson's model,
// lesson_model.hpp), its setter, its state() and set() JSON and link inputs; drawn in dropout.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct Ui;

struct DropoutState {
  double p = 0.25;
  std::uint64_t seed = 17;
  attn::AttentionDropout result;        ///< on the lesson model's unmasked attention
  attn::Matrix keep;                    ///< T×T copy of result.keep as 0/1 for the heatmap
  std::vector<double> weight_row_sums;  ///< row sums of the pre-dropout weights (summed by the core)
  std::optional<ErrorInfo> error;
};

/// p = 0.25, seed 17 (cannot fail).
void init_dropout(DropoutState& d);
/// Recompute through attn::apply_attention_dropout; false (error recorded, last good kept) on bad input.
bool set_dropout(DropoutState& d, double p, std::uint64_t seed);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: {p, seed}.
attn::Json dropout_inputs_json(const DropoutState& d);
/// {"inputs", "result": attn::to_json(AttentionDropout) + tokens, weights, "error"}.
attn::Json dropout_state_json(const DropoutState& d);
/// set({dropout: patch}); false when the setter refused. A malformed patch throws PatchError.
bool apply_dropout_json(DropoutState& d, const attn::Json& patch);

/// Inverted attention dropout: pre-dropout weights, keep mask, dropped weights, row sums.
void draw_dropout_panel(DropoutState& d, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& dropout_panel();

}  // namespace app
