// web/platform/platform.hpp — SDL2 window, GL context and the ImGui backends.
//
// The same calls on both platforms: a GL 3.3 core context natively, a WebGL2 context in
// the browser (SDL2's emscripten video driver, drawing into Module.canvas). HiDPI: the
// window is created with SDL_WINDOW_ALLOW_HIGHDPI, so the drawing buffer is the window
// size (CSS pixels in the browser) × the device pixel ratio, and ImGui works in window
// units with io.DisplayFramebufferScale = that ratio.
#pragma once

#include <string>
#include <vector>

#include "imgui.h"
#include "platform/damage.hpp"

struct SDL_Window;

namespace app {

struct PlatformConfig {
  const char* title = "Attention Lab";
  int width = 1280;   ///< initial window size in window units (ignored in the browser: CSS decides)
  int height = 800;
};

class Platform {
 public:
  /// Create window, GL context and ImGui context + backends. On failure returns false
  /// with a readable reason in `error` (e.g. no GL 3.3 / WebGL2).
  bool init(const PlatformConfig& cfg, std::string* error);
  /// Handle pending events; false once the user asked to quit. `had_input`: any event came.
  bool poll_events(bool* had_input);
  /// Queue a paste behind the events already received, so that it keeps its place among the
  /// keys (Ctrl+A, paste, Enter act in that order). When poll_events reaches it, in a frame of
  /// its own, it calls on_paste.
  void push_paste();
  void (*on_paste)() = nullptr;
  /// Tab (dir 1) or Shift+Tab (-1) outside a text field, which poll_events then keeps from
  /// ImGui (its own Tab visits text fields only). Unset: ImGui gets the key.
  void (*on_tab)(int dir) = nullptr;
  /// Queue committed text (UTF-8, from the page's soft-keyboard / IME element) behind the
  /// events already received; poll_events types it at the cursor (io.AddInputCharactersUTF8)
  /// in a frame where no key changed before it, so Backspace-then-text keeps its order.
  void push_text(const char* utf8);
  /// Input events held for later frames (a key's second change within one frame waits for
  /// the next; see poll_events). 0 once every event so far has reached ImGui.
  std::size_t pending_input() const;
  /// Nothing to draw: natively sleep until an event or `seconds` pass; in the browser return
  /// at once (requestAnimationFrame paces the loop there).
  void idle_wait(double seconds);
  /// Monotonic time in seconds.
  double seconds() const;
  /// Backends' NewFrame + ImGui::NewFrame.
  void new_frame();
  /// ImGui::Render, then draw. In the browser the canvas keeps its pixels (preserveDrawingBuffer,
  /// set by platform/webgl_state_cache.js), so only the damaged rectangles (DamageTracker) are
  /// cleared and drawn again, and a frame that changed nothing issues no GL call at all.
  /// Natively, or when the display scale is not 1 or 2: clear, draw everything, swap.
  void render(const ImVec4& clear);
  /// Tell the damage tracking what draw callbacks paint (GlHeatmapGpu::footprint).
  void set_callback_describer(CallbackDescriber d) { describe_ = std::move(d); }
  /// Draw everything in the next frame (tests compare it with a frame drawn by damage).
  void redraw_all() { damage_.invalidate(); }
  /// Framebuffer pixels drawn in the last frame (the damaged area; 0: nothing changed).
  long long last_drawn_pixels() const { return last_drawn_pixels_; }
  /// Framebuffer pixels per window unit (devicePixelRatio in the browser).
  float pixel_ratio() const;
  /// Recreate the font texture after the atlas was rebuilt.
  void reload_fonts();
  /// Rebuild the renderer's GL objects (after a WebGL context was lost and restored).
  void recreate_renderer();
  /// Save the next rendered frame (read back before the swap) as a PNG at `path`.
  void request_screenshot(const std::string& path);
  void shutdown();

 private:
  bool write_back_buffer_png(const char* path, std::string* error);

  SDL_Window* window_ = nullptr;
  void* gl_context_ = nullptr;
  int fb_w_ = 0, fb_h_ = 0;
  int touch_release_age_ = -1;  ///< frames since a finger lifted (-1: the mouse is a mouse)
  std::string screenshot_path_;
  /// The window's framebuffer keeps its pixels from frame to frame (the page's WebGL canvas
  /// is created with preserveDrawingBuffer), so render() may draw only what changed.
  bool keeps_picture_ = false;
  DamageTracker damage_;
  /// Per draw list, its commands repeated per damaged rectangle; swapped into the draw data for
  /// the one drawing pass and back (kept here so their storage serves every frame).
  std::vector<ImVector<ImDrawCmd>> per_rect_;
  CallbackDescriber describe_;
  long long last_drawn_pixels_ = 0;
};

}  // namespace app
