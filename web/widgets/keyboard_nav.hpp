// web/widgets/keyboard_nav.hpp — the keyboard's way through the lab's controls, in reading order.
//
// ImGui 1.86 moves its navigation cursor with the arrow keys inside one window at a time (a child
// window is one stop of its parent's cursor, entered with Space), hides the cursor once the mouse
// was used, gives Enter to text fields only, and its Tab visits text fields only. Here every
// control a frame draws is recorded in drawing order (ImGui's item hook, in every window of the
// page), which is reading order: the navigation, the panel's tools, then the panel from top to
// bottom, a left column before the right one. With that list:
//   - Tab / Shift+Tab move the cursor to the next / previous control (tab()); past the last or
//     before the first the page lets Tab leave the canvas (no keyboard trap);
//   - the arrow keys go through the same order, Down and Right to the next control, Up and Left to
//     the previous one, across windows (ImGui's own move goes to the nearest item that way inside
//     one window); a cursor left on a child window's frame (Esc) goes back to the control inside;
//   - Enter activates a focused button, checkbox, radio button or list entry as Space does;
//   - the cursor is drawn as a ring 3 units thick in the theme's NavHighlight colour;
//   - keyboard focus from outside the canvas shows the cursor on the first (or last) control.
// Nothing here knows a panel.
#pragma once

#include <string>
#include <vector>

#include "imgui.h"
#include "imgui_internal.h"  // ImRect, ImGuiContext

namespace app::kbd {

/// ImGui's item hook forwards every item here (web/platform/browser_glue.cpp; the headless test's
/// tests/app/support.cpp): `id` was just added with `nav_rect` (screen coordinates) in g.CurrentWindow.
void item_added(ImGuiContext& g, const ImRect& nav_rect, ImGuiID id);
/// ImGui's item-info hook forwards labels here; only the cursor's item keeps its label.
void item_label(ImGuiContext& g, ImGuiID id, const char* label);

/// After ImGui::NewFrame, before the frame draws (App::frame): turns the item hook on, applies a
/// move asked for since the last frame (tab(), an arrow key, a cursor on a child window's frame)
/// and lets Enter activate what Space would.
void begin_frame();
/// After the frame's last item (App::frame): keeps the frame's controls and draws the focus ring.
void end_frame();

/// Moves the cursor to the next (dir > 0) or previous (dir < 0) control in reading order and
/// shows it, from the control under the cursor (or from the start, when there is none). False
/// when there is no such control: nothing moves, and the page's Tab then leaves the canvas.
bool tab(int dir);
/// The canvas got the keyboard focus from outside by Tab (dir > 0) or Shift+Tab (dir < 0): the
/// cursor shows on the first or the last control.
void focus_entered(int dir);
/// The canvas lost the keyboard focus: the cursor is hidden until the next key.
void focus_left();

/// Names the item just drawn for the keyboard cursor and the text mirror when its label is hidden
/// (the navigation draws its entries' titles over an unlabelled selectable).
void name_item(const std::string& label);
/// A heatmap draws its own ring around its cells (the item is wider: labels, legend): no second.
void own_ring(ImGuiID id);

/// The keyboard cursor as the last frame left it.
struct Cursor {
  bool shown = false;  ///< the ring is on screen (keyboard in use, not hidden after the mouse)
  ImGuiID id = 0;
  int index = -1;      ///< its place in order() (-1: not one of the page's controls, e.g. a combo's list)
  std::string label;   ///< the control's label as shown ("" for none or an unlabelled one)
};
Cursor cursor();
/// The controls of the last frame in reading order, as their labels (tests).
std::vector<std::string> order();

}  // namespace app::kbd
