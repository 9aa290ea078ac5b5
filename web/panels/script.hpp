// web/panels/script.hpp — the Lesson script panel: the script's model (lesson_model.hpp) and its
// CPU timing fixture; its state() and set() JSON; drawn in script.cpp. No link inputs: its only
// input is the run count, which set() cannot take back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct AppState;
struct Ui;

struct ScriptState {
  attn::TimingFixture timing;
  int runs = 0;  ///< how often the fixture ran
  std::optional<ErrorInfo> error;
};

/// The fixture's first run.
void init_script(AppState& s);
/// Run attn::timing_fixture(17) again (blocks for the runs).
bool run_timing(AppState& s);

// --- JSON (the registry's entry) ---------------------------------------------------------
/// {"inputs": {runs}, "result": {replica, timing, checks}, "error"}.
attn::Json script_state_json(const AppState& s);
/// set({script: {run_timing: true}}); a malformed patch throws PatchError.
bool apply_script_json(AppState& s, const attn::Json& patch);

/// The lesson script's model (torch's generator replayed) and its CPU timing fixture.
void draw_script_panel(AppState& s, Ui& ui);

struct PanelDef;
/// This panel's entry in the panel table (panels/registry.hpp); its number is its place there.
const PanelDef& script_panel();

}  // namespace app
