// web/widgets/plots.hpp — small ImDrawList plots for the lesson panels: a histogram, a line plot, and
// labelled horizontal bars. They only map the numbers they are handed to pixels (the numbers
// come from core/); matrices go through the heatmap widget instead.
#pragma once

#include <string>
#include <vector>

#include "imgui.h"

namespace app::plot {

/// Round tick values inside [lo, hi]: every multiple of one step in the range, the step 1, 2 or 5
/// times a power of ten (the smallest that gives at most max_ticks ticks, max_ticks >= 2), e.g.
/// 0, 0.5, 1, 1.5, 2 for [0, 2.24]. A multiple within 1e-9 steps of 0 is written 0. Empty for an
/// empty or non-finite range.
std::vector<double> round_ticks(double lo, double hi, int max_ticks);

/// Bars of `counts` over equal bins from lo to hi against the count scale `y_max` (handed in, so
/// two histograms given the same lo, hi and y_max compare by eye), one ImGui item of width×height,
/// "count y_max" at its top. Hovering a bar shows its bin and count.
void histogram(const char* id, const std::vector<int>& counts, double lo, double hi, int y_max, float width,
               float height, ImU32 color, const char* x_label);

struct Series {
  std::string name;
  std::vector<double> y;  ///< one per x
  ImU32 color = IM_COL32(31, 111, 178, 255);
  bool dashed = false;
};

/// Lines through (x_i, y_i) per series, x on a log2 axis when log2_x (x > 0), y from ymin to ymax.
/// Ticks at every x given (or, with max_ticks > 0, at most that many evenly spaced ones); a legend
/// in the top-left corner; hover shows the values at the nearest x. `markers`: a dot per point.
void line_plot(const char* id, const std::vector<double>& xs, const std::vector<Series>& series, bool log2_x,
               double ymin, double ymax, float width, float height, const char* x_label, const char* y_label,
               int max_ticks = 0, bool markers = true);

/// Points (x_i, y_i) with a label each, axes from the data's range (0 included); hover shows the
/// nearest point's label and values. `highlight` (-1 none) draws one point larger.
void scatter(const char* id, const std::vector<double>& xs, const std::vector<double>& ys,
             const std::vector<std::string>& labels, float width, float height, const char* x_label,
             const char* y_label, ImU32 color = IM_COL32(31, 111, 178, 255));

/// One row per label with up to three bars side by side, each scaled to its own maximum `max[k]`
/// (so each column of bars compares keys with one another). `values[k][row]`; NaN draws "n/a".
struct BarColumn {
  std::string title;
  std::vector<double> values;
  double max = 1.0;
  ImU32 color = IM_COL32(31, 111, 178, 255);
  const char* nan_text = "n/a";  ///< what a NaN cell says (e.g. "masked")
};
void bar_table(const char* id, const std::vector<std::string>& labels, const std::vector<BarColumn>& columns,
               float width, int highlight_row = -1);

}  // namespace app::plot
