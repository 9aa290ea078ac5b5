// web/panels/panels.hpp — one function per lesson panel.
//
// A panel draws the structs in AppState (results of core/ functions) and turns widget
// edits into calls of the panel's setters (its header), which recompute through the core.
// Panels never compute attention themselves.
#pragma once

#include "app_state.hpp"
#include "widgets/heatmap.hpp"
#include "widgets/ui_style.hpp"

namespace app {

/// What every panel needs besides the state: where heatmaps go, and the fonts.
struct Ui {
  HeatmapGpu& gpu;
  const Fonts& fonts;
};

/// "the black cat" → "le chat noir": constructed cross-attention weights, editable; trace one row.
void draw_alignment_panel(AppState& s, Ui& ui);
/// Random-init multi-head self-attention on a sentence; one heatmap per head.
void draw_heads_panel(AppState& s, Ui& ui);
/// f(P·X) against P·f(X), with the causal / positions toggles and the K/V check.
void draw_permutation_panel(AppState& s, Ui& ui);

// The lesson-claim panels: the lesson's claims as live experiments (inputs and results in lesson_state.hpp).
/// Prefix isolation, key padding, an all-masked row, top-left vs bottom-right causal.
void draw_masks_panel(AppState& s, Ui& ui);
/// Weight a_j next to contribution ‖a_j v_j‖, the 0.99-on-zero counterexample, interventions.
void draw_attribution_panel(AppState& s, Ui& ui);
/// var(q·k) against d_k, histograms, saturation, tied Q = K, the 1000/1001 stability demo.
void draw_scaling_panel(AppState& s, Ui& ui);
/// Temperature from soft to argmax; outputs inside the values' hull.
void draw_temperature_panel(AppState& s, Ui& ui);
/// Inverted attention dropout: pre-dropout weights, keep mask, dropped weights, row sums.
void draw_dropout_panel(AppState& s, Ui& ui);
/// Bahdanau's additive attention stepping through le chat noir; four scoring functions.
void draw_additive_panel(AppState& s, Ui& ui);
/// The lesson script's model (torch's generator replayed) and its CPU timing fixture.
void draw_script_panel(AppState& s, Ui& ui);
/// The cost of dense attention: FLOPs, stored bytes, K/V cache, sliding window; dense vs tiled timing; the T×T map.
void draw_cost_panel(AppState& s, Ui& ui);
/// A tiny transformer trained here on repeated runs: loss curve, every head's map, scores,
/// ablation and patching, parallel training vs sequential generation.
void draw_learned_heads_panel(AppState& s, Ui& ui);

/// The "check yourself" strip of one panel (tasks of attn::recall_tasks() whose panel is `panel`).
void draw_recall_strip(AppState& s, Ui& ui, const char* panel);

}  // namespace app
