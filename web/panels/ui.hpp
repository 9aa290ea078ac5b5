// web/panels/ui.hpp — what every panel's draw function gets besides the state.
//
// A panel draws the structs its own module keeps (results of core/ functions) and turns widget
// edits into calls of its setters, which recompute through the core. Draw calls never compute.
#pragma once

#include "app_state.hpp"
#include "widgets/heatmap.hpp"
#include "widgets/ui_style.hpp"

namespace app {

/// Where heatmaps go, and the fonts.
struct Ui {
  HeatmapGpu& gpu;
  const Fonts& fonts;
};

}  // namespace app
