// web/panels/trained_run.hpp — what every trained panel shares: a model that opens from a shipped
// checkpoint, trains here in time-budgeted slices with progress, pause, continue and reset,
// reports its steps/s and can be replaced by another model.
//
// A trained panel keeps one TrainedRun beside its own trainer (the core's HeadsTrainer or
// TranslateTrainer) and its results. This module owns the run's bookkeeping — the lifecycle
// (running, runs, where the model came from), the checkpoint's fetch, the steps/s meter, the
// slice loop, the run's fields of state(), the set() readers the trained panels share, and the
// controls row (Train / Pause / Continue / Reset, progress, status and checkpoint lines). The
// panel supplies what differs: how one step advances, what to do when a run stops, and the words
// of its own lines. Checkpoint fetching is driven by the panel table (PanelDef::trained).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>  // the trained panels hold their trainer in a shared_ptr
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "widgets/error_info.hpp"
#include "json/json_case.hpp"
#include "learn/checkpoint.hpp"
#include "panels/generation.hpp"
#include "panels/train_worker.hpp"

namespace attn::lessons {
class TranslateTrainer;
}  // namespace attn::lessons

namespace app {

struct AppState;
struct Ui;

/// A shipped checkpoint's fetch: asked for when its panel first opens with the default inputs at
/// step 0 (never with the first download), installed only if that is still so when it arrives.
struct CheckpointFetch {
  enum class Status { not_requested, requested, installed, declined, failed };
  Status status = Status::not_requested;
  std::size_t bytes = 0;
  /// FNV-1a of the installed parameters; absent for a panel that does not report it.
  std::optional<std::string> params_fnv1a;
  std::string message;  ///< why it failed or was declined
};
/// "not_requested", "requested", "installed", "declined", "failed".
const char* checkpoint_status_name(CheckpointFetch::Status s);

/// A model the user brought (a safetensors file: the file picker, a drop on the canvas or a
/// `model=` link), as the panel shows where it came from.
struct LoadedModel {
  std::string name;          ///< the file's name (or the link's URL)
  std::size_t bytes = 0;     ///< the file's size
  std::string config;        ///< one line: kind and dimensions
  std::string params_fnv1a;  ///< FNV-1a of the parameters as loaded (learn::fnv1a_doubles, hex64)
  std::size_t params = 0;    ///< their count
};

/// A model a user brought, as read (learn/model_file.hpp): its configuration (a
/// learn::DecoderConfig or learn::Seq2SeqConfig) and parameters in its layout's order.
template <typename Config>
struct BroughtModel {
  Config model;
  std::vector<double> params;
};

/// The inputs every trained run has: its seed, its number of steps and Adam's learning rate. A
/// panel's input struct derives from it and sets its defaults in its constructor.
struct RunInputs {
  std::uint64_t seed = 17;
  int steps = 1;
  double lr = 1e-3;
  bool same_run_inputs(const RunInputs& o) const { return seed == o.seed && steps == o.steps && lr == o.lr; }
};

/// Where a run stands, read off the panel's trainer.
struct RunProgress {
  bool exists = false;  ///< a trainer is there (a panel builds it on first show)
  int step = 0, total = 0;
  bool done = false;
};

/// Where `trainer`'s run stands (a core trainer with step(), done() and config().steps); without a
/// trainer, step 0 of `input_steps`.
template <typename Trainer>
RunProgress progress_of(const Trainer* trainer, int input_steps) {
  if (!trainer) return RunProgress{false, 0, input_steps, false};
  return RunProgress{true, trainer->step(), trainer->config().steps, trainer->done()};
}

/// Seconds of training (or of the run's end-of-run measurement) per frame: a slice stops when one
/// more step of its mean length would pass them (run_slice). Measured in headless Chromium at
/// 1280×800 on 2 cores: since the page redraws only what changed (platform/damage.hpp) the GPU
/// process no longer sets the frame; the page's thread does, the slice plus 2–4 ms of building and
/// drawing the frame, so most frames take two display refreshes (33 ms) and some three. Against
/// slices that ran until 28 ms were spent, alternated in one window: 11% slower training (18.0 and
/// 24.9 s against 16.1 and 22.5 s for the default Learned heads run) and about half the frames
/// over 50 ms (1.8–2.0% against 3.3–3.7%); 22 ms gave two steps a frame (30 s). The frames over
/// 50 ms that remain come from outside the page's frame (its other tasks, the GPU process).
constexpr double kTrainSliceSeconds = 0.030;
/// At most this many seconds per frame of a run's end-of-run measurement (run_end_slice): its units
/// run in the page's thread (the Worker only trains), 7–15 ms each in headless Chromium (one
/// evaluation of the held-out batch; a few test sentences decoded), so with a training slice's
/// budget two or three shared a frame and took it past 50 ms; at this budget a frame holds one.
constexpr double kEndSliceSeconds = 0.012;
/// How the training Worker paces a panel's run: it steps for `slice_seconds` (a Learned heads slice
/// also ends at each snapshot step), sends its state back to the page (0.3 MB for Learned heads,
/// 1.6 MB for the Translate pair, to encode, copy and decode; the page draws a frame with the
/// newest it took), and on a machine of at most two logical cores (navigator.hardwareConcurrency,
/// or a browser that does not say; never elsewhere: web/page/attention_lab_api.js) waits
/// `rest_seconds` before the next slice. There the Worker's core is half the machine, and the
/// page's frame, the GPU process's present (waiting on SwiftShader's rendering: docs/ARCHITECTURE.md)
/// and the engine compiling the page's own code with its optimising tier share the other. Each
/// panel's figures were measured for its own run (below, and translate.cpp).
struct WorkerPace {
  double slice_seconds;
  double rest_seconds;
};
/// The Learned heads run's pace. Measured in headless Chromium on 2 cores, the default run, eight
/// fresh browsers each, alternated: 50 ms slices with a 10 ms rest took 10.1–15.5 s (median 13.3)
/// with 8 frames over 50 ms; 100 ms with 20 ms (the same share of rest) 10.1–14.9 s (median
/// 11.2) with 10; 100 ms with 10 ms 8.6–13.5 s (median 10.9) but 24. Earlier, at 50 ms slices:
/// no rest gave 24 frames over 50 ms in ten runs against 12 with 10 ms.
constexpr WorkerPace kHeadsWorkerPace{0.100, 0.020};

/// The run's bookkeeping (one per trained panel, a member of its state).
struct TrainedRun {
  bool running = false;
  int runs = 0;                  ///< Train presses (a fresh run each)
  bool from_checkpoint = false;  ///< the model shown was installed from the checkpoint, not trained here
  CheckpointFetch checkpoint;
  /// The model a run starts from when the user brought one (Train continues from it, Reset goes
  /// back to it); absent: the lab's own seeded model.
  std::optional<LoadedModel> model;
  std::string model_message;  ///< why the last file brought was refused ("" after a good one)
  /// The training Worker's run taking this run's steps (panels/train_worker.hpp); 0: none, the
  /// steps run in the page's frames.
  int worker_run = 0;
  /// Where the last steps ran: "worker", "page" ("" before any).
  std::string steps_in;
  double steps_per_second = 0.0;  ///< wall-clock rate over the last second of training
  double rate_t0 = 0.0;           ///< steady-clock seconds where the rate window starts
  int rate_step0 = 0;
};

/// Steady-clock seconds.
inline double run_clock() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// "idle" (no trainer, or step 0 not running), "training", "done" or "paused".
const char* run_status(const TrainedRun& r, const RunProgress& p);
/// A fresh run starts (Train): running, one more run, the rate window from step 0.
void run_started(TrainedRun& r);
/// The run continues from `step`: running, the rate window from there.
void run_resumed(TrainedRun& r, int step);
/// After a slice: the steps/s over the last second (or over what ran so far, at first).
void run_measure_rate(TrainedRun& r, int step);
/// Pause: true when the run was running (it stops, and so does its Worker run); false when there was nothing to pause, or
/// when the run is `past_last_step`: then only its end-of-run measurement is left, and it
/// finishes (a paused run could not be continued past its last step).
bool run_paused(TrainedRun& r, bool past_last_step);
/// Back to step 0: not running (its Worker run stopped), not from the checkpoint, no rate.
void run_start_over(TrainedRun& r);

/// One frame's slice: `step_once()` (returns false when nothing advanced), at least once, until
/// `done()` or until one more step of the slice's mean length would pass the budget (a prediction:
/// a longer step, such as a snapshot's, can pass it). Errors go to `error` (an earlier input error stays on show);
/// false when a step threw.
template <typename Step, typename Done>
bool run_slice(std::optional<ErrorInfo>& error, double budget_seconds, Step&& step_once, Done&& done) {
  const double t0 = run_clock();
  return computed(error, [&] {
    double now = t0;
    int n = 0;
    do {
      if (!step_once()) break;
      now = run_clock();
      ++n;
      // Stop before a step that would end past the budget, judged by this slice's mean step.
    } while (!done() && (now - t0) * (n + 1) / n <= budget_seconds);
  });
}

/// One frame's slice of the study `study` points to (advance(1) per unit, done()): false, the
/// study dropped and the error recorded, when a unit threw.
template <typename Study>
bool run_study_slice(std::optional<ErrorInfo>& error, double budget_seconds, std::shared_ptr<Study>& study) {
  Study& st = *study;
  if (run_slice(error, budget_seconds, [&] { return st.advance(1) != 0; }, [&] { return st.done(); })) return true;
  study.reset();
  return false;
}

/// One frame of a running panel's run, after its last step `step`: its end-of-run measurement at
/// that step (`study`, begun at `study_step`) in slices of `budget_seconds` or kEndSliceSeconds,
/// the shorter, so that no frame carries it whole. `begin()` starts it: true when a study is under
/// way, false when nothing is left to slice (measured at once, or refused with the error shown).
/// `install()` installs the study's figures once all are in, in the frame after the last unit's.
/// The run stops when they are in, when
/// nothing was left to slice, or when a unit threw (the error recorded, the study dropped); in
/// every case `ended()` follows, so that the run's end (its event, the views of the last step)
/// never depends on the measurement succeeding.
template <typename Study, typename Begin, typename Install, typename Ended>
void run_end_slice(std::optional<ErrorInfo>& error, TrainedRun& r, std::shared_ptr<Study>& study, int study_step, int step,
                   double budget_seconds, Begin&& begin, Install&& install, Ended&& ended) {
  if (!study || study_step != step) {
    if (begin()) return;
  } else if (!study->done()) {
    // The last unit and the install are frames of their own, so that no frame carries both.
    if (run_study_slice(error, std::min(budget_seconds, kEndSliceSeconds), study)) return;
  } else {
    r.running = false;  // the figures are those of a stopped run (what install() may read)
    install();
  }
  r.running = false;
  ended();
}

/// One frame of a running panel's run: while steps remain, a training slice (`step_once`, see
/// run_slice) and the rate; a step that threw stops the run. Past the last step, `run_end()`
/// (run_end_slice). True when this frame trained.
template <typename Trainer, typename Step, typename End>
bool run_tick(std::optional<ErrorInfo>& error, TrainedRun& r, Trainer& tr, double budget_seconds, Step&& step_once,
              End&& run_end) {
  if (tr.done()) {
    run_end();
    return false;
  }
  if (!run_slice(error, budget_seconds, step_once, [&] { return tr.done(); })) r.running = false;
  run_measure_rate(r, tr.step());
  return true;
}

/// True when this frame's steps of a running run go to the training Worker: steps remain, and a
/// Worker run is under way or the Worker is there (train_worker::available()).
inline bool run_in_worker(const TrainedRun& r, bool done) {
  return !done && (r.worker_run != 0 || train_worker::available());
}

/// True while a run needs frames (PanelDef::busy): it runs, and not only waiting on its Worker run
/// with no state come since the last frame (that frame would draw the same picture; the
/// Worker's next state makes the next frame draw it).
inline bool run_needs_frames(const TrainedRun& r) { return r.running && !train_worker::waiting(r.worker_run); }

/// One frame of a run whose steps the training Worker takes (run_in_worker): the first hands it the
/// run (`tr`'s state as bytes; slices stop at each multiple of `sync_every`, 0: none; the Worker
/// paces it as `pace` says, train_worker::start), the next take the states it sent since the last
/// into `tr` (load_state: the bits the page's own steps would give), calling `on_state()` after
/// each: those at a multiple of `sync_every`, the run's last and the newest (a state replaces the
/// whole run; train_worker::take drops the ones in between, which would change nothing the next
/// does not). `after()` follows once when any came. A Worker that failed leaves the run where its
/// last state put it and the next frames step it in the page (train_worker::available() is false
/// from then on); a state that does not fit stops the run with its error on show. True when the
/// frame changed what the panel shows (a state taken, the run handed over or stopped); false when
/// the Worker sent nothing since.
template <typename Trainer, typename OnState, typename After>
bool run_worker_tick(std::optional<ErrorInfo>& error, TrainedRun& r, Trainer& tr, int sync_every, const WorkerPace& pace,
                     OnState&& on_state, After&& after) {
  r.steps_in = "worker";
  if (r.worker_run == 0) {
    std::string state;
    if (!computed(error, [&] { state = attn::learn::encode_checkpoint(tr.state_checkpoint()); })) {
      r.running = false;
      return true;
    }
    r.worker_run = train_worker::start(state, pace.slice_seconds, sync_every, pace.rest_seconds);
    return true;
  }
  const std::vector<train_worker::Message> messages = train_worker::take(r.worker_run);
  std::size_t states = 0;  // the messages before a failure, if any
  while (states < messages.size() && messages[states].error.empty()) ++states;
  for (std::size_t i = 0; i < states; ++i) {
    const train_worker::Message& m = messages[i];
    const bool ok = computed(error, [&] {
      tr.load_state(attn::learn::decode_checkpoint(reinterpret_cast<const std::uint8_t*>(m.state.data()), m.state.size()));
      on_state();
    });
    if (!ok) {
      train_worker::stop(std::exchange(r.worker_run, 0));
      r.running = false;
      return true;
    }
  }
  bool took = states > 0;
  if (states < messages.size()) {
    train_worker::stop(std::exchange(r.worker_run, 0));
    took = true;  // the next frames step in the page
  }
  if (tr.done()) train_worker::stop(std::exchange(r.worker_run, 0));
  if (!took) return false;
  after();
  run_measure_rate(r, tr.step());
  return true;
}

/// True when the panel is on screen, its checkpoint was never asked for, and its run is the
/// default one at step 0, not running (`default_at_step0`, the panel's own test).
bool run_wants_checkpoint(const TrainedRun& r, bool shown, bool default_at_step0);
void run_checkpoint_requested(TrainedRun& r);
/// The panel table's "fetch asked" hook for the panel whose state is AppState::*Panel (a struct
/// with a TrainedRun `run`): the run records it and the frame's content changes.
template <auto Panel, typename State>
void checkpoint_requested_hook(State& s) {
  run_checkpoint_requested((s.*Panel).run);
  changed();
}
void run_checkpoint_failed(TrainedRun& r, const std::string& message);

/// The run record in checkpoint bytes (`from` reads it), refused with invalid_field unless its
/// configuration, as `config_json` writes it, is `expected`'s: a checkpoint of another run is not
/// the panel's default run. Decoding errors propagate (learn::decode_checkpoint).
template <typename Run, typename Config>
Run default_run_from_checkpoint(const std::uint8_t* data, std::size_t size,
                                Run (*from)(const attn::learn::Checkpoint&), attn::Json (*config_json)(const Config&),
                                const Config& expected) {
  Run run = from(attn::learn::decode_checkpoint(data, size));
  if (config_json(run.config) != config_json(expected))
    throw attn::Error(attn::ErrorCode::invalid_field, "the checkpoint is of another configuration than the default run");
  return run;
}

/// Installs fetched checkpoint bytes (`size` of them). `take()` decodes and checks them through the
/// core (throwing attn::Error naming what is wrong: the checkpoint is then `failed` with that
/// message) and installs the model, or returns false when the panel's run is no longer the default
/// one at step 0 (`declined`). Once installed (from_checkpoint, `installed`), `after()` recomputes
/// what the panel shows of it. False unless installed.
template <typename Take, typename After>
bool run_install_checkpoint(TrainedRun& r, std::size_t size, Take&& take, After&& after) {
  CheckpointFetch& c = r.checkpoint;
  c.bytes = size;
  try {
    if (!take()) {
      c.status = CheckpointFetch::Status::declined;
      c.message = "not installed: the inputs changed or a run started before it arrived";
      return false;
    }
  } catch (const attn::Error& e) {
    c.status = CheckpointFetch::Status::failed;
    c.message = e.what();
    return false;
  }
  r.from_checkpoint = true;
  c.status = CheckpointFetch::Status::installed;
  c.message.clear();
  after();
  return true;
}

/// The run's fields of state(): status, running, runs, step, total, progress, steps_per_second,
/// source ("checkpoint", "file", "file, trained here", "trained here", "untrained"), checkpoint
/// {url, status, bytes, [params_fnv1a], message}, model ({name, bytes, config, params_fnv1a,
/// params} or null) and model_message.
void run_state_json(attn::Json& out, const TrainedRun& r, const RunProgress& p, const char* checkpoint_url);

// --- set() readers of the trained panels (a malformed value throws attn::Error(invalid_field)) --
[[noreturn]] void run_invalid(const std::string& message);
/// An integral number ("KEY must be an integer", "KEY is out of range" beyond ±4e18).
std::int64_t run_integer(const attn::Json& j, const std::string& key);
/// Clamped into int's range, so a setter's range check names the value.
int run_clamp_int(std::int64_t v);
bool run_bool(const attn::Json& j, const std::string& key);

/// The keys every trained panel's set() patch takes: seed, steps, lr (inputs of the run) and the
/// actions train, pause, continue (or resume), reset.
struct RunPatch {
  bool inputs = false;  ///< seed, steps or lr was given
  bool train = false, pause = false, resume = false, reset = false;
};
/// Reads `key` into the run's inputs or actions when it is one of RunPatch's keys (false: not
/// one of them, the panel reads it). A malformed value throws attn::Error(invalid_field).
bool read_run_patch(const std::string& key, const attn::Json& v, std::uint64_t& seed, int& steps, double& lr,
                    RunPatch& patch);

// --- drawing -----------------------------------------------------------------------------------
/// The words of a panel's controls block, formatted by the panel from its state.
struct RunControlsText {
  std::string details;       ///< after "Run N" in the run's collapsed section: models, batch, optimiser
  std::string what;          ///< the shipped run in the notes: "the default run", "the default pair"
  std::string opened_tail;   ///< after "Opened trained: ..." (what Train does with the seed)
  std::string reproduction;  ///< the reproduction check's sentence, empty when not compared
};
/// The run's own inputs as a row of fields: seed, steps, learning rate. True when one was edited.
bool draw_run_inputs(std::uint64_t& seed, int& steps, double& lr);
/// The panel's setters the buttons forward (with defer_edit, applied as the next frame starts).
struct RunActions {
  void (*train)(AppState&);
  void (*pause)(AppState&);
  void (*resume)(AppState&);
  void (*reset)(AppState&);
};
/// Train / Pause / Continue / Reset, the progress bar ("step k / n"), the status line ("training",
/// "done (the shipped run)", ...; steps/s), the checkpoint's fetch (checkpoint_note) and a loaded
/// model (loaded_model_note); then a collapsed "About this run": the run's number and details, how
/// the model opened (opened_from_checkpoint_note) and the reproduction. Each note only when it has
/// something to say.
void draw_run_controls(AppState& s, const TrainedRun& r, const RunProgress& p, const RunControlsText& text,
                       const RunActions& actions);
/// A study measured in slices: its progress bar ("units done / total") with `note` beside it.
void draw_study_progress(int done, int total, const std::string& note);
/// "Opened trained: WHAT after N steps, from the shipped checkpoint (K kB, fetched when this panel
/// opened[; parameters' FNV-1a H]). TAIL" — empty unless the model came from the checkpoint.
std::string opened_from_checkpoint_note(const TrainedRun& r, const std::string& what, int step, const std::string& tail);
/// The run's model is now the file `name` (`bytes` long; `config` one line of its kind and sizes)
/// with these parameters: records where it came from and its hash, clears the last refusal.
void run_model_loaded(TrainedRun& r, const std::string& name, std::size_t bytes, const std::string& config,
                      const std::vector<double>& params);
/// A file was refused (`code`, "NAME: WHY"): its message goes to the run's record and to the
/// panel's error slot (with "the model shown stayed"); the model shown is not touched.
void run_model_refused(TrainedRun& r, std::optional<ErrorInfo>& error, const std::string& code, const std::string& message);

/// "Loaded NAME (K kB): CONFIG, N parameters, FNV-1a H[, trained here for S steps]. " and, after
/// a refused file, "The file brought last was refused: WHY; the model shown stayed." Empty when
/// neither.
std::string loaded_model_note(const TrainedRun& r, int step);
/// One export button of a trained panel: its label and the model it exports ("" for the first).
struct ModelExport {
  const char* label;
  const char* which;
};
/// The model row: "Load a model..." (a file picker; a file dropped on the canvas does the same),
/// one button per export (a download of that model as shown) and, with a loaded model, "Back to
/// the lab's model" (`unload`, deferred). `panel` names the page actions (embed.js:
/// load_model:PANEL, export_model:PANEL:WHICH).
void draw_model_row(AppState& s, const TrainedRun& r, const char* panel, void (*unload)(AppState&),
                    const std::vector<ModelExport>& exports);

/// The checkpoint's line while it is fetched or when it failed (empty otherwise); `what` names
/// the run ("the default run", "the default pair").
std::string checkpoint_note(const TrainedRun& r, const std::string& what);

/// The Translate panel's translator as other panels read it (the Additive panel's trained view,
/// the recall strips): a narrow view of its run, so that no panel reads the Translate panel's
/// state. Defined by the Translate panel (translate.cpp).
struct TranslatorView {
  std::shared_ptr<attn::lessons::TranslateTrainer> trainer;  ///< null until the panel's state is built
  bool from_checkpoint = false;    ///< its weights came from the shipped checkpoint
  bool running = false;            ///< a run is training it
  bool checkpoint_applies = false; ///< its inputs are the shipped run's (its checkpoint would install)
  CheckpointFetch checkpoint;      ///< where the fetch of its checkpoint stands
};
/// The translator as it stands (trainer null when the Translate panel's state is not built yet).
TranslatorView translator_view(const AppState& s);
/// Build the Translate panel's state if missing, as when it is first shown, and read it.
TranslatorView open_translator(AppState& s);
/// Ask for the Translate panel's shipped checkpoint exactly as the panel does when it opens.
void request_translator_checkpoint(AppState& s);

}  // namespace app
