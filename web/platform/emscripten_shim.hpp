// web/platform/emscripten_shim.hpp — every emscripten-specific line of the app.
//
// After ImGui's examples/libs/emscripten/emscripten_mainloop_stub.h: main() is written
// as a plain loop,
//     ATTN_MAIN_LOOP_BEGIN { ...one frame...; if (done) break; } ATTN_MAIN_LOOP_END;
// Natively that is `while (true)`. In the browser the body becomes a lambda that the
// browser calls once per animation frame (`break` then just ends that frame), and
// emscripten_set_main_loop never returns: main()'s stack is unwound, so everything the
// loop uses must be static or on the heap, not a local of main().
#pragma once

#ifdef __EMSCRIPTEN__
#include <emscripten.h>

#include <functional>

namespace app::shim {
inline std::function<void()> main_loop_body;
/// One browser frame; reports the main-thread time it took (ms) to the page's frame statistics.
inline void main_loop_tick() {
  const double t0 = emscripten_get_now();
  main_loop_body();
  EM_ASM({ if (Module["attnFrameWork"]) Module["attnFrameWork"]($0); }, emscripten_get_now() - t0);
}
/// Tell the page (index.html / attention_lab_api.js) that a frame has been presented.
inline void notify_frame_presented(int frames) {
  EM_ASM({ if (Module["attnFramePresented"]) Module["attnFramePresented"]($0); }, frames);
}
/// Startup failed: the page shows `message` instead of waiting for a first frame.
inline void report_fatal(const char* message) {
  EM_ASM({ if (Module["attnFatal"]) Module["attnFatal"](UTF8ToString($0)); }, message);
}
/// A page tool was clicked ("copy_link", "png", "png2", "csv", "json", "open_full"): the page
/// (embed.js, web/page/embed/) does it — clipboard and downloads are browser business.
inline void page_action(const char* name) {
  EM_ASM({ if (Module["attnPageAction"]) Module["attnPageAction"](UTF8ToString($0)); }, name);
}
/// ImGui's clipboard callbacks → the system clipboard (platform/browser_glue.cpp).
void install_clipboard();
/// Fetch a shipped checkpoint relative to the page (Module.attnFetchCheckpoint); the page answers
/// through attn_app_checkpoint_loaded / _failed (app/api.hpp), at once when it cannot fetch.
inline void fetch_checkpoint(const char* url) {
  EM_ASM({
    if (Module["attnFetchCheckpoint"]) Module["attnFetchCheckpoint"](UTF8ToString($0));
    else Module["_attn_app_checkpoint_failed"]($0, 0);
  }, url);
}

// The training Worker (web/worker/, started by attention_lab_api.js): panels/train_worker.cpp's
// calls into the page, which answers through attn_app_train_state / _failed.
/// The page lets runs go to the Worker (not ?train_worker=0, a Worker could start).
inline bool train_worker_allowed() {
  return EM_ASM_INT({ return Module["attnTrainWorkerAllowed"] ? Module["attnTrainWorkerAllowed"]() : 0; }) != 0;
}
/// Start the Worker's module loading (its first run then starts at once).
inline void train_worker_warm() {
  EM_ASM({ if (Module["attnTrainWorkerWarm"]) Module["attnTrainWorkerWarm"](); });
}
/// Step `size` state bytes `steps` times (at most `ms`) in a second runner and throw them away.
inline void train_worker_rehearse(const char* data, int size, int steps, int ms) {
  EM_ASM({ if (Module["attnTrainWorkerRehearse"]) Module["attnTrainWorkerRehearse"]($0, $1, $2, $3); }, data, size,
         steps, ms);
}
/// Run `id` from the state bytes: slices of `budget_ms`, a state back every `sync_every` steps,
/// `rest_ms` of rest after each slice.
inline void train_worker_run(int id, const char* data, int size, double budget_ms, int sync_every, double rest_ms) {
  EM_ASM({ Module["attnTrainWorkerRun"]($0, $1, $2, $3, $4, $5); }, id, data, size, budget_ms, sync_every, rest_ms);
}
/// Stop run `id` (its later messages are dropped).
inline void train_worker_stop(int id) {
  EM_ASM({ if (Module["attnTrainWorkerStop"]) Module["attnTrainWorkerStop"]($0); }, id);
}
}  // namespace app::shim

#define ATTN_MAIN_LOOP_BEGIN app::shim::main_loop_body = [&]() { do
#define ATTN_MAIN_LOOP_END \
  while (0);               \
  }                        \
  ;                        \
  emscripten_set_main_loop(app::shim::main_loop_tick, 0, true)
/// Keeps a C function exported to JS (Module._name).
#define ATTN_EXPORT EMSCRIPTEN_KEEPALIVE
/// WebGL2 = OpenGL ES 3.0.
#define ATTN_GLSL_VERSION "#version 300 es"
#define ATTN_GL_ES 1

#else  // native

#include <string>

namespace app::shim {
inline void notify_frame_presented(int) {}
inline void report_fatal(const char*) {}
/// Natively the page tools only remember the last action (the headless test reads it).
inline std::string& last_page_action() {
  static std::string last;  // a copy: an action's name may be built for the call
  return last;
}
inline void page_action(const char* name) { last_page_action() = name; }
inline void install_clipboard() {}  // SDL's clipboard is the system's
}  // namespace app::shim

#define ATTN_MAIN_LOOP_BEGIN while (true)
#define ATTN_MAIN_LOOP_END
#define ATTN_EXPORT
#define ATTN_GLSL_VERSION "#version 330 core"
#define ATTN_GL_ES 0

#endif
