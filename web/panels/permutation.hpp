// web/panels/permutation.hpp — the Permutation panel: its inputs and results, its setters, its state() and
// set() JSON and link inputs (moved from app_state.hpp); its draw function is in permutation.cpp.
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
#include "attn/rope.hpp"
#include "lessons/position_symmetry.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct Ui;

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

// --- Permutation ------------------------------------------------------------
bool set_permutation_input(PermutationState& p, const attn::PermutationInput& in);
/// Parse "2 0 5 1 4 3" / "(2,0,5,1,4,3)" / "[2, 0, 5]" into integers.
/// Returns false and sets `error` (code invalid_field) for anything else.
bool parse_permutation(const std::string& text, std::vector<int>* out, ErrorInfo* error);
/// Replace the permutation with attn::random_permutation(T, shuffle_seed), then advance the seed.
bool shuffle_permutation(PermutationState& p);
/// Text form "2 0 5 1 4 3" of a permutation.
std::string permutation_to_text(const std::vector<int>& p);

// --- JSON (the registry's entry) ---------------------------------------------
attn::Json permutation_state_json(const PermutationState& p);
attn::Json permutation_link_inputs(const PermutationState& p);
bool apply_permutation_json(PermutationState& p, const attn::Json& patch);

/// f(P·X) against P·f(X), with the causal / positions toggles and the K/V check.
void draw_permutation_panel(PermutationState& p, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& permutation_panel();

}  // namespace app
