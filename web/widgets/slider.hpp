// web/widgets/slider.hpp — a slider whose grab never covers its value.
//
// Dear ImGui's SliderFloat/SliderInt print the value inside the frame, where the grab passes over
// it. These draw the same frame and grab with ImGui's own behaviour (drag, click, arrow keys,
// Ctrl+click or Tab to type a value, rounding to `format`) and the same label and ID, but print
// the value beside the frame: to its right, in room taken from the frame's width so the whole
// item is as wide as ImGui's slider; or, when that would leave the frame narrower than three
// font sizes, on a line of its own above the frame. Widths are window units (CSS px in the page).
#pragma once

#include <vector>

#include "imgui.h"
#include "imgui_internal.h"  // ImRect

namespace app::widgets {

/// Where a slider drew its parts this frame (screen coordinates), for tests.
struct SliderRects {
  ImGuiID id = 0;
  ImRect frame;  ///< the track
  ImRect grab;   ///< the grab inside it (empty while a value is typed)
  ImRect value;  ///< the printed value
  bool value_above = false;
};

/// ImGui::SliderScalar with the value printed beside the frame (see the file's comment). Same
/// arguments and return value (true when the value changed this frame). `format` NULL: the type's
/// default. A format with no conversion ("step 200") is printed as it is.
bool slider_scalar(const char* label, ImGuiDataType type, void* value, const void* min, const void* max,
                   const char* format, ImGuiSliderFlags flags = 0);
/// slider_scalar for a float in [min, max].
bool slider_float(const char* label, float* v, float min, float max, const char* format = "%.3f",
                  ImGuiSliderFlags flags = 0);
/// slider_scalar for an int in [min, max].
bool slider_int(const char* label, int* v, int min, int max, const char* format = "%d", ImGuiSliderFlags flags = 0);
/// slider_scalar for a double in [min, max].
bool slider_double(const char* label, double* v, double min, double max, const char* format = "%.3f",
                   ImGuiSliderFlags flags = 0);

/// The sliders drawn in the current ImGui frame, in drawing order (a test hook; cleared as a new
/// frame draws its first slider).
const std::vector<SliderRects>& sliders_drawn();

}  // namespace app::widgets
