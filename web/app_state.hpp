// web/app_state.hpp — what the page shows, and the one path by which it changes.
//
// Data flows one way (one-way data flow): inputs → core → result → panel draws the result.
// Every input change (a widget, or window.attentionLab.set from JS) goes through
// the functions below, which recompute through the core. On attn::Error the panel
// keeps its last good inputs and result and records the error to display; the
// inputs shown are always the ones the shown result was computed from.
//
// Nothing here draws, and nothing here computes attention: numbers come from
// core/ (attn::alignment_read, random_heads, permutation_experiment, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/experiments.hpp"
#include "attn/json_case.hpp"
#include "attn/rope.hpp"
#include "panels/cost.hpp"
#include "error_info.hpp"
#include "panels/learned_heads.hpp"
#include "lesson_state.hpp"

namespace app {

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

struct HeadsState {
  attn::RandomHeadsInput input;  ///< last good inputs (valid_length -1 = no key padding)
  /// Valid length used when key padding is switched on (kept while it is off).
  int padding_length = 4;
  std::string sentence_text = "The cat sat on the mat";  ///< text field; may differ from input after an error

  attn::RandomHeadsResult result;
  std::vector<std::vector<double>> row_sums;  ///< per head, per row
  std::optional<ErrorInfo> error;
};

struct PermutationState {
  attn::PermutationInput input;     ///< last good inputs
  std::uint64_t shuffle_seed = 1;   ///< seed of the next "shuffle" (advances after each)
  std::string sentence_text = "The cat sat on the mat";
  std::string permutation_text = "2 0 5 1 4 3";  ///< text field for the permutation

  attn::PermutationResult result;
  attn::BoolMatrix allowed;         ///< T×T mask used (causal or all true), from attn::causal_mask
  /// The same inputs through attn::position_symmetry (rope.cpp's own head): mean pooling, RoPE check.
  attn::PositionSymmetryResult symmetry;
  attn::Matrix pooled;              ///< 2×d_model display copy: rows mean f(X), mean f(PX)
  std::optional<ErrorInfo> error;
};

struct AppState {
  int panel = 0;  ///< the panel on screen: an index into panels() (panels/registry.hpp)
  AlignmentState alignment;
  HeadsState heads;
  PermutationState permutation;
  LessonState lesson;               ///< the lesson-claim panels (lesson_state.hpp)
  CostState cost;                   ///< the Cost panel (panels/cost.hpp)
  LearnedHeadsState learned_heads;  ///< the Learned heads panel (panels/learned_heads.hpp)
  /// Bumped on every successful recompute; heatmaps re-upload their textures when it changes.
  std::uint64_t generation = 1;
  std::uint64_t frames = 0;  ///< frames drawn so far (the page's `ready` waits for the first)
};

/// The lesson's defaults, computed once through the core (cannot fail).
AppState make_default_state();

// --- Alignment --------------------------------------------------------------
/// Set weight (row, col) keeping the row a distribution (attn::set_weight_keep_distribution).
/// Returns false (and records the error) on bad input; the last good state stays.
bool set_alignment_weight(AppState& s, int row, int col, double value);
/// Set values(key, dim). Non-finite values are rejected by the core.
bool set_alignment_value(AppState& s, int key, int dim, double value);
/// Replace the whole weights / values matrices (JS API); shapes must fit the tokens.
bool set_alignment_matrices(AppState& s, const attn::Matrix& weights, const attn::Matrix& values);
/// Row to trace (clamped into range).
void select_alignment_row(AppState& s, int row);
/// Back to the lesson's constructed weights and values.
void reset_alignment(AppState& s);

// --- Random heads -----------------------------------------------------------
/// Recompute with `in`; on success it becomes the shown input.
bool set_heads_input(AppState& s, const attn::RandomHeadsInput& in);

// --- Permutation ------------------------------------------------------------
bool set_permutation_input(AppState& s, const attn::PermutationInput& in);
/// Parse "2 0 5 1 4 3" / "(2,0,5,1,4,3)" / "[2, 0, 5]" into integers.
/// Returns false and sets `error` (code invalid_field) for anything else.
bool parse_permutation(const std::string& text, std::vector<int>* out, ErrorInfo* error);
/// Replace the permutation with attn::random_permutation(T, shuffle_seed), then advance the seed.
bool shuffle_permutation(AppState& s);
/// Text form "2 0 5 1 4 3" of a permutation.
std::string permutation_to_text(const std::vector<int>& p);

// --- JSON (window.attentionLab) --------------------------------------------
/// Everything the page shows: {"panel", "frames", one key per panel (panels/registry.hpp: its
/// state function), "recall"}. Results via attn::to_json.
attn::Json state_json(const AppState& s);
/// Apply a patch {"panel": name, <panel name>: {...}, "recall": {...}} through the same setters
/// the widgets use. Returns {"ok":true} or {"ok":false,"error":{code,message}} (unknown keys,
/// wrong types, or the core's error).
attn::Json apply_json(AppState& s, const attn::Json& patch);

// The first three panels' JSON (the registry's entries for them).
attn::Json alignment_state_json(const AppState& s);
attn::Json heads_state_json(const AppState& s);
attn::Json permutation_state_json(const AppState& s);
/// What a link carries: built from the inputs only.
attn::Json alignment_link_inputs(const AppState& s);
attn::Json heads_link_inputs(const AppState& s);
attn::Json permutation_link_inputs(const AppState& s);
/// set() patches; a malformed patch throws (reported as invalid_field by apply_json).
bool apply_alignment_json(AppState& s, const attn::Json& patch);
bool apply_heads_json(AppState& s, const attn::Json& patch);
bool apply_permutation_json(AppState& s, const attn::Json& patch);

}  // namespace app
