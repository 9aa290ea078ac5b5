// tests/app/support.hpp — what the headless app test's files share: the frame driver that clicks
// and types by label (test-engine hooks record every item of a frame), expect/fail, and the
// page-API helpers. Each *_test.cpp checks one panel or one concern; headless_test.cpp runs them
// in order on one App (later checks start from the state earlier ones left).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/api.hpp"
#include "app/app.hpp"
#include "json/json_case.hpp"
#include "app/embed_api.hpp"
#include "page/fit_report.hpp"
#include "widgets/page_view.hpp"
#include "widgets/colormap.hpp"
#include "widgets/keyboard_nav.hpp"
#include "widgets/plots.hpp"
#include "widgets/slider.hpp"
#include "panels/registry.hpp"
#include "panels/learned_heads.hpp"
#include "panels/train_worker.hpp"
#include "panels/trained_run.hpp"
#include "panels/translate.hpp"
#include "platform/damage.hpp"
#include "worker/train_runner.hpp"
#include "widgets/ui_style.hpp"
#include "throwaway_panel.hpp"
#include "imgui.h"
#include "imgui_internal.h"

using attn::Json;

namespace headless {

/// One labelled item of the current frame (the test-engine hooks record them).
struct Item {
  ImGuiID id;
  ImRect rect;
  std::string label;
};
extern std::vector<Item> g_items;               ///< this frame, in submission order
extern std::map<ImGuiID, size_t> g_item_index;  ///< id -> index in g_items
extern std::vector<std::string> g_id_clashes;   ///< two items with one ID in a frame
extern int g_frame;                              ///< frames drawn so far
extern int g_failures;                           ///< failed expectations
extern std::string g_step;                       ///< the step a failure names

/// Report a failure (with the step and the frame).
void fail(const std::string& what);
/// fail(what) unless ok.
void expect(bool ok, const std::string& what);
/// Shows `panel` through the page API (attn_app_show_panel) and names it as the step failures report.
void open_panel_step(const char* panel);

/// Keys the driver presses; 1.86 reads keys through io.KeyMap/KeysDown.
enum Key { kEnter = 1, kBackspace, kEscape, kTab, kA, kSpace, kLeft, kRight, kUp, kDown };

/// Draws frames of the App and drives it like a user: clicks and types by label, sweeps the mouse.
class Driver {
 public:
  explicit Driver(app::App& a) : app_(a) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyMap[ImGuiKey_Enter] = kEnter;
    io.KeyMap[ImGuiKey_Backspace] = kBackspace;
    io.KeyMap[ImGuiKey_Escape] = kEscape;
    io.KeyMap[ImGuiKey_Tab] = kTab;
    io.KeyMap[ImGuiKey_A] = kA;
    io.KeyMap[ImGuiKey_Space] = kSpace;
    io.KeyMap[ImGuiKey_LeftArrow] = kLeft;
    io.KeyMap[ImGuiKey_RightArrow] = kRight;
    io.KeyMap[ImGuiKey_UpArrow] = kUp;
    io.KeyMap[ImGuiKey_DownArrow] = kDown;
  }

  void frame() {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60.0f;
    g_items.clear();
    g_item_index.clear();
    GImGui->TestEngineHookItems = true;
    ImGui::NewFrame();
    app_.frame();
    ImGui::Render();
    app_.frame_presented(now());
    ++g_frame;
    io.MouseWheel = 0.0f;
    check_draw_data();
  }
  /// The test's clock: 60 frames per second of simulated time.
  static double now() { return g_frame / 60.0; }
  void frames(int n) {
    for (int i = 0; i < n; ++i) frame();
  }

  const Item* find(const std::string& label, int nth = 0) const {
    for (const Item& it : g_items)
      if (it.label == label && nth-- == 0) return &it;
    return nullptr;
  }
  bool click(const std::string& label, int nth = 0, bool ctrl = false) {
    frame();  // fresh layout
    const Item* it = find(label, nth);
    if (!it) {
      std::string seen;
      for (size_t i = g_items.size() > 12 ? g_items.size() - 12 : 0; i < g_items.size(); ++i)
        seen += " '" + g_items[i].label + "'@" + std::to_string(static_cast<int>(g_items[i].rect.Min.y));
      fail("no item labelled '" + label + "' (#" + std::to_string(nth) + "); the last items:" + seen);
      return false;
    }
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = ImVec2((it->rect.Min.x + it->rect.Max.x) * 0.5f, (it->rect.Min.y + it->rect.Max.y) * 0.5f);
    io.KeyCtrl = ctrl;
    frame();
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    io.KeyCtrl = false;
    frame();
    frame();  // the trained panels forward a press with defer_edit: it applies as the next frame starts
    return true;
  }
  void type(const std::string& text) {
    for (char c : text) {
      ImGui::GetIO().AddInputCharacter(static_cast<unsigned char>(c));
      frame();
    }
  }
  void press(Key k) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[k] = true;
    frame();
    io.KeysDown[k] = false;
    frame();
  }
  /// Hover a grid of points over the whole display, one per frame, scrolling down halfway.
  void sweep(float step) {
    ImGuiIO& io = ImGui::GetIO();
    const ImVec2 size = io.DisplaySize;
    int n = 0;
    for (float y = 5; y < size.y; y += step)
      for (float x = 5; x < size.x; x += step * 1.7f) {
        io.MousePos = ImVec2(x, y);
        if (++n % 25 == 0) io.MouseWheel = -2.0f;
        frame();
      }
    io.MouseWheel = 40.0f;  // back to the top
    frame();
  }

 private:
  // Every index must address an existing vertex; the texture ids must be known ones.
  void check_draw_data() {
    ImDrawData* dd = ImGui::GetDrawData();
    expect(dd && dd->Valid, "draw data invalid");
    for (int l = 0; dd && l < dd->CmdListsCount; ++l) {
      const ImDrawList* dl = dd->CmdLists[l];
      for (int i = 0; i < dl->IdxBuffer.Size; ++i)
        if (dl->IdxBuffer[i] >= dl->VtxBuffer.Size) {
          fail("draw list index out of range");
          return;
        }
      for (int i = 0; i < dl->VtxBuffer.Size; ++i)
        if (!std::isfinite(dl->VtxBuffer[i].pos.x) || !std::isfinite(dl->VtxBuffer[i].pos.y)) {
          fail("non-finite vertex position");
          return;
        }
    }
  }
  app::App& app_;
};

/// state() and set() through the page's C functions, as the JS calls them.
Json api_state();
Json api_set(const Json& patch);
/// Every number in `j` is finite (nlohmann keeps NaN as a number; dump would print null).
bool all_finite(const Json& j, std::string* where, const std::string& path = "");
void expect_state_finite();
/// A bad input must be refused with `code`, keep the panel's last good result and show the error.
void expect_rejected(const Json& patch, const char* panel, const std::string& code);
void expect_accepted(const Json& patch);
/// Shows a trained panel, whose first frames fetch its shipped checkpoint (natively: read at once),
/// and expects it installed as the panel's source. Returns the panel's state.
Json open_trained_panel(Driver& d, const char* panel);
/// Frames, one at a time, while `panel` runs: true when some frame after its last step (`last`)
/// showed the run still "training" with `progress` (the end-of-run measurement in slices).
bool run_end_in_slices(Driver& d, const char* panel, int last, const char* progress);
/// A trained panel's run controls: `inputs` start a new run (step 0, idle), Train runs it in slices,
/// a pause holds the step; then each bad input is refused and keeps the paused run and `kept`
/// (inputs that must not change). Returns the step the run paused at.
int expect_train_pause_refuse(Driver& d, const char* panel, const Json& inputs, const std::vector<Json>& bads,
                              const Json& kept);
/// A trained panel's state without what differs between two runs of the same steps in
/// different places (where they ran, the rate, the count of Train presses).
Json run_state(const char* panel = "learned_heads");
/// Runs the panel's run to its end, frame by frame, playing the Worker natively when `worker`
/// (every slice it sends taken by the next frame); the frames it took.
int run_to_end(Driver& d, bool worker, const char* panel = "learned_heads");
/// Every check a lesson panel shows passes (the panels' PASS/FAIL lines).
void expect_checks_pass(const char* panel);

// The checks, in the order headless_test.cpp runs them (each file: one panel or one concern).
void check_defaults(Driver& d, app::App& a);
void check_alignment(Driver& d, app::App& a);
void check_navigation(Driver& d, app::App& a);
void check_random_heads(Driver& d, app::App& a);
void check_permutation(Driver& d, app::App& a);
void check_lesson_panels_draw(Driver& d, app::App& a);
void check_masks(Driver& d, app::App& a);
void check_attribution(Driver& d, app::App& a);
void check_scaling(Driver& d, app::App& a);
void check_language_model(Driver& d, app::App& a);
void check_temperature(Driver& d, app::App& a);
void check_dropout(Driver& d, app::App& a);
void check_additive(Driver& d, app::App& a);
void check_script(Driver& d, app::App& a);
void check_recall(Driver& d, app::App& a);
void check_api(Driver& d, app::App& a);
void check_learned_heads(Driver& d, app::App& a);
void check_throwaway_panel(Driver& d, app::App& a);
void check_translate(Driver& d, app::App& a);
void check_fit(Driver& d, app::App& a);
void check_plot_ticks(Driver& d, app::App& a);
void check_sliders(Driver& d, app::App& a);
void check_colour_maps(Driver& d, app::App& a);
void check_slow_study(Driver& d, app::App& a);
void check_idle_frames(Driver& d, app::App& a);
void check_keyboard(Driver& d, app::App& a);
/// The damage tracker on real frames (frames_test.cpp).
void check_damage(Driver& d, app::App& a);
/// run_end_slice past a run's last step (learned_heads_test.cpp).
void check_run_end_slice();
/// Training in the Worker gives the page's bits (learned_heads_test.cpp).
void check_train_worker(Driver& d, app::App& a);

}  // namespace headless
