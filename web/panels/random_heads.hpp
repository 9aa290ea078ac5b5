// web/panels/random_heads.hpp — the Random-init heads panel: its inputs and results, its setters, its state() and
// set() JSON and link inputs (moved from app_state.hpp); its draw function is in random_heads.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lessons/random_heads.hpp"
#include "lessons/alignment.hpp"
#include "lessons/permutation.hpp"
#include "lessons/check.hpp"
#include "json/json_case.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct AppState;
struct Ui;

struct HeadsState {
  attn::RandomHeadsInput input;  ///< last good inputs (valid_length -1 = no key padding)
  /// Valid length used when key padding is switched on (kept while it is off).
  int padding_length = 4;
  std::string sentence_text = "The cat sat on the mat";  ///< text field; may differ from input after an error
  bool numbers_in_cells = true;  ///< the maps print each weight (a display choice, not an input)

  attn::RandomHeadsResult result;
  std::vector<std::vector<double>> row_sums;  ///< per head, per row
  std::optional<ErrorInfo> error;
};

// --- Random heads -----------------------------------------------------------
/// Recompute with `in`; on success it becomes the shown input.
bool set_heads_input(AppState& s, const attn::RandomHeadsInput& in);

// --- JSON (the registry's entry) ---------------------------------------------
attn::Json heads_state_json(const AppState& s);
attn::Json heads_link_inputs(const AppState& s);
bool apply_heads_json(AppState& s, const attn::Json& patch);

/// Random-init multi-head self-attention on a sentence; one heatmap per head.
void draw_heads_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& heads_panel();

}  // namespace app
