// web/app/app_state.hpp — what the page shows, and the one path by which it changes.
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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
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
#include "panels/cost.hpp"
#include "widgets/error_info.hpp"
#include "panels/learned_heads.hpp"
#include "panels/translate.hpp"
#include "panels/alignment.hpp"
#include "panels/permutation.hpp"
#include "panels/random_heads.hpp"
#include "panels/masks.hpp"
#include "panels/attribution.hpp"
#include "panels/scaling.hpp"
#include "panels/temperature.hpp"
#include "panels/dropout.hpp"
#include "panels/additive.hpp"
#include "panels/script.hpp"
#include "panels/language_model.hpp"
#include "panels/recall.hpp"

namespace app {

struct AppState {
  int panel = 0;  ///< the panel on screen: an index into panels() (panels/registry.hpp)
  AlignmentState alignment;
  HeadsState heads;
  PermutationState permutation;
  MasksState masks;                 ///< one member per panel, each in panels/<name>.hpp
  AttributionState attribution;
  ScalingState scaling;
  TemperatureState temperature;
  DropoutState dropout;
  AdditiveState additive;
  ScriptState script;
  RecallState recall;               ///< the "check yourself" strips, shared by the panels
  CostState cost;
  LearnedHeadsState learned_heads;
  TranslateState translate;
  LanguageModelState language_model;
  std::uint64_t frames = 0;  ///< frames drawn so far (the page's `ready` waits for the first)
  /// Edits a draw function forwarded (defer_edit): applied in order before the next frame's ticks,
  /// so that a setter's work (a beam search, a fresh trainer) never runs inside a draw call.
  std::vector<std::function<void(AppState&)>> edits;
  /// Events for a host page (JSON objects with "type": "answered", "trained"), oldest first; the
  /// page takes them after each frame (attn_app_take_events) and posts them to its parent.
  std::vector<std::string> host_events;
};

/// Keeps at most this many untaken host events (the oldest go first).
inline constexpr std::size_t kMaxHostEvents = 64;
/// Queue a host event (`ev` an object with "type"); drops the oldest past kMaxHostEvents.
void host_event(AppState& s, const attn::Json& ev);
/// The "trained" event: a run of `panel` reached `step` (it finished, or a model was installed
/// from `source`: "checkpoint", "trained here", "file").
void host_trained_event(AppState& s, const char* panel, int step, const char* source);

/// Queue `edit` (a call of the panel's setters) for the start of the next frame.
inline void defer_edit(AppState& s, std::function<void(AppState&)> edit) { s.edits.push_back(std::move(edit)); }
/// Apply the queued edits, in order (App::frame, before the ticks).
void apply_deferred_edits(AppState& s);

/// The lesson's defaults, computed once through the core (cannot fail).
AppState make_default_state();

// --- JSON (window.attentionLab) --------------------------------------------
/// Everything the page shows: {"panel", "frames", one key per panel (panels/registry.hpp: its
/// state function), "recall"}. Results via attn::to_json.
attn::Json state_json(const AppState& s);
/// Apply a patch {"panel": name, <panel name>: {...}, "recall": {...}} through the same setters
/// the widgets use. Returns {"ok":true} or {"ok":false,"error":{code,message}} (unknown keys,
/// wrong types, or the core's error).
attn::Json apply_json(AppState& s, const attn::Json& patch);

}  // namespace app
