// web/panels/additive.hpp — the Additive panel (Bahdanau's attention stepped through a
// translation): its inputs and result, its setters, its state() and set() JSON and link inputs;
// drawn in additive.cpp.
//
// Two views of the same stepped read. "trained" (the default): the Translate panel's attention
// translator (lessons/additive_trained.hpp) on an English sentence of its grammar — its real
// encoder states, decoder states and learned attention parameters. "untrained": the seeded demo
// (lessons/additive_decoder.hpp), whose "encoder states" are random draws. The trained view needs
// that model: it ensures the Translate panel's state exists and, when the shipped checkpoint has
// not been installed, the registry's tick asks for the same fetch the Translate panel makes
// (panels/registry.cpp); until it is there the view shows "loading the trained translator…".
// The trained result is computed by tick_additive / the setters, never while drawing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "lessons/additive_trained.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct AppState;
struct Ui;

enum class AdditiveView { untrained, trained };

/// The trained view's walk and the model it was computed on.
struct AdditiveTrained {
  attn::lessons::TrainedAdditiveWalk walk;
  std::shared_ptr<const attn::lessons::TranslateTrainer> trainer;  ///< the run whose attention model read it
  int model_step = 0;   ///< that run's step when it was read
  bool from_checkpoint = false;
};

struct AdditiveState {
  attn::AdditiveDecoderInput input;  ///< last good
  std::string source_text = "the black cat", target_text = "le chat noir";
  int step = 0;  ///< the target step spelled out
  attn::AdditiveDecoderDemo result;

  AdditiveView view = AdditiveView::trained;  ///< opens on the real model; random states are one click away
  attn::lessons::TrainedAdditiveInput trained_input;  ///< last good (its step is `trained_step`)
  std::string trained_sentence_text = "the black cat";
  int trained_step = 0;  ///< the trained walk's step spelled out (clamped into its steps)
  std::optional<AdditiveTrained> trained;  ///< empty until the translator is there
  /// Why there is no trained result for the current inputs ("loading the trained translator…",
  /// the fetch's failure); empty when `trained` is current.
  std::string trained_status;

  std::optional<ErrorInfo> error;
};

/// attn::AdditiveDecoderInput's defaults (cannot fail).
void init_additive(AppState& s);
// --- Additive -------------------------------------------------------------------
bool set_additive_input(AppState& s, const attn::AdditiveDecoderInput& in);
void set_additive_step(AppState& s, int step);
/// Switch between the seeded demo and the Translate panel's attention model. The trained view
/// builds the Translate panel's state if missing (ensure_translate) and reads the model if it is
/// trained; otherwise trained_status says why not (the fetch itself is the registry tick's).
void set_additive_view(AppState& s, AdditiveView view);
/// The trained view's sentence and feed (teacher forcing or greedy). False (error recorded, last
/// good inputs and result kept) when the core refuses them (unknown word, not a sentence of the
/// grammar); when the model is not there yet they are only checked as far as the grammar goes.
bool set_additive_trained_input(AppState& s, const attn::lessons::TrainedAdditiveInput& in);
/// The trained walk's step, clamped into its steps.
void set_additive_trained_step(AppState& s, int step);
/// Recomputes the trained walk when the Translate panel's model changed since it was read (a
/// checkpoint installed, steps trained); sets trained_status. True when anything changed.
bool tick_additive(AppState& s);
/// True while the trained view waits for a model on its way: shown (its fetch starts) or the
/// Translate panel's checkpoint requested (state() reports pending).
bool additive_pending(const AppState& s);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: the decoder's inputs and the step spelled out.
attn::Json additive_inputs_json(const AppState& s);
/// {"inputs" (without the step), "step", "result": attn::to_json(demo) + checks_shown, "view",
///  "trained" {inputs {sentence, feed}, step, status, pending, source, model_step, result
///  (attn::to_json of the step shown), alignment, checks_shown}, "error"}.
attn::Json additive_state_json(const AppState& s);
/// set({additive: patch}); false when the setter refused. A malformed patch throws PatchError.
bool apply_additive_json(AppState& s, const attn::Json& patch);

/// Bahdanau's additive attention stepping through le chat noir; four scoring functions.
void draw_additive_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& additive_panel();

}  // namespace app
