#include "api.hpp"

#include <string>

#include "app.hpp"
#include "attn/json_case.hpp"

namespace {
app::App* g_app = nullptr;
std::string g_reply;  // the last reply; JS copies it before the next call

const char* reply(const attn::Json& j) {
  g_reply = attn::dump(j);
  return g_reply.c_str();
}

const char* no_app() {
  return reply(attn::Json{{"ok", false}, {"error", {{"code", "not_ready"}, {"message", "the app has not started"}}}});
}
}  // namespace

namespace app {
void set_api_app(App* a) { g_app = a; }
App* api_app() { return g_app; }
}  // namespace app

extern "C" {

const char* attn_app_state() {
  if (!g_app) return no_app();
  return reply(app::state_json(g_app->state()));
}

const char* attn_app_set(const char* patch_json) {
  if (!g_app) return no_app();
  attn::Json patch = attn::Json::parse(patch_json ? patch_json : "", nullptr, false);
  if (patch.is_discarded())
    return reply(attn::Json{{"ok", false}, {"error", {{"code", "invalid_json"}, {"message", "set() needs a JSON object"}}}});
  return reply(app::apply_json(g_app->state(), patch));
}

const char* attn_app_show_panel(const char* name) {
  if (!g_app) return no_app();
  return reply(app::apply_json(g_app->state(), attn::Json{{"panel", name ? name : ""}}));
}

const char* attn_app_compute(const char* case_json) {
  return reply(attn::run_case_text(case_json ? case_json : ""));
}

int attn_app_frames() { return g_app ? static_cast<int>(g_app->state().frames) : 0; }

void attn_app_request_frame() {
  if (g_app) g_app->request_frame();
}

}  // extern "C"
