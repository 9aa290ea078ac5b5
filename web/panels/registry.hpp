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

#include "widgets/error_info.hpp"
#include "learn/model_file.hpp"
#include "panels/trained_run.hpp"
#include "panels/ui.hpp"

namespace app {

struct AppState;  // every panel's state together (app/app_state.hpp, the layer above)

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

/// A trained panel's models from files (safetensors, learn/model_file.hpp) and its export. The
/// page reads a file the user brings through model_arrived(), which gives it to the panel whose
/// kind it is.
struct ModelHooks {
  attn::learn::ModelKind kind;  ///< the files this panel takes
  /// Install a model read from the file `name` (`bytes` long, parsed and checked by the core);
  /// false, with the reason in the panel's state and the model shown kept, when refused.
  bool (*install)(AppState&, const std::string& name, std::size_t bytes, attn::learn::ModelFile&& file);
  /// A file that could not be read: the reason goes to the panel's state, the model shown stays.
  void (*refused)(AppState&, const std::string& code, const std::string& message);
  /// The model on show as safetensors bytes (F64) and the download's file name; `which` picks one
  /// of a panel's models ("" for its first). Throws attn::Error when there is none.
  std::string (*export_bytes)(const AppState&, const std::string& which, std::string& file_name);
  /// The model the user brought, if the panel shows one (nullptr: the panel's own).
  const LoadedModel* (*loaded)(const AppState&);
};

/// PanelDef::error for a panel whose state is the AppState member `Member` (its `error` slot).
template <auto Member>
std::optional<ErrorInfo>* error_of(AppState& s) {
  return &(s.*Member).error;
}

/// The part of AppState that is panel state `S`: how a panel whose functions take its own state
/// reaches it from its table entry without AppState's type (the app layer, above the panels).
/// Defined in app/app_state.cpp, one line per such panel.
template <class S>
S& state_of(AppState& s);
template <class S>
const S& state_of(const AppState& s) {
  return state_of<S>(const_cast<AppState&>(s));
}

// PanelDef entries made from a panel's own-state functions, each picking its state out of AppState.
/// state() or the link inputs: `F(const S&)`.
template <class S, attn::Json (*F)(const S&)>
attn::Json json_entry(const AppState& s) {
  return F(state_of<S>(s));
}
/// set(): `F(S&, patch)`.
template <class S, bool (*F)(S&, const attn::Json&)>
bool apply_entry(AppState& s, const attn::Json& patch) {
  return F(state_of<S>(s), patch);
}
/// The error slot of state `S`.
template <class S>
std::optional<ErrorInfo>* error_entry(AppState& s) {
  return &state_of<S>(s).error;
}
void draw_recall_strip(AppState& s, Ui& ui, const char* panel);  // recall.hpp
/// The drawing: `Draw(S&, Ui&)`, then the check-yourself strip of `Recall` (the recall table's
/// panel key) under the panel's checks.
template <class S, void (*Draw)(S&, Ui&), const char* Recall>
void draw_entry(AppState& s, Ui& ui) {
  Draw(state_of<S>(s), ui);
  draw_recall_strip(s, ui, Recall);
}

/// A panel's entry. Each panel defines its own as a constexpr PanelDef in its .cpp (constant
/// initialisation: no order of static initialisation can see it unset) and returns it from its
/// x_panel() function, which registry.cpp lists.
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
  /// Models from files and the export (nullptr: the panel has no model of its own).
  const ModelHooks* model = nullptr;
  /// True while what the panel shows changes from frame to frame on its own: a run training, then
  /// measuring the trained model (nullptr: never). The text mirror's tables wait for it to stop
  /// (view().busy); a study that only adds its figures at the end does not count.
  bool (*changing)(const AppState&) = nullptr;
};

/// The table entry of a panel whose functions take their own state S: its four names (state key,
/// navigation title, subtitle, heading), then its functions, each reaching S through state_of;
/// `Recall` names its check-yourself strip.
template <class S, attn::Json (*State)(const S&), bool (*Apply)(S&, const attn::Json&), attn::Json (*Inputs)(const S&),
          void (*Draw)(S&, Ui&), const char* Recall>
constexpr PanelDef own_state_panel(const char* name, const char* title, const char* subtitle, const char* heading) {
  return {name, title, subtitle, heading, json_entry<S, State>, apply_entry<S, Apply>, error_entry<S>,
          json_entry<S, Inputs>, draw_entry<S, Draw, Recall>};
}

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
/// How checkpoints are fetched (app/api.hpp's fetch_checkpoint, installed by the app with its
/// answer path; none installed: a request is marked but nothing is fetched).
void set_checkpoint_fetcher(void (*fetch)(const char* url));
/// Fetch panel `p`'s checkpoint if it wants it now (`shown`: it is on screen).
void request_checkpoint(AppState& s, const PanelDef& p, bool shown);
/// The fetched bytes of `url`, or its failure, to the panel whose checkpoint it is; false for a
/// URL no panel has.
bool checkpoint_arrived(AppState& s, const std::string& url, const std::uint8_t* data, std::size_t size);
bool checkpoint_fetch_failed(AppState& s, const std::string& url, const std::string& message);
/// The largest model file the page reads: 16 MiB (the core's own limit on parameters,
/// learn::kMaxFileParams, applies after it).
inline constexpr std::size_t kMaxPageModelBytes = std::size_t{16} << 20;
/// A model file the user brought (the file picker, a drop, a `model=` link): `data` null when the
/// page did not copy it because `size` is over kMaxPageModelBytes. Read by the core, given to the
/// panel of its kind (decoder: learned_heads, seq2seq: translate), which is then shown; a file that
/// cannot be read goes to `panel_hint` (the panel it was brought to, or the one on screen).
/// {ok, panel, [error: {code, message}]}.
attn::Json model_arrived(AppState& s, const std::string& name, const std::uint8_t* data, std::size_t size,
                         const std::string& panel_hint);
/// A model that never arrived (a model= link whose fetch failed): "NAME: MESSAGE" goes to the
/// panel on screen if it takes models (else the first that does), the model shown stays.
/// {ok: false, panel, error: {code "fetch_failed", message}}.
attn::Json model_fetch_failed(AppState& s, const std::string& name, const std::string& message);
/// Panel `panel`'s model `which` as safetensors bytes into `bytes`, and its file name. {ok, panel,
/// name, bytes (count), [error]}.
attn::Json export_model(const AppState& s, const std::string& panel, const std::string& which, std::string& bytes);

/// Every panel's tick, then its checkpoint's fetch if it wants it, before a frame is drawn.
void tick_panels(AppState& s);
/// Some panel has work in progress.
bool panels_busy(const AppState& s);

/// Adds a panel after the built-in ones (a test's throw-away panel: one static object).
struct PanelRegistration {
  explicit PanelRegistration(const PanelDef& def);
};

}  // namespace app
