// web/widgets/page_view.hpp — what the last frame showed, as data: the page's text mirror and exports.
//
// The heatmap widget and the check/error helpers report here while a frame is drawn, so the
// record always matches the screen, for every panel, without the panels knowing about it:
//   heatmap()            → one HeatmapView per widget (exact doubles, labels, mask, colour range,
//                          screen rectangle, keyboard cell cursor)
//   style::check_lines() → the PASS/FAIL lines          style::error_box() → the shown errors
// window.attentionLab.view() returns view_json(); embed.js (web/page/embed/mirror.js) builds the DOM text mirror (an
// HTML table per heatmap, the checks) and the PNG/CSV/JSON exports from it.
//
// Copies are made only when a heatmap's data version changes, so an idle frame costs a lookup
// per heatmap. Nothing here computes attention: the numbers are the ones the panels drew.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lessons/check.hpp"  // attn::Check, recorded as drawn
#include "json/json_case.hpp"
#include "attn/types.hpp"
#include "imgui.h"
#include "widgets/colormap.hpp"

namespace app {

struct ErrorInfo;
struct HeatmapSpec;

namespace view {

struct HeatmapView {
  ImGuiID id = 0;
  std::string name;  ///< the widget's id string, numbered when it repeats in a frame ("head 2")
  std::string value_name, row_axis, col_axis;
  std::vector<std::string> row_labels, col_labels;  ///< empty when the panel gave none
  attn::Matrix values;                              ///< exact values as drawn (row = query)
  attn::BoolMatrix allowed;                         ///< empty, or rows×cols (true = may attend)
  std::vector<double> row_sums;                     ///< empty, or one per row
  double vmin = 0.0, vmax = 1.0;     ///< the colour range as drawn (a signed map's: symmetric)
  ColorMap map = ColorMap::viridis;  ///< the colour map the cells were drawn with
  std::uint64_t version = 0;
  ImVec2 grid_min, grid_max;  ///< the cells on screen, in CSS pixels (ImGui window units)
  int cursor_row = -1, cursor_col = -1;  ///< keyboard cell cursor (-1: none)
  int hover_row = -1, hover_col = -1;    ///< cell under the pointer this frame (-1: none)
  bool focused = false;                  ///< keyboard navigation is on it (not yet in cell mode)
  bool seen = false;                     ///< drawn in the last frame
};

/// Start recording a frame of `panel` (App::frame calls it before drawing); `busy`: what the panel
/// shows changes from frame to frame on its own (a run training or measuring, PanelDef::changing);
/// `working`: it has work under way across frames (PanelDef::busy: a study too), whose figures may
/// come without an input.
void begin_frame(const char* panel, const char* title, bool busy = false, bool working = false);
/// Called by heatmap(): remember what was drawn (copies only when the version changed).
void record_heatmap(ImGuiID id, const char* name, const HeatmapSpec& spec, ImVec2 grid_min, ImVec2 grid_max);
/// Called by heatmap() for the widget just recorded.
void record_cursor(ImGuiID id, int row, int col);
/// The pointer is over cell (row, col) of the widget just recorded.
void record_hovered(ImGuiID id, int row, int col);
void record_focused(ImGuiID id);
void record_checks(const std::vector<attn::Check>& checks);
/// The ticks a plot drew (plots.cpp): its id, y ticks, and x ticks (x_are_data: at the data's
/// own x values, e.g. each d_k, rather than computed round values).
struct PlotTicks {
  std::string id;
  std::vector<double> x, y;
  bool x_are_data = false;
};
void record_plot(PlotTicks ticks);
/// The plots of the frame (read between frames: the last one's), in drawing order (for tests).
const std::vector<PlotTicks>& plots();
void record_error(const ErrorInfo& error);

/// Everything the last complete frame showed:
/// {"panel","title","frame","busy","working","heatmaps":[{name,rows,cols,truncated,value_name,row_axis,col_axis,
///   row_labels,col_labels,values,allowed|null,row_sums|null,vmin,vmax,colormap ("sunset" for a signed map; absent: viridis),rect:[x0,y0,x1,y1],
///   cursor:{row,col,value,allowed}|null,hovered:{row,col,value}|null,focused}],
///  "active": name of the heatmap last hovered or under the keyboard cursor (else the first),
///  "checks":[{claim,measured,limit,expect_at_most,pass}], "errors":[{code,message}],
///  "control": the label of the control under the keyboard cursor while its ring shows (absent otherwise)}
/// `max_cells` > 0: a heatmap with more cells carries only its top-left 50×50 values
/// ("truncated": true; labels stay complete). 0: everything (exports). < 0: the outline, cheap
/// enough to ask every few frames while a run trains: of the heatmaps only the one with the
/// keyboard focus or cursor (its labels, cursor and hover; "values" empty, "allowed" and
/// "row_sums" null), usually none; "active" null.
attn::Json view_json(long max_cells = 0);
/// Heatmaps of the last frame (for tests).
std::vector<const HeatmapView*> heatmaps();

}  // namespace view
}  // namespace app
