// web/widgets/heatmap.hpp — the heatmap widget every panel uses.
//
// Draws a rows×cols matrix (row = query, column = key; attn::Matrix is row-major,
// so row i is contiguous and is uploaded as texture row i) with:
//   - colours from viridis for non-negative values, or Paul Tol's diverging sunset for signed
//     ones (centred at 0 over a symmetric range; widgets/colormap.hpp), both colour-blind safe,
//     computed on the GPU by shaders/heatmap.frag from a float texture of the exact values;
//   - masked cells (allowed = false) hatched grey, so they never look like a zero weight;
//   - token labels on both axes, a legend with its numeric range, row sums beside the rows,
//     optional numbers in the cells, and the exact value in a tooltip on hover.
//
// The GPU part sits behind HeatmapGpu so that the panels run without any GPU backend
// (the headless test uses NullHeatmapGpu). The widget never computes attention: it only
// formats the numbers it is handed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/types.hpp"
#include "imgui.h"
#include "widgets/colormap.hpp"

namespace app {

/// Uploads heatmap textures and queues their draws. One texture per widget ID.
class HeatmapGpu {
 public:
  virtual ~HeatmapGpu() = default;
  /// Called once per frame before any widget is drawn (drops last frame's queued draws).
  virtual void begin_frame() {}
  /// True when texture `id` already holds data of `version` (the widget then skips packing).
  virtual bool has(ImGuiID id, std::uint64_t version) const = 0;
  /// Upload rows×cols cells. `cells` holds rows·cols pairs (value, allowed ? 1 : 0),
  /// row-major: pair k is cell (k / cols, k % cols). Values are floats: colour only;
  /// the exact doubles stay on the CPU for the tooltip.
  virtual void upload(ImGuiID id, std::uint64_t version, int rows, int cols, const float* cells) = 0;
  /// Queue a draw of texture `id` into the screen rectangle [p0, p1] of `dl`, mapping
  /// [vmin, vmax] onto `map`. `grid` draws 1-pixel separators between cells.
  virtual void draw(ImDrawList* dl, ImGuiID id, ImVec2 p0, ImVec2 p1, float vmin, float vmax, bool grid,
                    ColorMap map) = 0;
};

/// No GPU: uploads are remembered (so `has` behaves) but nothing is drawn.
class NullHeatmapGpu final : public HeatmapGpu {
 public:
  bool has(ImGuiID id, std::uint64_t version) const override;
  void upload(ImGuiID id, std::uint64_t version, int rows, int cols, const float* cells) override;
  void draw(ImDrawList*, ImGuiID, ImVec2, ImVec2, float, float, bool, ColorMap) override { ++draws; }
  int uploads = 0;  ///< for tests
  int draws = 0;

 private:
  std::vector<std::pair<ImGuiID, std::uint64_t>> versions_;
};

/// What to draw. Pointers are borrowed for the call only; optional ones may be null.
struct HeatmapSpec {
  const attn::Matrix* values = nullptr;              ///< rows×cols, required
  const attn::BoolMatrix* allowed = nullptr;         ///< rows×cols allowed mask (true = may attend)
  const std::vector<std::string>* row_labels = nullptr;  ///< rows tokens (queries)
  const std::vector<std::string>* col_labels = nullptr;  ///< cols tokens (keys)
  const std::vector<double>* row_sums = nullptr;     ///< shown right of each row (from the core)
  double vmin = 0.0, vmax = 1.0;                     ///< colour range, shown in the legend
  /// viridis (never-negative values) or sunset (signed ones: the range becomes [-r, r] with
  /// r = max(|vmin|, |vmax|), so that 0 sits in the pale middle).
  ColorMap map = ColorMap::viridis;
  std::uint64_t version = 0;                         ///< change whenever the data changes
  const char* value_name = "weight";                 ///< tooltip wording
  const char* row_axis = "query";
  const char* col_axis = "key";
  bool numbers = false;                              ///< numbers in cells (when they fit)
  bool legend = true;
  float width = 0.0f;                                ///< total width available (0 = content region)
  float max_cell = 56.0f;                            ///< largest cell side, in points
  int selected_row = -1;                             ///< outlined row (-1 none)
};

/// The spec of a numbered map: `values` (rows×cols) under its row and column labels, numbers in
/// the cells, at most `width` wide (0: the content region) with cells of at most `max_cell`
/// points; `version` changes whenever the data does. The other fields keep their defaults.
inline HeatmapSpec numbered_spec(const attn::Matrix& values, const std::vector<std::string>& row_labels,
                                 const std::vector<std::string>& col_labels, std::uint64_t version, float width,
                                 float max_cell) {
  HeatmapSpec spec;
  spec.values = &values;
  spec.row_labels = &row_labels;
  spec.col_labels = &col_labels;
  spec.version = version;
  spec.numbers = true;
  spec.width = width;
  spec.max_cell = max_cell;
  return spec;
}

struct HeatmapEvent {
  int hovered_row = -1, hovered_col = -1;
  int clicked_row = -1;  ///< row clicked this frame (cell or label), -1 if none
  float grid_top = 0;     ///< offset of the cells below the widget's top (column labels above)
  float grid_height = 0;  ///< height of the cells
};

/// Draw the heatmap as one ImGui item. Labels are thinned out when rows/cols get dense.
/// Bad shapes (labels or sums of the wrong length, mask of another size) are drawn
/// without the mismatched part rather than asserting.
HeatmapEvent heatmap(const char* id, const HeatmapSpec& spec, HeatmapGpu& gpu);

/// A stand-alone vertical legend (viridis bar from vmin to vmax, plus the masked swatch).
void heatmap_legend(const char* id, double vmin, double vmax, bool show_masked, float height, HeatmapGpu& gpu);
/// A vertical legend of Paul Tol's sunset over [-range, range]: "+r" at the top, "0" in the middle,
/// "−r" at the bottom, and `negative` / `positive` (may be null) saying what each sign means.
/// One ImGui item, `height` tall (at least three lines). Draws with ImGui only (no GPU).
void diverging_legend(const char* id, double range, float height, const char* negative = nullptr,
                      const char* positive = nullptr);
/// The ids of the diverging legends drawn in the current ImGui frame (a test hook).
const std::vector<std::string>& diverging_legends_drawn();

/// Shortest decimal that reads back to exactly `v` ("0.8", "0.10000000000000002").
std::string exact_number(double v);
/// A number in a tooltip: 4 significant digits, or exact_number while Shift is held (the exact
/// value on demand; exports and state() always carry every digit).
std::string tooltip_number(double v);
/// The tooltips' closing hint that Shift shows the exact values (dimmed; none on touch devices).
void tooltip_exact_hint();
/// Short display form (%.*g with `digits` significant digits); "−" for negatives, never "nan".
std::string short_number(double v, int digits = 3);
/// An exact count grouped by thousands: 12345678 → "12,345,678".
std::string grouped_number(std::uint64_t v);
/// A byte count with binary prefixes: "48.8 GiB" (3 significant digits), "512 B" below 1 KiB.
std::string byte_size(std::uint64_t v);

}  // namespace app
