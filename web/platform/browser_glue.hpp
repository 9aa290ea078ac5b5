// web/platform/browser_glue.hpp — what the browser needs beyond SDL2's emscripten port.
//
// The page (embed.js, web/page/embed/) listens to the DOM and calls the C functions below; the main loop
// calls before_frame() before each drawn frame.
//   clipboard   ImGui's copy goes to navigator.clipboard (Module.attnSetClipboard); a paste
//               event's text arrives through attn_app_paste and is typed as Ctrl+V, so any
//               ImGui text field pastes it (SDL's own clipboard is private to the wasm).
//   wheel       deltas normalised by the page (one step ≈ one mouse-wheel notch); consumed
//               only when the ImGui window under the pointer can still scroll that way, so a
//               course page scrolls on past an embedded panel.
//   keys        attn_app_release_input releases every key and modifier when the canvas loses
//               focus (its key-up events then go elsewhere).
//   WebGL       context loss: frames are skipped until the browser restores the context,
//               then ImGui's and the heatmaps' GL objects are recreated.
#pragma once

#include <functional>

#include "imgui.h"
#include "platform/emscripten_shim.hpp"

struct ImRect;

namespace app {
class Platform;

namespace glue {
/// What the glue reaches above the platform, handed down by the app (the platform is the lowest
/// layer: it calls up only through these).
struct Hooks {
  std::function<void()> request_frame;       ///< draw the next tick even if nothing changed
  std::function<bool()> recreate_gpu;        ///< new heatmap GL objects after a restored context
  std::function<bool()> cell_mode;           ///< a heatmap's keyboard cell cursor is active
  std::function<int()> placeholder_frame;    ///< ImGui frame of the last glyph placeholder drawn
  std::function<void(bool)> touch_sizes;     ///< touch-sized widgets on or off
  /// Every item ImGui adds (its test-engine hook), and the labels it reports: the keyboard's
  /// reading order through the controls (widgets/keyboard_nav.hpp).
  std::function<void(ImGuiContext&, const ImRect&, ImGuiID)> item_added;
  std::function<void(ImGuiContext&, ImGuiID, const char*)> item_label;
};
/// Remember what before_frame() must reach. `platform` must outlive the loop.
void install(Platform* platform, Hooks hooks);
/// Before a frame: type a pending paste, rebuild GL objects after a restored context.
/// False while the WebGL context is lost (skip the frame).
bool before_frame();
}  // namespace glue
}  // namespace app

extern "C" {
/// Wheel of (dx, dy) steps (positive: content moves up/left, as DOM deltas). 1 when ImGui
/// scrolls with it (the page then calls preventDefault), 0 when nothing under the pointer can.
ATTN_EXPORT int attn_app_wheel(double dx, double dy);
/// Paste `text` into the ImGui text field being edited; 0 when none is.
ATTN_EXPORT int attn_app_paste(const char* text);
/// Release all keys and modifiers (the canvas lost focus).
ATTN_EXPORT void attn_app_release_input();
/// {"keys_down":n,"ctrl","shift","alt","super","mouse_down","mouse":[x,y]|null,"want_text",
///  "active_item","cell_mode","nav_window","nav_item","scroll":[y,max]|null,"placeholders",
///  "context_lost"} — for tests of focus, navigation, wheel, touch and blur handling, and of the
///  glyph placeholders.
ATTN_EXPORT const char* attn_app_input_state();
/// Committed text from the page's soft-keyboard / IME element (UTF-8), typed at the cursor of
/// the field being edited, in order with the keys before it. 0 when no field is being edited.
ATTN_EXPORT int attn_app_text(const char* utf8);
/// The field being edited, for the page's editable element: {"active":false} or {"active":true,
/// "id","x","y","h" (caret, CSS px),"pad" (frame padding),"mode":"text"|"numeric"|"decimal","multiline"}.
ATTN_EXPORT const char* attn_app_text_field();
/// A finger swipe of dy CSS px at (x, y) (positive: content moves up): scrolls the ImGui window
/// under the finger (or its first parent that can scroll) that way. 1 when it could scroll.
ATTN_EXPORT int attn_app_touch_scroll(double x, double y, double dy);
/// Touch-sized widgets on (a coarse primary pointer) or off.
ATTN_EXPORT void attn_app_touch_ui(int on);
ATTN_EXPORT void attn_app_context_lost();
/// Draw the whole picture in the next frame, not only what changed (tests compare the two).
ATTN_EXPORT void attn_app_redraw_all();
/// Framebuffer pixels the last frame drew (its damaged area; 0: it changed nothing).
ATTN_EXPORT double attn_app_drawn_pixels();
ATTN_EXPORT void attn_app_context_restored();
/// Item locator (tests): record every labelled widget from the next frame on...
ATTN_EXPORT void attn_app_locate_begin();
/// ...and return them in submission order: [{"label" (shown text),"full" (with any "##id"
/// part),"rect":[x0,y0,x1,y1],"visible"}] in CSS pixels.
ATTN_EXPORT const char* attn_app_locate_result();
}
