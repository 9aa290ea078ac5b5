// web/panels/additive.hpp — the Additive panel (Bahdanau's attention stepped through a
// translation): its inputs and result, its setters, its state() and set() JSON and link inputs;
// drawn in additive.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "error_info.hpp"

namespace app {

struct AppState;
struct Ui;

struct AdditiveState {
  attn::AdditiveDecoderInput input;  ///< last good
  std::string source_text = "the black cat", target_text = "le chat noir";
  int step = 0;  ///< the target step spelled out
  attn::AdditiveDecoderDemo result;
  std::optional<ErrorInfo> error;
};

/// attn::AdditiveDecoderInput's defaults (cannot fail).
void init_additive(AppState& s);
// --- Additive -------------------------------------------------------------------
bool set_additive_input(AppState& s, const attn::AdditiveDecoderInput& in);
void set_additive_step(AppState& s, int step);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: the decoder's inputs and the step spelled out.
attn::Json additive_inputs_json(const AppState& s);
/// {"inputs" (without the step), "step", "result": attn::to_json(demo) + checks_shown, "error"}.
attn::Json additive_state_json(const AppState& s);
/// set({additive: patch}); false when the setter refused. A malformed patch throws PatchError.
bool apply_additive_json(AppState& s, const attn::Json& patch);

/// Bahdanau's additive attention stepping through le chat noir; four scoring functions.
void draw_additive_panel(AppState& s, Ui& ui);

}  // namespace app
