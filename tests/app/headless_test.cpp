// Headless ImGui test of the app: no window, no GPU backend.
//
// Builds the font atlas, then runs App::frame() for a few hundred frames on every panel
// at three display sizes while it
//   - sweeps the mouse over everything (tooltips, hover outlines, label thinning),
//   - clicks widgets found by their labels (nav entries, checkboxes, Shuffle, Re-roll),
//   - types into fields (a sentence, "nan" into a weight slider via Ctrl+click),
//   - sends good and bad input through the page API (attn_app_set & co, as the JS does):
//     empty sentence, 600 tokens, 9 heads, a broken permutation, NaN, wrong shapes.
// Fails on: any IM_ASSERT (thrown, see attn_test_imconfig.h), two items with one ID in a
// frame, a bad input that is accepted or does not keep the last good result, a
// non-finite number anywhere in state(), or a good input that is rejected.
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

namespace attn_test {
[[noreturn]] void imgui_assert_failed(const char* expr, const char* file, int line) {
  throw std::logic_error(std::string("IM_ASSERT(") + expr + ") failed at " + file + ":" + std::to_string(line));
}
}  // namespace attn_test

// --- test-engine hooks: which items exist this frame, where, under which label ----------

namespace {
struct Item {
  ImGuiID id;
  ImRect rect;
  std::string label;
};
std::vector<Item> g_items;                  // this frame, in submission order
std::map<ImGuiID, size_t> g_item_index;     // id -> index in g_items
std::vector<std::string> g_id_clashes;
int g_frame = 0;
}  // namespace

void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, const ImRect& bb, ImGuiID id) {
  auto it = g_item_index.find(id);
  if (it != g_item_index.end()) {
    // Same rectangle again is ImGui re-registering one item (e.g. EndChild); a different one is a clash.
    const ImRect& r = g_items[it->second].rect;
    if (r.Min.x != bb.Min.x || r.Min.y != bb.Min.y || r.Max.x != bb.Max.x || r.Max.y != bb.Max.y) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "frame %d: ID 0x%08X used twice (label '%s')", g_frame, id,
                    g_items[it->second].label.c_str());
      g_id_clashes.push_back(buf);
    }
    return;
  }
  g_item_index[id] = g_items.size();
  g_items.push_back(Item{id, bb, ""});
}
void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
  auto it = g_item_index.find(id);
  if (it != g_item_index.end() && label) g_items[it->second].label = label;
}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }

namespace {

int g_failures = 0;
std::string g_step = "start";

void fail(const std::string& what) {
  ++g_failures;
  std::fprintf(stderr, "FAIL [%s, frame %d]: %s\n", g_step.c_str(), g_frame, what.c_str());
}
void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// Keys the driver presses; 1.86 reads keys through io.KeyMap/KeysDown.
enum Key { kEnter = 1, kBackspace, kEscape, kTab, kA };

class Driver {
 public:
  explicit Driver(app::App& a) : app_(a) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyMap[ImGuiKey_Enter] = kEnter;
    io.KeyMap[ImGuiKey_Backspace] = kBackspace;
    io.KeyMap[ImGuiKey_Escape] = kEscape;
    io.KeyMap[ImGuiKey_Tab] = kTab;
    io.KeyMap[ImGuiKey_A] = kA;
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

Json api_state() { return Json::parse(attn_app_state()); }
Json api_set(const Json& patch) { return Json::parse(attn_app_set(attn::dump(patch).c_str())); }

// Every number in `j` is finite (nlohmann keeps NaN as a number; dump would print null).
bool all_finite(const Json& j, std::string* where, const std::string& path = "") {
  if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) {
      *where = path;
      return false;
    }
    return true;
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!all_finite(*it, where, path + "." + it.key())) return false;
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      if (!all_finite(j[i], where, path + "[" + std::to_string(i) + "]")) return false;
  }
  return true;
}

void expect_state_finite() {
  std::string where;
  expect(all_finite(api_state(), &where), "non-finite number in state() at " + where);
}

// A bad input must be refused with `code`, keep the panel's last good result and show the error.
void expect_rejected(const Json& patch, const char* panel, const std::string& code) {
  const Json before = api_state()[panel]["result"];
  const Json reply = api_set(patch);
  expect(reply.value("ok", true) == false, "accepted bad input " + attn::dump(patch));
  if (reply.contains("error")) expect(reply["error"].value("code", "") == code,
                                      "code for " + attn::dump(patch) + ": got " + reply["error"].value("code", "") +
                                          ", want " + code);
  const Json after = api_state()[panel];
  expect(after["result"] == before, std::string("the last good result of ") + panel + " changed after a bad input");
  expect(!after["error"].is_null() || !reply.contains("error") || code == "invalid_field" || code == "invalid_json",
         std::string(panel) + " panel does not show the error");
}

void expect_accepted(const Json& patch) {
  const Json reply = api_set(patch);
  expect(reply.value("ok", false), "rejected good input " + attn::dump(patch) + ": " + attn::dump(reply));
}

// Shows a trained panel, whose first frames fetch its shipped checkpoint (natively: read at once),
// and expects it installed as the panel's source. Returns the panel's state.
Json open_trained_panel(Driver& d, const char* panel) {
  expect(Json::parse(attn_app_show_panel(panel))["ok"] == true, std::string("showPanel ") + panel);
  d.frames(2);
  const Json st = api_state()[panel];
  expect(st["checkpoint"]["status"] == "installed" && st["source"] == "checkpoint",
         std::string(panel) + " opens trained from its checkpoint: " + attn::dump(st["checkpoint"]));
  return st;
}

// Frames, one at a time, while `panel` runs: true when some frame after its last step (`last`)
// showed the run still "training" with `progress` (the end-of-run measurement in slices).
bool run_end_in_slices(Driver& d, const char* panel, int last, const char* progress) {
  bool seen = false;
  for (int guard = 0; api_state()[panel]["running"] == true && guard < 2000; ++guard) {
    d.frames(1);
    const Json x = api_state()[panel];
    if (x["running"] == true && x["step"] == last) seen = seen || (x["status"] == "training" && x.contains(progress));
  }
  return seen;
}

// A trained panel's run controls: `inputs` start a new run (step 0, idle), Train runs it in slices,
// a pause holds the step; then each bad input is refused and keeps the paused run and `kept`
// (inputs that must not change). Returns the step the run paused at.
int expect_train_pause_refuse(Driver& d, const char* panel, const Json& inputs, const std::vector<Json>& bads,
                              const Json& kept) {
  expect_accepted({{panel, inputs}});
  const Json st = api_state()[panel];
  expect(st["step"] == 0 && st["status"] == "idle", std::string(panel) + ": a new input starts over at step 0, not running");
  d.click("Train");
  expect(api_state()[panel]["running"] == true, std::string(panel) + ": Train starts a run");
  d.frames(3);
  expect_accepted({{panel, {{"pause", true}}}});
  const int paused_at = api_state()[panel]["step"].get<int>();
  expect(paused_at >= 1, std::string(panel) + ": the slices advanced the run");
  d.frames(5);
  expect(api_state()[panel]["step"].get<int>() == paused_at, std::string(panel) + ": paused, the step stays");
  for (const Json& bad : bads) {
    const Json reply = api_set({{panel, bad}});
    expect(reply.value("ok", true) == false, std::string("accepted bad ") + panel + " input " + attn::dump(bad));
    const Json after = api_state()[panel];
    bool same = after["step"].get<int>() == paused_at;
    for (const auto& [key, value] : kept.items()) same = same && after["inputs"][key] == value;
    expect(same, std::string(panel) + ": a bad input keeps the run: " + attn::dump(bad));
  }
  expect(!api_state()[panel]["error"].is_null(), std::string(panel) + ": the refusal is shown");
  return paused_at;
}

// A trained panel's state without what differs between two runs of the same steps in
// different places (where they ran, the rate, the count of Train presses).
Json run_state(const char* panel = "learned_heads") {
  Json st = api_state()[panel];
  for (const char* k : {"steps_in", "steps_per_second", "runs"}) st.erase(k);
  return st;
}

// Runs the panel's run to its end, frame by frame, playing the Worker natively when `worker`
// (every slice it sends taken by the next frame); the frames it took.
int run_to_end(Driver& d, bool worker, const char* panel = "learned_heads") {
  int frames = 0;
  for (; api_state()[panel]["running"] == true && frames < 4000; ++frames) {
    if (worker) app::train_worker::run_posted_natively(1);
    d.frames(1);
  }
  return frames;
}

// Training in the Worker gives the page's bits: a run whose steps the Worker takes (handed over
// as state bytes, taken back after each slice, the snapshot steps among them), paused and
// continued on the way, shows the state of the same run stepped in the page's frames. A Worker
// that fails leaves the run where its last state put it and the page's frames finish it.
void check_train_worker(Driver& d, app::App& a) {
  const Json inputs = {{"steps", 230}, {"seed", 5}};
  attn_app_show_panel("learned_heads");
  app::train_worker::set_available(false);
  expect_accepted({{"learned_heads", inputs}});
  expect_accepted({{"learned_heads", {{"train", true}}}});
  run_to_end(d, false);
  const Json in_page = run_state();
  expect(api_state()["learned_heads"]["steps_in"] == "page", "without the Worker the steps run in the page's frames");
  expect(in_page["step"] == 230 && in_page["snapshot_steps"].size() == 4, "the page's run: 230 steps, snapshots 0, 100, 200, 230");

  app::train_worker::set_available(true);
  expect_accepted({{"learned_heads", {{"train", true}}}});
  d.frames(2);
  expect(api_state()["learned_heads"]["steps_in"] == "worker" && api_state()["learned_heads"]["step"] == 0,
         "with the Worker, the page's frames hand the run over and step nothing");
  expect(!app::panels_busy(a.state()), "waiting on the Worker with no state come: the run asks for no frame");
  app::train_worker::run_posted_natively(1);
  expect(app::panels_busy(a.state()), "a state came from the Worker: the run asks for a frame to show it");
  d.frames(1);
  expect(!app::panels_busy(a.state()), "that frame took the state: waiting again");
  const int at = api_state()["learned_heads"]["step"].get<int>();
  expect(at > 0, "the Worker's slices reach the page");
  expect_accepted({{"learned_heads", {{"pause", true}}}});
  app::train_worker::run_posted_natively();  // a stopped run's slices never come
  d.frames(3);
  expect(api_state()["learned_heads"]["step"] == at && api_state()["learned_heads"]["status"] == "paused",
         "paused: the step stays at the Worker's last state taken");
  expect_accepted({{"learned_heads", {{"continue", true}}}});
  run_to_end(d, true);
  Json in_worker = run_state();
  expect(api_state()["learned_heads"]["steps_in"] == "worker", "the run's steps ran in the Worker");
  // The one thing the pause adds: the snapshot of the step it stopped at (unless a snapshot step).
  Json& steps = in_worker["snapshot_steps"];
  if (at % 100 != 0) {
    expect(steps.size() == 5 && steps[1] == at, "the pause took a snapshot at its step");
    if (steps.size() == 5) steps.erase(1);
  }
  in_worker["shown"] = in_page["shown"];
  expect(in_worker == in_page, "the Worker's run shows the page's run, bit for bit (losses, snapshots, maps, interventions)");

  // A Worker that fails mid-run: the page's frames take over from its last state.
  expect_accepted({{"learned_heads", {{"train", true}}}});
  d.frames(1);
  app::train_worker::run_posted_natively(2);
  d.frames(1);
  const int failed_at = api_state()["learned_heads"]["step"].get<int>();
  expect(api_state()["learned_heads"]["running"] == true && failed_at > 0 && failed_at < 230, "a run part-way in the Worker");
  const int id = a.state().learned_heads.run.worker_run;
  expect(id != 0, "the panel knows its Worker run");
  attn_app_train_failed(id, "the worker crashed (a test)");
  expect(!app::train_worker::available() && app::train_worker::failure() == "the worker crashed (a test)",
         "a failure turns the Worker off, saying why");
  run_to_end(d, false);
  expect(api_state()["learned_heads"]["steps_in"] == "page" && run_state() == in_page,
         "after the Worker failed, the page's frames finish the run from its last state, with the same bits");

  // A hidden tab: every slice of the run comes before the page draws a frame. Of the states only
  // the snapshot steps' and the last are kept as they come; the run shows the same bits.
  app::train_worker::set_available(true);
  expect_accepted({{"learned_heads", {{"train", true}}}});
  d.frames(1);  // the run handed over
  const int hidden = a.state().learned_heads.run.worker_run;
  const int slices = app::train_worker::run_posted_natively();
  // At least one slice per snapshot interval (steps 0–100, 100–200, 200–230): slices stop there.
  expect(slices >= 3, "the Worker ran the whole run in slices (" + std::to_string(slices) + ")");
  std::vector<app::train_worker::Message> queued = app::train_worker::take(hidden);
  std::vector<int> queued_steps;
  for (const auto& m : queued) queued_steps.push_back(m.step);
  expect(queued_steps == std::vector<int>{100, 200, 230} && queued.back().done,
         "the queue keeps the snapshot steps' states and the last, not one per slice");
  for (const auto& m : queued)  // given back as they came
    app::train_worker::state_arrived(hidden, m.step, m.done, reinterpret_cast<const std::uint8_t*>(m.state.data()), m.state.size());
  run_to_end(d, false);
  expect(run_state() == in_page, "the run that trained while no frame was drawn shows the page's run, bit for bit");

  // The rehearsal the panel asked for when it first opened with the Worker on (the frame Train
  // handed the run over): step 0 of the run Train starts, so stepped to 100 it gives the bytes
  // of the Worker's state at step 100.
  const std::string& rehearsed = app::train_worker::rehearsed_state("learned_heads");
  expect(!rehearsed.empty(), "the panel had the Worker rehearse its run");
  if (!rehearsed.empty()) {
    app::TrainRunner runner;
    runner.begin(reinterpret_cast<const std::uint8_t*>(rehearsed.data()), rehearsed.size());
    expect(runner.step() == 0, "the rehearsal starts at step 0");
    const std::string at100 = runner.slice(1e9, 100);
    expect(runner.step() == 100 && !queued.empty() && queued.front().step == 100 && at100 == queued.front().state,
           "the rehearsal is of the run Train starts: its state at step 100 is the Worker's, byte for byte");
  }

  // The Translate pair: its parts (steps and validation passes) in the Worker, no sync step.
  const Json pair = {{"steps", 30}, {"seed", 4}};
  attn_app_show_panel("translate");
  d.frames(2);
  {  // opened with the Worker on: it rehearses the default pair's step 0
    const std::string& rehearsed = app::train_worker::rehearsed_state("translate");
    app::TrainRunner runner;
    if (!rehearsed.empty()) runner.begin(reinterpret_cast<const std::uint8_t*>(rehearsed.data()), rehearsed.size());
    expect(!rehearsed.empty() && runner.step() == 0 && !runner.done(), "Translate had the Worker rehearse its step 0");
  }
  app::train_worker::set_available(false);
  expect_accepted({{"translate", pair}});
  expect_accepted({{"translate", {{"train", true}}}});
  run_to_end(d, false, "translate");
  const Json pair_in_page = run_state("translate");
  app::train_worker::set_available(true);
  expect_accepted({{"translate", {{"train", true}}}});
  run_to_end(d, true, "translate");
  expect(api_state()["translate"]["steps_in"] == "worker" && api_state()["translate"]["step"] == 30,
         "the Translate pair's steps ran in the Worker");
  expect(run_state("translate") == pair_in_page, "the pair trained in the Worker shows the page's run, bit for bit");
  app::train_worker::set_available(false);
}

// Every check a lesson panel shows passes (the panels' PASS/FAIL lines).
void expect_checks_pass(const char* panel) {
  const Json st = api_state()[panel];
  const Json& checks = st["result"].contains("checks_shown") ? st["result"]["checks_shown"] : st["result"]["checks"];
  expect(checks.is_array() && !checks.empty(), std::string(panel) + " shows checks");
  for (const Json& c : checks)
    expect(c.value("pass", false), std::string(panel) + ": " + c.value("claim", "?") + " = " + attn::dump(c["measured"]));
}

}  // namespace

// A study of `total` units, one per advance(1); the unit `throws_at` (-1: none) throws.
struct FakeStudy {
  int total = 3, done_units = 0, throws_at = -1;
  int advance(int n) {
    int k = 0;
    for (; k < n && done_units < total; ++k) {
      if (done_units == throws_at) throw attn::Error(attn::ErrorCode::invalid_field, "unit " + std::to_string(done_units));
      ++done_units;
    }
    return k;
  }
  bool done() const { return done_units == total; }
};

// run_end_slice, frame by frame past a run's last step: the run stops when the study is measured,
// when nothing was left to slice, or when a unit throws, and its end (ended: the run's event)
// follows in every case; install only when all units are in.
void check_run_end_slice() {
  struct Outcome {
    int frames = 0, begun = 0, installed = 0, ended = 0;
    std::optional<app::ErrorInfo> error;
  };
  auto run = [](int throws_at, bool slices) {
    Outcome o;
    app::TrainedRun r;
    r.running = true;
    std::shared_ptr<FakeStudy> study;
    int study_step = -1;
    for (; r.running && o.frames < 20; ++o.frames)
      app::run_end_slice(
          o.error, r, study, study_step, 7, 1e9,
          [&] {
            ++o.begun;
            if (!slices) return false;  // measured at once
            study = std::make_shared<FakeStudy>();
            study->throws_at = throws_at;
            study_step = 7;
            return true;
          },
          [&] {
            ++o.installed;
            expect(!r.running, "run_end_slice installs the figures of a stopped run");
          },
          [&] { ++o.ended; });
    expect(!r.running, "run_end_slice stops the run");
    return o;
  };
  // One frame begins, the next measures all 3 units (a budget of 1e9 s), the third installs them.
  Outcome ok = run(-1, true);
  expect(ok.frames == 3 && ok.begun == 1 && ok.installed == 1 && ok.ended == 1 && !ok.error,
         "a measured run end: begun once, installed once, then its end");
  Outcome at_once = run(-1, false);
  expect(at_once.frames == 1 && at_once.installed == 0 && at_once.ended == 1, "nothing to slice: the run ends at once");
  Outcome failed = run(1, true);
  expect(failed.installed == 0 && failed.ended == 1 && failed.error && failed.error->message == "unit 1",
         "a unit that throws: no figures, the error kept, and the run still ends (its event)");
}

// The damage tracker (platform/damage.hpp) on real frames. Independent check: the triangles that
// differ between two frames (a multiset of vertices, texture and clip rectangle) can only colour
// the pixels of their boxes; every such pixel must lie in a damaged rectangle.
struct DrawnTriangle {
  std::string key;  // the three vertices, the texture and the clip rectangle, as bytes
  app::PixelRect box;
};
std::vector<DrawnTriangle> drawn_triangles(const ImDrawData& dd) {
  std::vector<DrawnTriangle> out;
  for (int n = 0; n < dd.CmdListsCount; ++n) {
    const ImDrawList* l = dd.CmdLists[n];
    for (const ImDrawCmd& cmd : l->CmdBuffer) {
      if (cmd.UserCallback) continue;
      // The scissor ImGui's OpenGL3 backend sets: glScissor(x0, fb_h - y1, x1 - x0, y1 - y0), cast to int.
      const ImVec4 c = cmd.ClipRect;
      const int fb_h = static_cast<int>(dd.DisplaySize.y), cx0 = static_cast<int>(c.x);
      const int cy1 = fb_h - static_cast<int>(static_cast<float>(fb_h) - c.w);
      const app::PixelRect clip{cx0, cy1 - static_cast<int>(c.w - c.y), cx0 + static_cast<int>(c.z - c.x), cy1};
      for (unsigned i = 0; i + 2 < cmd.ElemCount; i += 3) {
        DrawnTriangle t;
        float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
        for (int k = 0; k < 3; ++k) {
          const ImDrawVert& v = l->VtxBuffer[static_cast<int>(cmd.VtxOffset + l->IdxBuffer[static_cast<int>(cmd.IdxOffset + i + k)])];
          t.key.append(reinterpret_cast<const char*>(&v), sizeof v);
          x0 = std::min(x0, v.pos.x), x1 = std::max(x1, v.pos.x), y0 = std::min(y0, v.pos.y), y1 = std::max(y1, v.pos.y);
        }
        t.key.append(reinterpret_cast<const char*>(&cmd.TextureId), sizeof cmd.TextureId);
        t.key.append(reinterpret_cast<const char*>(&clip), sizeof clip);
        // Pixels whose centres the triangle can cover (display = framebuffer pixels here).
        t.box = app::PixelRect{std::max(clip.x0, static_cast<int>(std::floor(x0))), std::max(clip.y0, static_cast<int>(std::floor(y0))),
                               std::min(clip.x1, static_cast<int>(std::ceil(x1))), std::min(clip.y1, static_cast<int>(std::ceil(y1)))};
        out.push_back(std::move(t));
      }
    }
  }
  return out;
}

// Pixels of the changed triangles' boxes that no damaged rectangle covers (0 when the damage is right),
// and how many triangles changed.
std::pair<long long, int> undamaged_changes(const std::vector<DrawnTriangle>& a, const std::vector<DrawnTriangle>& b,
                                            const std::vector<app::PixelRect>& rects, int w, int h) {
  std::multiset<std::string> in_a, in_b;
  for (const DrawnTriangle& t : a) in_a.insert(t.key);
  for (const DrawnTriangle& t : b) in_b.insert(t.key);
  long long missed = 0;
  int changed = 0;
  auto check = [&](const std::vector<DrawnTriangle>& side, const std::multiset<std::string>& other) {
    std::map<std::string, int> used;
    for (const DrawnTriangle& t : side) {
      if (++used[t.key] <= static_cast<int>(other.count(t.key))) continue;  // also in the other frame
      ++changed;
      for (int y = std::max(0, t.box.y0); y < std::min(h, t.box.y1); ++y)
        for (int x = std::max(0, t.box.x0); x < std::min(w, t.box.x1); ++x) {
          bool covered = false;
          for (const app::PixelRect& r : rects) covered = covered || (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1);
          if (!covered) ++missed;
        }
    }
  };
  check(a, in_b);
  check(b, in_a);
  return {missed, changed};
}

void check_damage(Driver& d, app::App& a) {
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const int w = static_cast<int>(size.x), h = static_cast<int>(size.y);
  const ImVec4 bg(0.97f, 0.97f, 0.95f, 1.0f);
  app::DamageTracker t;
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  d.frames(3);
  auto frame = [&]() {
    ImDrawData* dd = ImGui::GetDrawData();
    expect(dd && app::exact_pixel_mapping(*dd), "the headless frames map display to framebuffer pixels exactly");
    app::snap_clip_rects(*dd);
    return dd;
  };
  std::vector<app::PixelRect> r = t.update(*frame(), w, h, bg);
  expect(r.size() == 1 && r[0].x0 == 0 && r[0].y0 == 0 && r[0].x1 == w && r[0].y1 == h, "the first frame is damaged whole");
  std::vector<DrawnTriangle> before = drawn_triangles(*frame());
  d.frame();
  r = t.update(*frame(), w, h, bg);
  expect(r.empty(), "a frame that repeats the last one damages nothing");
  expect(undamaged_changes(before, drawn_triangles(*frame()), r, w, h).second == 0, "...and no triangle changed");

  // Hover the navigation's third entry: a highlight and nothing else.
  ImGui::GetIO().MousePos = ImVec2(120.0f, 245.0f);
  d.frames(2);
  r = t.update(*frame(), w, h, bg);
  const std::vector<DrawnTriangle> after = drawn_triangles(*frame());
  const auto [missed, changed] = undamaged_changes(before, after, r, w, h);
  long long area = 0;
  for (const app::PixelRect& x : r) area += x.area();
  expect(changed > 0 && !r.empty(), "hovering an entry changes triangles and damages pixels");
  expect(missed == 0, "every pixel a changed triangle can colour is damaged (" + std::to_string(missed) + " missed)");
  expect(area * 10 < static_cast<long long>(w) * h, "a hover damages a small part of the frame, not all of it");
  expect(r.size() <= static_cast<size_t>(app::DamageTracker::kMaxRects), "at most kMaxRects rectangles");
  const auto disjoint = [](const std::vector<app::PixelRect>& rs) {
    for (size_t i = 0; i < rs.size(); ++i)
      for (size_t j = i + 1; j < rs.size(); ++j)
        if (std::max(rs[i].x0, rs[j].x0) < std::min(rs[i].x1, rs[j].x1) && std::max(rs[i].y0, rs[j].y0) < std::min(rs[i].y1, rs[j].y1))
          return false;
    return true;
  };
  expect(disjoint(r), "the damaged rectangles are disjoint (each pixel is cleared and drawn once)");

  // A panel switch: far more changes, still all of them inside the damage.
  before = after;
  app::show_panel(a.state(), "masks");
  d.frames(2);
  r = t.update(*frame(), w, h, bg);
  const auto [missed2, changed2] = undamaged_changes(before, drawn_triangles(*frame()), r, w, h);
  expect(changed2 > 100 && missed2 == 0, "a panel switch: every changed triangle's pixels damaged");
  expect(disjoint(r), "a panel switch's damaged rectangles are disjoint");
  d.frame();
  expect(t.update(*frame(), w, h, bg).empty(), "...and the next frame damages nothing again");

  // Everything again: another background, another framebuffer size, invalidate().
  d.frame();
  r = t.update(*frame(), w, h, ImVec4(0, 0, 0, 1));
  expect(r.size() == 1 && r[0].area() == static_cast<long long>(w) * h, "a new background damages every tile");
  d.frame();
  r = t.update(*frame(), w - 10, h, ImVec4(0, 0, 0, 1));
  expect(r.size() == 1 && r[0].x1 == w - 10, "a resized framebuffer is damaged whole");
  t.invalidate();
  d.frame();
  expect(t.update(*frame(), w - 10, h, ImVec4(0, 0, 0, 1)).size() == 1, "invalidate(): whole again");
  // A draw callback the tracker cannot describe may paint anywhere: the whole frame.
  d.frame();
  ImDrawData* dd = frame();
  ImDrawList* list = dd->CmdLists[0];
  ImDrawCmd cb;
  cb.UserCallback = [](const ImDrawList*, const ImDrawCmd*) {};
  cb.ClipRect = ImVec4(0, 0, 10, 10);
  list->CmdBuffer.push_back(cb);
  r = t.update(*dd, w - 10, h, ImVec4(0, 0, 0, 1));
  list->CmdBuffer.pop_back();
  expect(r.size() == 1 && r[0].area() == static_cast<long long>(w - 10) * h, "an unknown callback damages the whole frame");
  // The same callback described: only its own rectangle.
  list->CmdBuffer.push_back(cb);
  app::CallbackDescriber known = [](const ImDrawCmd&) {
    app::CallbackFootprint f;
    f.known = true;
    f.hash = 42;
    f.rect = ImVec4(0, 0, 10, 10);
    return f;
  };
  t.update(*dd, w - 10, h, ImVec4(0, 0, 0, 1), known);
  r = t.update(*dd, w - 10, h, ImVec4(0, 0, 0, 1), [](const ImDrawCmd&) {
    app::CallbackFootprint f;
    f.known = true;
    f.hash = 43;  // its texture or uniforms changed
    f.rect = ImVec4(0, 0, 10, 10);
    return f;
  });
  list->CmdBuffer.pop_back();
  expect(r.size() == 1 && r[0].x0 == 0 && r[0].y0 == 0 && r[0].x1 == app::DamageTracker::kTile &&
             r[0].y1 == app::DamageTracker::kTile,
         "a described callback whose paint changed damages the tile it paints");

  // Hand-made frames, on tile boundaries (tiles of 32 pixels): which tiles each change reaches.
  struct Fill {
    float x0, y0, x1, y1;
    ImU32 col;
  };
  auto damage_of = [&](app::DamageTracker& tr, const std::vector<Fill>& fills) {
    ImDrawList list(ImGui::GetDrawListSharedData());
    list._ResetForNewFrame();
    list.PushClipRect(ImVec2(0, 0), ImVec2(256, 256));
    list.PushTextureID(ImGui::GetIO().Fonts->TexID);
    for (const Fill& f : fills) list.AddRectFilled(ImVec2(f.x0, f.y0), ImVec2(f.x1, f.y1), f.col);
    ImDrawList* lists[] = {&list};
    ImDrawData data;
    data.Valid = true;
    data.CmdLists = lists;
    data.CmdListsCount = 1;
    data.DisplayPos = ImVec2(0, 0);
    data.DisplaySize = ImVec2(256, 256);
    data.FramebufferScale = ImVec2(1, 1);
    app::snap_clip_rects(data);
    return tr.update(data, 256, 256, bg);
  };
  auto covers = [](const std::vector<app::PixelRect>& rs, int x, int y) {
    for (const app::PixelRect& q : rs)
      if (x >= q.x0 && x < q.x1 && y >= q.y0 && y < q.y1) return true;
    return false;
  };
  const ImU32 red = IM_COL32(200, 30, 30, 255), blue = IM_COL32(30, 30, 200, 255);
  app::DamageTracker hand;
  damage_of(hand, {{40, 40, 80, 80, red}});
  expect(damage_of(hand, {{40, 40, 80, 80, red}}).empty(), "hand-made: the same rectangle again damages nothing");
  r = damage_of(hand, {{40, 40, 80, 80, blue}});
  area = 0;
  for (const app::PixelRect& x : r) area += x.area();
  expect(area == 64 * 64 && covers(r, 32, 32) && covers(r, 95, 95),
         "hand-made: a new colour alone damages exactly the 2×2 tiles the rectangle lies on");
  damage_of(hand, {{40, 40, 63, 60, blue}});
  r = damage_of(hand, {{40, 40, 65, 60, blue}});
  expect(covers(r, 64, 40), "hand-made: a right edge moved past x = 64 damages the next tile (pixel 64 is painted)");
  damage_of(hand, {{40, 40, 100, 60, red}, {70, 40, 130, 60, blue}});
  r = damage_of(hand, {{70, 40, 130, 60, blue}, {40, 40, 100, 60, red}});
  expect(covers(r, 80, 45) && !covers(r, 20, 45) && !covers(r, 140, 45),
         "hand-made: two overlapping rectangles drawn in the other order damage where they overlap, not beside them");
  // Five damaged regions (tiles): A (0,0), B (0,2), X row 1 across tiles 0-4, D (7,0), E (7,7). The
  // cheapest pair to merge down to kMaxRects is A and B, whose box covers part of X: X joins them.
  const std::vector<Fill> five = {{4, 4, 28, 28, red}, {4, 68, 28, 92, red}, {4, 36, 156, 60, red}, {228, 4, 252, 28, red},
                                  {228, 228, 252, 252, red}};
  std::vector<Fill> five_blue = five;
  for (Fill& f : five_blue) f.col = blue;
  damage_of(hand, five);
  r = damage_of(hand, five_blue);
  bool all_covered = true;
  for (const Fill& f : five) all_covered = all_covered && covers(r, static_cast<int>(f.x0), static_cast<int>(f.y0));
  expect(all_covered && r.size() == 3 && disjoint(r),
         "hand-made: a merged box that overlaps another damaged rectangle takes it in (3 disjoint rectangles, " +
             std::to_string(r.size()) + " given)");

  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  app::show_panel(a.state(), "alignment");
  d.frames(2);
}

int main() {
  try {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1800);  // tall, so every widget is on screen and clickable

    app::NullHeatmapGpu gpu;
    app::App a(gpu);
    app::set_api_app(&a);
    a.ensure_fonts(1.0f);
    unsigned char* pixels = nullptr;
    int tw = 0, th = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &tw, &th);
    expect(pixels && tw > 0 && th > 0, "font atlas did not build");
    Driver d(a);

    // --- defaults match the lesson
    g_step = "defaults";
    d.frames(3);
    Json s = api_state();
    expect(s["panel"] == "alignment", "starts on the alignment panel");
    const Json ctx = s["alignment"]["result"]["contexts"][1];
    expect(std::fabs(ctx[0].get<double>() - 1.7) < 1e-12 && std::fabs(ctx[1].get<double>() - 0.1) < 1e-12,
           "chat context is (1.7, 0.1)");
    expect(s["heads"]["result"]["tokens"].size() == 6, "default sentence has 6 tokens");
    expect(s["permutation"]["result"]["max_diff"].get<double>() < 1e-12, "default permutation is equivariant");
    expect_state_finite();
    g_step = "damage tracking";
    check_damage(d, a);
    g_step = "defaults";

    // --- alignment: hover, select rows by clicking, edit weights, NaN typed into a slider
    g_step = "alignment";
    d.sweep(41);
    d.click("noir");  // radio button
    expect(api_state()["alignment"]["selected_row"] == 2, "radio 'noir' selects row 2");
    d.click("##w", 0);  // a weight slider: click sets it somewhere; the row must stay a distribution
    s = api_state();
    double sum = 0;
    for (const Json& w : s["alignment"]["result"]["weights"][0]) sum += w.get<double>();
    expect(std::fabs(sum - 1.0) < 1e-9, "row 0 still sums to 1 after a slider click");
    const Json good_align = s["alignment"]["result"];
    // Ctrl+click turns the slider into a text field with everything selected. ImGui's
    // scientific-number filter drops the letters of "nan"; "1e999" gets through as infinity.
    d.click("##w", 4, /*ctrl=*/true);
    d.type("nan");
    expect(api_state()["alignment"]["result"] == good_align, "typing nan changes nothing");
    d.type("1e99");  // finite: clamped to 1 by the core, the row rescales
    const Json before_inf = api_state()["alignment"]["result"];
    expect(before_inf["weights"][1][1] == 1.0, "a weight typed past 1 is clamped to 1");
    d.type("9");     // 1e999 reads as infinity
    d.press(kEnter);
    s = api_state();
    expect(!s["alignment"]["error"].is_null() && s["alignment"]["error"]["code"] == "non_finite",
           "an infinite weight typed into a slider is reported as non_finite");
    expect(s["alignment"]["result"] == before_inf, "a non-finite weight keeps the last good result");
    expect(!app::set_alignment_weight(a.state(), 1, 1, NAN), "NaN weight rejected (the slider's setter)");
    expect(api_state()["alignment"]["error"]["code"] == "non_finite", "NaN weight reported as non_finite");
    app::AppState& st = a.state();
    expect(!app::set_alignment_value(st, 0, 0, NAN), "NaN value rejected");
    expect(!app::set_alignment_value(st, 9, 0, 1.0), "value index out of range rejected");
    expect(!app::set_alignment_weight(st, -1, 0, 0.5), "weight index out of range rejected");
    expect_rejected({{"alignment", {{"weights", {{0.5, 0.5}, {1, 0}}}}}}, "alignment", "shape_mismatch");
    expect_rejected({{"alignment", {{"weights", {{0.9, 0.9, 0.1}, {0.1, 0.1, 0.8}, {0.1, 0.8, 0.1}}}}}}, "alignment",
                    "invalid_field");
    expect_accepted({{"alignment", {{"selected_row", 99}}}});
    expect(api_state()["alignment"]["selected_row"] == 2, "selected_row clamps into range");
    d.frames(5);
    d.click("Reset to the lesson's numbers");
    expect(api_state()["alignment"]["error"].is_null(), "reset clears the error");
    expect_state_finite();

    // --- navigation by clicking the sidebar
    g_step = "nav";
    d.click("##nav", 1);
    expect(api_state()["panel"] == "heads", "second nav entry opens the heads panel");

    // --- random heads
    g_step = "heads";
    d.sweep(47);
    d.click("causal mask");
    expect(api_state()["heads"]["inputs"]["causal"] == true, "causal checkbox");
    d.click("key padding");
    expect(api_state()["heads"]["inputs"]["key_padding"] == true, "key padding checkbox");
    d.click("sinusoidal");
    expect(api_state()["heads"]["inputs"]["positions"] == "sinusoidal", "sinusoidal radio");
    d.click("RoPE");
    expect(api_state()["heads"]["inputs"]["positions"] == "rope", "RoPE radio");
    d.click("Re-roll");
    expect(api_state()["heads"]["inputs"]["seed"] == 18, "Re-roll advances the seed");
    d.click("sentence");
    d.type(" again");
    expect(api_state()["heads"]["result"]["tokens"].size() == 7, "typing a word adds a token");
    d.press(kEnter);
    for (int h = 1; h <= 8; ++h) {
      expect_accepted({{"heads", {{"heads", h}}}});
      d.frames(2);
    }
    expect(api_state()["heads"]["result"]["heads"].size() == 8, "8 heads drawn");
    d.sweep(97);
    expect_rejected({{"heads", {{"sentence", ""}}}}, "heads", "empty_sequence");
    std::string long_sentence;
    for (int i = 0; i < 600; ++i) long_sentence += "w" + std::to_string(i % 50) + " ";
    expect_rejected({{"heads", {{"sentence", long_sentence}}}}, "heads", "too_large");
    d.frames(3);
    expect_rejected({{"heads", {{"heads", 9}}}}, "heads", "invalid_field");
    expect_rejected({{"heads", {{"d_model", 0}}}}, "heads", "invalid_field");
    expect_rejected({{"heads", {{"valid_length", 0}}}}, "heads", "invalid_field");
    expect_rejected({{"heads", {{"seed", -3}}}}, "heads", "invalid_field");
    expect_rejected({{"heads", {{"nonsense", 1}}}}, "heads", "invalid_field");
    d.frames(3);
    // A large but allowed input: 512 tokens, 8 heads (labels thin out, cells shrink).
    std::string big;
    for (int i = 0; i < 512; ++i) big += "t" + std::to_string(i % 97) + " ";
    expect_accepted({{"heads", {{"sentence", big}, {"heads", 8}, {"causal", false}, {"key_padding", false}}}});
    d.frames(2);
    d.sweep(173);
    expect_accepted({{"heads", {{"sentence", "The cat sat on the mat"}, {"heads", 2}}}});
    expect_state_finite();

    // --- permutation
    g_step = "permutation";
    d.click("##nav", 2);
    expect(api_state()["panel"] == "permutation", "third nav entry opens the permutation panel");
    d.sweep(53);
    d.click("Shuffle");
    d.click("causal mask");
    s = api_state();
    expect(s["permutation"]["result"]["max_diff"].get<double>() > 1e-3, "causal mask breaks equivariance");
    d.click("causal mask");
    d.click("sinusoidal");
    s = api_state();
    expect(s["permutation"]["result"]["max_diff"].get<double>() > 1e-3, "positions break equivariance");
    d.click("RoPE");
    s = api_state();
    expect(s["permutation"]["inputs"]["positions"] == "rope", "RoPE radio in the permutation panel");
    expect(s["permutation"]["result"]["max_diff"].get<double>() > 1e-3, "RoPE breaks equivariance");
    d.click("no positions");
    s = api_state();
    expect(s["permutation"]["symmetry"]["pooled_diff"].get<double>() < 1e-12, "mean pooling is invariant");
    expect_rejected({{"permutation", {{"permutation", {0, 0, 1, 2, 3, 4}}}}}, "permutation", "invalid_field");
    expect_rejected({{"permutation", {{"permutation", {0, 1, 2}}}}}, "permutation", "invalid_field");
    expect_rejected({{"permutation", {{"permutation", "2 0 x"}}}}, "permutation", "invalid_field");
    expect_rejected({{"permutation", {{"query", 6}}}}, "permutation", "invalid_field");
    d.frames(3);
    expect_accepted({{"permutation", {{"permutation", {2, 0, 5, 1, 4, 3}}}}});
    expect(api_state()["permutation"]["result"]["max_diff"].get<double>() < 1e-12, "unmasked, no positions: equal");
    // A sentence of another length draws a fitting permutation.
    expect_accepted({{"permutation", {{"sentence", "a b c d e f g h i j"}}}});
    expect(api_state()["permutation"]["inputs"]["permutation"].size() == 10, "permutation follows the sentence");
    d.click("permutation P");
    d.type(",");  // "... ," still parses; the field stays usable
    d.press(kEnter);
    expect_state_finite();

    // --- the lesson-claim panels: draw, click, feed good and bad input
    g_step = "lesson panels";
    for (const char* p : {"masks", "attribution", "scaling", "temperature", "dropout", "additive", "script"}) {
      expect(Json::parse(attn_app_show_panel(p))["ok"] == true, std::string("showPanel ") + p);
      d.sweep(59);
      expect_checks_pass(p);
    }

    g_step = "masks";
    attn_app_show_panel("masks");
    d.click("policy: zero");
    expect(api_state()["masks"]["inputs"]["zero_policy"] == true, "zero policy radio");
    d.click("Allow everything");
    expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == false, "nothing masked: accepted");
    d.click("Mask every key of \"cat\"");
    expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == true, "an empty row: refused");
    expect_accepted({{"masks", {{"from", 2}, {"amount", -250}, {"valid_length", 3}, {"tq", 2}, {"tk", 6}}}});
    expect(api_state()["masks"]["result"]["prefix"]["causal_prefix_change"] == 0.0, "prefix change exactly 0");
    expect_accepted({{"masks", {{"toggle", {0, 0}}}}});
    expect_rejected({{"masks", {{"from", 0}}}}, "masks", "invalid_field");
    expect_rejected({{"masks", {{"amount", NAN}}}}, "masks", "invalid_field");  // JSON has no NaN: null
    expect(!app::set_masks_prefix(a.state().masks, 3, NAN), "NaN perturbation refused (the slider's setter)");
    expect(api_state()["masks"]["error"]["code"] == "non_finite", "NaN perturbation reported as non_finite");
    expect_rejected({{"masks", {{"valid_length", 0}}}}, "masks", "invalid_field");
    expect_rejected({{"masks", {{"tq", 0}}}}, "masks", "invalid_field");
    expect_rejected({{"masks", {{"empty_allowed", {{true, false}}}}}}, "masks", "shape_mismatch");
    expect_rejected({{"masks", {{"toggle", {9, 0}}}}}, "masks", "invalid_field");
    expect_rejected({{"masks", {{"nonsense", 1}}}}, "masks", "invalid_field");
    d.frames(3);
    expect_checks_pass("masks");

    g_step = "attribution";
    attn_app_show_panel("attribution");
    d.click("the counterexample");
    expect(api_state()["attribution"]["result"]["row"]["output"][1].get<double>() > 0.19, "counterexample row");
    d.click("le chat noir: the \"chat\" row");
    d.click("##w", 1);  // a weight slider: the row must stay a distribution
    s = api_state();
    sum = 0;
    for (const Json& w : s["attribution"]["inputs"]["weights"]) sum += w.get<double>();
    expect(std::fabs(sum - 1.0) < 1e-9, "attribution row still sums to 1 after a slider click");
    d.click("black");
    expect(api_state()["attribution"]["inputs"]["selected_key"] == 1, "key radio selects");
    expect_accepted({{"attribution", {{"weights", {0.5, 0.25, 0.25}}, {"values", {{0, 0}, {4, 0}, {0, 4}}}}}});
    expect_rejected({{"attribution", {{"weights", {0.5, 0.6, 0.1}}}}}, "attribution", "invalid_field");
    expect_rejected({{"attribution", {{"values", {{0, 0}, {1, 1}}}}}}, "attribution", "shape_mismatch");
    expect(!app::set_attribution_weight(a.state(), 0, NAN), "NaN weight refused");
    expect(api_state()["attribution"]["error"]["code"] == "non_finite", "NaN weight reported as non_finite");
    expect(!app::set_attribution_value(a.state(), 0, 1, INFINITY), "infinite value refused");
    expect(!app::set_attribution_value(a.state(), 7, 0, 1.0), "value index out of range refused");
    expect_rejected({{"attribution", {{"preset", "nope"}}}}, "attribution", "invalid_field");
    expect_accepted({{"attribution", {{"preset", "chat"}}}});
    d.sweep(71);

    g_step = "scaling";
    attn_app_show_panel("scaling");
    expect(api_state()["scaling"]["result"]["curve"]["dot"].size() == 10, "the study runs when the panel is shown");
    d.click("d_k");  // a click on the slider's middle: applied on release
    expect(api_state()["scaling"]["inputs"]["d_k"] != 64, "the d_k slider applies on release");
    expect_accepted({{"scaling", {{"d_k", 512}}}});
    d.frames(2);
    expect_accepted({{"scaling", {{"d_k", 1}}}});
    expect_rejected({{"scaling", {{"d_k", 600}}}}, "scaling", "invalid_field");
    expect_rejected({{"scaling", {{"samples", 1}}}}, "scaling", "invalid_field");
    expect_rejected({{"scaling", {{"samples", 90000}}}}, "scaling", "too_large");
    expect_rejected({{"scaling", {{"logits", Json::array()}}}}, "scaling", "empty_sequence");
    expect(!app::set_scaling_logits(a.state(), {1.0, NAN}), "NaN logit refused");
    expect(api_state()["scaling"]["error"]["code"] == "non_finite", "NaN logit reported as non_finite");
    expect_accepted({{"scaling", {{"logits", {1000, 1001, 990}}, {"d_k", 64}}}});
    d.sweep(83);
    expect_checks_pass("scaling");

    g_step = "temperature";
    attn_app_show_panel("temperature");
    d.click("\xCF\x84 = 0.1");
    expect(api_state()["temperature"]["inputs"]["temperature"] == 0.1, "tau preset button");
    expect_accepted({{"temperature", {{"hard", true}}}});
    expect(api_state()["temperature"]["result"]["hard"] == true, "argmax mode");
    d.sweep(89);
    expect_rejected({{"temperature", {{"hard", false}, {"temperature", 0}}}}, "temperature", "invalid_field");
    expect_rejected({{"temperature", {{"hard", false}, {"temperature", -1}}}}, "temperature", "invalid_field");
    expect(!app::set_temperature(a.state().temperature, NAN, false), "NaN temperature refused");
    expect_accepted({{"temperature", {{"hard", false}, {"temperature", 1}}}});
    expect_checks_pass("temperature");

    g_step = "dropout";
    attn_app_show_panel("dropout");
    d.click("p = 0");
    expect(api_state()["dropout"]["inputs"]["p"] == 0.0, "p = 0 button");
    expect_checks_pass("dropout");
    d.click("p = 1");
    expect_checks_pass("dropout");
    d.click("New mask");
    expect_rejected({{"dropout", {{"p", 1.5}}}}, "dropout", "invalid_field");
    expect_rejected({{"dropout", {{"seed", -1}}}}, "dropout", "invalid_field");
    expect_accepted({{"dropout", {{"p", 0.25}, {"seed", 17}}}});
    expect_checks_pass("dropout");

    g_step = "additive";
    attn_app_show_panel("additive");
    d.click("next step >");
    d.click("next step >");
    expect(api_state()["additive"]["step"] == 2, "stepping to the last target word");
    expect_accepted({{"additive", {{"step", 99}}}});
    expect(api_state()["additive"]["step"] == 2, "step clamps into range");
    expect_rejected({{"additive", {{"source", " "}}}}, "additive", "empty_sequence");
    expect_rejected({{"additive", {{"d_h", 0}}}}, "additive", "invalid_field");
    expect_accepted({{"additive", {{"d_s", 3}}}});  // no comparison of scores, the panel says why
    d.sweep(97);
    expect_accepted({{"additive", {{"d_s", 4}, {"source", "the black cat"}, {"step", 0}}}});
    expect_checks_pass("additive");

    // The trained view: the Translate panel's attention model (its shipped checkpoint, fetched as
    // when the Translate panel opens; natively read at once), then back to the seeded demo.
    {
      expect(api_state()["additive"]["view"] == "untrained", "the Additive panel opens untrained");
      d.click("trained translator (Translate panel's attention model)###trained_view");
      d.frames(2);
      Json tv = api_state()["additive"];
      expect(tv["view"] == "trained" && tv["trained"]["result"].is_object(),
             "the trained view reads the translator: " + attn::dump(tv["trained"]["status"]));
      expect(tv["trained"]["source"] == "checkpoint" && tv["trained"]["pending"] == false, "from the shipped checkpoint");
      expect(api_state()["translate"]["checkpoint"]["status"] == "installed", "the Translate panel's checkpoint installed");
      const Json& w = tv["trained"]["result"]["attention"]["weights"];
      double sum = 0.0;
      for (const Json& x : w) sum += x.get<double>();
      expect(w.size() == 3 && std::fabs(sum - 1.0) <= 1e-12, "the trained weights sum to 1");
      for (const Json& c : tv["trained"]["checks_shown"])
        expect(c.value("pass", false), "additive trained: " + c.value("claim", "?"));
      const Json row = api_state()["translate"]["alignment"]["weights"][0];  // "the black cat", step 0
      for (size_t j = 0; j < 3; ++j)
        expect(std::fabs(row[j].get<double>() - w[j].get<double>()) <= 1e-12, "equal to the Translate panel's row");
      d.click("next step >##trained");
      tv = api_state()["additive"]["trained"];
      expect(tv["step"] == 1 && tv["result"]["target_word"] == "chat" && tv["result"]["previous_word"] == "le",
             "stepping the trained walk: " + attn::dump(tv["result"]["target_word"]));
      expect_accepted({{"additive", {{"sentence", "a big white mouse"}, {"trained_step", 3}}}});
      tv = api_state()["additive"]["trained"];
      expect(tv["result"]["target_word"] == "blanche" && tv["steps"] == 5, "a typed sentence, its step 3");
      const Json before = tv["result"];
      const Json reply = api_set({{"additive", {{"sentence", "the black zebra"}}}});
      expect(reply.value("ok", true) == false && reply["error"].value("code", "") == "invalid_field",
             "an unknown word is refused: " + attn::dump(reply));
      expect(api_state()["additive"]["trained"]["result"] == before && !api_state()["additive"]["error"].is_null(),
             "the last good trained read is kept, with the message");
      expect_accepted({{"additive", {{"feed", "greedy"}, {"trained_step", 99}}}});
      tv = api_state()["additive"]["trained"];
      expect(tv["step"].get<int>() == tv["steps"].get<int>() - 1, "the trained step clamps into the greedy walk");
      expect_rejected({{"additive", {{"view", "half"}}}}, "additive", "invalid_field");
      d.sweep(97);
      d.click("untrained (random encoder states)");
      expect(api_state()["additive"]["view"] == "untrained", "back to the seeded demo");
      expect_checks_pass("additive");
      expect_accepted({{"additive", {{"sentence", "the black cat"}, {"feed", "teacher_forced"}, {"trained_step", 0}}}});
    }

    g_step = "script";
    attn_app_show_panel("script");
    d.click("Run the fixture again");
    expect(api_state()["script"]["inputs"]["runs"] == 2, "the fixture ran again");
    expect_checks_pass("script");
    d.click("Show it in the Random-init heads panel");
    s = api_state();
    expect(s["panel"] == "heads" && s["heads"]["inputs"]["init"] == "torch_replica", "replica opens in the heads panel");
    expect(s["heads"]["result"]["heads"].size() == 1, "one head, as the script");
    expect_rejected({{"heads", {{"init", "tensorflow"}}}}, "heads", "invalid_field");
    expect_rejected({{"heads", {{"heads", 8}, {"d_k", 512}}}}, "heads", "invalid_field");
    expect_accepted({{"heads", {{"init", "core"}, {"heads", 2}, {"d_k", 4}, {"positions", "rope"}}}});
    expect_accepted({{"heads", {{"positions", "none"}}}});

    g_step = "recall";
    const Json tasks = api_state()["recall"]["tasks"];
    expect(tasks.size() >= 10, "recall tasks listed");
    for (const Json& t : tasks) {
      const std::string id = t["id"];
      if (t["kind"] == "predict") {
        for (size_t c = 0; c < t["choices"].size(); ++c) expect_accepted({{"recall", {{"task", id}, {"choice", c}}}});
      } else {
        expect_accepted({{"recall", {{"task", id}}}});
      }
      expect(!api_state()["recall"]["result"]["answers"][id]["verdict"].is_null(), "a verdict for " + id);
    }
    expect_rejected({{"recall", {{"task", "no.such.task"}}}}, "recall", "invalid_field");
    expect_rejected({{"recall", {{"task", "scaling.variance"}, {"choice", 7}}}}, "recall", "invalid_field");
    attn_app_show_panel("attribution");
    d.click("Check what the panel shows", 0);
    attn_app_show_panel("scaling");
    expect(Json::parse(attn_app_take_events()).is_array(), "the loop above answered: its events are a list");
    expect(attn_app_pending_events() == 0, "taking the events empties the queue");
    const ImVec2 display = io.DisplaySize;
    io.DisplaySize.y = 2600;  // the recall strip ends the panel: all of it on screen
    d.frames(3);
    d.click("64");
    expect(api_state()["recall"]["result"]["answers"]["scaling.variance"]["verdict"]["pass"] == true, "64 is right");
    {
      // The click is one "answered" host event, shaped for an xAPI statement.
      const Json events = Json::parse(attn_app_take_events());
      expect(events.size() == 1, "one answered event per answer");
      const Json& ev = events.at(0);
      expect(ev["type"] == "answered" && ev["panel"] == "scaling" && ev["question"] == "scaling.variance" &&
                 ev["choice"] == 2 && ev["answer"] == "64" && ev["correct"] == true,
             "answered: " + ev.dump());
      expect(attn_app_content_height() > 0.0, "the panel's content height is measured");
    }
    io.DisplaySize = display;
    d.frames(2);
    expect_state_finite();

    // --- API edge cases
    g_step = "api";
    expect(Json::parse(attn_app_set("{not json"))["ok"] == false, "malformed JSON refused");
    expect(Json::parse(attn_app_show_panel("nope"))["ok"] == false, "unknown panel refused");
    expect(Json::parse(attn_app_show_panel("heads"))["ok"] == true, "showPanel heads");
    const Json c = Json::parse(attn_app_compute(R"({"op":"attention","query":[[1,0]],"key":[[1,0],[0,1]],"value":[[1],[2]]})"));
    expect(c.contains("weights") && c["weights"][0].size() == 2, "compute runs the JSON case contract");
    const Json bad = Json::parse(attn_app_compute(R"({"op":"attention","query":[]})"));
    expect(bad.contains("error"), "compute reports a bad case as an error object");

    // --- the Learned heads panel: training in per-frame slices, snapshots, interventions, refusals
    g_step = "learned heads";
    check_run_end_slice();
    {
      Json ck = open_trained_panel(d, "learned_heads");
      expect(ck["step"] == 1800 && ck["status"] == "done", "the checkpoint is the finished run");
      expect(ck["params_fnv1a"] == ck["checkpoint"]["params_fnv1a"], "the installed parameters are the checkpoint's");
      expect(ck["latest"]["accuracy"].get<double>() >= 0.9, "the shipped run predicts the repeat");
      expect(ck["snapshot_steps"].size() == 19 && ck["interventions"]["step"] == 1800,
             "its 19 snapshots and the interventions at step 1800");
      d.sweep(71);  // the trained run: maps of step 1800 beside step 0, interventions
      expect_accepted({{"learned_heads", {{"snapshot", 5}}}});
      d.sweep(71);  // a middle step: scores only (its maps were not shipped)
      expect_accepted({{"learned_heads", {{"reset", true}}}});
      ck = api_state()["learned_heads"];
      expect(ck["step"] == 0 && ck["source"] == "untrained" && ck["checkpoint"]["status"] == "installed",
             "Reset goes back to step 0 and does not fetch again");
      d.sweep(71);  // step 0: maps, no interventions yet
      // Bad inputs are refused and keep the run.
      const int paused_at = expect_train_pause_refuse(
          d, "learned_heads", {{"steps", 130}, {"seed", 5}},
          {Json{{"heads", 3}}, Json{{"steps", 0}}, Json{{"layers", 4}}, Json{{"mlp", 7}}, Json{{"lr", -1}},
           Json{{"positions", "alibi"}}, Json{{"vocab", 1}}, Json{{"run_max", 20}}, Json{{"run_min", 1}},
           Json{{"run_min", 9}, {"run_max", 8}}},
          {{"heads", 4}, {"steps", 130}});
      expect_accepted({{"learned_heads", {{"interventions", true}, {"ablate", {0, 1}}, {"ablate_mode", "mean"}}}});
      Json lh = api_state()["learned_heads"];
      expect(lh["interventions"].is_object() && lh["interventions"]["step"] == paused_at, "interventions on demand");
      expect(lh["combined"].is_object() && lh["combined"]["heads"].size() == 2, "two heads ablated together");
      d.sweep(71);
      d.click("Continue");
      expect(run_end_in_slices(d, "learned_heads", 130, "interventions_progress"),
             "past its last step the run measures its interventions in frame slices before it ends");
      lh = api_state()["learned_heads"];
      expect(lh["step"] == 130 && lh["status"] == "done", "the run finishes: " + attn::dump(lh["step"]));
      expect(lh["snapshot_steps"] == Json({0, paused_at, 100, 130}),
             "snapshots at 0, where paused, 100 and the end: " + attn::dump(lh["snapshot_steps"]));
      expect(lh["interventions"].is_object() && lh["interventions"]["step"] == 130, "interventions once at the end");
      expect(lh["combined"].is_object() && lh["combined"]["heads"].size() == 2,
             "the two ticked heads' combined ablation, measured again at the end: " + attn::dump(lh["combined"]));
      expect(lh["decoding"]["max_logit_diff"].get<double>() < 1e-9, "parallel = cached logits");
      expect(lh["losses"]["train"].size() == 130, "every step's loss");
      expect_accepted({{"learned_heads", {{"snapshot", 2}}}});
      expect(api_state()["learned_heads"]["snapshot"]["step"] == 100, "the scrubber shows step 100");
      d.sweep(71);
      expect_state_finite();
      expect_accepted({{"learned_heads", {{"heads", 8}, {"layers", 3}, {"mlp", 64}, {"positions", "rope"}}}});
      d.sweep(71);
      expect_accepted({{"learned_heads", {{"vocab", 8}, {"prefix_max", 3}, {"run_min", 3}, {"run_max", 5}}}});
      lh = api_state()["learned_heads"];
      expect(lh["inputs"]["vocab"] == 8 && lh["uniform_loss"].get<double>() == std::log(8.0), "the task inputs reach the model");
      d.sweep(71);
      expect_accepted({{"learned_heads", {{"vocab", 16}, {"prefix_max", 7}, {"run_min", 6}, {"run_max", 11}}}});
      expect_accepted({{"learned_heads", {{"heads", 4}, {"layers", 2}, {"mlp", 0}, {"positions", "learned"}, {"steps", 1800}, {"seed", 17}}}});
      // The extrapolation study: slices across frames, pause holds, continue resumes, it finishes.
      expect_accepted({{"learned_heads", {{"extrapolation", "start"}}}});
      d.frames(3);
      expect_accepted({{"learned_heads", {{"extrapolation", "pause"}}}});
      Json ex = api_state()["learned_heads"]["extrapolation"];
      const int ex_at = ex["step"].get<int>();
      expect(ex["status"] == "paused" && ex_at >= 1 && ex["total"] == 3000, "the study ran in slices: " + attn::dump(ex["step"]));
      d.frames(3);
      expect(api_state()["learned_heads"]["extrapolation"]["step"] == ex_at, "paused: the study's step stays");
      expect(api_set({{"learned_heads", {{"extrapolation", "go"}}}}).value("ok", true) == false, "a bad study action is refused");
      expect_accepted({{"learned_heads", {{"extrapolation", "continue"}}}});
      int guard = 0;
      while (api_state()["learned_heads"]["extrapolation"]["status"] != "done" && ++guard < 5000) d.frames(1);
      ex = api_state()["learned_heads"]["extrapolation"];
      expect(ex["signals"].size() == 3 && ex["signals"][0]["test_length"] == 32 && ex["signals"][2]["test_length"] == 48,
             "three signals, learned tested to the context, RoPE beyond it");
      d.sweep(71);
      expect_state_finite();
    }

    // --- a throw-away panel (throwaway_panel.cpp: its own files and one registration) is found
    // by the navigation, showPanel, state(), set(), links and the text mirror
    g_step = "registry";
    {
      const int n = static_cast<int>(app::panels().size());
      expect(app::panel_index(throwaway::kName) == n - 1, "the throw-away panel is registered last");
      attn_app_show_panel("alignment");
      d.click("##nav", n - 1);  // its sidebar entry
      expect(api_state()["panel"] == throwaway::kName, "the navigation opens the throw-away panel");
      d.click("Throw-away button");
      expect(api_state()[throwaway::kName]["result"]["clicks"] == 1, "its draw function runs and takes clicks");
      attn_app_show_panel("heads");
      expect(Json::parse(attn_app_show_panel(throwaway::kName))["ok"] == true, "showPanel finds it");
      expect_accepted({{throwaway::kName, {{"count", 7}}}});
      expect(api_state()[throwaway::kName]["inputs"]["count"] == 7, "state() and set() find it");
      expect_rejected({{throwaway::kName, {{"count", "seven"}}}}, throwaway::kName, "invalid_field");
      const Json link = Json::parse(attn_app_link_inputs());
      expect(link["panel"] == throwaway::kName && link[throwaway::kName]["count"] == 7, "links carry its inputs");
      d.frames(1);
      const Json view = Json::parse(attn_app_view(100));
      expect(view["panel"] == throwaway::kName && view["title"] == throwaway::kHeading, "the text mirror names it");
      attn_app_show_panel("alignment");
      d.frames(1);
    }

    // --- the Translate panel: the shipped pair from its checkpoint, slices, refusals
    g_step = "translate";
    {
      Json tr = open_trained_panel(d, "translate");
      expect(tr["accuracy"].is_object() && tr["accuracy"]["buckets"].size() == 3, "the accuracy table by bucket");
      expect(tr["accuracy"]["overall"]["additive"]["exact_match"].get<double>() >= 0.9, "the attention model translates");
      expect(tr["alignment"].is_object() && tr["alignment"]["max_row_sum_error"].get<double>() < 1e-9,
             "the alignment's rows sum to 1");
      d.sweep(71);
      expect_accepted({{"translate", {{"sentence", "a small grey horse chases the black cat with a big blue ball"}}}});
      expect(api_state()["translate"]["alignment"]["source_words"].size() == 13, "a typed sentence's alignment");
      expect_accepted({{"translate", {{"beam_width", 1}}}});
      tr = api_state()["translate"]["decoding"];
      expect(tr["beam"]["finished"].size() >= 1 && tr["greedy"].size() >= 1, "beam search and greedy steps");
      expect_accepted({{"translate", {{"beam_width", 5}, {"alpha", 1.0}}}});
      expect(api_state()["translate"]["decoding"]["beam"]["width"] == 5, "the beam's width");
      d.sweep(71);
      expect_train_pause_refuse(
          d, "translate", {{"steps", 40}, {"hidden", 16}},
          {Json{{"hidden", 0}}, Json{{"steps", 0}}, Json{{"steps", 5001}}, Json{{"lr", -1}}, Json{{"sentence", ""}},
           Json{{"sentence", "the purple cat"}}, Json{{"sentence", "cat the"}}, Json{{"beam_width", 0}}, Json{{"alpha", 3}}},
          {{"hidden", 16}, {"steps", 40}});
      d.sweep(71);
      expect_accepted({{"translate", {{"continue", true}}}});
      int guard = 0;
      while (api_state()["translate"]["running"] == true && ++guard < 2000) d.frames(1);
      tr = api_state()["translate"];
      expect(tr["step"] == 40 && tr["status"] == "done" && tr["accuracy"]["step"] == 40, "the run ends and is scored");
      // Trained again from step 0, watched frame by frame: the frame after the last step begins the
      // test-set scores, and the run ends only when they are measured.
      expect_accepted({{"translate", {{"train", true}}}});
      expect(run_end_in_slices(d, "translate", 40, "scores_progress"),
             "past its last step the run scores the test set in frame slices before it ends");
      tr = api_state()["translate"];
      expect(tr["step"] == 40 && tr["status"] == "done" && tr["accuracy"]["step"] == 40, "the run ends and is scored");
      d.sweep(71);
      // One part per tick (a zero budget): after the last step its validation is pending; Pause then
      // measures it, and the run, past its last step, goes on to its end instead of pausing at 40 of 40.
      expect_accepted({{"translate", {{"train", true}}}});
      // Train builds the pair without a forward pass: its step-0 validation is the run's first four parts.
      tr = api_state()["translate"];
      expect(tr["step"] == 0 && tr["losses"]["validation_steps"] == Json::array(),
             "Train leaves the step-0 validation to the run's parts: " + attn::dump(tr["losses"]["validation_steps"]));
      for (int i = 0; i < 4; ++i) app::tick_translate(a.state(), 0.0);
      tr = api_state()["translate"];
      expect(tr["step"] == 0 && tr["losses"]["validation_steps"] == Json::array({0}),
             "four parts measure step 0, before the first step: " + attn::dump(tr["step"]));
      for (int i = 0; i < 200 && api_state()["translate"]["step"] != 40; ++i) app::tick_translate(a.state(), 0.0);
      tr = api_state()["translate"];
      expect(tr["step"] == 40 && tr["running"] == true && tr["losses"]["validation_steps"] == Json::array({0}),
             "one part per tick: the last step ran, its validation pending: " + attn::dump(tr["losses"]["validation_steps"]));
      app::tick_translate(a.state(), 0.0);  // one validation pass of four (120 pairs: two passes of 64 per model)
      expect(api_state()["translate"]["losses"]["validation_steps"] == Json::array({0}), "a validation pass is a part");
      expect_accepted({{"translate", {{"pause", true}}}});
      tr = api_state()["translate"];
      expect(tr["losses"]["validation_steps"] == Json::array({0, 40}) && tr["running"] == true && tr["status"] == "training",
             "Pause with the last validation pending measures it, and the run goes on to its end: " + attn::dump(tr["status"]));
      for (int guard = 0; api_state()["translate"]["running"] == true && guard < 2000; ++guard) d.frames(1);
      expect(api_state()["translate"]["status"] == "done", "and ends");
      d.sweep(71);
      expect_accepted({{"translate", {{"steps", 1000}, {"hidden", 32}, {"sentence", "the black cat"}}}});
    }

    // --- every panel fits a narrow canvas: at each width, after a few frames, the widest item
    // (before clipping; boxes that scroll sideways count with their box) stays inside the panel's
    // visible area, and no box (child, table column) cuts its content. The throw-away panel,
    // laid out too wide, is flagged; its content inside a sideways-scrolling box is not.
    g_step = "fit";
    {
      const ImVec2 saved = io.DisplaySize;
      io.MousePos = ImVec2(-1000, -1000);
      auto measure = [&](const char* panel) {
        attn_app_show_panel(panel);
        d.frames(4);  // the layout settles (scrollbars, auto-sized columns)
        const Json fit = Json::parse(attn_app_fit());
        expect(fit["panel"] == panel && fit["frame"].get<int>() == ImGui::GetFrameCount(),
               std::string("the fit report is this frame's, of ") + panel);
        return fit;
      };
      std::printf("widest item (right edge, window units) per panel; the canvas width heads each column\n%-14s", "panel");
      const float widths[] = {320, 390, 768, 1280};
      for (float w : widths) std::printf(" %8.0f", w);
      std::printf("\n");
      std::map<std::string, std::vector<float>> widest;
      int sideways_at_320 = 0;  // the detector's control: narrow canvases do scroll some tables
      for (const int mode : {0, 1, 2}) {  // plain, touch sizes (phones), embedded (a course page's iframe)
        const bool touch = mode == 1;
        app::style::set_touch_sizes(touch);
        a.set_embed(mode == 2);
        for (float w : widths) {
          if (mode && w > 390) continue;
          io.DisplaySize = ImVec2(w, 800);
          for (const app::PanelDef& p : app::panels()) {
            const Json fit = measure(p.name);
            if (!mode) widest[p.name].push_back(fit["widest"].get<float>());
            const std::string at = std::string(p.name) + " at " + std::to_string(static_cast<int>(w)) +
                                   (touch ? " (touch sizes)" : mode == 2 ? " (embedded)" : "") + ": ";
            expect(fit["canvas_width"].get<float>() == w, at + "canvas width reported");
            expect(fit["visible_right"].get<float>() <= w, at + "the visible area is inside the canvas");
            // A desktop canvas shows every table whole: none may need scrolling sideways.
            if (!mode && w >= 1280)
              expect(fit["sideways_tables"].empty(), at + "a table scrolls sideways: " + attn::dump(fit["sideways_tables"]));
            if (!mode && w == 320) sideways_at_320 += static_cast<int>(fit["sideways_tables"].size());
            if (fit["widest"].get<float>() > fit["visible_right"].get<float>() + 0.5f || fit["fits"] != true) {
              // Name the widgets past the edge (text has no ID and is not listed; the report has its edge).
              std::string past;
              for (const Item& it : g_items)
                if (it.rect.Max.x > fit["visible_right"].get<float>() + 0.5f && !it.label.empty() &&
                    it.label.find("  ") == std::string::npos)  // (not the navigation's tabs)
                  past += " '" + it.label + "' (" + std::to_string(static_cast<int>(it.rect.Max.x)) + ")";
              fail(at + "content past the right edge: " + attn::dump(fit) + "; widgets past it:" + past);
            }
          }
        }
      }
      app::style::set_touch_sizes(false);
      a.set_embed(false);
      expect(sideways_at_320 > 0, "at 320 units some table scrolls sideways, and the report names it");
      for (const app::PanelDef& p : app::panels()) {
        std::printf("%-14s", p.name);
        for (float v : widest[p.name]) std::printf(" %8.1f", v);
        std::printf("\n");
      }
      for (float w : {320.0f, 390.0f}) {
        io.DisplaySize = ImVec2(w, 800);
        throwaway::state().width = throwaway::Width::too_wide;
        Json fit = measure(throwaway::kName);
        expect(fit["fits"] == false && fit["widest"].get<float>() > w && !fit["cut"].empty(),
               "the too-wide panel is flagged at " + std::to_string(static_cast<int>(w)) + ": " + attn::dump(fit));
        throwaway::state().width = throwaway::Width::scrolls_inside;
        fit = measure(throwaway::kName);
        expect(fit["fits"] == true && fit["widest"].get<float>() <= fit["visible_right"].get<float>(),
               "content inside a sideways-scrolling box is exempt: " + attn::dump(fit));
        throwaway::state().width = throwaway::Width::fits;
        app::fit::set_probe(40.0f);  // the page's test switch: one item 40 units too wide
        fit = measure("heads");
        expect(fit["fits"] == false && fit["widest"].get<float>() > fit["visible_right"].get<float>() + 20.0f,
               "the fit probe is flagged: " + attn::dump(fit));
        app::fit::set_probe(0.0f);
      }
      io.DisplaySize = saved;
      attn_app_show_panel("alignment");
      d.frames(2);
    }

    // --- plot ticks at round values (1, 2 or 5 times a power of ten apart), read from what
    // every panel's plots drew at 1280 units
    g_step = "ticks";
    {
      // Why a tick list is not round, or "" when it is.
      auto not_round = [](const std::vector<double>& t) -> std::string {
        if (t.size() < 2) return "";
        const double step = t[1] - t[0];
        const double e = std::floor(std::log10(step) + 1e-9), m = step / std::pow(10.0, e);
        if (std::fabs(m - 1) > 1e-6 && std::fabs(m - 2) > 1e-6 && std::fabs(m - 5) > 1e-6)
          return "step " + std::to_string(step) + " is not 1, 2 or 5 times a power of ten";
        for (size_t i = 0; i < t.size(); ++i) {
          if (i && std::fabs(t[i] - t[i - 1] - step) > 1e-9 * std::max(1.0, std::fabs(step)))
            return "uneven steps at " + std::to_string(t[i]);
          if (std::fabs(t[i] / step - std::round(t[i] / step)) > 1e-6) return std::to_string(t[i]) + " is not a multiple of the step";
        }
        return "";
      };
      // The check's negative control: the ticks the page drew before (ymin + k·span/4).
      expect(!not_round({0.0, 0.196, 0.393, 0.589, 0.786}).empty(), "0.196 / 0.393 / ... are not round");
      expect(!not_round({0.936, 1.87, 2.81}).empty(), "0.936 / 1.87 / 2.81 are not round");
      auto near_list = [](const std::vector<double>& a, const std::vector<double>& b) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
          if (std::fabs(a[i] - b[i]) > 1e-12) return false;
        return true;
      };
      expect(near_list(app::plot::round_ticks(0.0, 2.24, 5), {0.0, 0.5, 1.0, 1.5, 2.0}), "round_ticks(0, 2.24, 5)");
      expect(near_list(app::plot::round_ticks(-0.14, 0.79, 6), {0.0, 0.2, 0.4, 0.6}), "round_ticks(-0.14, 0.79, 6)");
      expect(near_list(app::plot::round_ticks(-0.5, 0.5, 6), {-0.4, -0.2, 0.0, 0.2, 0.4}), "round_ticks(-0.5, 0.5, 6)");
      expect(near_list(app::plot::round_ticks(0.0, 1800.0, 6), {0.0, 500.0, 1000.0, 1500.0}), "round_ticks(0, 1800, 6)");
      expect(app::plot::round_ticks(1.0, 1.0, 5).empty(), "an empty range has no ticks");
      const ImVec2 saved = io.DisplaySize;
      io.DisplaySize = ImVec2(1280, 800);
      // Short runs of both trained panels, so that every plot they have is drawn (curves, the
      // scores by step, the ablation scatter, accuracy by length).
      expect_accepted({{"learned_heads", {{"steps", 200}, {"train", true}}}});
      expect_accepted({{"translate", {{"steps", 40}, {"train", true}}}});
      for (int i = 0; i < 3000 && (api_state()["learned_heads"]["step"] != 200 || api_state()["translate"]["step"] != 40); ++i)
        d.frames(5);
      expect(api_state()["learned_heads"]["step"] == 200 && api_state()["translate"]["step"] == 40, "both short runs finished");
      int plots = 0;
      std::string names;
      for (const app::PanelDef& p : app::panels()) {
        attn_app_show_panel(p.name);
        d.frames(30);  // shipped checkpoints install, studies finish their slices
        for (const app::view::PlotTicks& t : app::view::plots()) {
          ++plots;
          names += std::string(" ") + p.name + ":" + t.id;
          const std::string at = std::string(p.name) + " plot '" + t.id + "': ";
          expect(t.y.size() >= 2, at + "at least two y ticks");
          const std::string y = not_round(t.y), x = t.x_are_data ? "" : not_round(t.x);
          expect(y.empty(), at + "y ticks: " + y);
          expect(x.empty(), at + "x ticks: " + x);
        }
      }
      std::printf("ticks: %d plots, every one round:%s\n", plots, names.c_str());
      for (const char* want : {"scaling:maxw", "learned_heads:loss", "learned_heads:scores by step",
                               "translate:train loss", "translate:accuracy by length"})
        expect(names.find(std::string(" ") + want) != std::string::npos, std::string("the ticks of ") + want + " were read");
      io.DisplaySize = saved;
      attn_app_show_panel("alignment");
      d.frames(2);
    }

    // --- sliders print their value beside the frame, never under the grab: a drag moves the value
    // (ImGui's behaviour, rounded to the format), and on every panel at a phone's and a desktop's
    // width no slider's value rectangle overlaps its frame (which holds the grab)
    g_step = "train worker";
    check_train_worker(d, a);
    g_step = "slider";
    {
      const ImVec2 saved = io.DisplaySize;
      auto overlaps = [](const ImRect& a, const ImRect& b) {
        return a.Min.x < b.Max.x && b.Min.x < a.Max.x && a.Min.y < b.Max.y && b.Min.y < a.Max.y;
      };
      for (float w : {1280.0f, 320.0f}) {
        io.DisplaySize = ImVec2(w, 800);
        const std::string at = " at " + std::to_string(static_cast<int>(w)) + ": ";
        expect_accepted({{"dropout", {{"p", 0.1}}}});
        attn_app_show_panel("dropout");
        d.frames(3);
        const Item* it = d.find("p");
        const app::widgets::SliderRects* r = nullptr;
        for (const auto& s : app::widgets::sliders_drawn())
          if (it && s.id == it->id) r = &s;
        expect(it && r, "the dropout slider 'p' is found by its label and records its rectangles" + at);
        if (it && r) {
          const ImRect frame = r->frame;
          const float y = (frame.Min.y + frame.Max.y) * 0.5f;
          io.MousePos = ImVec2(frame.Min.x + 0.1f * frame.GetWidth(), y);
          d.frames(1);
          io.MouseDown[0] = true;
          d.frames(1);
          for (float f = 0.1f; f <= 0.8f; f += 0.1f) {
            io.MousePos = ImVec2(frame.Min.x + f * frame.GetWidth(), y);
            d.frames(1);
          }
          io.MouseDown[0] = false;
          d.frames(3);
          const double p = api_state()["dropout"]["inputs"]["p"].get<double>();
          expect(p > 0.5 && p < 0.95 && std::fabs(p * 100 - std::round(p * 100)) < 1e-4,
                 "dragging the slider to 80% of its frame sets p near 0.8, rounded to %.2f: " + std::to_string(p) + at);
          const app::widgets::SliderRects* after = nullptr;
          for (const auto& s : app::widgets::sliders_drawn())
            if (s.id == it->id) after = &s;
          expect(after && after->grab.GetWidth() > 0 && after->value.GetWidth() > 0, "grab and value drawn" + at);
          if (after) {
            expect(!overlaps(after->value, after->grab), "the value does not overlap the grab" + at);
            expect(!overlaps(after->value, after->frame), "the value sits beside the frame" + at);
            if (w >= 1280) expect(!after->value_above, "on a wide canvas the value is right of the frame" + at);
          }
        }
        int sliders = 0;
        for (const app::PanelDef& pd : app::panels()) {
          attn_app_show_panel(pd.name);
          d.frames(3);
          for (const auto& s : app::widgets::sliders_drawn()) {
            ++sliders;
            expect(!overlaps(s.value, s.frame) && !overlaps(s.value, s.grab),
                   std::string(pd.name) + ": a slider's value overlaps its frame" + at);
          }
        }
        expect(sliders >= (w >= 1280 ? 12 : 5), "the panels' sliders were measured (" + std::to_string(sliders) + ")" + at);
      }
      // Ctrl+click still types a value (ImGui's text field in the frame)
      io.DisplaySize = ImVec2(1280, 800);
      attn_app_show_panel("dropout");
      d.click("p", 0, true);
      d.press(kA);  // (select all is Ctrl+A; a plain A types it, so clear with backspaces)
      for (int i = 0; i < 8; ++i) d.press(kBackspace);
      d.type("0.3");
      d.press(kEnter);
      d.frames(2);
      expect(std::fabs(api_state()["dropout"]["inputs"]["p"].get<double>() - 0.3) < 1e-6,
             "Ctrl+click and typing 0.3 sets p: " + attn::dump(api_state()["dropout"]["inputs"]));
      io.DisplaySize = saved;
      attn_app_show_panel("alignment");
      d.frames(2);
    }

    // --- signed quantities on Paul Tol's diverging sunset, weights on viridis: the map's stops
    // as published, the signed heatmaps drawn with it (over a range centred at 0), the Δloss and
    // loss-change tables with their legends
    g_step = "colormap";
    {
      auto hex = [](const ImVec4& c) {
        char b[8];
        std::snprintf(b, sizeof b, "%02X%02X%02X", static_cast<int>(std::lround(c.x * 255)),
                      static_cast<int>(std::lround(c.y * 255)), static_cast<int>(std::lround(c.z * 255)));
        return std::string(b);
      };
      // Paul Tol's published sunset: #364B9A (most negative), #EAECCC (zero), #A50026 (most positive)
      expect(hex(app::cmap::sunset(0.0)) == "364B9A", "sunset's negative end: " + hex(app::cmap::sunset(0.0)));
      expect(hex(app::cmap::sunset(0.5)) == "EAECCC", "sunset's midpoint: " + hex(app::cmap::sunset(0.5)));
      expect(hex(app::cmap::sunset(1.0)) == "A50026", "sunset's positive end: " + hex(app::cmap::sunset(1.0)));
      expect(hex(app::cmap::sunset(0.1)) == "4A7BB7" && hex(app::cmap::sunset(0.9)) == "DD3D2D", "sunset's stops");
      expect(hex(app::cmap::sunset(-3.0)) == "364B9A" && hex(app::cmap::sunset(std::nan(""))) == "EAECCC",
             "sunset clamps, NaN is the middle");
      expect(app::cmap::diverging_u32(0.0, 2.0) == ImGui::ColorConvertFloat4ToU32(app::cmap::sunset(0.5)) &&
                 app::cmap::diverging_u32(-2.0, 2.0) == ImGui::ColorConvertFloat4ToU32(app::cmap::sunset(0.0)),
             "diverging_u32 centres 0 over [-range, range]");
      expect(app::cmap::symmetric_range({-0.13, 0.04}) == 0.2 && app::cmap::symmetric_range({0.0}) == 1.0 &&
                 app::cmap::symmetric_range({3.0, -5.0}) == 5.0,
             "symmetric_range rounds the largest |v| up to 1, 2 or 5 times a power of ten");
      // The maps each panel's heatmaps were drawn with.
      const ImVec2 saved = io.DisplaySize;
      io.DisplaySize = ImVec2(1280, 800);
      std::map<std::string, std::string> maps;
      std::set<std::string> legends;
      const Json additive_view = api_state()["additive"]["inputs"]["view"];
      expect_accepted({{"additive", {{"view", "trained"}}}});  // the trained encoder's states
      for (const char* panel : {"permutation", "additive", "alignment", "heads", "learned_heads", "translate"}) {
        attn_app_show_panel(panel);
        d.frames(30);  // checkpoints install, interventions show
        const Json v = Json::parse(attn_app_view(2500));
        for (const Json& h : v["heatmaps"]) {
          maps[std::string(panel) + ":" + h["name"].get<std::string>()] = h.value("colormap", "viridis");
          if (h.value("colormap", "viridis") == "sunset")
            expect(h["vmin"].get<double>() == -h["vmax"].get<double>(),
                   std::string(panel) + ": a signed map's range is symmetric: " + attn::dump(h["vmin"]));
        }
        for (const std::string& id : app::diverging_legends_drawn()) legends.insert(std::string(panel) + ":" + id);
      }
      std::string seen;
      for (const auto& kv : maps) seen += " " + kv.first + "=" + kv.second;
      for (const char* want : {"permutation:x", "permutation:px", "permutation:f_px", "permutation:p_f_x"})
        expect(maps.count(want) && maps[want] == "sunset", std::string(want) + " is drawn on sunset;" + seen);
      expect(maps.count("additive:trained_states") && maps["additive:trained_states"] == "sunset",
             "the trained encoder's states (signed) are on sunset;" + seen);
      expect_accepted({{"additive", {{"view", additive_view}}}});
      for (const char* want : {"permutation:w_x", "alignment:alignment_weights", "heads:head 1"})
        expect(maps.count(want) && maps[want] == "viridis", std::string(want) + " (weights) stays on viridis;" + seen);
      std::string ls;
      for (const std::string& l : legends) ls += " " + l;
      expect(legends.count("learned_heads:\xCE\x94loss legend") && legends.count("translate:loss change legend"),
             "the Δloss and loss-change tables draw their diverging legends:" + ls);
      std::printf("colour maps:%s\ndiverging legends:%s\n", seen.c_str(), ls.c_str());
      io.DisplaySize = saved;
      attn_app_show_panel("alignment");
      d.frames(2);
    }

    // --- a slow first study waits for the next frame when the navigation opens its panel: the
    // panel's state() says pending until the ticks before the frames run it (never a draw call);
    // the Scaling study runs in slices across several ticks, its progress in state()
    g_step = "pending";
    {
      app::AppState fresh = app::make_default_state();
      int pending_panels = 0;
      for (const app::PanelDef& p : app::panels()) {
        app::show_panel(fresh, p.name, false);
        const Json before = p.state(fresh);
        if (!before.contains("pending")) continue;
        ++pending_panels;
        expect(before["pending"] == true && app::panels_busy(fresh), std::string(p.name) + ": pending after the nav");
        int ticks = 0;
        long long last_done = -1;
        do {
          app::tick_panels(fresh);
          const Json mid = p.state(fresh);
          if (mid.contains("progress")) {  // a sliced study: its units only go up
            const long long done = mid["progress"]["units_done"];
            expect(done > last_done && done < mid["progress"]["total_units"].get<long long>(),
                   std::string(p.name) + ": progress goes up");
            last_done = done;
          }
        } while (app::panels_busy(fresh) && ++ticks < 100000);
        const Json after = p.state(fresh);
        expect(!after.contains("pending") && !app::panels_busy(fresh), std::string(p.name) + ": complete after the tick");
        app::show_panel(fresh, p.name, true);  // shown again: nothing left to do
        expect(!p.state(fresh).contains("pending"), std::string(p.name) + ": stays complete");
      }
      expect(pending_panels == 2, "two panels (scaling, cost) defer their first study");
    }

    // --- idle frames are skipped, changes and requests are not
    g_step = "idle";
    io.MousePos = ImVec2(-1000, -1000);
    d.frames(30);
    const double t = Driver::now();
    expect(!a.needs_frame(false, t + 0.1), "an idle page skips frames");
    expect(a.needs_frame(true, t + 0.05), "input draws a frame");
    expect(a.needs_frame(false, t + 0.3), "and keeps drawing briefly after it");
    expect(!a.needs_frame(false, t + 0.47), "then stops again");
    expect(a.needs_frame(false, t + 0.6), "at least two frames a second");
    expect_accepted({{"heads", {{"seed", 5}}}});
    expect(a.needs_frame(false, t + 0.1), "a state change draws a frame");
    d.frames(1);
    a.request_frame();
    expect(a.needs_frame(false, Driver::now() + 0.01), "request_frame draws a frame");
    d.frames(1);

    // --- small and HiDPI displays
    g_step = "sizes";
    for (const ImVec2 size : {ImVec2(640, 480), ImVec2(1280, 800)}) {
      io.DisplaySize = size;
      for (const app::PanelDef& p : app::panels()) {  // every registered panel
        attn_app_show_panel(p.name);
        d.sweep(61);
      }
    }
    expect(a.ensure_fonts(2.0f), "font atlas rebuilds for pixel ratio 2");
    io.Fonts->GetTexDataAsRGBA32(&pixels, &tw, &th);
    d.frames(20);

    for (const std::string& clash : g_id_clashes) fail(clash);
    std::printf("headless app test: %d frames, %d texture uploads, %d heatmap draws\n", g_frame, gpu.uploads, gpu.draws);
    ImGui::DestroyContext();
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
  }
  if (g_failures) {
    std::printf("0 passed, 1 failed (%d problems)\n", g_failures);
    return 1;
  }
  std::printf("1 passed, 0 failed\n");
  return 0;
}
