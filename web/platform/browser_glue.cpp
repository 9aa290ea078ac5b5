#include "platform/browser_glue.hpp"

#include <SDL.h>

#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "json/json_case.hpp"
#include "imgui_internal.h"
#include "platform/platform.hpp"
#include "learn/json_obj.hpp"

namespace app {

namespace {

Platform* g_platform = nullptr;
glue::Hooks g_hooks;

std::string g_clipboard;     // the last text copied or pasted
int g_paste_stage = 0;       // 2: press Ctrl+V next frame, 1: release it
bool g_context_lost = false;
bool g_restore_pending = false;
std::string g_reply;

void request_frame() {
  if (g_hooks.request_frame) g_hooks.request_frame();
}

void set_modifiers_from_sdl(ImGuiIO& io) {
  const SDL_Keymod m = SDL_GetModState();
  io.KeyCtrl = (m & KMOD_CTRL) != 0;
  io.KeyShift = (m & KMOD_SHIFT) != 0;
  io.KeyAlt = (m & KMOD_ALT) != 0;
  io.KeySuper = (m & KMOD_GUI) != 0;
}

// The window ImGui 1.86 scrolls with the wheel (ImGui::UpdateMouseWheel): the hovered one, or
// its first parent that can scroll.
ImGuiWindow* scroll_parent(ImGuiWindow* w, bool horizontal) {
  while (w && (w->Flags & ImGuiWindowFlags_ChildWindow) &&
         ((horizontal ? w->ScrollMax.x : w->ScrollMax.y) == 0.0f ||
          ((w->Flags & ImGuiWindowFlags_NoScrollWithMouse) && !(w->Flags & ImGuiWindowFlags_NoMouseInputs))))
    w = w->ParentWindow;
  if (!w || (w->Flags & ImGuiWindowFlags_NoScrollWithMouse)) return nullptr;
  return w;
}
ImGuiWindow* wheel_target(bool horizontal) { return scroll_parent(GImGui->HoveredWindow, horizontal); }

// The front-most window at p (as ImGui's own hover test, without the mouse: a finger that
// scrolls is never given to ImGui as a pointer).
ImGuiWindow* window_at(ImVec2 p) {
  for (int i = GImGui->Windows.Size - 1; i >= 0; --i) {
    ImGuiWindow* w = GImGui->Windows[i];
    if (!w->WasActive || w->Hidden || (w->Flags & ImGuiWindowFlags_NoMouseInputs)) continue;
    if (w->OuterRectClipped.Contains(p)) return w;
  }
  return nullptr;
}

bool can_scroll(ImGuiWindow* w, bool horizontal, double delta) {
  if (!w || delta == 0.0) return false;
  const float pos = horizontal ? w->Scroll.x : w->Scroll.y;
  const float max = horizontal ? w->ScrollMax.x : w->ScrollMax.y;
  return delta > 0 ? pos < max - 0.5f : pos > 0.5f;
}

// --- item locator (ImGui's test-engine hooks; on only between locate_begin and _result) ---
struct Located {
  ImGuiID id;
  ImRect rect;
  ImRect clip;
  std::string label;  // shown text ("sentence")
  std::string full;   // with the hidden part ("##v"), to tell unnamed fields apart
};
std::vector<Located> g_located;

bool g_locating = false;  // between attn_app_locate_begin and _result
ImGuiID g_judged = 0;     // the field whose keyboard kind attn_app_text_field last decided

}  // namespace

namespace glue {

void install(Platform* platform, Hooks hooks) {
  g_platform = platform;
  g_hooks = std::move(hooks);
  // The paste reaches ImGui after the keys typed before it (see Platform::push_paste), into
  // the field being edited then; with none, the text stays on the clipboard only.
  platform->on_paste = [] {
    if (ImGui::GetIO().WantTextInput) g_paste_stage = 2;
  };
}

bool before_frame() {
  if (g_context_lost) return false;
  if (g_restore_pending) {
    // A restored WebGL context holds none of the old objects: a fresh ImGui renderer (program,
    // buffers, font texture) and fresh heatmap shaders (their textures are re-uploaded because
    // the cache is empty).
    g_restore_pending = false;
    if (g_platform) g_platform->recreate_renderer();
    if (g_hooks.recreate_gpu && !g_hooks.recreate_gpu())
      std::fprintf(stderr, "attention_lab: heatmap shaders failed after the context came back\n");
    request_frame();
  }
  ImGuiIO& io = ImGui::GetIO();
  if (g_paste_stage == 2) {
    io.KeysDown[SDL_SCANCODE_V] = true;
    io.KeyCtrl = true;
    io.KeyShift = io.KeyAlt = io.KeySuper = false;
    g_paste_stage = 1;
    request_frame();
  } else if (g_paste_stage == 1) {
    io.KeysDown[SDL_SCANCODE_V] = false;
    set_modifiers_from_sdl(io);
    g_paste_stage = 0;
  }
  return true;
}

}  // namespace glue

#ifdef __EMSCRIPTEN__
namespace shim {
void install_clipboard() {
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = [](void*, const char* text) {
    g_clipboard = text ? text : "";
    EM_ASM({ if (Module["attnSetClipboard"]) Module["attnSetClipboard"](UTF8ToString($0)); }, g_clipboard.c_str());
  };
  io.GetClipboardTextFn = [](void*) -> const char* { return g_clipboard.c_str(); };
  io.ClipboardUserData = nullptr;
}
}  // namespace shim
#endif

}  // namespace app

extern "C" {

int attn_app_wheel(double dx, double dy) {
  if (!GImGui || app::g_context_lost) return 0;
  ImGuiIO& io = ImGui::GetIO();
  // Shift turns the wheel sideways in ImGui; follow it so the decision matches what scrolls.
  if (io.KeyShift && !io.KeyCtrl && dx == 0.0) std::swap(dx, dy);
  int used = 0;
  if (app::can_scroll(app::wheel_target(false), false, dy)) {
    io.MouseWheel -= static_cast<float>(dy);
    used = 1;
  }
  if (app::can_scroll(app::wheel_target(true), true, dx)) {
    io.MouseWheelH -= static_cast<float>(dx);
    used = 1;
  }
  if (used) app::request_frame();
  return used;
}

int attn_app_paste(const char* text) {
  if (!GImGui || !app::g_platform) return 0;
  app::g_clipboard = text ? text : "";
  app::g_platform->push_paste();
  app::request_frame();
  return 1;
}

void attn_app_release_input() {
  SDL_ResetKeyboard();  // key-up events for every pressed key (the ImGui backend applies them)
  if (GImGui) {
    ImGuiIO& io = ImGui::GetIO();
    io.AddFocusEvent(false);  // ImGui clears its key state on the next NewFrame
    io.KeyCtrl = io.KeyShift = io.KeyAlt = io.KeySuper = false;
  }
  app::g_paste_stage = 0;
  app::request_frame();
}

const char* attn_app_input_state() {
  attn::Json j = attn::Json::object();
  if (GImGui) {
    const ImGuiIO& io = ImGui::GetIO();
    int keys = 0;
    for (bool down : io.KeysDown) keys += down ? 1 : 0;
    bool mouse_down = false;
    for (bool down : io.MouseDown) mouse_down = mouse_down || down;
    j["keys_down"] = keys;
    j["ctrl"] = io.KeyCtrl;
    j["shift"] = io.KeyShift;
    j["alt"] = io.KeyAlt;
    j["super"] = io.KeySuper;
    j["mouse_down"] = mouse_down;
    j["mouse"] = ImGui::IsMousePosValid(&io.MousePos) ? attn::Json{io.MousePos.x, io.MousePos.y} : attn::Json(nullptr);
    j["want_text"] = io.WantTextInput;
    j["active_item"] = GImGui->ActiveId != 0;
    j["hovered_item"] = GImGui->HoveredId != 0;
    j["cell_mode"] = (app::g_hooks.cell_mode && app::g_hooks.cell_mode());
    j["nav_window"] = GImGui->NavWindow ? attn::Json(GImGui->NavWindow->Name) : attn::Json(nullptr);
    j["nav_item"] = GImGui->NavId != 0 && !GImGui->NavDisableHighlight;
    // The last frame drew a "U+732B" placeholder for a character without a glyph.
    j["placeholders"] = app::g_hooks.placeholder_frame && app::g_hooks.placeholder_frame() == ImGui::GetFrameCount();
    // The window the wheel would scroll now: [scroll y, max scroll y] (null: none can).
    if (ImGuiWindow* w = app::wheel_target(false)) j["scroll"] = {w->Scroll.y, w->ScrollMax.y};
    else j["scroll"] = nullptr;
  }
  j["pending_input"] = app::g_platform ? app::g_platform->pending_input() : 0;
  j["context_lost"] = app::g_context_lost;
  app::g_reply = attn::dump(j);
  return app::g_reply.c_str();
}

int attn_app_text(const char* utf8) {
  if (!GImGui || !app::g_platform || !ImGui::GetIO().WantTextInput) return 0;
  app::g_platform->push_text(utf8);
  app::request_frame();
  return 1;
}

const char* attn_app_text_field() {
  attn::Json j = attn::Json::object();
  const ImGuiContext* g = GImGui;
  const bool active = g && ImGui::GetIO().WantTextInput && g->ActiveId != 0 && g->InputTextState.ID == g->ActiveId;
  j["active"] = active;
  if (!active) app::g_judged = 0;
  if (active) {
    const ImGuiInputTextState& st = g->InputTextState;
    // ImGui keeps a field's flags only inside its InputText call, so a number field is told by
    // what InputScalar does on activation: its text, all selected, is one formatted number.
    static const char* mode = "text";
    if (app::g_judged != g->ActiveId) {
      app::g_judged = g->ActiveId;
      const std::string text(st.TextA.Data ? st.TextA.Data : "", static_cast<std::size_t>(st.CurLenA));
      const bool all = st.CurLenA > 0 && ImMin(st.Stb.select_start, st.Stb.select_end) == 0 &&
                       ImMax(st.Stb.select_start, st.Stb.select_end) == st.CurLenW;
      char* end = nullptr;
      std::strtod(text.c_str(), &end);
      const bool number = all && end && end != text.c_str() && *end == '\0';
      mode = !number ? "text" : text.find_first_of(".eE") != std::string::npos ? "decimal" : "numeric";
    }
    j["id"] = g->ActiveId;
    // The caret as InputText last placed it for an IME (its top-left, one line tall).
    j["x"] = g->PlatformImeLastPos.x;
    j["y"] = g->PlatformImeLastPos.y;
    j["h"] = g->FontSize;
    j["pad"] = g->Style.FramePadding.y;  // the field's frame reaches this far above and below
    j["mode"] = mode;
    j["multiline"] = !st.Stb.single_line;
  }
  app::g_reply = attn::dump(j);
  return app::g_reply.c_str();
}

int attn_app_touch_scroll(double x, double y, double dy) {
  if (!GImGui || app::g_context_lost) return 0;
  ImGuiWindow* w = app::scroll_parent(app::window_at(ImVec2(static_cast<float>(x), static_cast<float>(y))), false);
  if (!app::can_scroll(w, false, dy)) return 0;
  // From the target already set this frame, so several moves before a frame add up.
  const float from = w->ScrollTarget.y < FLT_MAX ? w->ScrollTarget.y : w->Scroll.y;
  ImGui::SetScrollY(w, ImClamp(from + static_cast<float>(dy), 0.0f, w->ScrollMax.y));
  app::request_frame();
  return 1;
}

void attn_app_touch_ui(int on) {
  if (app::g_hooks.touch_sizes) app::g_hooks.touch_sizes(on != 0);
  app::request_frame();
}

void attn_app_context_lost() { app::g_context_lost = true; }

double attn_app_drawn_pixels() { return app::g_platform ? static_cast<double>(app::g_platform->last_drawn_pixels()) : 0.0; }

void attn_app_redraw_all() {
  if (!app::g_platform) return;
  app::g_platform->redraw_all();
  app::request_frame();
}

void attn_app_context_restored() {
  app::g_context_lost = false;
  app::g_restore_pending = true;
  app::request_frame();
}

void attn_app_locate_begin() {
  app::g_located.clear();
  app::g_locating = true;
  if (GImGui) GImGui->TestEngineHookItems = true;
  app::request_frame();
}

const char* attn_app_locate_result() {
  app::g_locating = false;  // (the hooks stay on: the keyboard order needs them every frame)
  attn::Json out = attn::Json::array();
  for (const app::Located& it : app::g_located) {
    if (it.full.empty()) continue;
    const bool visible = it.rect.Overlaps(it.clip);
    out.push_back(::attn::obj({{"label", it.label},
                             {"full", it.full},
                             {"rect", {it.rect.Min.x, it.rect.Min.y, it.rect.Max.x, it.rect.Max.y}},
                             {"visible", visible}}));
  }
  app::g_reply = attn::dump(out);
  return app::g_reply.c_str();
}

}  // extern "C"

// ImGui's test-engine hooks (attn_imgui is compiled with IMGUI_ENABLE_TEST_ENGINE; ImGui calls
// them while GImGui->TestEngineHookItems is set: every frame, for the keyboard order the app
// keeps, and the locator above records while it is asked to).
void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id) {
  if (app::g_hooks.item_added) app::g_hooks.item_added(*ctx, bb, id);
  if (!app::g_locating) return;
  for (const app::Located& it : app::g_located)
    if (it.id == id) return;
  const ImRect clip = ctx->CurrentWindow ? ctx->CurrentWindow->ClipRect : bb;
  app::g_located.push_back(app::Located{id, bb, clip, "", ""});
}
void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
  if (app::g_hooks.item_label) app::g_hooks.item_label(*ctx, id, label);
  if (!label || !app::g_locating) return;
  for (app::Located& it : app::g_located)
    if (it.id == id) {
      const char* end = ImGui::FindRenderedTextEnd(label);  // "sentence##x" → "sentence"
      it.label.assign(label, end);
      it.full = label;
      return;
    }
}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }
