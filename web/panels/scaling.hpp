// web/panels/scaling.hpp — the Scaling panel (why scores are divided by sqrt(d_k)): its inputs and
// results, its setters, its state() and set() JSON and link inputs; drawn in scaling.cpp.
//
// Every input change goes through a setter, which recomputes through the core
// (attn::scaling_study, softmax_stability). On attn::Error the panel keeps its last good inputs and
// results and records the error to show.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct AppState;
struct Ui;

/// The sampling study over d_k = 1..512 is the heaviest computation of the page (about 8 million
/// normal draws, ~0.7 s in wasm). It starts when the panel is first shown (show_scaling_panel), not
/// at start-up, and runs in slices across frames (tick_scaling, a time budget per frame) with a
/// progress line; a change of seed or samples meanwhile restarts it. set() runs it to the end at once.
struct ScalingState {
  int d_k = 64;       ///< the d_k whose histograms are drawn (1..512)
  int d_k_edit = 64;  ///< the slider while it is dragged; applied on release
  std::uint64_t seed = 17;
  int samples = 2000;  ///< (q, k) pairs per d_k
  std::vector<double> logits{1000.0, 1001.0};
  std::string logits_text = "1000 1001";  ///< the text field; may differ from logits after an error

  attn::ScalingResult curve;            ///< d_k = 1, 2, 4, ..., 512: variance and saturation against d_k
                                        ///< (the last complete one while a new study runs)
  std::optional<attn::ScalingStudy> study;  ///< the curve's study in progress (seed, samples as above)
  /// {d_k}: raw and scaled histograms on one shared axis (attn::scaling_histograms); its study
  /// is state()'s "selected", the axis and caption "histograms".
  attn::ScalingHistograms selected;
  attn::SoftmaxStability stability;
  /// The curve's study waits for or runs in frames (state() reports pending: true and its progress).
  bool pending = false;
  std::optional<ErrorInfo> error;
};

/// The stability demo at its default logits; the sampling study waits until the panel is shown.
void init_scaling(AppState& s);
// --- Scaling --------------------------------------------------------------------
/// New inputs: the histograms at d_k are recomputed at once; the curve when seed or samples
/// changed — at once when `now` (set()), otherwise as a study in frames (a study of other inputs
/// in progress restarts). Bad input (d_k outside 1..512, samples outside 2..100000 or past the
/// work limit) returns false with the error recorded; the last good inputs and results stay.
bool set_scaling(AppState& s, int d_k, std::uint64_t seed, int samples, bool now = true);
bool set_scaling_logits(AppState& s, const std::vector<double>& logits);

/// The Scaling panel is shown: its sampling study runs if it has not yet. `now`: to the end at once
/// (set(), showPanel); otherwise it is marked pending and run by tick_scaling in frames.
void show_scaling_panel(AppState& s, bool now);
/// Advance a pending study by one slice of at most `budget_seconds` (at least one unit), before a
/// frame is drawn, never inside a draw call; installs the curve when the study completes.
void tick_scaling(AppState& s, double budget_seconds = 0.012);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// What set() takes back and a link carries: {d_k, seed, samples, logits}.
attn::Json scaling_inputs_json(const AppState& s);
/// {"inputs", "result": {curve, selected, histograms, stability, checks}, "error"}, and while
/// the study waits for or runs in frames "pending": true, "progress": {units_done, total_units}.
attn::Json scaling_state_json(const AppState& s);
/// set({scaling: patch}); false when a setter refused. A malformed patch throws PatchError.
bool apply_scaling_json(AppState& s, const attn::Json& patch);

/// var(q·k) against d_k, histograms, saturation, tied Q = K, the 1000/1001 stability demo.
void draw_scaling_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& scaling_panel();

}  // namespace app
