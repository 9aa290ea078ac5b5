// web/worker/train_worker.cpp — the training Worker's wasm (attention-lab-train-worker.js): the
// core and TrainRunner, no ImGui, SDL or GL. train_worker_api.js drives it from the Worker's
// messages (the page's side: web/page/attention_lab_api.js and panels/train_worker.hpp).
#include <emscripten.h>

#include <exception>
#include <string>

#include "worker/train_runner.hpp"

namespace {
app::TrainRunner g_runner;
std::string g_state;  // the last slice's state bytes, until the next call
std::string g_error;
}  // namespace

extern "C" {

/// Takes over the run whose state bytes are at `data`: 1, or 0 with attn_train_error() saying why.
EMSCRIPTEN_KEEPALIVE int attn_train_begin(const unsigned char* data, int size) {
  try {
    g_runner.begin(data, size > 0 ? static_cast<std::size_t>(size) : 0);
    return 1;
  } catch (const std::exception& e) {
    g_error = e.what();
    return 0;
  }
}

/// One slice (TrainRunner::slice, `budget_ms` milliseconds): the step reached, its state at
/// attn_train_data() (attn_train_size() bytes); -1 with attn_train_error() when it threw.
EMSCRIPTEN_KEEPALIVE int attn_train_slice(double budget_ms, int sync_every) {
  try {
    g_state = g_runner.slice(budget_ms / 1000.0, sync_every);
    return g_runner.step();
  } catch (const std::exception& e) {
    g_error = e.what();
    return -1;
  }
}

/// The last slice's state bytes: valid until the next attn_train_begin or attn_train_slice.
EMSCRIPTEN_KEEPALIVE const unsigned char* attn_train_data() { return reinterpret_cast<const unsigned char*>(g_state.data()); }
/// How many bytes attn_train_data() points to.
EMSCRIPTEN_KEEPALIVE int attn_train_size() { return static_cast<int>(g_state.size()); }
/// 1 when the run has taken its last step, else 0.
EMSCRIPTEN_KEEPALIVE int attn_train_done() { return g_runner.done() ? 1 : 0; }
/// Why the last begin or slice failed (UTF-8, valid until the next failure).
EMSCRIPTEN_KEEPALIVE const char* attn_train_error() { return g_error.c_str(); }

}  // extern "C"
