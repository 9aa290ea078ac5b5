#include "widgets/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "widgets/page_view.hpp"  // view::record_plot
#include "widgets/heatmap.hpp"  // short_number
#include "imgui_internal.h"  // ImRect

namespace app::plot {

std::vector<double> round_ticks(double lo, double hi, int max_ticks) {
  std::vector<double> out;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) return out;
  max_ticks = std::max(2, max_ticks);
  // Candidates from a tenth of the even spacing up: the first that gives at most max_ticks.
  double mag = std::pow(10.0, std::floor(std::log10((hi - lo) / (max_ticks - 1))) - 1.0);
  const double mults[] = {1.0, 2.0, 5.0};
  double step = 0.0, k0 = 0.0, k1 = 0.0;
  for (int guard = 0; guard < 6 && step == 0.0; ++guard, mag *= 10.0)
    for (double m : mults) {
      const double s = m * mag, a = std::ceil(lo / s - 1e-9), b = std::floor(hi / s + 1e-9);
      if (b - a + 1.0 <= max_ticks) {
        step = s, k0 = a, k1 = b;
        break;
      }
    }
  if (step == 0.0) return out;
  for (double k = k0; k <= k1 && out.size() < static_cast<size_t>(max_ticks) + 1; k += 1.0)
    out.push_back(std::fabs(k) < 1e-9 ? 0.0 : k * step);
  return out;
}

namespace {

const ImU32 kFrame = IM_COL32(208, 212, 218, 255);
const ImU32 kGrid = IM_COL32(232, 232, 228, 255);
const ImU32 kBg = IM_COL32(255, 255, 255, 255);

ImU32 dim_text() { return ImGui::GetColorU32(ImGuiCol_TextDisabled); }

void text_centered(ImDrawList* dl, float cx, float y, ImU32 col, const std::string& s) {
  const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
  dl->AddText(ImVec2(cx - ts.x * 0.5f, y), col, s.c_str());
}

// A plot's box: an invisible button width×height at the cursor (its place in the layout and the
// mouse over it), its corners and the draw list; every plot starts with it.
struct PlotBox {
  ImDrawList* dl;
  ImVec2 p0, p1;
  bool hovered;
};
PlotBox plot_box(const char* button_id, float width, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  // Hovered for its tooltip, never a stop of the keyboard cursor: it has nothing to press.
  ImGui::PushItemFlag(ImGuiItemFlags_NoNav, true);
  ImGui::InvisibleButton(button_id, ImVec2(width, height));
  ImGui::PopItemFlag();
  return PlotBox{dl, p0, ImVec2(p0.x + width, p0.y + height), ImGui::IsItemHovered()};
}

// The box's white ground and its frame.
void plot_frame(ImDrawList* dl, ImVec2 p0, ImVec2 p1) {
  dl->AddRectFilled(p0, p1, kBg, 6.0f);
  dl->AddRect(p0, p1, kFrame, 6.0f);
}

}  // namespace

void histogram(const char* id, const std::vector<int>& counts, double lo, double hi, int y_max, float width,
               float height, ImU32 color, const char* x_label) {
  ImGui::PushID(id);
  const float fs = ImGui::GetFontSize();
  const PlotBox box = plot_box("##hist", width, height);
  ImDrawList* dl = box.dl;
  const ImVec2 p0 = box.p0, p1 = box.p1;
  // Plot area: room below for the axis labels.
  const ImVec2 a0(p0.x + 6, p0.y + 6), a1(p1.x - 6, p1.y - fs * 2.4f);
  plot_frame(dl, p0, p1);
  const float peak = static_cast<float>(std::max(1, y_max));
  const int n = static_cast<int>(counts.size());
  const float bw = n > 0 ? (a1.x - a0.x) / static_cast<float>(n) : 0.0f;
  int hover_bin = -1;
  for (int i = 0; i < n; ++i) {
    const float x0 = a0.x + bw * static_cast<float>(i), x1 = x0 + bw;
    const float top = a1.y - (a1.y - a0.y) * static_cast<float>(counts[static_cast<size_t>(i)]) / peak;
    const bool hot = box.hovered && ImGui::GetIO().MousePos.x >= x0 && ImGui::GetIO().MousePos.x < x1;
    if (hot) hover_bin = i;
    if (counts[static_cast<size_t>(i)] > 0)
      dl->AddRectFilled(ImVec2(x0 + (bw > 3 ? 0.5f : 0.0f), top), ImVec2(x1 - (bw > 3 ? 0.5f : 0.0f), a1.y),
                        hot ? IM_COL32(214, 120, 20, 255) : color);
  }
  dl->AddLine(ImVec2(a0.x, a1.y), ImVec2(a1.x, a1.y), IM_COL32(120, 120, 120, 255));
  // Ticks at lo, 0 (when inside), hi.
  auto tick = [&](double v) {
    const float x = a0.x + static_cast<float>((v - lo) / (hi - lo)) * (a1.x - a0.x);
    dl->AddLine(ImVec2(x, a1.y), ImVec2(x, a1.y + 4), IM_COL32(120, 120, 120, 255));
    std::string t = short_number(v, 3);
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    dl->AddText(ImVec2(std::max(p0.x + 3, std::min(p1.x - ts.x - 3, x - ts.x * 0.5f)), a1.y + 5), dim_text(),
                t.c_str());
  };
  if (hi > lo) {
    tick(lo);
    if (lo < 0 && hi > 0) tick(0.0);
    tick(hi);
  }
  const std::string top = "count " + std::to_string(y_max);  // the count scale, at its top
  dl->AddText(ImVec2(a0.x + 2, a0.y), dim_text(), top.c_str());
  text_centered(dl, 0.5f * (a0.x + a1.x), a1.y + fs * 1.2f, dim_text(), x_label);
  if (hover_bin >= 0 && hi > lo) {
    const double w = (hi - lo) / n;
    ImGui::BeginTooltip();
    ImGui::Text("[%s, %s): %d samples", short_number(lo + w * hover_bin, 4).c_str(),
                short_number(lo + w * (hover_bin + 1), 4).c_str(), counts[static_cast<size_t>(hover_bin)]);
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

void line_plot(const char* id, const std::vector<double>& xs, const std::vector<Series>& series, bool log2_x,
               double ymin, double ymax, float width, float height, const char* x_label, const char* y_label,
               int max_ticks, bool markers) {
  ImGui::PushID(id);
  const float fs = ImGui::GetFontSize();
  const PlotBox box = plot_box("##plot", width, height);
  ImDrawList* dl = box.dl;
  const ImVec2 p0 = box.p0, p1 = box.p1;
  // The header strip holds the y label and the legend, in as many rows as keep it inside the box.
  const float entry_gap = fs * 1.0f, key_w = fs * 1.5f;
  std::vector<ImVec2> legend_at;  // each series' legend position
  float lx = p0.x + 8 + ImGui::CalcTextSize(y_label).x + fs * 1.2f;
  int rows = 1;
  for (const Series& s : series) {
    const float w = key_w + ImGui::CalcTextSize(s.name.c_str()).x;
    if (lx + w > p1.x - 8 && lx > p0.x + 8 + fs) {
      ++rows;
      lx = p0.x + 8;
    }
    legend_at.push_back(ImVec2(lx, static_cast<float>(rows - 1)));
    lx += w + entry_gap;
  }
  const float row_h = fs * 1.25f;
  const float strip = fs * 0.35f + row_h * rows;  // y label and legend, above the plot area
  const ImVec2 a0(p0.x + fs * 3.0f, p0.y + strip + 6), a1(p1.x - 12, p1.y - fs * 2.4f);
  plot_frame(dl, p0, p1);
  if (xs.empty() || !(ymax > ymin)) {
    ImGui::PopID();
    return;
  }
  auto fx = [&](double x) { return log2_x ? std::log2(std::max(x, 1e-300)) : x; };
  const double x_lo = fx(xs.front()), x_hi = std::max(fx(xs.back()), x_lo + 1e-9);
  auto to_px = [&](double x, double y) {
    return ImVec2(
        a0.x + static_cast<float>((fx(x) - x_lo) / (x_hi - x_lo)) * (a1.x - a0.x),
        a1.y - static_cast<float>((std::max(ymin, std::min(ymax, y)) - ymin) / (ymax - ymin)) * (a1.y - a0.y));
  };
  // Grid: horizontal lines at round y values (at most 5, labelled), a tick per x.
  view::PlotTicks rec;
  rec.id = id;
  // As many labelled lines as fit a label's height apart (at most 6).
  rec.y = round_ticks(ymin, ymax, std::clamp(static_cast<int>((a1.y - a0.y) / (fs * 1.3f)) + 1, 2, 6));
  for (double y : rec.y) {
    const ImVec2 q = to_px(xs.front(), y);
    dl->AddLine(ImVec2(a0.x, q.y), ImVec2(a1.x, q.y), kGrid);
    const std::string t = short_number(y, 6);  // a round value prints short
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    dl->AddText(ImVec2(a0.x - ts.x - 5, q.y - ts.y * 0.5f), dim_text(), t.c_str());
  }
  float last_label_x = -1e9f;
  std::vector<double> ticks = xs;
  if (max_ticks > 0 && static_cast<int>(xs.size()) > max_ticks) {
    // Round ticks (1, 2 or 5 times a power of ten apart) inside the x range.
    ticks = round_ticks(xs.front(), xs.back(), max_ticks);
  }
  rec.x = ticks;
  rec.x_are_data = !(max_ticks > 0 && static_cast<int>(xs.size()) > max_ticks);
  view::record_plot(std::move(rec));
  for (double x : ticks) {
    const ImVec2 q = to_px(x, ymin);
    dl->AddLine(ImVec2(q.x, a1.y), ImVec2(q.x, a1.y + 4), IM_COL32(120, 120, 120, 255));
    const std::string t = short_number(x, 4);
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    if (q.x - ts.x * 0.5f > last_label_x + 4) {
      dl->AddText(ImVec2(q.x - ts.x * 0.5f, a1.y + 5), dim_text(), t.c_str());
      last_label_x = q.x + ts.x * 0.5f;
    }
  }
  dl->AddLine(ImVec2(a0.x, a1.y), ImVec2(a1.x, a1.y), IM_COL32(120, 120, 120, 255));
  text_centered(dl, 0.5f * (a0.x + a1.x), a1.y + fs * 1.2f, dim_text(), x_label);
  // Series.
  for (const Series& s : series) {
    const size_t n = std::min(xs.size(), s.y.size());
    for (size_t i = 0; i + 1 < n; ++i) {
      if (!std::isfinite(s.y[i]) || !std::isfinite(s.y[i + 1])) continue;  // a gap: no measurement there
      const ImVec2 a = to_px(xs[i], s.y[i]), b = to_px(xs[i + 1], s.y[i + 1]);
      if (!s.dashed) {
        dl->AddLine(a, b, s.color, 2.0f);
      } else {
        for (int k = 0; k < 8; k += 2)
          dl->AddLine(ImVec2(a.x + (b.x - a.x) * k / 8, a.y + (b.y - a.y) * k / 8),
                      ImVec2(a.x + (b.x - a.x) * (k + 1) / 8, a.y + (b.y - a.y) * (k + 1) / 8), s.color, 2.0f);
      }
    }
    if (markers)
      for (size_t i = 0; i < n; ++i)
        if (std::isfinite(s.y[i])) dl->AddCircleFilled(to_px(xs[i], s.y[i]), 3.0f, s.color);
  }
  // Header strip: the y label on the left, then one legend entry per series (rows laid out above).
  const float ly = p0.y + fs * 0.2f + 2;
  dl->AddText(ImVec2(p0.x + 8, ly), ImGui::GetColorU32(ImGuiCol_Text), y_label);
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    const float x = legend_at[k].x, y = ly + legend_at[k].y * row_h;
    dl->AddLine(ImVec2(x, y + fs * 0.55f), ImVec2(x + fs * 1.2f, y + fs * 0.55f), s.color, s.dashed ? 1.5f : 2.5f);
    dl->AddText(ImVec2(x + key_w, y), dim_text(), s.name.c_str());
  }
  if (box.hovered) {
    // Nearest x to the mouse.
    const float mx = ImGui::GetIO().MousePos.x;
    size_t best = 0;
    for (size_t i = 1; i < xs.size(); ++i)
      if (std::fabs(to_px(xs[i], ymin).x - mx) < std::fabs(to_px(xs[best], ymin).x - mx)) best = i;
    const ImVec2 q = to_px(xs[best], ymin);
    dl->AddLine(ImVec2(q.x, a0.y), ImVec2(q.x, a1.y), IM_COL32(214, 120, 20, 160));
    ImGui::BeginTooltip();
    ImGui::Text("%s = %s", x_label, tooltip_number(xs[best]).c_str());
    for (const Series& s : series)
      if (best < s.y.size())
        ImGui::Text("%s: %s", s.name.c_str(), std::isfinite(s.y[best]) ? tooltip_number(s.y[best]).c_str() : "n/a");
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

void scatter(const char* id, const std::vector<double>& xs, const std::vector<double>& ys,
             const std::vector<std::string>& labels, float width, float height, const char* x_label,
             const char* y_label, ImU32 color) {
  ImGui::PushID(id);
  const float fs = ImGui::GetFontSize();
  const PlotBox box = plot_box("##scatter", width, height);
  ImDrawList* dl = box.dl;
  const ImVec2 p0 = box.p0, p1 = box.p1;
  const float strip = fs * 1.6f;
  ImVec2 a0(p0.x + fs * 3.2f, p0.y + strip + 6);
  const ImVec2 a1(p1.x - 14, p1.y - fs * 2.4f);
  plot_frame(dl, p0, p1);
  dl->AddText(ImVec2(p0.x + 8, p0.y + (strip - fs) * 0.5f + 2), ImGui::GetColorU32(ImGuiCol_Text), y_label);
  const size_t n = std::min(xs.size(), ys.size());
  if (n == 0) {
    ImGui::PopID();
    return;
  }
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
    x_lo = std::min(x_lo, xs[i]), x_hi = std::max(x_hi, xs[i]);
    y_lo = std::min(y_lo, ys[i]), y_hi = std::max(y_hi, ys[i]);
  }
  auto pad = [](double& lo, double& hi) {
    const double span = hi - lo > 1e-12 ? hi - lo : 1.0;
    hi += span * 0.08;
    if (lo < 0) lo -= span * 0.08;
  };
  pad(x_lo, x_hi);
  pad(y_lo, y_hi);
  view::PlotTicks rec;
  rec.id = id;
  rec.x = round_ticks(x_lo, x_hi, 6);
  rec.y = round_ticks(y_lo, y_hi, std::clamp(static_cast<int>((a1.y - a0.y) / (fs * 1.3f)) + 1, 2, 6));
  for (double y : rec.y)  // room on the left for the widest y tick label
    a0.x = std::max(a0.x, p0.x + 10 + ImGui::CalcTextSize(short_number(y, 6).c_str()).x);
  auto to_px = [&](double x, double y) {
    return ImVec2(a0.x + static_cast<float>((x - x_lo) / (x_hi - x_lo)) * (a1.x - a0.x),
                  a1.y - static_cast<float>((y - y_lo) / (y_hi - y_lo)) * (a1.y - a0.y));
  };
  for (double y : rec.y) {
    const float py = to_px(x_lo, y).y;
    dl->AddLine(ImVec2(a0.x, py), ImVec2(a1.x, py), kGrid);
    const std::string t = short_number(y, 6);  // a round value prints short
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    dl->AddText(ImVec2(a0.x - ts.x - 5, py - ts.y * 0.5f), dim_text(), t.c_str());
  }
  for (double x : rec.x) {
    const float px = to_px(x, y_lo).x;
    dl->AddLine(ImVec2(px, a0.y), ImVec2(px, a1.y), kGrid);
    const std::string t = short_number(x, 6);
    const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
    dl->AddText(ImVec2(std::max(p0.x + 2, std::min(p1.x - ts.x - 2, px - ts.x * 0.5f)), a1.y + 5), dim_text(), t.c_str());
  }
  view::record_plot(rec);
  if (y_lo < 0 && y_hi > 0) {
    const float py = to_px(x_lo, 0.0).y;
    dl->AddLine(ImVec2(a0.x, py), ImVec2(a1.x, py), IM_COL32(150, 150, 150, 255));
  }
  dl->AddLine(ImVec2(a0.x, a1.y), ImVec2(a1.x, a1.y), IM_COL32(120, 120, 120, 255));
  dl->AddLine(ImVec2(a0.x, a0.y), ImVec2(a0.x, a1.y), IM_COL32(120, 120, 120, 255));
  text_centered(dl, 0.5f * (a0.x + a1.x), a1.y + fs * 1.2f, dim_text(), x_label);
  int best = -1;
  float best_d = fs * 1.5f;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  std::vector<ImRect> placed;  // labels drawn so far: a label that would overlap one is left out (hover names it)
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
    const ImVec2 q = to_px(xs[i], ys[i]);
    dl->AddCircleFilled(q, 4.5f, color);
    if (i < labels.size()) {
      const ImVec2 ts = ImGui::CalcTextSize(labels[i].c_str());
      ImRect r(ImVec2(q.x + 6, q.y - fs * 0.55f), ImVec2(q.x + 6 + ts.x, q.y - fs * 0.55f + ts.y));
      if (r.Max.x > p1.x - 2) r.Translate(ImVec2(-(ts.x + 12), 0));
      bool clash = false;
      for (const ImRect& o : placed) clash = clash || o.Overlaps(r);
      if (!clash) {
        dl->AddText(r.Min, dim_text(), labels[i].c_str());
        placed.push_back(r);
      }
    }
    const float d = std::hypot(q.x - mouse.x, q.y - mouse.y);
    if (box.hovered && d < best_d) best_d = d, best = static_cast<int>(i);
  }
  if (best >= 0) {
    const ImVec2 q = to_px(xs[static_cast<size_t>(best)], ys[static_cast<size_t>(best)]);
    dl->AddCircle(q, 7.0f, IM_COL32(214, 120, 20, 255), 0, 2.0f);
    ImGui::BeginTooltip();
    if (static_cast<size_t>(best) < labels.size()) ImGui::TextUnformatted(labels[static_cast<size_t>(best)].c_str());
    ImGui::Text("%s: %s", x_label, tooltip_number(xs[static_cast<size_t>(best)]).c_str());
    ImGui::Text("%s: %s", y_label, tooltip_number(ys[static_cast<size_t>(best)]).c_str());
    tooltip_exact_hint();
    ImGui::EndTooltip();
  }
  ImGui::PopID();
}

void bar_table(const char* id, const std::vector<std::string>& labels, const std::vector<BarColumn>& columns,
               float width, int highlight_row) {
  ImGui::PushID(id);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  float label_w = fs * 2.0f;
  for (const std::string& l : labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x + fs * 0.8f);
  const int nc = static_cast<int>(columns.size());
  const float gap = fs * 1.0f;
  const float col_w = nc > 0 ? (width - label_w - gap * nc) / nc : 0.0f;
  const float row_h = fs * 1.7f;
  const float height = row_h * (static_cast<float>(labels.size()) + 1.0f) + 4;
  const PlotBox box = plot_box("##bars", width, height);
  const ImVec2 p0 = box.p0;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  plot_frame(dl, p0, box.p1);
  for (int c = 0; c < nc; ++c) {
    const float x = p0.x + label_w + gap * (c + 0.5f) + col_w * c;
    const ImVec4 clip(x, p0.y, x + col_w, p0.y + row_h);
    dl->AddText(nullptr, 0.0f, ImVec2(x, p0.y + fs * 0.3f), dim_text(), columns[static_cast<size_t>(c)].title.c_str(),
                nullptr, 0.0f, &clip);
  }
  for (size_t r = 0; r < labels.size(); ++r) {
    const float y = p0.y + row_h * (static_cast<float>(r) + 1.0f);
    if (static_cast<int>(r) == highlight_row)
      dl->AddRectFilled(ImVec2(p0.x + 2, y), ImVec2(p0.x + width - 2, y + row_h), IM_COL32(253, 240, 222, 255), 4.0f);
    dl->AddText(ImVec2(p0.x + fs * 0.5f, y + (row_h - fs) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text),
                labels[r].c_str());
    for (int c = 0; c < nc; ++c) {
      const BarColumn& col = columns[static_cast<size_t>(c)];
      const float x = p0.x + label_w + gap * (c + 0.5f) + col_w * c;
      const double v = r < col.values.size() ? col.values[r] : NAN;
      const std::string t = std::isfinite(v) ? short_number(v, 3) : col.nan_text;
      const float tw = ImGui::CalcTextSize("0.000e-00").x * 0.75f;
      const float bar_max = std::max(4.0f, col_w - tw - 6);
      if (std::isfinite(v) && col.max > 0) {
        const float len = bar_max * static_cast<float>(std::max(0.0, std::min(1.0, v / col.max)));
        dl->AddRectFilled(ImVec2(x, y + row_h * 0.2f), ImVec2(x + std::max(len, v > 0 ? 1.5f : 0.0f), y + row_h * 0.8f),
                          col.color, 2.0f);
      }
      dl->AddLine(ImVec2(x, y + row_h * 0.12f), ImVec2(x, y + row_h * 0.88f), IM_COL32(150, 150, 150, 255));
      dl->AddText(ImVec2(x + bar_max + 6 - (bar_max > tw ? 0 : 0), y + (row_h - fs) * 0.5f), dim_text(), t.c_str());
      if (box.hovered && mouse.x >= x && mouse.x < x + col_w && mouse.y >= y && mouse.y < y + row_h) {
        ImGui::BeginTooltip();
        ImGui::Text("%s, %s: %s", labels[r].c_str(), col.title.c_str(),
                    std::isfinite(v) ? tooltip_number(v).c_str() : "not defined");
        tooltip_exact_hint();
        ImGui::EndTooltip();
      }
    }
  }
  ImGui::PopID();
}

}  // namespace app::plot
