#include "widgets/heatmap_cursor.hpp"

#include <algorithm>
#include <unordered_map>

#include "imgui_internal.h"  // active id, nav masks

namespace app {

namespace {

ImGuiID g_mode_item = 0;  // the heatmap (its button's id) in cell mode, 0: none
bool g_keyboard_last = false;  // the cursor moved by key after the mouse last moved

struct Pos {
  int row = -1, col = -1;
};
std::unordered_map<ImGuiID, Pos> g_pos;  // cursor per heatmap, kept while the page runs

bool key(ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), true); }

}  // namespace

bool heatmap_cell_mode_active() { return g_mode_item != 0 && GImGui && GImGui->ActiveId != 0; }

CellCursor heatmap_cell_cursor(bool pressed, bool hovered, int mouse_row, int mouse_col, int rows, int cols,
                               int start_row) {
  ImGuiContext& g = *GImGui;
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  const ImGuiID item = ImGui::GetItemID();
  const ImGuiID cells = ImGui::GetID("##cells");
  CellCursor c;
  if (rows <= 0 || cols <= 0) return c;
  Pos& p = g_pos[item];
  if (g.IO.MouseDelta.x != 0.0f || g.IO.MouseDelta.y != 0.0f) g_keyboard_last = false;

  // Enter cell mode: a click (button released on it), Space (nav activation) or Enter on it.
  bool keyboard = pressed && (g.NavActivateId == item || g.NavActivateInputId == item);
  bool start = pressed;
  if (!start && g_mode_item != item && ImGui::IsItemFocused() && !g.NavDisableHighlight &&
      (key(ImGuiKey_Enter) || key(ImGuiKey_KeyPadEnter)))
    start = keyboard = true;

  if (start) {
    g_mode_item = item;
    if (!keyboard && mouse_row >= 0 && mouse_col >= 0) p = Pos{mouse_row, mouse_col};
    if (p.row < 0 || p.row >= rows || p.col < 0 || p.col >= cols)
      p = Pos{std::max(0, std::min(rows - 1, start_row)), 0};
    g_keyboard_last = keyboard;
    c.moved = true;
  } else if (g_mode_item == item) {
    // Left by Escape (ImGui clears the active id), another widget taking the input, or a
    // click outside the cells.
    const bool lost = g.ActiveId != cells;
    const bool clicked_away = ImGui::IsMouseClicked(ImGuiMouseButton_Left) && !hovered;
    if (lost || clicked_away) {
      if (!lost) ImGui::ClearActiveID();
      g_mode_item = 0;
    }
  }

  if (g_mode_item != item) {
    c.focused = ImGui::IsItemFocused() && !g.NavDisableHighlight;
    return c;
  }

  // Hold the input: the arrow keys move the cursor, not the navigation.
  if (g.ActiveId != cells) ImGui::SetActiveID(cells, window);
  ImGui::KeepAliveID(cells);
  g.ActiveIdSource = ImGuiInputSource_Nav;
  g.ActiveIdAllowOverlap = true;  // other widgets stay hoverable and clickable
  g.ActiveIdUsingNavDirMask |= (1 << ImGuiDir_Left) | (1 << ImGuiDir_Right) | (1 << ImGuiDir_Up) | (1 << ImGuiDir_Down);
  g.ActiveIdUsingNavInputMask |= (1 << ImGuiNavInput_Activate) | (1 << ImGuiNavInput_Input);
  if (!start) {
    Pos n = p;
    if (key(ImGuiKey_LeftArrow)) --n.col;
    if (key(ImGuiKey_RightArrow)) ++n.col;
    if (key(ImGuiKey_UpArrow)) --n.row;
    if (key(ImGuiKey_DownArrow)) ++n.row;
    if (key(ImGuiKey_Home)) n.col = 0;
    if (key(ImGuiKey_End)) n.col = cols - 1;
    if (key(ImGuiKey_PageUp)) n.row = 0;
    if (key(ImGuiKey_PageDown)) n.row = rows - 1;
    n.row = std::max(0, std::min(rows - 1, n.row));
    n.col = std::max(0, std::min(cols - 1, n.col));
    if (n.row != p.row || n.col != p.col) {
      p = n;
      c.moved = true;
      g_keyboard_last = true;
    }
    if (key(ImGuiKey_Enter) || key(ImGuiKey_KeyPadEnter) || key(ImGuiKey_Space)) {
      c.activated = true;
      g_keyboard_last = true;
    }
  }
  p.row = std::max(0, std::min(rows - 1, p.row));
  p.col = std::max(0, std::min(cols - 1, p.col));
  c.active = true;
  c.row = p.row;
  c.col = p.col;
  c.moved = c.moved && g_keyboard_last;
  // Keyboard last: the cursor's tooltip wins over the mouse's.
  if (!g_keyboard_last && hovered && mouse_row >= 0 && mouse_col >= 0) c.focused = false;
  return c;
}

bool heatmap_cursor_from_keyboard() { return g_keyboard_last; }

}  // namespace app
