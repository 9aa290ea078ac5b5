// web/worker/train_worker.cpp — the training Worker's wasm (attention-lab-train-worker.js): the
// core and TrainRunner, no ImGui, SDL or GL. train_worker_api.js drives it from the Worker's
// messages (the page's side: web/page/attention_lab_api.js and panels/train_worker.hpp).
//
// Two runners: slot 0 steps the page's run; slot 1 rehearses, stepping a throwaway copy of a
// run's step 0 while a panel is open and nothing trains, so that the engine's optimising
// compiler has compiled the training code before Train is pressed (in Chromium that compiling
// otherwise takes more than a core for the run's first half second).
#include <emscripten.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "worker/train_runner.hpp"

namespace {
constexpr int kSlots = 2;  // 0: the run, 1: a rehearsal
app::TrainRunner g_runners[kSlots];
std::string g_state;  // the last slice's state bytes, until the next call
std::string g_error;

app::TrainRunner* runner(int slot) { return slot >= 0 && slot < kSlots ? &g_runners[slot] : nullptr; }
// Slot `slot`'s runner, or std::invalid_argument naming the slot.
app::TrainRunner& runner_at(int slot) {
  if (app::TrainRunner* r = runner(slot)) return *r;
  throw std::invalid_argument("no training slot " + std::to_string(slot));
}
}  // namespace

extern "C" {

/// Slot `slot` (0: the run, 1: a rehearsal) takes over the run whose state bytes are at `data`:
/// 1, or 0 with attn_train_error() saying why.
EMSCRIPTEN_KEEPALIVE int attn_train_begin(int slot, const unsigned char* data, int size) {
  try {
    runner_at(slot).begin(data, size > 0 ? static_cast<std::size_t>(size) : 0);
    return 1;
  } catch (const std::exception& e) {
    g_error = e.what();
    return 0;
  }
}

/// One slice of slot `slot`'s run (TrainRunner::slice, `budget_ms` milliseconds): the step
/// reached, its state at attn_train_data() (attn_train_size() bytes); -1 with attn_train_error()
/// when it threw.
EMSCRIPTEN_KEEPALIVE int attn_train_slice(int slot, double budget_ms, int sync_every) {
  try {
    app::TrainRunner& r = runner_at(slot);
    g_state = r.slice(budget_ms / 1000.0, sync_every);
    return r.step();
  } catch (const std::exception& e) {
    g_error = e.what();
    return -1;
  }
}

/// Slot `slot` forgets its run (a rehearsal's end): its memory goes back.
EMSCRIPTEN_KEEPALIVE void attn_train_end(int slot) {
  if (app::TrainRunner* r = runner(slot)) r->end();
  g_state = std::string();
}

/// The last slice's state bytes: valid until the next attn_train_begin, attn_train_slice or attn_train_end.
EMSCRIPTEN_KEEPALIVE const unsigned char* attn_train_data() { return reinterpret_cast<const unsigned char*>(g_state.data()); }
/// How many bytes attn_train_data() points to.
EMSCRIPTEN_KEEPALIVE int attn_train_size() { return static_cast<int>(g_state.size()); }
/// 1 when slot `slot`'s run has taken its last step, else 0.
EMSCRIPTEN_KEEPALIVE int attn_train_done(int slot) {
  const app::TrainRunner* r = runner(slot);
  return r && r->done() ? 1 : 0;
}
/// Why the last begin or slice failed (UTF-8, valid until the next failure).
EMSCRIPTEN_KEEPALIVE const char* attn_train_error() { return g_error.c_str(); }

}  // extern "C"
