#include "platform/platform.hpp"

#include <SDL.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "imgui_impl_opengl3.h"
#include "imgui_impl_sdl.h"
#include "platform/emscripten_shim.hpp"
#include "platform/gl.hpp"
#include "platform/png_write.hpp"

namespace app {

bool Platform::init(const PlatformConfig& cfg, std::string* error) {
#ifdef __EMSCRIPTEN__
  // Keys only while the canvas has focus: a course page's own fields keep theirs (SDL's
  // default listens on the whole window and swallows arrows, Tab, Backspace and Ctrl+keys).
  SDL_SetHint(SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT, "#canvas");
#endif
  if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER) != 0) {
    *error = std::string("SDL_Init failed: ") + SDL_GetError();
    return false;
  }
#if ATTN_GL_ES
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);  // WebGL2
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
#else
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
#endif
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 0);

  // RESIZABLE: in the browser SDL then follows the canvas' CSS size (index.html makes it
  // fill the window); ALLOW_HIGHDPI: drawing buffer = size × devicePixelRatio.
  const Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI;
  window_ = SDL_CreateWindow(cfg.title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, cfg.width, cfg.height, flags);
  if (!window_) {
    *error = std::string("could not create a window: ") + SDL_GetError();
    return false;
  }
  gl_context_ = SDL_GL_CreateContext(window_);
  if (!gl_context_) {
    *error = std::string(ATTN_GL_ES ? "WebGL2 is not available: " : "OpenGL 3.3 core is not available: ") +
             SDL_GetError();
    return false;
  }
  SDL_GL_MakeCurrent(window_, gl_context_);
#ifdef __EMSCRIPTEN__
  // What the canvas' context really does (webgl_state_cache.js asks for preserveDrawingBuffer).
  keeps_picture_ = EM_ASM_INT({
    const c = GL.currentContext && GL.currentContext.GLctx;
    const a = c && c.getContextAttributes();
    return a && a.preserveDrawingBuffer ? 1 : 0;
  }) != 0;
#endif
#if !ATTN_GL_ES
  SDL_GL_SetSwapInterval(1);  // in the browser requestAnimationFrame paces frames
#endif

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini: the page has no file system and needs no layout memory
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  if (!ImGui_ImplSDL2_InitForOpenGL(window_, gl_context_) || !ImGui_ImplOpenGL3_Init(ATTN_GLSL_VERSION)) {
    *error = "could not initialise the ImGui SDL2/OpenGL backends";
    return false;
  }
  shim::install_clipboard();  // browser: the system clipboard instead of SDL's private one
  return true;
}

namespace {
// ImGui 1.86 reads key state once per frame: a key pressed and released between two frames
// (a quick tap, a scripted key press, a slow frame) would never be seen down, and a key
// released and pressed again would never be seen up, so two presses would count once. So a
// frame takes events up to the second change of one key; that event and everything after
// it wait for the next frame, in order. (1.87+ queues input events itself.)
std::vector<SDL_Event> g_pending;
constexpr Sint32 kPasteCode = 0x50415354;  // "PAST": an SDL_USEREVENT from push_paste
constexpr Sint32 kTextCode = 0x54455854;   // "TEXT": an SDL_USEREVENT from push_text
std::deque<std::string> g_texts;           // their strings, in order (SDL_TEXTINPUT holds 32 bytes)

// The backend sets the modifiers from SDL's state *now*; the event's own record is what
// held when the key went down or up (they differ when several keys arrive between frames).
void process(SDL_Event& e) {
  ImGui_ImplSDL2_ProcessEvent(&e);
  if (e.type == SDL_KEYDOWN || e.type == SDL_KEYUP) {
    ImGuiIO& io = ImGui::GetIO();
    const Uint16 mod = e.key.keysym.mod;
    io.KeyCtrl = (mod & KMOD_CTRL) != 0;
    io.KeyShift = (mod & KMOD_SHIFT) != 0;
    io.KeyAlt = (mod & KMOD_ALT) != 0;
    io.KeySuper = (mod & KMOD_GUI) != 0;
  }
}
}  // namespace

bool Platform::poll_events(bool* had_input) {
  bool keep = true;
  *had_input = false;
  std::vector<SDL_Event> batch;
  batch.swap(g_pending);
  SDL_Event polled;
  while (SDL_PollEvent(&polled)) batch.push_back(polled);
  bool changed_now[SDL_NUM_SCANCODES] = {};  // the key went down or up in this frame
  bool any_change = false;
  bool wait = false;
  bool touch_pressed = false;  // a finger went down in this frame
  for (SDL_Event& e : batch) {
    *had_input = true;
    const bool key = (e.type == SDL_KEYDOWN || e.type == SDL_KEYUP) && e.key.keysym.scancode < SDL_NUM_SCANCODES;
    // A held key's auto-repeat (KEYDOWN with repeat set) changes nothing ImGui can see.
    const bool change = key && !(e.type == SDL_KEYDOWN && e.key.repeat);
    // A paste is typed as Ctrl+V in this frame: no other key may change in it.
    const bool paste = e.type == SDL_USEREVENT && e.user.code == kPasteCode;
    const bool text = e.type == SDL_USEREVENT && e.user.code == kTextCode;
    // A finger's moves after its press wait for the next frame: ImGui then sees the press where
    // the finger landed (a slider or a field under it, not under where it moved to).
    const bool touch_move = e.type == SDL_FINGERMOTION ||
                            (e.type == SDL_MOUSEMOTION && e.motion.which == SDL_TOUCH_MOUSEID);
    if ((change && changed_now[e.key.keysym.scancode]) || ((paste || text) && any_change) ||
        (touch_move && touch_pressed))
      wait = true;
    if (wait) {
      g_pending.push_back(e);
      continue;
    }
    if (paste) {
      if (on_paste) on_paste();
      wait = true;
      continue;
    }
    if (text) {
      if (!g_texts.empty()) {
        ImGui::GetIO().AddInputCharactersUTF8(g_texts.front().c_str());
        g_texts.pop_front();
      }
      continue;
    }
    if (change) changed_now[e.key.keysym.scancode] = any_change = true;
    if (e.type == SDL_FINGERDOWN || (e.type == SDL_MOUSEBUTTONDOWN && e.button.which == SDL_TOUCH_MOUSEID))
      touch_pressed = true;
    // Tab outside a text field moves the keyboard cursor through the controls (in the browser the
    // page's key handler does it and SDL never sees such a Tab).
    if (on_tab && e.type == SDL_KEYDOWN && e.key.keysym.scancode == SDL_SCANCODE_TAB &&
        !(e.key.keysym.mod & (KMOD_CTRL | KMOD_ALT | KMOD_GUI)) && !ImGui::GetIO().WantTextInput) {
      on_tab((e.key.keysym.mod & KMOD_SHIFT) ? -1 : 1);
      continue;
    }
    process(e);
    // Touch: SDL turns a finger into the mouse. After the finger lifts, the mouse must leave,
    // or the last touched widget stays hovered (see new_frame).
    if (e.type == SDL_FINGERUP) touch_release_age_ = 0;
    if (e.type == SDL_FINGERDOWN || (e.type == SDL_MOUSEMOTION && e.motion.which != SDL_TOUCH_MOUSEID))
      touch_release_age_ = -1;
    if (e.type == SDL_QUIT) keep = false;
    // A resized canvas lost its pixels, even if it is back to its old size by the next frame.
    if (e.type == SDL_WINDOWEVENT &&
        (e.window.event == SDL_WINDOWEVENT_RESIZED || e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED))
      damage_.invalidate();
    if (e.type == SDL_WINDOWEVENT && e.window.event == SDL_WINDOWEVENT_CLOSE &&
        e.window.windowID == SDL_GetWindowID(window_))
      keep = false;
  }
  return keep;
}

std::size_t Platform::pending_input() const { return g_pending.size(); }

void Platform::push_paste() {
  SDL_Event e{};
  e.type = SDL_USEREVENT;
  e.user.code = kPasteCode;
  SDL_PushEvent(&e);
}

void Platform::push_text(const char* utf8) {
  if (!utf8 || !*utf8) return;
  g_texts.emplace_back(utf8);
  SDL_Event e{};
  e.type = SDL_USEREVENT;
  e.user.code = kTextCode;
  SDL_PushEvent(&e);
}

void Platform::idle_wait(double seconds) {
#if !ATTN_GL_ES
  SDL_WaitEventTimeout(nullptr, static_cast<int>(seconds * 1000.0));
#else
  (void)seconds;
#endif
}

double Platform::seconds() const {
  return static_cast<double>(SDL_GetPerformanceCounter()) / static_cast<double>(SDL_GetPerformanceFrequency());
}

void Platform::new_frame() {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  // A lifted finger: keep the position for the frame of the release (so the tap clicks)
  // and the next, then take the mouse away (no hover, no drag stays behind).
  if (touch_release_age_ >= 0 && ++touch_release_age_ > 2) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
}

void Platform::render(const ImVec4& clear) {
  ImGui::Render();
  SDL_GL_GetDrawableSize(window_, &fb_w_, &fb_h_);
  ImDrawData* dd = ImGui::GetDrawData();
  if (!keeps_picture_ || !dd || !exact_pixel_mapping(*dd)) {
    // Everything: clear, draw.
    damage_.invalidate();
    last_drawn_pixels_ = static_cast<long long>(fb_w_) * fb_h_;
    glViewport(0, 0, fb_w_, fb_h_);
    glClearColor(clear.x, clear.y, clear.z, clear.w);
    glClear(GL_COLOR_BUFFER_BIT);
    if (dd) ImGui_ImplOpenGL3_RenderDrawData(dd);
  } else {
    // Only what changed: the damaged rectangles (disjoint) are cleared, then the draw data is
    // drawn once with each command repeated per rectangle, clipped to it (the backend scissors each
    // command to its clip rectangle). One pass, not one per rectangle: each list's vertices
    // go to the GPU once (with the browser's GPU process behind, every upload could wait for it).
    snap_clip_rects(*dd);
    const std::vector<PixelRect> rects = damage_.update(*dd, fb_w_, fb_h_, clear, describe_);
    last_drawn_pixels_ = 0;
    // Nothing changed: no GL call, and the canvas keeps its picture.
    if (rects.empty() && screenshot_path_.empty()) return;
    glViewport(0, 0, fb_w_, fb_h_);
    glClearColor(clear.x, clear.y, clear.z, clear.w);
    glEnable(GL_SCISSOR_TEST);
    for (const PixelRect& r : rects) {
      last_drawn_pixels_ += r.area();
      glScissor(r.x0, fb_h_ - r.y1, r.x1 - r.x0, r.y1 - r.y0);
      glClear(GL_COLOR_BUFFER_BIT);
    }
    glDisable(GL_SCISSOR_TEST);
    const ImVec2 pos = dd->DisplayPos, scale = dd->FramebufferScale;
    std::vector<ImVec4> display;  // the rectangles in display coordinates
    for (const PixelRect& r : rects)
      display.emplace_back(pos.x + r.x0 / scale.x, pos.y + r.y0 / scale.y, pos.x + r.x1 / scale.x, pos.y + r.y1 / scale.y);
    per_rect_.resize(static_cast<size_t>(dd->CmdListsCount));
    for (int n = 0; n < dd->CmdListsCount; ++n) {
      ImVector<ImDrawCmd>& cmds = per_rect_[static_cast<size_t>(n)];
      cmds.resize(0);
      for (const ImDrawCmd& cmd : dd->CmdLists[n]->CmdBuffer) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState) {
          cmds.push_back(cmd);
          continue;
        }
        for (const ImVec4& d : display) {
          ImDrawCmd c = cmd;
          c.ClipRect = ImVec4(std::max(cmd.ClipRect.x, d.x), std::max(cmd.ClipRect.y, d.y), std::min(cmd.ClipRect.z, d.z),
                              std::min(cmd.ClipRect.w, d.w));
          if (c.ClipRect.z > c.ClipRect.x && c.ClipRect.w > c.ClipRect.y) cmds.push_back(c);  // else it paints nothing here
        }
      }
    }
    for (int n = 0; n < dd->CmdListsCount; ++n) dd->CmdLists[n]->CmdBuffer.swap(per_rect_[static_cast<size_t>(n)]);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
    for (int n = 0; n < dd->CmdListsCount; ++n) dd->CmdLists[n]->CmdBuffer.swap(per_rect_[static_cast<size_t>(n)]);
  }
  if (!screenshot_path_.empty()) {
    std::string err;
    if (!write_back_buffer_png(screenshot_path_.c_str(), &err)) std::fprintf(stderr, "screenshot: %s\n", err.c_str());
    screenshot_path_.clear();
  }
  SDL_GL_SwapWindow(window_);
}

float Platform::pixel_ratio() const {
  int w = 0, h = 0, dw = 0, dh = 0;
  SDL_GetWindowSize(window_, &w, &h);
  SDL_GL_GetDrawableSize(window_, &dw, &dh);
  return w > 0 ? static_cast<float>(dw) / static_cast<float>(w) : 1.0f;
}

void Platform::reload_fonts() {
  // Only the font texture: ImGui 1.86's DestroyDeviceObjects keeps its vertex/index buffer
  // sizes, so buffers made again afterwards would be written past their end.
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  damage_.invalidate();  // same draw data, other glyph pixels
}

void Platform::recreate_renderer() {
  // A fresh backend: new program, buffers (with their sizes reset) and font texture.
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplOpenGL3_Init(ATTN_GLSL_VERSION);
  damage_.invalidate();  // a restored context starts from a blank canvas
}

void Platform::request_screenshot(const std::string& path) { screenshot_path_ = path; }

bool Platform::write_back_buffer_png(const char* path, std::string* error) {
  if (fb_w_ <= 0 || fb_h_ <= 0) {
    *error = "no frame drawn yet";
    return false;
  }
  std::vector<unsigned char> rgba(static_cast<size_t>(fb_w_) * static_cast<size_t>(fb_h_) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, fb_w_, fb_h_, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  return write_png_rgba(path, fb_w_, fb_h_, rgba.data(), /*bottom_up=*/true, error);
}

void Platform::shutdown() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplSDL2_Shutdown();
  ImGui::DestroyContext();
  if (gl_context_) SDL_GL_DeleteContext(gl_context_);
  if (window_) SDL_DestroyWindow(window_);
  gl_context_ = nullptr;
  window_ = nullptr;
  SDL_Quit();
}

}  // namespace app
