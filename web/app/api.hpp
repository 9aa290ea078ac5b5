// web/app/api.hpp — the C functions behind window.attentionLab (web/page/attention_lab_api.js).
//
// Strings in and out are UTF-8 JSON. Returned pointers stay valid until the next call
// of any of these functions (JS copies them at once). Natively the same functions
// exist, so the headless test drives the page exactly as the browser does.
#pragma once

#include "platform/emscripten_shim.hpp"

namespace app {
class App;
/// The App the C functions act on (null: they answer with an error object).
void set_api_app(App* app);
/// The App set above (null before).
App* api_app();
/// Fetch a shipped checkpoint (a URL relative to the page, e.g. kLearnedHeadsCheckpointUrl): in
/// the browser asynchronously (Module.attnFetchCheckpoint in attention_lab_api.js, which answers
/// through attn_app_checkpoint_loaded / _failed); natively the file is read from the source
/// tree's checkpoints/ folder at once.
void fetch_checkpoint(const char* url);
}  // namespace app

extern "C" {
/// JSON of app::state_json (panel, frames, each panel's inputs, results, row sums, error).
ATTN_EXPORT const char* attn_app_state();
/// Apply an input patch (see app::apply_json); returns {"ok":true} or {"ok":false,"error":{code,message}}.
ATTN_EXPORT const char* attn_app_set(const char* patch_json);
/// Show a panel by name (app::panel_name: "alignment", "heads", ..., "script"); same reply shape as attn_app_set.
ATTN_EXPORT const char* attn_app_show_panel(const char* name);
/// Frames presented so far.
ATTN_EXPORT int attn_app_frames();
/// Ask for a frame on the next tick even if nothing changed (the app skips idle frames).
ATTN_EXPORT void attn_app_request_frame();
/// The bytes of the checkpoint fetched for `url` (copied by the page into the wasm heap).
ATTN_EXPORT void attn_app_checkpoint_loaded(const char* url, const unsigned char* data, int size);
/// The fetch of `url` failed with `message` (HTTP status, network error).
ATTN_EXPORT void attn_app_checkpoint_failed(const char* url, const char* message);
/// The training Worker's state after a slice of run `id` (at `step`; `done` 1 when it is the
/// run's last), `size` bytes copied by the page into the wasm heap (panels/train_worker.hpp).
ATTN_EXPORT void attn_app_train_state(int id, int step, int done, const unsigned char* data, int size);
/// The training Worker failed for run `id` with `message`: runs go back to the page's frames.
ATTN_EXPORT void attn_app_train_failed(int id, const char* message);
/// A model file the user brought (`name`: its file name or URL; `panel`: the panel it was brought
/// to, or ""): `size` bytes at `data`, or data null when the page did not copy a file over its
/// limit (app::model_arrived). {ok, panel, [error]}.
ATTN_EXPORT const char* attn_app_load_model(const char* name, const char* panel, const unsigned char* data, int size);
/// A model the page could not fetch (a model= link): `message` shows in the panel the link's
/// model would have gone to (app::model_fetch_failed). {ok: false, panel, error}.
ATTN_EXPORT const char* attn_app_model_failed(const char* name, const char* message);
/// Panel `panel`'s model `which` ("" for its first) as safetensors bytes, kept until the next
/// export: {ok, panel, name, bytes, [error]}; attn_app_export_data() points at the bytes.
ATTN_EXPORT const char* attn_app_export_model(const char* panel, const char* which);
ATTN_EXPORT const unsigned char* attn_app_export_data();
/// Host events queued since the last call (AppState::host_events), oldest first, as a JSON
/// array of objects with "type"; the queue is emptied.
ATTN_EXPORT const char* attn_app_take_events();
/// How many host events are queued (0: attn_app_take_events has nothing to give).
ATTN_EXPORT int attn_app_pending_events();
/// The height of the panel's content in the last frame, from the canvas top, in the units ImGui
/// lays out in (CSS px in the browser): what a frame needs to show it without scrolling.
ATTN_EXPORT double attn_app_content_height();
/// JSON of app::fit::report_json(fit::last()) (page/fit_report.hpp).
ATTN_EXPORT const char* attn_app_fit();
/// app::fit::set_probe(px) (tests only).
ATTN_EXPORT void attn_app_fit_probe(int px);
}
