// web/panels/learned_heads.hpp — inputs and results of the "Learned heads" panel: setters in
// learned_heads.cpp, state() and set() in learned_heads_json.cpp, drawing in learned_heads_draw.cpp.
//
// Same one-way flow as app_state.hpp: inputs change only through the setters below, which
// validate through the core (attn::lessons::HeadsTrainer) and keep the last good inputs and
// results on attn::Error. Training runs in slices from tick_learned_heads(), called once per
// frame by App::frame() *before* anything is drawn, with a time budget; snapshots (maps and
// scores on held-out data) are taken every 100 steps, and the interventions (ablation, patching,
// decoding) run when asked (in slices for a big model) or at the end of a run, in the frames after
// its last step, with the training's budget — never while drawing. The core makes the weights
// after k steps the same bits however the steps are sliced.
#pragma once

#include <string>

#include "lessons/learned_heads/captions.hpp"
#include "lessons/learned_heads/extrapolation.hpp"
#include "lessons/learned_heads/format.hpp"
#include "lessons/learned_heads/interventions.hpp"
#include "panels/trained_run.hpp"

namespace app {

/// seed, steps (1..20000) and Adam's learning rate ((0, 1]) from RunInputs, then the model and task.
struct LearnedHeadsInput : RunInputs {
  LearnedHeadsInput() : RunInputs{17, 1800, 3e-3} {}
  int heads = 4;         ///< 1, 2, 4 or 8 (dividing d_model 32)
  int layers = 2;        ///< 1..3
  int mlp = 0;           ///< 0 or 64
  attn::learn::DecoderPositions positions = attn::learn::DecoderPositions::learned;
  // The task (context 32): vocabulary, random prefix 0..prefix_max, run length run_min..run_max;
  // the longest layout, prefix_max + 2 run_max, must fit the context.
  int vocab = 16;      ///< 2..64
  int prefix_max = 7;
  int run_min = 6, run_max = 11;
  bool operator==(const LearnedHeadsInput& o) const {
    return same_run_inputs(o) && heads == o.heads && layers == o.layers &&
           mlp == o.mlp && positions == o.positions && vocab == o.vocab && prefix_max == o.prefix_max &&
           run_min == o.run_min && run_max == o.run_max;
  }
};

/// The core's training configuration for the panel's inputs (task and the rest at their defaults).
attn::lessons::HeadsTrainingConfig learned_heads_config(const LearnedHeadsInput& in);

struct LearnedHeadsInterventions {
  int step = 0;
  attn::lessons::AblationStudy ablation;
  attn::lessons::PatchingStudy patching;
  attn::lessons::DecodeComparison decoding;
};

struct LearnedHeadsCombined {
  int step = 0;
  std::vector<int> heads;  ///< layer-major indices ablated together
  bool mean = false;       ///< mean ablation (else zero)
  attn::lessons::InductionEval eval;
};

/// The shipped checkpoint of the default run (checkpoints/learned_heads.ckpt, made by
/// `attn checkpoint learned_heads`), fetched through the panel table (TrainedRun); Train
/// reproduces it to the bit.
inline constexpr const char* kLearnedHeadsCheckpointUrl = "checkpoints/learned_heads.ckpt";

/// A decoder the user brought (learn/model_file.hpp): its configuration and parameters as read.
/// While one is loaded, runs start from it (Train trains it further on the task, Reset goes back
/// to it) and every analysis measures it; the architecture inputs are its own.
using LearnedHeadsLoaded = BroughtModel<attn::learn::DecoderConfig>;

struct LearnedHeadsState {
  LearnedHeadsInput input;  ///< last good
  std::shared_ptr<attn::lessons::HeadsTrainer> trainer;  ///< the run (step 0 after a reset)
  attn::lessons::InductionBatch heldout;                  ///< heldout_batch(task, seed, 32)
  TrainedRun run;  ///< running, runs, the checkpoint's fetch, steps/s (panels/trained_run.hpp)
  std::shared_ptr<const LearnedHeadsLoaded> loaded;  ///< a model from a file, or null (the lab's own)

  std::vector<attn::lessons::HeadsSnapshot> snapshots;  ///< step 0, every 100 steps, where paused, the last step
  int shown = 0;        ///< snapshot the scrubber shows
  bool follow = true;   ///< the scrubber follows the newest snapshot

  // Display copies of the shown snapshot's maps and of the step-0 maps (layer-major), the
  // causal mask and the display sequence's tokens; rebuilt when the shown snapshot changes.
  std::vector<attn::Matrix> maps, maps_initial;
  attn::BoolMatrix allowed;
  std::vector<std::string> tokens;
  std::uint64_t maps_version = 1;

  double uniform_loss = 0.0;  ///< log V, the loss of a uniform guess over the model's vocabulary
  // Per snapshot, as plotted: its step, held-out accuracy, and the best head's induction and
  // previous-token scores.
  std::vector<double> score_steps, score_accuracy, score_induction, score_previous;

  // The loss curve as drawn: means over buckets of `curve_stride` steps (at most ~300 points).
  std::vector<double> curve_x, curve_train, curve_other;
  int curve_stride = 1;
  std::string loss_caption;  ///< lessons::loss_curve_caption of the curve and the last snapshot

  std::optional<LearnedHeadsInterventions> interventions;
  // A model beyond training's parameter limit (only a loaded one) is measured in slices, one pass
  // over the held-out batch per unit, after the main run's slice; null when none is under way.
  std::shared_ptr<attn::lessons::HeadsInterventionStudy> intervention_study;
  int intervention_study_step = 0;  ///< the step it measures
  std::vector<bool> combo;        ///< heads ticked for ablation together
  bool combo_mean = false;
  std::optional<LearnedHeadsCombined> combined;

  // The extrapolation study (one model per position signal, trained on shorter sequences), run on
  // request in slices after the main run's slice; an input change drops it.
  std::shared_ptr<attn::lessons::ExtrapolationStudy> extrapolation;
  bool extrapolation_running = false;
  // Per finished signal, accuracy by target position as plotted (NaN where no target was counted).
  std::vector<std::vector<double>> extrapolation_accuracy;
  // With a loaded model the study measures that model instead, at the step it was asked at: its
  // accuracy by target position past the task's length (learned positions: up to its context).
  std::optional<attn::lessons::PositionAccuracy> loaded_extrapolation;
  int loaded_extrapolation_step = 0;
  std::vector<double> loaded_extrapolation_curve;  ///< as plotted (NaN where nothing was counted)

  std::optional<ErrorInfo> error;
};

/// The study's configuration for the panel's inputs: their architecture, seed and learning rate,
/// 1,000 steps per signal on 20-token sequences, tested up to 48 tokens.
attn::lessons::ExtrapolationConfig learned_heads_extrapolation_config(const LearnedHeadsInput& in);
/// Start the study afresh (running), pause it, or continue it. With a loaded model, start measures
/// that model by position at once (nothing to train).
void learned_heads_extrapolation_start(AppState& s);
void learned_heads_extrapolation_pause(AppState& s);
void learned_heads_extrapolation_continue(AppState& s);

/// The default run at step 0 (cannot fail).
void init_learned_heads(AppState& s);
/// Validate and take new inputs; a change starts over at step 0 (not running). Returns false
/// (error recorded, last good inputs and run kept) on bad input.
bool set_learned_heads_input(AppState& s, const LearnedHeadsInput& in);
/// A fresh run from step 0 with the current inputs, running.
void learned_heads_train(AppState& s);
void learned_heads_pause(AppState& s);
/// Resume the current run where it stopped (a finished run stays finished).
void learned_heads_continue(AppState& s);
/// Back to step 0, not running.
void learned_heads_reset(AppState& s);
/// Drop a loaded model: back to the lab's own seeded model at step 0 (the inputs' architecture).
void learned_heads_unload_model(AppState& s);
/// One frame's slice: while running, Adam steps within `budget_seconds` (at least one; run_slice),
/// snapshots at every 100th step; after the last step, the interventions at it in slices of the
/// same budget (the run stays "training" until they are measured). True when anything changed.
/// The budget: kTrainSliceSeconds (trained_run.hpp says why).
bool tick_learned_heads(AppState& s, double budget_seconds = kTrainSliceSeconds);
/// Ablation, patching and the decoding comparison at the current step (not while running).
bool run_learned_heads_interventions(AppState& s);
/// Show snapshot `index` (clamped); the last one makes the scrubber follow new snapshots.
void select_learned_heads_snapshot(AppState& s, int index);
/// Heads to ablate together (layer-major flags) and the mode; evaluated when not running.
void set_learned_heads_combo(AppState& s, const std::vector<bool>& heads, bool mean);

/// {"inputs", "status", "step", "total", "progress", "running", "steps_per_second", "losses":{stride,
///  train, other}, "uniform_loss", "snapshot_steps", "shown", "snapshot" (shown), "latest",
///  "interventions", "combined", "decoding", "error"}.
attn::Json learned_heads_state_json(const AppState& s);
/// The inputs alone (link parameters; a valid set() patch).
attn::Json learned_heads_inputs_json(const LearnedHeadsInput& in);
/// set({learned_heads: {seed, steps, lr, heads, layers, positions, mlp, vocab, prefix_max, run_min, run_max, train, pause, continue,
///  reset, interventions, snapshot, ablate: [indices], ablate_mode: "zero"|"mean",
///  extrapolation: "start"|"pause"|"continue"}}). Returns false
/// when a setter refused (error in the state); a malformed patch throws attn::Error(invalid_field).
bool apply_learned_heads_json(AppState& s, const attn::Json& patch);

/// A tiny transformer trained here on repeated runs: loss curve, every head's map, scores,
/// ablation and patching, parallel training vs sequential generation.
void draw_learned_heads_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& learned_heads_panel();

}  // namespace app
