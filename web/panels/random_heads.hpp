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

/// The anatomy's steps: Q, K, V; raw scores; ÷√d_k; the mask; softmax; the weights · V.
inline constexpr int kAnatomySteps = 6;

struct HeadsState {
  attn::RandomHeadsInput input;  ///< last good inputs (valid_length -1 = no key padding)
  /// Valid length used when key padding is switched on (kept while it is off).
  int padding_length = 4;
  std::string sentence_text = "The cat sat on the mat";  ///< text field; may differ from input after an error
  bool numbers_in_cells = true;  ///< the maps print each weight (a display choice, not an input)

  attn::RandomHeadsResult result;
  std::vector<std::vector<double>> row_sums;  ///< per head, per row
  std::optional<ErrorInfo> error;

  /// The anatomy of one head for one query row (lessons::head_anatomy), recomputed with the result.
  int anatomy_head = 0, anatomy_row = 1;  ///< inputs `head` and `query_row` (0-based), clamped into range
  int anatomy_step = kAnatomySteps;       ///< steps shown, 1..kAnatomySteps (all by default)
  attn::HeadAnatomy anatomy;
  std::vector<double> anatomy_masked;            ///< scaled scores, NaN where the mask forbids the key (drawn "masked")
  std::vector<std::string> anatomy_features;     ///< "1".."d_k": the maps' column labels
  std::string anatomy_output;                    ///< the output vector, written out
};


// --- Random heads -----------------------------------------------------------
/// Recompute with `in`; on success it becomes the shown input.
bool set_heads_input(AppState& s, const attn::RandomHeadsInput& in);
/// Shows the anatomy of head `head` (0-based) for query row `query_row`; false (with the panel's
/// error) when either is out of range for the current result.
bool set_heads_anatomy(HeadsState& h, int head, int query_row);

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
