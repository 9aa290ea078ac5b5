// web/widgets/heatmap_cursor.hpp — a keyboard cell cursor for the heatmap widget.
//
// Keyboard navigation (arrow keys between widgets, ImGui's NavEnableKeyboard) lands on a
// heatmap as one item. Space or Enter on it — or a click — starts "cell mode": the heatmap
// holds ImGui's active id, so the arrow keys move a cursor over the cells instead of moving
// between widgets (Home/End: first/last column, Page Up/Down: first/last row). Enter or
// Space reports the cursor's row as clicked (the alignment panel selects that row); Escape,
// a click elsewhere or another widget taking the input leaves cell mode. The widget shows the
// cursor's value in a tooltip, and page_view records it for the DOM text mirror.
#pragma once

#include "imgui.h"

namespace app {

struct CellCursor {
  bool active = false;     ///< this heatmap is in cell mode
  bool focused = false;    ///< keyboard navigation is on the heatmap (not yet in cell mode)
  bool activated = false;  ///< Enter/Space pressed on a cell this frame
  bool moved = false;      ///< the cursor moved this frame (scroll it into view)
  int row = -1, col = -1;
};

/// Call right after the heatmap's InvisibleButton (its result is `pressed`). `mouse_row` /
/// `mouse_col`: the cell under the mouse (-1 if none); `start_row`: where a keyboard-started
/// cursor begins (e.g. the selected row).
CellCursor heatmap_cell_cursor(bool pressed, bool hovered, int mouse_row, int mouse_col, int rows, int cols,
                               int start_row);
/// Some heatmap holds the input in cell mode (App::needs_frame then does not count it as an
/// active widget that needs a frame every tick: key presses bring their own frames).
bool heatmap_cell_mode_active();
/// The cursor last moved by key (its tooltip then wins over the mouse's).
bool heatmap_cursor_from_keyboard();

}  // namespace app
