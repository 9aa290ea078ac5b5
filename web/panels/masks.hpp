// web/panels/masks.hpp — the Masks panel: its inputs and results (on the lesson's model,
// lesson_model.hpp), its setters, its state() and set() JSON and link inputs; drawn in masks.cpp.
//
// Every input change goes through a setter, which recomputes through the core
// (attn::prefix_isolation, key_padding_experiment, empty_row_demo, causal_alignments). On
// attn::Error the panel keeps its last good inputs and result and records the error to show.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct Ui;

struct MasksState {
  // Inputs (last good). Tokens and weights are the lesson's model (lesson_model()), T = 6.
  int from = 3;                    ///< prefix isolation: first perturbed position
  double amount = 100.0;           ///< added to every feature of positions >= from
  int valid_length = 4;            ///< key padding: keys valid_length..T−1 are padding
  attn::BoolMatrix empty_allowed;  ///< T×T allowed grid the learner edits (true = may attend); causal at first
  bool zero_policy = false;        ///< show EmptyRows::zero instead of the default refusal
  int tq = 3, tk = 5;              ///< causal alignments for Tq != Tk

  attn::PrefixIsolationResult prefix;
  attn::KeyPaddingResult padding;
  attn::EmptyRowDemo empty;
  attn::CausalAlignmentTable causal;
  // Display copies (no arithmetic): masks as 0/1 matrices for the heatmap widget.
  attn::Matrix top_left, bottom_right;  ///< Tq×Tk, 1 where allowed
  std::optional<ErrorInfo> error;
};

/// The lesson's defaults, the grid causal (cannot fail).
void init_masks(MasksState& m);
// --- Masks --------------------------------------------------------------------
bool set_masks_prefix(MasksState& m, int from, double amount);
bool set_masks_padding(MasksState& m, int valid_length);
/// Replace the empty-row demo's T×T allowed grid.
bool set_masks_empty_allowed(MasksState& m, const attn::BoolMatrix& allowed);
/// Flip one cell of that grid.
bool toggle_masks_empty_cell(MasksState& m, int row, int col);
void set_masks_zero_policy(MasksState& m, bool zero);
bool set_masks_causal(MasksState& m, int tq, int tk);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: {from, amount, valid_length, empty_allowed,
/// zero_policy, tq, tk}, built from the inputs alone.
attn::Json masks_inputs_json(const MasksState& m);
/// {"inputs", "result": {tokens, prefix, padding, empty_rows, causal, checks}, "error"}.
attn::Json masks_state_json(const MasksState& m);
/// set({masks: patch}) through the setters; false when a setter refused (the error is in
/// MasksState::error). A malformed patch throws PatchError (reported as invalid_field).
bool apply_masks_json(MasksState& m, const attn::Json& patch);

/// Prefix isolation, the weights a mask leaves (causal at first; an all-masked row one click
/// away), key padding, top-left vs bottom-right causal (the entry
/// draws the recall strip under it).
void draw_masks_panel(MasksState& m, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& masks_panel();

}  // namespace app
