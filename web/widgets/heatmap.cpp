#include "widgets/heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "imgui_internal.h"  // ImTextCharFromUtf8

#include "widgets/heatmap_cursor.hpp"
#include "widgets/keyboard_nav.hpp"
#include "widgets/page_view.hpp"
#include "widgets/ui_style.hpp"

namespace app {

// --- numbers -------------------------------------------------------------------

std::string exact_number(double v) {
  if (std::isnan(v)) return "not a number";
  if (std::isinf(v)) return v > 0 ? "+infinity" : "-infinity";
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string tooltip_number(double v) {
  if (ImGui::GetIO().KeyShift || std::isnan(v) || std::isinf(v)) return exact_number(v);
  return short_number(v, 4);
}

void tooltip_exact_hint() {
  if (!style::touch_sizes() && !ImGui::GetIO().KeyShift) ImGui::TextDisabled("hold Shift for the exact values");
}

std::string grouped_number(std::uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

std::string byte_size(std::uint64_t v) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double x = static_cast<double>(v);
  int u = 0;
  while (x >= 1024.0 && u < 6) x /= 1024.0, ++u;
  return u == 0 ? grouped_number(v) + " B" : short_number(x, 3) + " " + units[u];
}

std::string short_number(double v, int digits) {
  if (std::isnan(v)) return "n/a";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  if (v == 0.0) v = 0.0;  // no "-0"
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// --- NullHeatmapGpu ------------------------------------------------------------

bool NullHeatmapGpu::has(ImGuiID id, std::uint64_t version) const {
  for (const auto& e : versions_)
    if (e.first == id) return e.second == version;
  return false;
}

void NullHeatmapGpu::upload(ImGuiID id, std::uint64_t version, int rows, int cols, const float* cells) {
  IM_ASSERT(rows > 0 && cols > 0 && cells != nullptr);
  (void)rows, (void)cols, (void)cells;  // only checked
  ++uploads;
  for (auto& e : versions_)
    if (e.first == id) {
      e.second = version;
      return;
    }
  versions_.emplace_back(id, version);
}

// --- widget --------------------------------------------------------------------

namespace {

// Fixed texture ids shared by every legend (any id works: they only key the GPU cache).
constexpr ImGuiID kRampId = 0xA77E0001u;
constexpr ImGuiID kMaskedSwatchId = 0xA77E0002u;
constexpr int kRampSteps = 64;

void ensure_legend_textures(HeatmapGpu& gpu) {
  if (!gpu.has(kRampId, 1)) {
    float ramp[kRampSteps * 2];
    for (int i = 0; i < kRampSteps; ++i) {  // row 0 at the top holds the largest value
      ramp[2 * i] = 1.0f - static_cast<float>(i) / (kRampSteps - 1);
      ramp[2 * i + 1] = 1.0f;
    }
    gpu.upload(kRampId, 1, kRampSteps, 1, ramp);
  }
  if (!gpu.has(kMaskedSwatchId, 1)) {
    const float masked[2] = {0.0f, 0.0f};
    gpu.upload(kMaskedSwatchId, 1, 1, 1, masked);
  }
}

// Text rotated a quarter turn (reads bottom to top), its start at `bottom_center`, cut
// after `max_len` points. Glyph quads are emitted directly: ImDrawList::AddText would cull
// them against the clip rectangle at their unrotated position.
void add_text_vertical(ImDrawList* dl, ImVec2 bottom_center, ImU32 col, const char* text, float max_len) {
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  const float scale = size / font->FontSize;
  auto at = [&](float ux, float uy) { return ImVec2(bottom_center.x - size * 0.5f + uy, bottom_center.y - ux); };
  const char* s = text;
  const char* end = text + std::strlen(text);
  float x = 0;
  while (s < end) {
    unsigned int c = 0;
    const int n = ImTextCharFromUtf8(&c, s, end);
    if (n <= 0 || c == 0) break;
    s += n;
    const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(c));
    if (!g) continue;
    if (x + g->AdvanceX * scale > max_len) break;
    if (g->Visible) {
      const float x0 = x + g->X0 * scale, x1 = x + g->X1 * scale, y0 = g->Y0 * scale, y1 = g->Y1 * scale;
      dl->PrimReserve(6, 4);
      dl->PrimQuadUV(at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), ImVec2(g->U0, g->V0), ImVec2(g->U1, g->V0),
                     ImVec2(g->U1, g->V1), ImVec2(g->U0, g->V1), col);
    }
    x += g->AdvanceX * scale;
  }
}

float text_w(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }

// A signed legend label: "+0.5", "0", "-0.5".
std::string signed_number(double v) { return v > 0.0 ? "+" + short_number(v) : short_number(v); }

// Sunset from the top (positive) to the bottom (negative) of [p0, p1], one gradient per stop pair.
void sunset_bar(ImDrawList* dl, ImVec2 p0, ImVec2 p1) {
  const int n = static_cast<int>(sizeof cmap::kSunset / sizeof cmap::kSunset[0]) - 1;
  for (int k = 0; k < n; ++k) {
    const float y0 = p0.y + (p1.y - p0.y) * k / n, y1 = p0.y + (p1.y - p0.y) * (k + 1) / n;
    const ImU32 top = ImGui::ColorConvertFloat4ToU32(cmap::sunset(1.0 - static_cast<double>(k) / n));
    const ImU32 bottom = ImGui::ColorConvertFloat4ToU32(cmap::sunset(1.0 - static_cast<double>(k + 1) / n));
    dl->AddRectFilledMultiColor(ImVec2(p0.x, y0), ImVec2(p1.x, y1), top, top, bottom, bottom);
  }
}

std::string cell_text(double v, double vmin, double vmax) {
  char buf[32];
  if (vmin >= 0.0 && vmax <= 1.0)
    std::snprintf(buf, sizeof buf, "%.2f", v);
  else
    return short_number(v, 2);
  return buf;
}

struct LegendLayout {
  float width = 0;
  float min_height = 0;
};

LegendLayout legend_layout(double vmin, double vmax, bool masked) {
  const float fs = ImGui::GetFontSize();
  float labels = std::max({text_w(short_number(vmin)), text_w(short_number(vmax)),
                           text_w(short_number(0.5 * (vmin + vmax)))});
  if (masked) labels = std::max(labels, text_w("masked"));
  return LegendLayout{12.0f + 6.0f + labels + 4.0f, fs * (masked ? 6.0f : 4.0f)};
}

void draw_legend(ImDrawList* dl, ImVec2 p0, float bar_h, double vmin, double vmax, bool masked, ColorMap map,
                 HeatmapGpu& gpu) {
  const float fs = ImGui::GetFontSize();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float bar_w = 12.0f;
  ensure_legend_textures(gpu);
  const ImVec2 b1(p0.x + bar_w, p0.y + bar_h);
  dl->AddRectFilled(p0, b1, ImGui::GetColorU32(ImGuiCol_FrameBg));
  if (map == ColorMap::sunset)
    sunset_bar(dl, p0, b1);
  else
    gpu.draw(dl, kRampId, p0, b1, 0.0f, 1.0f, false, ColorMap::viridis);
  dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(b1.x + 1, b1.y + 1), style::border_color());
  const float lx = b1.x + 6.0f;
  // A signed range reads "-r, 0, r" from the bottom up (the layout's widths stay those of viridis).
  dl->AddText(ImVec2(lx, p0.y - 2.0f), text, short_number(vmax).c_str());
  dl->AddText(ImVec2(lx, p0.y + bar_h * 0.5f - fs * 0.5f), text, short_number(0.5 * (vmin + vmax)).c_str());
  dl->AddText(ImVec2(lx, b1.y - fs + 2.0f), text, short_number(vmin).c_str());
  if (masked) {
    const ImVec2 s0(p0.x, b1.y + fs * 0.6f), s1(p0.x + bar_w, b1.y + fs * 0.6f + bar_w);
    dl->AddRectFilled(s0, s1, IM_COL32(200, 200, 200, 255));
    gpu.draw(dl, kMaskedSwatchId, s0, s1, 0.0f, 1.0f, false, ColorMap::viridis);
    dl->AddRect(ImVec2(s0.x - 1, s0.y - 1), ImVec2(s1.x + 1, s1.y + 1), style::border_color());
    dl->AddText(ImVec2(lx, s0.y + bar_w * 0.5f - fs * 0.5f), text, "masked");
  }
}

// The cell the shader draws at the framebuffer pixel under the pointer: the same float
// arithmetic as shaders/heatmap.frag on that pixel's centre (ImGui's display origin is 0 here).
int cell_under(float mouse, float lo, float hi, int n, float scale) {
  if (!(scale > 0.0f)) scale = 1.0f;  // no framebuffer yet
  const float centre = (std::floor(mouse * scale) + 0.5f) / scale;
  const float t = (centre - lo) / (hi - lo) * static_cast<float>(n);
  return std::max(0, std::min(n - 1, static_cast<int>(std::floor(t))));
}

bool any_masked(const attn::BoolMatrix* allowed) {
  if (!allowed) return false;
  for (attn::Index i = 0; i < allowed->size(); ++i)
    if (!allowed->data()[i]) return true;
  return false;
}

}  // namespace

void heatmap_legend(const char* id, double vmin, double vmax, bool show_masked, float height, HeatmapGpu& gpu) {
  if (!(vmax > vmin)) vmax = vmin + 1.0;
  const LegendLayout lay = legend_layout(vmin, vmax, show_masked);
  const float fs = ImGui::GetFontSize();
  const float bar_h = std::max(fs * 3.0f, height - (show_masked ? fs * 2.0f : 0.0f));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(lay.width, bar_h + (show_masked ? fs * 2.0f : 0.0f) + 4.0f));
  ImGui::PushID(id);
  draw_legend(ImGui::GetWindowDrawList(), ImVec2(p0.x, p0.y + 2.0f), bar_h, vmin, vmax, show_masked,
              ColorMap::viridis, gpu);
  ImGui::PopID();
}

namespace {
std::vector<std::string> g_legends;
int g_legends_frame = -1;

// This frame's list: the first legend of a new frame starts it over.
std::vector<std::string>& legends_this_frame() {
  if (g_legends_frame != ImGui::GetFrameCount()) g_legends.clear(), g_legends_frame = ImGui::GetFrameCount();
  return g_legends;
}
}  // namespace

const std::vector<std::string>& diverging_legends_drawn() { return legends_this_frame(); }

void diverging_legend(const char* id, double range, float height, const char* negative, const char* positive) {
  if (!(range > 0.0) || !std::isfinite(range)) range = 1.0;
  const float fs = ImGui::GetFontSize();
  const float bar_w = 12.0f, gap = 6.0f;
  const float bar_h = std::max(fs * 3.0f, height);
  const std::string top = signed_number(range), bottom = signed_number(-range);
  const std::string top_text = positive ? top + "  " + positive : top;
  const std::string bottom_text = negative ? bottom + "  " + negative : bottom;
  const float labels = std::max({text_w(top_text), text_w(bottom_text), text_w("0")});
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::PushID(id);
  ImGui::Dummy(ImVec2(bar_w + gap + labels, bar_h + 4.0f));
  ImGui::PopID();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 b0(p0.x, p0.y + 2.0f), b1(p0.x + bar_w, p0.y + 2.0f + bar_h);
  sunset_bar(dl, b0, b1);
  dl->AddRect(ImVec2(b0.x - 1, b0.y - 1), ImVec2(b1.x + 1, b1.y + 1), style::border_color());
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float lx = b1.x + gap;
  dl->AddText(ImVec2(lx, b0.y - 2.0f), text, top_text.c_str());
  dl->AddText(ImVec2(lx, b0.y + bar_h * 0.5f - fs * 0.5f), text, "0");
  dl->AddText(ImVec2(lx, b1.y - fs + 2.0f), text, bottom_text.c_str());
  legends_this_frame().push_back(id);
}

// Labels as the font can draw them: `labels` itself when none needs a placeholder, else `out`
// holding them with placeholders (and `placeholders` set).
static const std::vector<std::string>* shown_labels(const std::vector<std::string>* labels,
                                                    std::vector<std::string>* out, bool& placeholders) {
  // Most labels are ASCII, which the font has: no copies then (a map may have 2048 labels a side).
  auto ascii = [](const std::string& t) {
    return std::all_of(t.begin(), t.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
  };
  if (!labels || std::all_of(labels->begin(), labels->end(), ascii)) return labels;
  bool any = false;
  out->reserve(labels->size());
  for (const std::string& s : *labels) out->push_back(style::shown_text(s, &any));
  placeholders = placeholders || any;
  return any ? static_cast<const std::vector<std::string>*>(out) : labels;
}

// A heatmap's labels as laid out: which are shown, and the room they take.
struct AxisLabels {
  const std::vector<std::string>* rows;  ///< row labels as drawn (null: none)
  const std::vector<std::string>* cols;  ///< column labels as drawn (null: none)
  const std::vector<double>* sums;       ///< row sums (null: none)
  float label_w, col_label_len;          ///< row labels' width, column labels' length
  bool horizontal_cols;                  ///< column labels fit across their cells
  float pad;
};

// The values written in the cells, when they fit (never in masked cells).
static void draw_cell_numbers(ImDrawList* dl, const HeatmapSpec& spec, const attn::BoolMatrix* allowed, ImVec2 g0,
                              float cell, double vmin, double vmax) {
  const attn::Matrix& m = *spec.values;
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  const float fs = ImGui::GetFontSize();
  if (spec.numbers && cell >= fs + 2.0f && text_w("0.00") <= cell - 4.0f) {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        if (allowed && !(*allowed)(i, j)) continue;
        const double v = m(i, j);
        const std::string s = cell_text(v, vmin, vmax);
        const float w = text_w(s);
        if (w > cell - 3.0f) continue;
        const ImVec2 c(g0.x + (j + 0.5f) * cell, g0.y + (i + 0.5f) * cell);
        dl->AddText(ImVec2(std::round(c.x - w * 0.5f), std::round(c.y - fs * 0.5f)),
                    cmap::text_on(spec.map, (v - vmin) / (vmax - vmin)), s.c_str());
      }
  }
}

// The row and column labels (thinned when cells are smaller than the text) and the row sums.
static void draw_labels_and_sums(ImDrawList* dl, const HeatmapSpec& spec, const AxisLabels& ax, ImVec2 origin, ImVec2 g0,
                                 ImVec2 g1, float cell, float top) {
  const std::vector<std::string>* rlab = ax.rows;
  const std::vector<std::string>* clab = ax.cols;
  const std::vector<double>* sums = ax.sums;
  const float label_w = ax.label_w, col_label_len = ax.col_label_len, pad = ax.pad;
  const bool horizontal_cols = ax.horizontal_cols;
  const int rows = static_cast<int>(spec.values->rows()), cols = static_cast<int>(spec.values->cols());
  const float fs = ImGui::GetFontSize();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const int rstep = std::max(1, static_cast<int>(std::ceil(fs / cell)));
  if (rlab) {
    for (int i = 0; i < rows; i += rstep) {
      const std::string& s = (*rlab)[static_cast<size_t>(i)];
      const float w = std::min(text_w(s), label_w);
      const float y = g0.y + (i + 0.5f) * cell - fs * 0.5f;
      const ImVec4 clip(origin.x, y - fs, origin.x + label_w, y + 2 * fs);
      const ImU32 c = i == spec.selected_row ? style::accent_u32() : text_col;
      dl->AddText(ImGui::GetFont(), fs, ImVec2(origin.x + label_w - w, y), c, s.c_str(), nullptr, 0.0f, &clip);
    }
  }
  if (clab) {
    const int cstep = horizontal_cols ? 1 : std::max(1, static_cast<int>(std::ceil(fs / cell)));
    for (int j = 0; j < cols; j += cstep) {
      const std::string& s = (*clab)[static_cast<size_t>(j)];
      const float cx = g0.x + (j + 0.5f) * cell;
      if (horizontal_cols) {
        const float w = text_w(s);
        dl->AddText(ImVec2(std::round(cx - w * 0.5f), origin.y), text_col, s.c_str());
      } else {
        add_text_vertical(dl, ImVec2(cx, g0.y - pad), text_col, s.c_str(), col_label_len);
      }
    }
  }

  // --- row sums
  if (sums) {
    const float x = g1.x + pad;
    if (top >= fs) dl->AddText(ImVec2(x, g0.y - fs - pad * 0.5f), dim_col, "row sum");
    for (int i = 0; i < rows; i += rstep) {
      char buf[32];
      const double v = (*sums)[static_cast<size_t>(i)];
      std::snprintf(buf, sizeof buf, "%.4f", std::isfinite(v) ? v : 0.0);
      dl->AddText(ImVec2(x, g0.y + (i + 0.5f) * cell - fs * 0.5f), dim_col, std::isfinite(v) ? buf : "n/a");
    }
  }
}

// The hovered (or keyboard-chosen) cell's tooltip: its row and column, its value, its row sum.
static void cell_tooltip(const HeatmapSpec& spec, const AxisLabels& ax, const attn::BoolMatrix* allowed, int hr, int hc,
                       bool show_cursor) {
  const std::vector<std::string>* rlab = ax.rows;
  const std::vector<std::string>* clab = ax.cols;
  const std::vector<double>* sums = ax.sums;
  const attn::Matrix& m = *spec.values;
  ImGui::BeginTooltip();
  const std::string rname = rlab ? "\"" + (*rlab)[static_cast<size_t>(hr)] + "\" " : "";
  const std::string cname = clab ? "\"" + (*clab)[static_cast<size_t>(hc)] + "\" " : "";
  ImGui::Text("%s %s(row %d)  \xE2\x86\x92  %s %s(column %d)", spec.row_axis, rname.c_str(), hr, spec.col_axis,
              cname.c_str(), hc);
  if (allowed && !(*allowed)(hr, hc)) ImGui::TextUnformatted("masked: not allowed, left out of the softmax");
  ImGui::Text("%s = %s", spec.value_name, tooltip_number(m(hr, hc)).c_str());
  if (sums) ImGui::TextDisabled("row %d sums to %s", hr, tooltip_number((*sums)[static_cast<size_t>(hr)]).c_str());
  if (show_cursor) ImGui::TextDisabled("arrow keys move \xC2\xB7 Esc leaves");
  tooltip_exact_hint();
  ImGui::EndTooltip();
}

// The cells as a texture (value, allowed) for `spec.version`, once per data version.
static void upload_cells(HeatmapGpu& gpu, ImGuiID tex_id, const HeatmapSpec& spec, const attn::BoolMatrix* allowed,
                         double vmin) {
  const attn::Matrix& m = *spec.values;
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  if (!gpu.has(tex_id, spec.version)) {
    static std::vector<float> scratch;
    scratch.resize(static_cast<size_t>(rows) * static_cast<size_t>(cols) * 2);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const size_t k = (static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)) * 2;
        const double v = m(i, j);
        const bool ok = !allowed || (*allowed)(i, j);
        scratch[k] = std::isfinite(v) ? static_cast<float>(v) : static_cast<float>(vmin);
        scratch[k + 1] = ok ? 1.0f : 0.0f;
      }
    gpu.upload(tex_id, spec.version, rows, cols, scratch.data());
  }
}

HeatmapEvent heatmap(const char* id, const HeatmapSpec& spec, HeatmapGpu& gpu) {
  HeatmapEvent ev;
  if (!spec.values || spec.values->rows() == 0 || spec.values->cols() == 0) {
    ImGui::TextDisabled("(nothing to show)");
    return ev;
  }
  const attn::Matrix& m = *spec.values;
  const int rows = static_cast<int>(m.rows()), cols = static_cast<int>(m.cols());
  // Parts whose size does not match are left out rather than read out of range.
  const attn::BoolMatrix* allowed =
      spec.allowed && spec.allowed->rows() == rows && spec.allowed->cols() == cols ? spec.allowed : nullptr;
  const auto* rlab = spec.row_labels && static_cast<int>(spec.row_labels->size()) == rows ? spec.row_labels : nullptr;
  const auto* clab = spec.col_labels && static_cast<int>(spec.col_labels->size()) == cols ? spec.col_labels : nullptr;
  const auto* sums = spec.row_sums && static_cast<int>(spec.row_sums->size()) == rows ? spec.row_sums : nullptr;
  // Labels as the font can draw them (the record for the text mirror and exports keeps spec's).
  bool placeholders = false;
  std::vector<std::string> shown_rows, shown_cols;
  rlab = shown_labels(rlab, &shown_rows, placeholders);
  clab = shown_labels(clab, &shown_cols, placeholders);
  double vmin = spec.vmin, vmax = spec.vmax;
  cmap::shown_range(spec.map, vmin, vmax);

  const float fs = ImGui::GetFontSize();
  const float pad = std::round(fs * 0.4f);
  const bool masked = any_masked(allowed);

  // --- layout (all in points; the framebuffer scale is the backend's business)
  float label_w = 0;
  if (rlab)
    for (const std::string& s : *rlab) label_w = std::max(label_w, text_w(s));
  label_w = std::min(label_w, fs * 8.0f);
  const float left = rlab ? label_w + pad : 0.0f;

  float col_label_len = 0;
  if (clab)
    for (const std::string& s : *clab) col_label_len = std::max(col_label_len, text_w(s));
  col_label_len = std::min(col_label_len, fs * 7.0f);

  float sums_w = 0;
  if (sums) sums_w = pad + std::max(text_w("0.0000"), text_w("row sum")) + pad;
  const LegendLayout lay = spec.legend ? legend_layout(vmin, vmax, masked) : LegendLayout{};
  const float legend_w = spec.legend ? lay.width + pad : 0.0f;

  const float avail = spec.width > 0 ? spec.width : ImGui::GetContentRegionAvail().x;
  const float room = std::floor(std::max(1.0f, avail - left - sums_w - legend_w));
  float cell = std::floor(room / static_cast<float>(cols));
  cell = std::max(1.0f, std::min(spec.max_cell, cell));
  // More columns than points (a 2048×2048 map in a few hundred points): cells of a fraction of
  // a point; each screen pixel then shows the one texel under its centre (see cell_under).
  if (static_cast<float>(cols) > room) cell = room / static_cast<float>(cols);

  const bool horizontal_cols = clab && col_label_len <= cell - 4.0f;
  const float top = !clab ? 0.0f : (horizontal_cols ? fs + pad : col_label_len + pad);
  const float grid_w = cell * static_cast<float>(cols), grid_h = cell * static_cast<float>(rows);
  const float body_h = std::max(grid_h, spec.legend ? lay.min_height : 0.0f);
  const ImVec2 size(left + grid_w + sums_w + legend_w, top + body_h);

  ImGui::PushID(id);
  const ImGuiID tex_id = ImGui::GetID("##tex");
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const bool pressed = ImGui::InvisibleButton("##heatmap", size);
  const ImGuiID item_id = ImGui::GetItemID();
  kbd::name_item(std::string("heatmap ") + id);  // for the keyboard cursor (its label is hidden)
  const bool hovered = ImGui::IsItemHovered();
  const bool clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 g0(origin.x + left, origin.y + top);
  const ImVec2 g1(g0.x + grid_w, g0.y + grid_h);
  view::record_heatmap(item_id, id, spec, g0, g1);  // for the DOM text mirror and exports

  // --- cells: upload once per data version, then one textured quad on the GPU
  upload_cells(gpu, tex_id, spec, allowed, vmin);
  dl->AddRectFilled(g0, g1, ImGui::GetColorU32(ImGuiCol_FrameBg));
  gpu.draw(dl, tex_id, g0, g1, static_cast<float>(vmin), static_cast<float>(vmax), cell >= 6.0f, spec.map);

  // --- hover: which cell / row
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hr = -1, hc = -1;
  if (hovered && mouse.y >= g0.y && mouse.y < g1.y) {
    const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
    hr = cell_under(mouse.y, g0.y, g1.y, rows, fb.y);
    if (mouse.x >= g0.x && mouse.x < g1.x) hc = cell_under(mouse.x, g0.x, g1.x, cols, fb.x);
  }
  if (hr >= 0 && hc >= 0) view::record_hovered(item_id, hr, hc);
  // --- keyboard: Space/Enter (or a click) starts a cell cursor that the arrow keys move
  const CellCursor kc = heatmap_cell_cursor(pressed, hovered, hr, hc, rows, cols, spec.selected_row);
  const bool show_cursor = kc.active && (heatmap_cursor_from_keyboard() || hr < 0 || hc < 0);
  if (kc.active) view::record_cursor(item_id, kc.row, kc.col);
  if (kc.focused && !kc.active) view::record_focused(item_id);
  ev.grid_top = top;
  ev.grid_height = grid_h;
  ev.hovered_row = hr;
  ev.hovered_col = hc;
  if (clicked && hr >= 0 && (hc >= 0 || mouse.x < g0.x)) ev.clicked_row = hr;
  if (kc.activated) ev.clicked_row = kc.row;
  if (show_cursor) {
    hr = kc.row, hc = kc.col;
    const ImRect cell_rect(ImVec2(g0.x + hc * cell, g0.y + hr * cell), ImVec2(g0.x + (hc + 1) * cell, g0.y + (hr + 1) * cell));
    if (kc.moved) ImGui::ScrollToBringRectIntoView(ImGui::GetCurrentWindow(), cell_rect);
  }
  if (kc.focused || kc.active) {  // focus ring around the cells, not the labels and legend
    dl->AddRect(ImVec2(g0.x - 4, g0.y - 4), ImVec2(g1.x + 4, g1.y + 4), ImGui::GetColorU32(ImGuiCol_NavHighlight), 3.0f, 0, 3.0f);
    kbd::own_ring(item_id);
  }
  if (kc.focused && !kc.active) {
    ImGui::SetNextWindowPos(ImVec2(g0.x, g1.y + 6));
    ImGui::BeginTooltip();
    ImGui::TextUnformatted("Space or Enter: explore the cells with the arrow keys (Esc leaves)");
    ImGui::EndTooltip();
  }

  // --- numbers in cells
  draw_cell_numbers(dl, spec, allowed, g0, cell, vmin, vmax);

  // --- labels (thinned when cells are smaller than the text)
  const AxisLabels ax{rlab, clab, sums, label_w, col_label_len, horizontal_cols, pad};
  draw_labels_and_sums(dl, spec, ax, origin, g0, g1, cell, top);

  // --- legend
  if (spec.legend) {
    const float bar_h = std::max(fs * 3.0f, body_h - (masked ? fs * 2.2f : 0.0f));
    draw_legend(dl, ImVec2(g1.x + sums_w + pad, g0.y), bar_h, vmin, vmax, masked, spec.map, gpu);
  }

  // --- outlines: selected row, hovered cell
  if (spec.selected_row >= 0 && spec.selected_row < rows) {
    const float y = g0.y + spec.selected_row * cell;
    dl->AddRect(ImVec2(g0.x - 2, y - 2), ImVec2(g1.x + 2, y + cell + 2), style::accent_u32(), 0.0f, 0, 2.0f);
  }
  if (hr >= 0 && hc >= 0) {
    const ImVec2 c0(g0.x + hc * cell, g0.y + hr * cell);
    dl->AddRect(c0, ImVec2(c0.x + cell, c0.y + cell), IM_COL32(255, 255, 255, 255), 0.0f, 0, 2.0f);
    dl->AddRect(ImVec2(c0.x - 1, c0.y - 1), ImVec2(c0.x + cell + 1, c0.y + cell + 1), IM_COL32(0, 0, 0, 200));
    if (show_cursor) {  // the keyboard cursor: a thicker accent frame, tooltip beside the cell
      dl->AddRect(ImVec2(c0.x - 3, c0.y - 3), ImVec2(c0.x + cell + 3, c0.y + cell + 3), style::accent_u32(), 0.0f, 0, 2.5f);
      ImGui::SetNextWindowPos(ImVec2(c0.x + cell + 8, c0.y));
    }

    cell_tooltip(spec, ax, allowed, hr, hc, show_cursor);
  }
  if (placeholders) style::placeholder_note();
  ImGui::PopID();
  return ev;
}

}  // namespace app
