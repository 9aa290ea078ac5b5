#include "widgets/page_view.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "widgets/error_info.hpp"
#include "widgets/heatmap.hpp"
#include "widgets/keyboard_nav.hpp"
#include "learn/json_obj.hpp"

namespace app::view {

namespace {

struct Recorder {
  std::string panel, title;
  bool busy = false, working = false;
  std::uint64_t frame = 0;
  // Heatmaps by widget id; `seen` marks the ones of the frame being recorded.
  std::map<ImGuiID, HeatmapView> heatmaps;
  std::vector<ImGuiID> order;  // draw order of the current frame
  std::map<std::string, int> name_uses;
  std::vector<attn::Check> checks;
  std::vector<ErrorInfo> errors;
  std::vector<PlotTicks> plots;  // the frame's (between frames: the last one's)
  ImGuiID hovered = 0;  // last heatmap hovered or under the cell cursor (sticky across frames)
};

Recorder& rec() {
  static Recorder r;
  return r;
}

attn::Json number(double v) { return std::isfinite(v) ? attn::Json(v) : attn::Json(nullptr); }

}  // namespace

void begin_frame(const char* panel, const char* title, bool busy, bool working) {
  Recorder& r = rec();
  r.panel = panel ? panel : "";
  r.title = title ? title : "";
  r.busy = busy;
  r.working = busy || working;
  ++r.frame;
  // Drop heatmaps not drawn in the previous frame, then start marking this one's.
  for (auto it = r.heatmaps.begin(); it != r.heatmaps.end();) {
    if (!it->second.seen) {
      it = r.heatmaps.erase(it);
    } else {
      it->second.seen = false;
      ++it;
    }
  }
  r.order.clear();
  r.name_uses.clear();
  r.checks.clear();
  r.errors.clear();
  r.plots.clear();
}

void record_plot(PlotTicks ticks) { rec().plots.push_back(std::move(ticks)); }

const std::vector<PlotTicks>& plots() { return rec().plots; }

void record_heatmap(ImGuiID id, const char* name, const HeatmapSpec& spec, ImVec2 grid_min, ImVec2 grid_max) {
  if (!spec.values) return;
  Recorder& r = rec();
  HeatmapView& h = r.heatmaps[id];
  const std::string base = name ? name : "heatmap";
  const int use = ++r.name_uses[base];
  h.name = use == 1 ? base : base + " " + std::to_string(use);
  if (use == 2) {
    // The first of a repeated name becomes "name 1".
    for (ImGuiID other : r.order) {
      HeatmapView& o = r.heatmaps[other];
      if (o.name == base) o.name = base + " 1";
    }
  }
  // Small matrices are copied every frame (cheap, and right even if a panel forgets to bump
  // its version); large ones only when their version or shape changes.
  const bool fresh = h.id != id || h.version != spec.version || h.values.rows() != spec.values->rows() ||
                     h.values.cols() != spec.values->cols() || spec.values->size() <= 4096;
  if (fresh) {
    h.id = id;
    h.version = spec.version;
    h.values = *spec.values;
    h.allowed = spec.allowed && spec.allowed->rows() == h.values.rows() && spec.allowed->cols() == h.values.cols()
                    ? *spec.allowed
                    : attn::BoolMatrix();
    h.row_labels = spec.row_labels && static_cast<attn::Index>(spec.row_labels->size()) == h.values.rows()
                       ? *spec.row_labels
                       : std::vector<std::string>();
    h.col_labels = spec.col_labels && static_cast<attn::Index>(spec.col_labels->size()) == h.values.cols()
                       ? *spec.col_labels
                       : std::vector<std::string>();
    h.row_sums = spec.row_sums && static_cast<attn::Index>(spec.row_sums->size()) == h.values.rows()
                     ? *spec.row_sums
                     : std::vector<double>();
  }
  h.value_name = spec.value_name ? spec.value_name : "value";
  h.row_axis = spec.row_axis ? spec.row_axis : "row";
  h.col_axis = spec.col_axis ? spec.col_axis : "column";
  h.vmin = spec.vmin;
  h.vmax = spec.vmax;
  h.map = spec.map;
  cmap::shown_range(spec.map, h.vmin, h.vmax);  // as heatmap() draws it
  h.grid_min = grid_min;
  h.grid_max = grid_max;
  h.cursor_row = h.cursor_col = -1;
  h.hover_row = h.hover_col = -1;
  h.focused = false;
  h.seen = true;
  r.order.push_back(id);
}

void record_cursor(ImGuiID id, int row, int col) {
  Recorder& r = rec();
  auto it = r.heatmaps.find(id);
  if (it == r.heatmaps.end()) return;
  it->second.cursor_row = row;
  it->second.cursor_col = col;
  r.hovered = id;
}

void record_hovered(ImGuiID id, int row, int col) {
  Recorder& r = rec();
  r.hovered = id;
  auto it = r.heatmaps.find(id);
  if (it == r.heatmaps.end()) return;
  it->second.hover_row = row;
  it->second.hover_col = col;
}

void record_focused(ImGuiID id) {
  Recorder& r = rec();
  auto it = r.heatmaps.find(id);
  if (it == r.heatmaps.end()) return;
  it->second.focused = true;
  r.hovered = id;
}

void record_checks(const std::vector<attn::Check>& checks) {
  Recorder& r = rec();
  r.checks.insert(r.checks.end(), checks.begin(), checks.end());
}

void record_error(const ErrorInfo& error) { rec().errors.push_back(error); }

std::vector<const HeatmapView*> heatmaps() {
  Recorder& r = rec();
  std::vector<const HeatmapView*> out;
  for (ImGuiID id : r.order) out.push_back(&r.heatmaps[id]);
  return out;
}

attn::Json view_json(long max_cells) {
  using attn::Json;
  Recorder& r = rec();
  Json maps = Json::array();
  std::string active;
  const bool outline = max_cells < 0;
  for (ImGuiID id : r.order) {
    const HeatmapView& h = r.heatmaps[id];
    const bool has_cursor = h.cursor_row >= 0 && h.cursor_row < h.values.rows() && h.cursor_col >= 0 && h.cursor_col < h.values.cols();
    // The outline: only the heatmap the keyboard is on (its cursor's cell), without its values.
    if (outline && !h.focused && !has_cursor) continue;
    if (!outline && id == r.hovered) active = h.name;
    // Large matrices: the top-left 50×50 corner when a cell budget is given.
    const bool cut = max_cells > 0 && h.values.size() > max_cells;
    const attn::Index rows = outline ? 0 : cut ? std::min<attn::Index>(h.values.rows(), 50) : h.values.rows();
    const attn::Index cols = outline ? 0 : cut ? std::min<attn::Index>(h.values.cols(), 50) : h.values.cols();
    Json values = Json::array();
    for (attn::Index i = 0; i < rows; ++i) {
      Json row = Json::array();
      for (attn::Index j = 0; j < cols; ++j) row.push_back(number(h.values(i, j)));
      values.push_back(std::move(row));
    }
    Json allowed = nullptr;
    if (h.allowed.size() && !outline) {
      allowed = Json::array();
      for (attn::Index i = 0; i < rows; ++i) {
        Json row = Json::array();
        for (attn::Index j = 0; j < cols; ++j) row.push_back(static_cast<bool>(h.allowed(i, j)));
        allowed.push_back(std::move(row));
      }
    }
    Json sums = nullptr;
    if (!h.row_sums.empty() && !outline) {
      sums = Json::array();
      for (double v : h.row_sums) sums.push_back(number(v));
    }
    Json cursor = nullptr;
    if (has_cursor)
      cursor = ::attn::obj({{"row", h.cursor_row}, {"col", h.cursor_col}, {"value", number(h.values(h.cursor_row, h.cursor_col))},
                    {"allowed", h.allowed.size() ? static_cast<bool>(h.allowed(h.cursor_row, h.cursor_col)) : true}});
    Json hovered = nullptr;
    if (h.hover_row >= 0 && h.hover_row < h.values.rows() && h.hover_col >= 0 && h.hover_col < h.values.cols())
      hovered = ::attn::obj({{"row", h.hover_row}, {"col", h.hover_col}, {"value", number(h.values(h.hover_row, h.hover_col))}});
    maps.push_back(::attn::obj({{"name", h.name},
                        {"rows", h.values.rows()},
                        {"cols", h.values.cols()},
                        {"truncated", cut},
                        {"value_name", h.value_name},
                        {"row_axis", h.row_axis},
                        {"col_axis", h.col_axis},
                        {"row_labels", h.row_labels},
                        {"col_labels", h.col_labels},
                        {"values", std::move(values)},
                        {"allowed", std::move(allowed)},
                        {"row_sums", std::move(sums)},
                        {"vmin", number(h.vmin)},
                        {"vmax", number(h.vmax)},
                        {"rect", {h.grid_min.x, h.grid_min.y, h.grid_max.x, h.grid_max.y}},
                        {"cursor", std::move(cursor)},
                        {"hovered", std::move(hovered)},
                        {"focused", h.focused}}));
    // Viridis is the default and goes unsaid; a signed map names itself (exports, the text mirror).
    if (h.map != ColorMap::viridis) maps.back()["colormap"] = cmap::name(h.map);
  }
  if (active.empty() && !maps.empty() && !outline) active = maps[0]["name"].get<std::string>();
  Json checks = Json::array();
  for (const attn::Check& c : r.checks)
    checks.push_back(::attn::obj({{"claim", c.claim}, {"measured", number(c.measured)}, {"limit", number(c.limit)},
                          {"expect_at_most", c.expect_at_most}, {"pass", c.pass}}));
  Json errors = Json::array();
  for (const ErrorInfo& e : r.errors) errors.push_back(::attn::obj({{"code", e.code}, {"message", e.message}}));
  Json out = ::attn::obj({{"panel", r.panel}, {"title", r.title}, {"frame", r.frame}, {"busy", r.busy}, {"working", r.working},
              {"heatmaps", std::move(maps)},
              {"active", active.empty() ? Json(nullptr) : Json(active)}, {"checks", std::move(checks)},
              {"errors", std::move(errors)}});
  // The control under the keyboard cursor, while its ring shows (a heatmap says so above).
  const kbd::Cursor k = kbd::cursor();
  if (k.shown && !k.label.empty()) out["control"] = k.label;
  return out;
}

}  // namespace app::view
