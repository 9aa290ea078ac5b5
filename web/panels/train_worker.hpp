// web/panels/train_worker.hpp — the page's side of the training Worker: a trained panel hands its
// run's state to the Worker (web/worker/), which steps it while the page's thread only draws, and
// takes back the state after each of the Worker's slices (load_state: the same bits as stepping
// here). In the browser the bytes travel by postMessage (web/page/attention_lab_api.js); natively
// there is no Worker unless a test plays one (run_posted_natively). When the Worker fails (its
// script or wasm did not load, a step threw), runs go back to the page's frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace app::train_worker {

/// True when a run's steps go to the Worker: in the browser (unless the page was opened with
/// ?train_worker=0) until the Worker failed once; natively, only after set_available(true).
bool available();
/// Turns the Worker on or off (a test; the page's ?train_worker=0).
void set_available(bool on);
/// Why the Worker was turned off after a failure ("" while it works).
const std::string& failure();

/// Creates the Worker (its script and wasm load in the background) when available() and not yet
/// done, and the first time it is called for `kind` (a panel's name) with no run in the Worker,
/// has the Worker rehearse: `state()` — the bytes of a trainer state at step 0 of the run Train
/// would start with the inputs of that moment — is stepped there for about kRehearsalSteps steps
/// (it stops after the slice that reaches them, or after kRehearsalMs) and thrown away. A panel that trains
/// calls it when it opens, so that Train waits neither for the Worker's loading nor for the
/// engine's optimising compiler, which compiles the hot training code only after it has run a
/// while (measured in headless Chromium on 2 cores: about a core's second of compiling in a
/// run's first 800 ms, beside the page's frames). A state() that throws leaves the Worker
/// unrehearsed (the run is then only slower to start).
void warm(const char* kind, const std::function<std::string()>& state);
/// Steps and milliseconds of a rehearsal: enough for the hot code to be compiled with the
/// optimising tier (traced, the Learned heads default run after 40 steps of rehearsal: the
/// Worker's module compiled 49–86 ms of optimised code during the whole run, against about 1 s in
/// its first 800 ms without).
constexpr int kRehearsalSteps = 40;
constexpr double kRehearsalMs = 2000.0;
/// Natively, the state bytes warm() had rehearsed for `kind` ("" when none was, and in the
/// browser, where they went to the Worker): what a test checks.
const std::string& rehearsed_state(const std::string& kind);
/// Starts a run in the Worker from `state` (trainer state bytes): slices of `budget_seconds`,
/// stopping at every multiple of `sync_every`, with `rest_seconds` between slices on a machine of
/// at most two logical cores (the page's glue decides; natively no Worker waits). Returns the
/// run's id (never 0). The rest delays steps, never changes them: the bits are the same.
int start(const std::string& state, double budget_seconds, int sync_every, double rest_seconds = 0.0);
/// Forgets run `id` (0: none): the Worker stops it, its queued and later messages are dropped.
void stop(int id);

/// What the Worker sent for a run: the state bytes after a slice, or why it failed.
struct Message {
  int step = 0;
  bool done = false;
  std::string state;
  std::string error;  ///< non-empty: the run failed (the Worker is then turned off)
};
/// The messages run `id` has received since the last take, oldest first (the queue is emptied):
/// of its states only those at a multiple of sync_every, the run's last and the newest are kept
/// (state_arrived drops the others as the next comes).
std::vector<Message> take(int id);
/// True while run `id` is in the Worker's hands with nothing received since the last take: a
/// frame would show the same state (the page then skips it). False for 0 or a stopped run.
bool waiting(int id);

/// The Worker sent run `id`'s state after a slice (called from the page's message handler).
void state_arrived(int id, int step, bool done, const std::uint8_t* data, std::size_t size);
/// The Worker (or its loading) failed for run `id` with `message`: the Worker is turned off.
void failed(int id, const std::string& message);

/// Natively: plays the Worker for every run started and not stopped, with the TrainRunner the
/// Worker's wasm runs, until each is done (every slice's state delivered as in the browser).
/// Returns the slices run.
int run_posted_natively(int max_slices = 1 << 30);

}  // namespace app::train_worker
