// web/panels/panels.hpp — one function per lesson panel.
//
// A panel draws the structs in AppState (results of core/ functions) and turns widget
// edits into calls of the app_state.hpp setters, which recompute through the core.
// Panels never compute attention themselves.
#pragma once

#include "app_state.hpp"
#include "heatmap.hpp"
#include "ui_style.hpp"

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

}  // namespace app
