#include "app/api.hpp"
#include "panels/train_worker.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "app/app.hpp"
#include "page/fit_report.hpp"
#include "json/json_case.hpp"
#include "panels/registry.hpp"
#include "learn/json_obj.hpp"

namespace {
app::App* g_app = nullptr;
std::string g_reply;   // the last reply; JS copies it before the next call
std::string g_export;  // the last model export's bytes

const char* reply(const attn::Json& j) {
  g_reply = attn::dump(j);
  return g_reply.c_str();
}

const char* no_app() {
  return reply(::attn::obj({{"ok", false}, {"error", ::attn::obj({{"code", "not_ready"}, {"message", "the app has not started"}})}}));
}
}  // namespace

namespace app {
void set_api_app(App* a) {
  g_app = a;
  set_checkpoint_fetcher(fetch_checkpoint);  // the panel table's fetches go through the page
}
App* api_app() { return g_app; }

void fetch_checkpoint(const char* url) {
#ifdef __EMSCRIPTEN__
  shim::fetch_checkpoint(url);
#else
  const std::string path = std::string(ATTN_SOURCE_DIR) + "/" + url;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    attn_app_checkpoint_failed(url, ("cannot open " + path).c_str());
    return;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  attn_app_checkpoint_loaded(url, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
#endif
}
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
    return reply(::attn::obj({{"ok", false}, {"error", ::attn::obj({{"code", "invalid_json"}, {"message", "set() needs a JSON object"}})}}));
  return reply(app::apply_json(g_app->state(), patch));
}

const char* attn_app_show_panel(const char* name) {
  if (!g_app) return no_app();
  return reply(app::apply_json(g_app->state(), ::attn::obj({{"panel", name ? name : ""}})));
}

const char* attn_app_take_events() {
  if (!g_app) return no_app();
  std::vector<std::string>& q = g_app->state().host_events;
  std::string out = "[";
  for (size_t i = 0; i < q.size(); ++i) out += (i ? "," : "") + q[i];
  out += "]";
  q.clear();
  g_reply = std::move(out);
  return g_reply.c_str();
}

int attn_app_pending_events() { return g_app ? static_cast<int>(g_app->state().host_events.size()) : 0; }

double attn_app_content_height() { return app::fit::last().content_height; }

int attn_app_frames() { return g_app ? static_cast<int>(g_app->state().frames) : 0; }

void attn_app_request_frame() {
  if (g_app) g_app->request_frame();
}

void attn_app_checkpoint_loaded(const char* url, const unsigned char* data, int size) {
  if (!g_app || !url) return;
  const std::size_t n = size > 0 ? static_cast<std::size_t>(size) : 0;
  if (!app::checkpoint_arrived(g_app->state(), url, data, n)) return;
  g_app->request_frame();
}

void attn_app_checkpoint_failed(const char* url, const char* message) {
  if (!g_app || !url) return;
  const std::string why = std::string("the checkpoint could not be fetched: ") + (message ? message : "no fetch in this page");
  if (!app::checkpoint_fetch_failed(g_app->state(), url, why)) return;
  g_app->request_frame();
}

void attn_app_train_state(int id, int step, int done, const unsigned char* data, int size) {
  app::train_worker::state_arrived(id, step, done != 0, data, size > 0 ? static_cast<std::size_t>(size) : 0);
  if (g_app) g_app->request_frame();
}

void attn_app_train_failed(int id, const char* message) {
  app::train_worker::failed(id, message ? message : "");
  if (g_app) g_app->request_frame();
}

const char* attn_app_load_model(const char* name, const char* panel, const unsigned char* data, int size) {
  if (!g_app) return no_app();
  const std::size_t n = size > 0 ? static_cast<std::size_t>(size) : 0;
  const attn::Json r = app::model_arrived(g_app->state(), name ? name : "the file", data, n, panel ? panel : "");
  g_app->request_frame();
  return reply(r);
}

const char* attn_app_model_failed(const char* name, const char* message) {
  if (!g_app) return no_app();
  const attn::Json r = app::model_fetch_failed(g_app->state(), name ? name : "the model", message ? message : "");
  g_app->request_frame();
  return reply(r);
}

const char* attn_app_export_model(const char* panel, const char* which) {
  if (!g_app) return no_app();
  g_export.clear();
  return reply(app::export_model(g_app->state(), panel ? panel : "", which ? which : "", g_export));
}

const unsigned char* attn_app_export_data() { return reinterpret_cast<const unsigned char*>(g_export.data()); }

const char* attn_app_fit() {
  static std::string fit_reply;  // its own buffer: a caller may hold state() and fit() at once
  fit_reply = attn::dump(app::fit::report_json(app::fit::last()));
  return fit_reply.c_str();
}

void attn_app_fit_probe(int px) {
  app::fit::set_probe(static_cast<float>(px));
  if (g_app) g_app->request_frame();
}

}  // extern "C"
