// web/panels/registry.hpp — the one list of the page's panels.
//
// Every place that needs to know which panels exist derives from panels(): the navigation (sidebar
// and tabs), the heading, the draw call, showPanel / set({panel}), state() (one key per panel),
// set() (one patch key per panel), links (linkInputs, the URL parser and postMessage use it), the
// text mirror (view()), and the headless test. Adding a panel: its files under web/panels/ and one
// entry in registry.cpp (or, for a test's throw-away panel, one PanelRegistration).
//
// The "check yourself" strips (recall) are shared by the panels and are not a panel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app_state.hpp"
#include "error_info.hpp"
#include "panels/ui.hpp"

namespace app {

/// A trained panel's shipped checkpoint: the table fetches it when the panel asks (first shown
/// with its default inputs at step 0) and hands the bytes, or the failure, back to the panel.
struct CheckpointHooks {
  const char* url;  ///< relative to the page (checkpoints/...)
  bool (*wants)(const AppState&, bool shown);
  void (*requested)(AppState&);
  /// Decoded and checked by the core; false, with the reason in the panel's state, when refused.
  bool (*install)(AppState&, const std::uint8_t* data, std::size_t size);
  void (*failed)(AppState&, const std::string& message);
};

struct PanelDef {
  const char* name;      ///< state()/set() key, showPanel and ?panel= name
  const char* title;     ///< the navigation entry
  const char* subtitle;  ///< one line under it in the sidebar
  const char* heading;   ///< the panel's heading (and the text mirror's title)
  /// state()[name]: inputs, results, error.
  attn::Json (*state)(const AppState&);
  /// set({name: patch}) through the panel's setters; false when a setter refused (its error is
  /// then in *error(s)). A malformed patch throws.
  bool (*apply)(AppState&, const attn::Json& patch);
  /// The panel's error slot (reported by set() when apply refused).
  std::optional<ErrorInfo>* (*error)(AppState&);
  /// The inputs a link carries (built from the inputs only); nullptr: the panel has none.
  attn::Json (*link_inputs)(const AppState&);
  void (*draw)(AppState&, Ui&);
  /// The panel was shown (nullptr: nothing to do). `now`: computed at once (set(), showPanel);
  /// otherwise (the navigation, inside a frame) slow work is marked pending for tick.
  void (*on_show)(AppState&, bool now) = nullptr;
  /// Before each frame is drawn (nullptr: nothing): pending work and time-sliced runs.
  /// `shown`: this panel is the one on screen.
  void (*tick)(AppState&, bool shown) = nullptr;
  /// True while the panel has work in progress that needs frames (nullptr: never).
  bool (*busy)(const AppState&) = nullptr;
  /// The panel's shipped checkpoint (nullptr: none).
  const CheckpointHooks* checkpoint = nullptr;
};

/// All panels, in navigation order (index = AppState::panel).
const std::vector<PanelDef>& panels();
/// Index of the panel called `name`, or -1.
int panel_index(const std::string& name);
/// The panel on screen.
const PanelDef& current_panel(const AppState& s);
/// The badge of panel `index` in the navigation: its place in the table, from 1.
std::string panel_number(std::size_t index);
/// Name of panel `index` (the first panel's for an index out of range).
const char* panel_name(int index);
/// "alignment, heads, ..." (error messages).
std::string panel_names_list();

/// Show panel `index` (the navigation and cross-links; slow first computations wait for tick).
void show_panel(AppState& s, int index, bool now = false);
/// Show the panel called `name`; false for an unknown name.
bool show_panel(AppState& s, const std::string& name, bool now = false);
/// Fetch panel `p`'s checkpoint if it wants it now (`shown`: it is on screen).
void request_checkpoint(AppState& s, const PanelDef& p, bool shown);
/// The fetched bytes of `url`, or its failure, to the panel whose checkpoint it is; false for a
/// URL no panel has.
bool checkpoint_arrived(AppState& s, const std::string& url, const std::uint8_t* data, std::size_t size);
bool checkpoint_fetch_failed(AppState& s, const std::string& url, const std::string& message);
/// Every panel's tick, then its checkpoint's fetch if it wants it, before a frame is drawn.
void tick_panels(AppState& s);
/// Some panel has work in progress.
bool panels_busy(const AppState& s);

/// Adds a panel after the built-in ones (a test's throw-away panel: one static object).
struct PanelRegistration {
  explicit PanelRegistration(const PanelDef& def);
};

}  // namespace app
