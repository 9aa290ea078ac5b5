// web/page/page_tools.hpp — the page tools beside a panel's title: a "⋯" menu to copy a link to
// this exact view, export the current heatmap (PNG at the screen's resolution or 2×, CSV)
// and all of the panel's matrices (JSON); in embed mode also "open the full lab".
//
// The buttons only name an action; the page does it (embed.js: clipboard, downloads),
// through shim::page_action. The page reports back with page_tools_toast ("Link copied").
#pragma once

#include <string>

#include "widgets/ui_style.hpp"

namespace app {

/// Draw the "⋯" menu (and "Open the full lab" when embedded) on the title's line, right-aligned,
/// or, when it is too narrow, below it.
void draw_page_tools(const Fonts& fonts, bool embed);
/// A short confirmation shown beside the tools for a few seconds.
void page_tools_toast(const std::string& text);

}  // namespace app
