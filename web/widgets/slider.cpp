#include "widgets/slider.hpp"

#include <algorithm>
#include <cmath>

#include "widgets/ui_style.hpp"  // touch_sizes

// ImGui reports an item's label to the test-engine hooks (the page's widget finder, the headless
// test) from its own sources, compiled with IMGUI_ENABLE_TEST_ENGINE; this file is not, so it calls
// the hook as ImGui's IMGUI_TEST_ENGINE_ITEM_INFO would (every program linking ImGui defines it).
extern void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags flags);

namespace app::widgets {

namespace {

std::vector<SliderRects> g_drawn;
int g_drawn_frame = -1;

// This frame's list: the first slider of a new frame starts it over.
std::vector<SliderRects>& this_frame() {
  if (g_drawn_frame != ImGui::GetFrameCount()) g_drawn.clear(), g_drawn_frame = ImGui::GetFrameCount();
  return g_drawn;
}

void record(const SliderRects& r) { this_frame().push_back(r); }

float value_width(ImGuiDataType type, const void* v, const void* min, const void* max, const char* format) {
  // The widest of the ends and the current value, so the frame does not change width while dragging.
  float w = 0.0f;
  char buf[64];
  for (const void* p : {v, min, max}) {
    ImGui::DataTypeFormatString(buf, IM_ARRAYSIZE(buf), type, p, format);
    w = std::max(w, ImGui::CalcTextSize(buf).x);
  }
  return std::ceil(w);
}

}  // namespace

bool slider_scalar(const char* label, ImGuiDataType type, void* value, const void* min, const void* max,
                   const char* format, ImGuiSliderFlags flags) {
  // ImGui::SliderScalar (imgui_widgets.cpp, 1.86) step by step, except where the value is printed.
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  if (window->SkipItems) return false;
  ImGuiContext& g = *GImGui;
  const ImGuiStyle& style = g.Style;
  if (format == nullptr) format = ImGui::DataTypeGetInfo(type)->PrintFmt;
  const ImGuiID id = window->GetID(label);
  const ImVec2 label_size = ImGui::CalcTextSize(label, nullptr, true);
  float w = ImGui::CalcItemWidth();
  // Touch devices: a slider that starts a line spans it (its label beside), so a fingertip has the
  // whole width to drag along and the value stays readable.
  const bool line_start = window->DC.CursorPos.x <= window->Pos.x + window->DC.Indent.x + window->DC.ColumnsOffset.x + 0.5f;
  if (::app::style::touch_sizes() && line_start) {
    const float avail = ImGui::GetContentRegionAvail().x;
    w = std::max(w, std::floor(avail - (label_size.x > 0.0f ? label_size.x + style.ItemInnerSpacing.x : 0.0f)));
  }
  const float frame_h = label_size.y + style.FramePadding.y * 2.0f;
  const float fs = ImGui::GetFontSize();

  const float vw = value_width(type, value, min, max, format);
  const float gap = style.ItemInnerSpacing.x;
  const bool above = w - vw - gap < 3.0f * fs;
  const ImVec2 pos = window->DC.CursorPos;
  const float frame_top = above ? pos.y + fs + style.ItemInnerSpacing.y : pos.y;
  const float frame_w = above ? w : w - vw - gap;
  const ImRect frame_bb(ImVec2(pos.x, frame_top), ImVec2(pos.x + frame_w, frame_top + frame_h));
  const ImRect value_bb = above ? ImRect(pos, ImVec2(pos.x + vw, pos.y + fs))
                                : ImRect(ImVec2(frame_bb.Max.x + gap, frame_top + style.FramePadding.y),
                                         ImVec2(frame_bb.Max.x + gap + vw, frame_top + style.FramePadding.y + fs));
  const float label_x = (above ? frame_bb.Max.x : value_bb.Max.x) + gap;
  const ImRect total_bb(pos, ImVec2(label_size.x > 0.0f ? label_x + label_size.x : pos.x + w, frame_bb.Max.y));

  const bool temp_input_allowed = (flags & ImGuiSliderFlags_NoInput) == 0;
  ImGui::ItemSize(total_bb, above ? -1.0f : style.FramePadding.y);
  if (!ImGui::ItemAdd(total_bb, id, &frame_bb, temp_input_allowed ? ImGuiItemFlags_Inputable : 0)) return false;

  SliderRects rects;
  rects.id = id;
  rects.frame = frame_bb;
  rects.value = value_bb;
  rects.value_above = above;

  // Tab or Ctrl+click turns the slider into a text field.
  const bool hovered = ImGui::ItemHoverable(frame_bb, id);
  bool temp_input_is_active = temp_input_allowed && ImGui::TempInputIsActive(id);
  if (!temp_input_is_active) {
    const bool by_tabbing = temp_input_allowed && (g.LastItemData.StatusFlags & ImGuiItemStatusFlags_FocusedByTabbing) != 0;
    const bool clicked = hovered && g.IO.MouseClicked[0];
    if (by_tabbing || clicked || g.NavActivateId == id || g.NavActivateInputId == id) {
      ImGui::SetActiveID(id, window);
      ImGui::SetFocusID(id, window);
      ImGui::FocusWindow(window);
      g.ActiveIdUsingNavDirMask |= (1 << ImGuiDir_Left) | (1 << ImGuiDir_Right);
      if (temp_input_allowed && (by_tabbing || (clicked && g.IO.KeyCtrl) || g.NavActivateInputId == id))
        temp_input_is_active = true;
    }
  }
  if (temp_input_is_active) {
    const bool clamp = (flags & ImGuiSliderFlags_AlwaysClamp) != 0;
    record(rects);
    return ImGui::TempInputScalar(frame_bb, id, label, type, value, format, clamp ? min : nullptr, clamp ? max : nullptr);
  }

  const ImU32 frame_col = ImGui::GetColorU32(g.ActiveId == id ? ImGuiCol_FrameBgActive
                                             : hovered        ? ImGuiCol_FrameBgHovered
                                                              : ImGuiCol_FrameBg);
  ImGui::RenderNavHighlight(frame_bb, id);
  ImGui::RenderFrame(frame_bb.Min, frame_bb.Max, frame_col, true, style.FrameRounding);

  ImRect grab_bb;
  const bool changed = ImGui::SliderBehavior(frame_bb, id, type, value, min, max, format, flags, &grab_bb);
  if (changed) ImGui::MarkItemEdited(id);
  if (grab_bb.Max.x > grab_bb.Min.x)
    window->DrawList->AddRectFilled(grab_bb.Min, grab_bb.Max,
                                    ImGui::GetColorU32(g.ActiveId == id ? ImGuiCol_SliderGrabActive : ImGuiCol_SliderGrab),
                                    style.GrabRounding);
  rects.grab = grab_bb;

  // The value after this frame's edit, beside the frame: nothing is printed inside it.
  char buf[64];
  const char* buf_end = buf + ImGui::DataTypeFormatString(buf, IM_ARRAYSIZE(buf), type, value, format);
  ImGui::RenderText(value_bb.Min, buf, buf_end, false);
  if (label_size.x > 0.0f) ImGui::RenderText(ImVec2(label_x, frame_bb.Min.y + style.FramePadding.y), label);

  if (g.TestEngineHookItems) ImGuiTestEngineHook_ItemInfo(&g, id, label, g.LastItemData.StatusFlags);
  record(rects);
  return changed;
}

bool slider_float(const char* label, float* v, float min, float max, const char* format, ImGuiSliderFlags flags) {
  return slider_scalar(label, ImGuiDataType_Float, v, &min, &max, format, flags);
}
bool slider_int(const char* label, int* v, int min, int max, const char* format, ImGuiSliderFlags flags) {
  return slider_scalar(label, ImGuiDataType_S32, v, &min, &max, format, flags);
}
bool slider_double(const char* label, double* v, double min, double max, const char* format, ImGuiSliderFlags flags) {
  return slider_scalar(label, ImGuiDataType_Double, v, &min, &max, format, flags);
}

const std::vector<SliderRects>& sliders_drawn() { return this_frame(); }

}  // namespace app::widgets
