// web/panels/ui.hpp — what every panel's draw function gets besides the state.
//
// A panel draws the structs its own module keeps (results of core/ functions) and turns widget
// edits into calls of its setters, which recompute through the core. Draw calls never compute.
//
// Every panel lays out for canvases from 320 CSS px up (page/fit_report.hpp measures it each
// frame): text wraps (TextWrapped, PushTextWrapPos), a row of controls continues on a new line
// when the next control would not fit (same_line_if_fits), fields take at most the width left
// (fit_width), and what cannot shrink (wide tables, big heatmaps) sits in a box that scrolls
// sideways with a hint (begin_sideways / end_sideways).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "imgui.h"
#include "imgui_internal.h"  // the current wrap position (DC.TextWrapPos)

#include "json/json_case.hpp"  // attn::Json
#include "panels/generation.hpp"
#include "widgets/heatmap.hpp"
#include "widgets/slider.hpp"
#include "widgets/ui_style.hpp"

namespace app {

// The core's types as every panel names them.
using attn::Json;
using attn::Matrix;
using attn::Vector;

/// Where heatmaps go, and the fonts.
struct Ui {
  HeatmapGpu& gpu;
  const Fonts& fonts;
};

}  // namespace app

namespace app::widgets {

/// Right edge a row of controls may reach: the pushed wrap position (a column of a
/// side-by-side layout, txt::begin_column) or else the window's content edge.
inline float row_right() {
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  const float edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (w->DC.TextWrapPos > 0.0f) return std::min(edge, w->Pos.x - w->Scroll.x + w->DC.TextWrapPos);
  return edge;
}

/// SameLine only when an item `next_width` wide still fits before the row's right edge
/// (row_right); otherwise the next item starts a new line (narrow iframes, phones) instead of
/// being clipped. Returns true when it stayed on the line.
/// `to_visible_edge`: measure against the edge of the window's visible area even inside a column
/// (a row that, on wide canvases, has always reached a little past its column into the padding).
inline bool same_line_if_fits(float next_width, float spacing = -1.0f, bool to_visible_edge = false) {
  const float gap = spacing < 0.0f ? ImGui::GetStyle().ItemSpacing.x : spacing;
  const float right = to_visible_edge ? ImGui::GetCurrentWindow()->InnerClipRect.Max.x : row_right();
  if (ImGui::GetItemRectMax().x + gap + next_width <= right) {
    ImGui::SameLine(0.0f, gap);
    return true;
  }
  return false;
}

/// Width left on the current line up to row_right().
inline float width_left() { return std::max(1.0f, row_right() - ImGui::GetCursorScreenPos().x); }
/// `width`, or less when less is left on the line (sliders, fields: SetNextItemWidth(fit_width(w))).
inline float fit_width(float width) { return std::max(1.0f, std::min(width, width_left())); }

/// An integer field `width` wide (no +/- buttons); true when an edit was committed (Enter or focus lost).
inline bool int_field(const char* label, int* v, float width) {
  ImGui::SetNextItemWidth(width);
  ImGui::InputInt(label, v, 0, 0);
  return ImGui::IsItemDeactivatedAfterEdit();
}

/// Width of a button, checkbox or radio button with this label.
inline float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x;
}
inline float check_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}
/// Width of a field `item_width` wide followed by its label.
inline float labeled_width(float item_width, const char* label) {
  return item_width + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}
/// Width for a field with a label on its right: `width`, or what is left of the line beside the label.
inline float fit_labeled(float width, const char* label) {
  return std::max(ImGui::GetFontSize() * 3.0f, std::min(width, width_left() - labeled_width(0.0f, label)));
}
/// Width of a text (unwrapped).
inline float text_width(const char* text) { return ImGui::CalcTextSize(text, nullptr, true).x; }

/// Content `content_width` wide that may not fit: when it does, it is drawn in place (nothing
/// changes); when not, it goes into a box of the available width that scrolls sideways, under a
/// "scroll sideways →" hint. `height`: the content's height (the box adds its scrollbar).
/// Returns whether the box was opened; pass that to end_sideways.
inline bool begin_sideways(const char* id, float content_width, float height) {
  const float avail = width_left();
  if (content_width <= avail) return false;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextUnformatted("scroll sideways \xE2\x86\x92");
  ImGui::PopStyleColor();
  ImGui::BeginChild(id, ImVec2(avail, height + ImGui::GetStyle().ScrollbarSize + ImGui::GetStyle().ItemSpacing.y),
                    false, ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  return true;
}
inline void end_sideways(bool opened) {
  if (opened) ImGui::EndChild();
}

/// Dimmed text that wraps (TextDisabled does not).
inline void dim_wrapped(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width_left());
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

/// dim_wrapped, printf-style.
inline void dimf(const char* fmt, ...) IM_FMTARGS(1);
inline void dimf(const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  dim_wrapped(buf);
}

/// "LABEL" (dim) then one radio button per value, the row wrapping as it fills; `id_base` keeps two
/// groups with the same values apart. True when the learner picked a value (written to *v).
inline bool int_choice(const char* label, int* v, std::initializer_list<int> values, int id_base = 0) {
  ImGui::AlignTextToFramePadding();
  dim_wrapped(label);
  bool picked = false;
  for (int x : values) {
    const std::string text = std::to_string(x);
    same_line_if_fits(check_width(text.c_str()));
    ImGui::PushID(id_base + x);
    if (ImGui::RadioButton(text.c_str(), *v == x)) *v = x, picked = true;
    ImGui::PopID();
  }
  return picked;
}

/// dim_wrapped on the same line when the text fits there whole, else on the next line.
inline void dim_after(const char* text, float spacing = -1.0f) {
  same_line_if_fits(text_width(text), spacing);
  dim_wrapped(text);
}
/// Wrapped text (the current colour and font) on the same line when it fits there whole.
inline void text_after(const char* text, float spacing = -1.0f) {
  same_line_if_fits(text_width(text), spacing);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width_left());
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
}
/// Wrapped text at the cursor (the current colour and font), printf-style.
inline void text_wrapped_here(const char* text) {
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width_left());
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
}

/// `label` broken into lines at spaces so that none is wider than `wrap` (a label that fits is unchanged).
inline std::string break_lines(const char* label, float wrap) {
  std::string lines;
  const ImFont* font = ImGui::GetFont();
  const char* end = label + std::strlen(label);
  for (const char* p = label; p < end;) {
    const char* cut = font->CalcWordWrapPositionA(ImGui::GetIO().FontGlobalScale, p, end, wrap);
    if (cut == p) ++cut;  // one glyph at least
    if (!lines.empty()) lines += '\n';
    lines.append(p, cut);
    while (!lines.empty() && lines.back() == ' ') lines.pop_back();
    p = cut;
    while (p < end && *p == ' ') ++p;
  }
  return lines;
}

/// A radio button whose label breaks into lines when it is wider than what is left of the line
/// (its ID stays the label's).
inline bool wrapped_radio(const char* label, bool active) {
  if (check_width(label) <= width_left()) return ImGui::RadioButton(label, active);
  const float wrap = width_left() - ImGui::GetFrameHeight() - ImGui::GetStyle().ItemInnerSpacing.x;
  return ImGui::RadioButton((break_lines(label, wrap) + "###" + label).c_str(), active);
}

/// A button whose label breaks into lines at spaces when it is wider than what is left of the
/// line (its ID stays the label's, so tests and the keyboard find it as before).
inline bool wrapped_button(const char* label) {
  const float pad = 2.0f * ImGui::GetStyle().FramePadding.x;
  const float wrap = width_left() - pad;
  if (button_width(label) <= wrap + pad) return ImGui::Button(label);
  const std::string lines = break_lines(label, wrap);
  return ImGui::Button((lines + "###" + label).c_str());
}

/// BeginTable that fits the width: as given while every column holds its content (cells and
/// header labels, measured in the last frame). When a column would cut its content, the table
/// keeps `width` as a box that scrolls sideways, under a "scroll sideways →" hint, and lays its
/// columns out over a wider inner width (grown by what the most crowded column lacked), until the
/// frame's width changes: then it tries its width again (a frame that grew from a phone's to a
/// desktop's shows the table whole). `rows` (header included) sizes the box's height. Cells do not
/// wrap their text. End with end_table_fit.
inline bool begin_table_fit(const char* id, int columns, ImGuiTableFlags flags, float width, int rows) {
  width = std::min(width > 0.0f ? width : width_left(), width_left());
  const ImGuiID table_id = ImGui::GetID(id);
  ImGuiStorage* store = ImGui::GetStateStorage();
  const ImGuiID inner_key = ImHashStr("inner width", 0, table_id);
  const ImGuiID width_key = ImHashStr("decided at width", 0, table_id);
  float inner = store->GetFloat(inner_key, 0.0f);
  // Items that fill their columns make a scrolling table's content as wide as its inner width, so
  // once scrolling it would never measure as fitting again: a new width starts over unscrolled,
  // and the next frame measures that layout (not the last frame's, made for another width).
  const bool new_width = std::fabs(store->GetFloat(width_key, 0.0f) - width) > 0.5f;
  if (new_width) inner = 0.0f;
  store->SetFloat(width_key, width);
  const ImGuiTable* last = ImGui::TableFindByID(table_id);
  if (!new_width && last && inner == 0.0f && last->LastFrameActive >= ImGui::GetFrameCount() - 1) {
    float grow = 1.0f;  // how much wider the most crowded column needs to be
    for (int k = 0; k < last->ColumnsCount; ++k) {
      const ImGuiTableColumn& c = last->Columns[k];
      if (!c.IsEnabled || c.ClipRect.Max.x <= c.MinX) continue;
      const float need = std::max({c.ContentMaxXUnfrozen, c.ContentMaxXFrozen, c.ContentMaxXHeadersIdeal}) - c.MinX;
      grow = std::max(grow, need / (c.ClipRect.Max.x - c.MinX));
    }
    if (last->ColumnsAutoFitWidth > width + 0.5f) grow = std::max(grow, last->ColumnsAutoFitWidth / width);
    if (grow > 1.001f) inner = std::ceil(width * grow + ImGui::GetFontSize());
  }
  if (inner > 0.0f && inner <= width) inner = 0.0f;  // the frame is wide enough again
  store->SetFloat(inner_key, inner);
  ImGui::PushTextWrapPos(-1.0f);
  bool open;
  if (inner == 0.0f) {
    open = ImGui::BeginTable(id, columns, flags, ImVec2(width, 0));
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextUnformatted("scroll sideways \xE2\x86\x92");
    ImGui::PopStyleColor();
    const ImGuiStyle& st = ImGui::GetStyle();
    const float h = rows * (ImGui::GetFrameHeight() + 2.0f * st.CellPadding.y) + st.ScrollbarSize + 4.0f;
    open = ImGui::BeginTable(id, columns, flags | ImGuiTableFlags_ScrollX, ImVec2(width, h), inner);
  }
  if (!open) ImGui::PopTextWrapPos();
  return open;
}
/// Ends a table begun by begin_table_fit (only when that returned true, as EndTable).
inline void end_table_fit() {
  ImGui::EndTable();
  ImGui::PopTextWrapPos();
}

/// The table's columns, each stretched by its weight, and their header row.
inline void stretch_columns(std::initializer_list<std::pair<const char*, float>> columns) {
  for (const auto& [label, weight] : columns) ImGui::TableSetupColumn(label, ImGuiTableColumnFlags_WidthStretch, weight);
  ImGui::TableHeadersRow();
}

/// Row `row` of `m` as number fields, one per table column (ImGui ID id_base + column), each
/// stepping by `step` (0: no step buttons); set(column, value) for the field the user edited.
template <class Set>
void matrix_row_fields(const Matrix& m, int row, int id_base, double step, Set set) {
  for (int c = 0; c < static_cast<int>(m.cols()); ++c) {
    ImGui::TableNextColumn();
    ImGui::PushID(id_base + c);
    double v = m(row, c);
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::InputDouble("##v", &v, step, step * 10.0, "%.4g")) set(c, v);
    ImGui::PopID();
  }
}

/// One table row of text cells, left to right (inside BeginTable / begin_table_fit).
inline void text_row(std::initializer_list<std::string> cells) {
  ImGui::TableNextRow();
  for (const std::string& c : cells) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(c.c_str());
  }
}

}  // namespace app::widgets
