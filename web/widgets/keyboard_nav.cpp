#include "widgets/keyboard_nav.hpp"

#include <optional>
#include <utility>

namespace app::kbd {

namespace {

// A control as a frame drew it.
struct Control {
  ImGuiID id = 0;
  ImGuiWindow* window = nullptr;
  ImRect rect;             // screen coordinates in the frame that drew it
  ImRect rel;              // relative to its window's content start (as ImGui keeps NavRectRel)
  ImGuiID focus_scope = 0;
  bool inputable = false;  // a text field or a slider: Enter is theirs (typing a value)
  std::string label;
};

// A child window's frame: one stop of its parent's arrow-key cursor.
struct ChildFrame {
  ImGuiID id = 0;
  ImGuiWindow* child = nullptr;
};

std::vector<Control> g_drawing, g_drawn;  // this frame's controls, the last complete frame's
std::vector<ChildFrame> g_frames_drawing, g_frames_drawn;
std::string g_cursor_label_drawing, g_cursor_label_drawn;
std::optional<Control> g_pending;  // where the cursor goes as the next frame starts
ImGuiID g_own_ring = 0;

// Ring around the focused control: thicker than ImGui's 2 units, outside the control's frame.
constexpr float kRingThickness = 3.0f;
constexpr float kRingGap = 2.0f;

const Control* find(const std::vector<Control>& list, ImGuiID id) {
  for (const Control& c : list)
    if (c.id == id) return &c;
  return nullptr;
}

int index_of(const std::vector<Control>& list, ImGuiID id) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].id == id) return static_cast<int>(i);
  return -1;
}

bool inside(const ImGuiWindow* w, const ImGuiWindow* ancestor) {
  for (; w; w = w->ParentWindow)
    if (w == ancestor) return true;
  return false;
}

// The control a cursor on `child`'s frame goes on to: the one it last had, else its first.
const Control* control_in(const ImGuiWindow* child) {
  if (const Control* c = find(g_drawn, child->NavLastIds[ImGuiNavLayer_Main]))
    if (inside(c->window, child)) return c;
  for (const Control& c : g_drawn)
    if (inside(c.window, child)) return &c;
  return nullptr;
}

// Puts the cursor on `c`, shown, and scrolls it into view (its window and the ones around it).
void move_to(const Control& c) {
  ImGuiContext& g = *GImGui;
  if (!c.window || c.window->LastFrameActive < g.FrameCount - 1) return;  // not drawn any more
  if (g.ActiveId != 0 && g.ActiveId != c.id) ImGui::ClearActiveID();   // a slider held, a cell cursor
  ImGui::FocusWindow(c.window);  // also closes an open combo's list
  ImGui::NavMoveRequestCancel();
  ImGui::SetNavID(c.id, ImGuiNavLayer_Main, c.focus_scope, c.rel);
  g.NavDisableHighlight = false;
  g.NavDisableMouseHover = g.NavMousePosDirty = true;
  ImGui::ScrollToRectEx(c.window, ImGui::WindowRectRelToAbs(c.window, c.rel), ImGuiScrollFlags_KeepVisibleEdgeY);
}

bool in_popup(const ImGuiWindow* w) {
  return w && (w->RootWindow->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip)) != 0;
}

}  // namespace

void item_added(ImGuiContext& g, const ImRect& nav_rect, ImGuiID id) {
  // ButtonBehavior reports ids it was not given by ItemAdd (a heatmap's cells, a resize grip).
  if (id == 0 || g.LastItemData.ID != id) return;
  ImGuiWindow* w = g.CurrentWindow;
  if (!w || in_popup(w) || (w->Flags & ImGuiWindowFlags_NoNavInputs)) return;
  for (ImGuiWindow* child : w->DC.ChildWindows)
    if (child->ChildId == id) {
      g_frames_drawing.push_back({id, child});
      return;
    }
  if (g.LastItemData.InFlags & (ImGuiItemFlags_NoNav | ImGuiItemFlags_Disabled)) return;
  if (!g_drawing.empty() && g_drawing.back().id == id) return;
  Control c;
  c.id = id;
  c.window = w;
  c.rect = nav_rect;
  c.rel = ImGui::WindowRectAbsToRel(w, nav_rect);
  c.focus_scope = w->DC.NavFocusScopeIdCurrent;
  c.inputable = (g.LastItemData.InFlags & ImGuiItemFlags_Inputable) != 0;
  g_drawing.push_back(std::move(c));
}

void item_label(ImGuiContext& g, ImGuiID id, const char* label) {
  if (!label) return;
  const char* end = ImGui::FindRenderedTextEnd(label);  // "next step >##trained" → "next step >"
  if (!g_drawing.empty() && g_drawing.back().id == id) g_drawing.back().label.assign(label, end);
  if (id == g.NavId) g_cursor_label_drawing.assign(label, end);
}

void begin_frame() {
  ImGuiContext& g = *GImGui;
  g.TestEngineHookItems = true;  // item_added sees every item
  g_drawing.clear();
  g_frames_drawing.clear();
  g_cursor_label_drawing.clear();
  g_own_ring = 0;

  // A cursor on a child window's frame (Esc inside a child puts it there) goes back to a control
  // inside: the frame itself does nothing.
  if (!g_pending && g.NavId != 0 && !g.NavDisableHighlight)
    for (const ChildFrame& f : g_frames_drawn)
      if (f.id == g.NavId) {
        if (const Control* c = control_in(f.child)) g_pending = *c;
        break;
      }
  // The arrow keys go through the same order: Down and Right to the next control, Up and Left to
  // the previous one (ImGui 1.86 moves to the nearest item that way inside one window: Down from a
  // right-aligned button skips the slider on the left, and a window's edge stops it). Its own move
  // is cancelled; in a combo's open list, and for Page Up/Down and Home/End, it keeps its own.
  if (!g_pending && g.NavMoveSubmitted && g.NavMoveDir != ImGuiDir_None && g.NavMoveFlags == ImGuiNavMoveFlags_None &&
      g.NavWindow && !in_popup(g.NavWindow) && !g_drawn.empty()) {
    const int n = static_cast<int>(g_drawn.size());
    const int i = index_of(g_drawn, g.NavId);
    const int next = i < 0 ? 0 : i + ((g.NavMoveDir == ImGuiDir_Down || g.NavMoveDir == ImGuiDir_Right) ? 1 : -1);
    g.NavInitRequest = g.NavInitRequestFromMove = false;  // (a first press, with no cursor yet, asks for one)
    g.NavInitResultId = 0;
    ImGui::NavMoveRequestCancel();
    if (next >= 0 && next < n) g_pending = g_drawn[static_cast<size_t>(next)];
    else g.NavDisableHighlight = false;  // at an end: the cursor stays, shown
  }
  if (g_pending) {
    move_to(*g_pending);
    g_pending.reset();
  }

  // Enter on a button, checkbox, radio button, list entry or heatmap does what Space does
  // (ImGui 1.86 gives Enter to text fields and sliders only, to type a value).
  if (g.NavId != 0 && !g.NavDisableHighlight && g.ActiveId == 0 && g.NavWindow &&
      !(g.NavWindow->Flags & ImGuiWindowFlags_NoNavInputs) &&
      (ImGui::IsKeyPressedMap(ImGuiKey_Enter, false) || ImGui::IsKeyPressedMap(ImGuiKey_KeyPadEnter, false))) {
    const Control* c = find(g_drawn, g.NavId);
    if ((c && !c->inputable) || (!c && in_popup(g.NavWindow))) {
      g.NavActivateId = g.NavActivateDownId = g.NavActivatePressedId = g.NavId;
      g.NavActivateFlags = ImGuiActivateFlags_None;
    }
  }
}

void end_frame() {
  ImGuiContext& g = *GImGui;
  g_drawn.swap(g_drawing);
  g_frames_drawn.swap(g_frames_drawing);
  g_cursor_label_drawn.swap(g_cursor_label_drawing);

  // The ring, on top of everything (heatmaps draw through GPU callbacks), clipped to the window.
  if (g.NavDisableHighlight || g.NavId == 0 || g.NavId == g_own_ring) return;
  const Control* c = find(g_drawn, g.NavId);
  if (!c) return;
  ImRect r = c->rect;
  r.Expand(kRingGap + kRingThickness * 0.5f);
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  dl->PushClipRect(c->window->OuterRectClipped.Min, c->window->OuterRectClipped.Max, false);
  dl->AddRect(r.Min, r.Max, ImGui::GetColorU32(ImGuiCol_NavHighlight), g.Style.FrameRounding + kRingGap, 0,
              kRingThickness);
  dl->PopClipRect();
}

bool tab(int dir) {
  if (!GImGui || g_drawn.empty() || dir == 0) return false;
  ImGuiContext& g = *GImGui;
  // From the control under the cursor (or the one a move already asked for); with a combo's
  // list open, from the combo.
  ImGuiID from = g.NavId;
  if (g_pending) from = g_pending->id;
  else if (g.OpenPopupStack.Size > 0 && g.OpenPopupStack[0].SourceWindow)
    from = g.OpenPopupStack[0].SourceWindow->NavLastIds[ImGuiNavLayer_Main];
  const int n = static_cast<int>(g_drawn.size());
  const int i = index_of(g_drawn, from);
  const int next = i < 0 ? (dir > 0 ? 0 : n - 1) : i + (dir > 0 ? 1 : -1);
  if (next < 0 || next >= n) return false;
  g_pending = g_drawn[static_cast<size_t>(next)];
  return true;
}

void focus_entered(int dir) {
  if (g_drawn.empty()) return;
  g_pending = dir < 0 ? g_drawn.back() : g_drawn.front();
}

void focus_left() {
  g_pending.reset();
  if (GImGui) GImGui->NavDisableHighlight = true;
}

void name_item(const std::string& label) {
  const ImGuiID id = ImGui::GetItemID();
  if (!g_drawing.empty() && g_drawing.back().id == id) g_drawing.back().label = label;
  if (id != 0 && id == GImGui->NavId) g_cursor_label_drawing = label;
}

void own_ring(ImGuiID id) { g_own_ring = id; }

Cursor cursor() {
  Cursor c;
  if (!GImGui) return c;
  const ImGuiContext& g = *GImGui;
  c.id = g.NavId;
  c.shown = g.NavId != 0 && !g.NavDisableHighlight;
  c.index = index_of(g_drawn, g.NavId);
  c.label = g_cursor_label_drawn;
  return c;
}

std::vector<std::string> order() {
  std::vector<std::string> out;
  out.reserve(g_drawn.size());
  for (const Control& c : g_drawn) out.push_back(c.label);
  return out;
}

}  // namespace app::kbd
