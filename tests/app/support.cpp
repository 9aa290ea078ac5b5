// tests/app/support.cpp — the headless test's shared driver state, test-engine hooks and page-API helpers.
#include "support.hpp"

namespace attn_test {
[[noreturn]] void imgui_assert_failed(const char* expr, const char* file, int line) {
  throw std::logic_error(std::string("IM_ASSERT(") + expr + ") failed at " + file + ":" + std::to_string(line));
}
}  // namespace attn_test

// --- test-engine hooks: which items exist this frame, where, under which label ----------

namespace headless {
std::vector<Item> g_items;
std::map<ImGuiID, size_t> g_item_index;
std::vector<std::string> g_id_clashes;
int g_frame = 0;
int g_failures = 0;
std::string g_step = "start";
}  // namespace headless

using namespace headless;

void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id) {
  app::kbd::item_added(*ctx, bb, id);  // as the page's hook does: the keyboard's reading order
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
void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
  app::kbd::item_label(*ctx, id, label);
  auto it = g_item_index.find(id);
  if (it != g_item_index.end() && label) g_items[it->second].label = label;
}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }

namespace headless {

void fail(const std::string& what) {
  ++g_failures;
  std::fprintf(stderr, "FAIL [%s, frame %d]: %s\n", g_step.c_str(), g_frame, what.c_str());
}
void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

void open_panel_step(const char* panel) {
  g_step = panel;
  attn_app_show_panel(panel);
}

Json api_state() { return Json::parse(attn_app_state()); }
Json api_set(const Json& patch) { return Json::parse(attn_app_set(attn::dump(patch).c_str())); }

// Every number in `j` is finite (nlohmann keeps NaN as a number; dump would print null).
bool all_finite(const Json& j, std::string* where, const std::string& path) {
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
Json run_state(const char* panel) {
  Json st = api_state()[panel];
  for (const char* k : {"steps_in", "steps_per_second", "runs"}) st.erase(k);
  return st;
}

// Runs the panel's run to its end, frame by frame, playing the Worker natively when `worker`
// (every slice it sends taken by the next frame); the frames it took.
int run_to_end(Driver& d, bool worker, const char* panel) {
  int frames = 0;
  for (; api_state()[panel]["running"] == true && frames < 4000; ++frames) {
    if (worker) app::train_worker::run_posted_natively(1);
    d.frames(1);
  }
  return frames;
}

// Every check a lesson panel shows passes (the panels' PASS/FAIL lines).
void expect_checks_pass(const char* panel) {
  const Json st = api_state()[panel];
  const Json& checks = st["result"].contains("checks_shown") ? st["result"]["checks_shown"] : st["result"]["checks"];
  expect(checks.is_array() && !checks.empty(), std::string(panel) + " shows checks");
  for (const Json& c : checks)
    expect(c.value("pass", false), std::string(panel) + ": " + c.value("claim", "?") + " = " + attn::dump(c["measured"]));
}

}  // namespace headless
