// web/lesson_state.hpp — inputs and results of the lesson-claim panels: masks,
// attribution, scaling, soft to hard, dropout, additive attention, the lesson script, and the
// "check yourself" strips.
//
// Same one-way flow as app_state.hpp: every input change goes through a setter below, which
// recomputes through the core (attn::prefix_isolation, attribution, scaling_study, ...). On
// attn::Error the panel keeps its last good inputs and result and records the error to show.
// Panels (web/panels/*.cpp) only draw these structs. Nothing here computes attention.
//
// Several panels use the lesson's own model: attn::lesson_replica() — torch.manual_seed(17),
// nn.Embedding(6, 8), three nn.Linear(8, 8) on "The cat sat on the mat", replayed by the core.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "error_info.hpp"

namespace app {

struct AppState;

/// One "check yourself" task as the learner left it.
struct RecallEntry {
  int choice = -1;                             ///< predict tasks: the answer picked (-1: none yet)
  std::optional<attn::RecallVerdict> verdict;  ///< the core's verdict on the last check
};

struct RecallState {
  std::vector<attn::RecallTask> tasks;         ///< attn::recall_tasks(), in page order
  std::map<std::string, RecallEntry> entries;  ///< by task id
  std::optional<ErrorInfo> error;              ///< a refused check (e.g. a missing field)
};

struct MasksState {
  // Inputs (last good). Tokens and weights are the lesson's model (LessonState::model), T = 6.
  int from = 3;                    ///< prefix isolation: first perturbed position
  double amount = 100.0;           ///< added to every feature of positions >= from
  int valid_length = 4;            ///< key padding: keys valid_length..T−1 are padding
  attn::BoolMatrix empty_allowed;  ///< T×T allowed grid of the empty-row demo (true = may attend)
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

struct AttributionState {
  std::vector<std::string> keys{"the", "black", "cat"};  ///< labels of the editable row's keys
  attn::Vector weights;                                  ///< Tk, a distribution (inputs, last good)
  attn::Matrix values;                                   ///< Tk×d_v
  int selected_key = 2;                                  ///< key whose interventions are spelled out

  attn::AttributionResult counterexample;  ///< the lesson's (0.99 on a zero value), fixed
  attn::AttributionResult result;          ///< the editable row
  attn::Matrix weight_row;                 ///< 1×Tk copy of result.weights for the heatmap
  std::optional<ErrorInfo> error;
};

/// The sampling study is the heaviest computation of the page (about 8 million normal draws, ~0.7 s in
/// wasm), so it runs when the panel is first shown (show_scaling_panel), not at start-up.
struct ScalingState {
  int d_k = 64;       ///< the d_k whose histograms are drawn (1..512)
  int d_k_edit = 64;  ///< the slider while it is dragged; applied on release
  std::uint64_t seed = 17;
  int samples = 2000;  ///< (q, k) pairs per d_k
  std::vector<double> logits{1000.0, 1001.0};
  std::string logits_text = "1000 1001";  ///< the text field; may differ from logits after an error

  attn::ScalingResult curve;            ///< d_k = 1, 2, 4, ..., 512: variance and saturation against d_k
  attn::ScalingResult selected;         ///< {d_k}, histograms over ±4·sqrt(d_k) (raw q·k)
  attn::ScalingResult selected_scaled;  ///< {d_k}, same samples, histograms over ±4 (q·k/sqrt(d_k))
  attn::SoftmaxStability stability;
  /// The panel was shown and its study waits for the next frame (state() reports pending: true).
  bool pending = false;
  std::optional<ErrorInfo> error;
};

struct TemperatureState {
  double temperature = 1.0;        ///< τ (soft mode), > 0
  bool hard = false;               ///< the τ → 0 limit: argmax selection
  attn::TemperatureResult result;  ///< on the lesson model's Q, K and the first two features of V
  attn::Matrix values2d;           ///< T×2: the values whose hull is drawn
  std::optional<ErrorInfo> error;
};

struct DropoutState {
  double p = 0.25;
  std::uint64_t seed = 17;
  attn::AttentionDropout result;        ///< on the lesson model's unmasked attention
  attn::Matrix keep;                    ///< T×T copy of result.keep as 0/1 for the heatmap
  std::vector<double> weight_row_sums;  ///< row sums of the pre-dropout weights (summed by the core)
  std::optional<ErrorInfo> error;
};

struct AdditiveState {
  attn::AdditiveDecoderInput input;  ///< last good
  std::string source_text = "the black cat", target_text = "le chat noir";
  int step = 0;  ///< the target step spelled out
  attn::AdditiveDecoderDemo result;
  std::optional<ErrorInfo> error;
};

struct ScriptState {
  attn::TimingFixture timing;
  int runs = 0;  ///< how often the fixture ran
  std::optional<ErrorInfo> error;
};

struct LessonState {
  attn::LessonReplica model;  ///< the lesson's script model (torch seed 17, replayed)
  MasksState masks;
  AttributionState attribution;
  ScalingState scaling;
  TemperatureState temperature;
  DropoutState dropout;
  AdditiveState additive;
  ScriptState script;
  RecallState recall;
};

/// Everything at the lesson's defaults, through the core (cannot fail); the scaling study waits
/// until the panel is first shown.
void init_lesson_state(AppState& s);
/// The Scaling panel is shown: its sampling study runs if it has not yet. `now`: at once (set());
/// otherwise it is marked pending and run by tick_scaling before the next frame is drawn.
void show_scaling_panel(AppState& s, bool now);
/// Run a pending sampling study (before a frame is drawn, never inside a draw call).
void tick_scaling(AppState& s);

// --- Masks --------------------------------------------------------------------
bool set_masks_prefix(AppState& s, int from, double amount);
bool set_masks_padding(AppState& s, int valid_length);
/// Replace the empty-row demo's T×T allowed grid.
bool set_masks_empty_allowed(AppState& s, const attn::BoolMatrix& allowed);
/// Flip one cell of that grid.
bool toggle_masks_empty_cell(AppState& s, int row, int col);
void set_masks_zero_policy(AppState& s, bool zero);
bool set_masks_causal(AppState& s, int tq, int tk);

// --- Attribution ----------------------------------------------------------------
bool set_attribution(AppState& s, const std::vector<std::string>& keys, const attn::Vector& weights,
                     const attn::Matrix& values);
/// Set weight `key`, rescaling the others so the row stays a distribution (the core's rule).
bool set_attribution_weight(AppState& s, int key, double value);
bool set_attribution_value(AppState& s, int key, int dim, double value);
void select_attribution_key(AppState& s, int key);
/// "chat" (le chat noir's row, default), "counterexample" (the lesson's), "small_weight".
bool attribution_preset(AppState& s, const std::string& name);

// --- Scaling --------------------------------------------------------------------
bool set_scaling(AppState& s, int d_k, std::uint64_t seed, int samples);
bool set_scaling_logits(AppState& s, const std::vector<double>& logits);

// --- Soft to hard, dropout ------------------------------------------------------
bool set_temperature(AppState& s, double temperature, bool hard);
bool set_dropout(AppState& s, double p, std::uint64_t seed);

// --- Additive -------------------------------------------------------------------
bool set_additive_input(AppState& s, const attn::AdditiveDecoderInput& in);
void set_additive_step(AppState& s, int step);

// --- Lesson script --------------------------------------------------------------
bool run_timing(AppState& s);

// --- Recall ---------------------------------------------------------------------
/// Pick an answer of a predict task and check it at once.
bool answer_recall(AppState& s, const std::string& task_id, int choice);
/// Check a task: predict tasks with their picked answer, construct tasks with what the
/// panel currently shows (attribution: the editable row; masks: the empty-row grid).
bool check_recall_task(AppState& s, const std::string& task_id);
/// Tasks of one panel ("masking", "attribution", "scaling", ...), by index into RecallState::tasks.
std::vector<int> recall_tasks_of(const AppState& s, const char* panel);

// --- JSON (window.attentionLab), one panel at a time (web/panels/registry.cpp lists them) --
/// A panel's inputs: the "inputs" of its state (the additive panel's also carry the step); what
/// a link carries. Built from the inputs alone (the link is refreshed while the learner drags).
attn::Json masks_inputs_json(const AppState& s);
attn::Json attribution_inputs_json(const AppState& s);
attn::Json scaling_inputs_json(const AppState& s);
attn::Json temperature_inputs_json(const AppState& s);
attn::Json dropout_inputs_json(const AppState& s);
attn::Json additive_inputs_json(const AppState& s);
/// A panel's state(): {"inputs", "result", "error"} (additive also "step"; scaling "pending"
/// while its study waits for a frame).
attn::Json masks_state_json(const AppState& s);
attn::Json attribution_state_json(const AppState& s);
attn::Json scaling_state_json(const AppState& s);
attn::Json temperature_state_json(const AppState& s);
attn::Json dropout_state_json(const AppState& s);
attn::Json additive_state_json(const AppState& s);
attn::Json script_state_json(const AppState& s);
/// The "check yourself" strips (shared by the panels): {tasks, result:{answers}, error}.
attn::Json recall_state_json(const AppState& s);
/// Apply one panel's set() patch through the setters. Returns false when a setter refused (its
/// error is then in the panel's error slot). A malformed patch throws attn::Error(invalid_field).
bool apply_masks_json(AppState& s, const attn::Json& patch);
bool apply_attribution_json(AppState& s, const attn::Json& patch);
bool apply_scaling_json(AppState& s, const attn::Json& patch);
bool apply_temperature_json(AppState& s, const attn::Json& patch);
bool apply_dropout_json(AppState& s, const attn::Json& patch);
bool apply_additive_json(AppState& s, const attn::Json& patch);
bool apply_script_json(AppState& s, const attn::Json& patch);
bool apply_recall_json(AppState& s, const attn::Json& patch);

}  // namespace app
