// web/panels/alignment.hpp — the Alignment panel: its inputs and results, its setters, its state() and
// set() JSON and link inputs (moved from app_state.hpp); its draw function is in alignment.cpp.
#pragma once

#include <cstdint>
#include <functional>
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

struct Ui;

struct AlignmentState {
  // Inputs (last good). Tq = queries.size(), Tk = keys.size(), values Tk×2.
  std::vector<std::string> queries{"le", "chat", "noir"};
  std::vector<std::string> keys{"the", "black", "cat"};
  attn::Matrix weights;  ///< Tq×Tk, rows are distributions
  attn::Matrix values;   ///< Tk×d_v
  int selected_row = 1;  ///< the row traced in words and in the plot ("chat")

  attn::AlignmentRead result;
  std::vector<double> row_sums;  ///< per row of result.weights, summed by the core
  std::optional<ErrorInfo> error;
};

// --- Alignment --------------------------------------------------------------
/// Set weight (row, col) keeping the row a distribution (attn::set_weight_keep_distribution).
/// Returns false (and records the error) on bad input; the last good state stays.
bool set_alignment_weight(AlignmentState& a, int row, int col, double value);
/// Set values(key, dim). Non-finite values are rejected by the core.
bool set_alignment_value(AlignmentState& a, int key, int dim, double value);
/// Replace the whole weights / values matrices (JS API); shapes must fit the tokens.
bool set_alignment_matrices(AlignmentState& a, const attn::Matrix& weights, const attn::Matrix& values);
/// Row to trace (clamped into range).
void select_alignment_row(AlignmentState& a, int row);
/// Back to the lesson's constructed weights and values.
void reset_alignment(AlignmentState& a);

// --- JSON (the registry's entry) ---------------------------------------------
attn::Json alignment_state_json(const AlignmentState& a);
/// What a link carries: built from the inputs only.
attn::Json alignment_link_inputs(const AlignmentState& a);
/// set() patches; a malformed patch throws (reported as invalid_field by apply_json).
bool apply_alignment_json(AlignmentState& a, const attn::Json& patch);

/// "the black cat" → "le chat noir": constructed cross-attention weights, editable; trace one row.
/// `foot` draws under the checks, inside the right column (the entry: the recall strip).
void draw_alignment_panel(AlignmentState& a, Ui& ui, const std::function<void()>& foot);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& alignment_panel();

}  // namespace app
