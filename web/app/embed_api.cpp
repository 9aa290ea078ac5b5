#include "app/embed_api.hpp"
#include "widgets/ui_style.hpp"

#include <string>

#include "app/api.hpp"
#include "app/app.hpp"
#include "page/page_tools.hpp"
#include "widgets/keyboard_nav.hpp"
#include "widgets/page_view.hpp"
#include "panels/registry.hpp"
#include "learn/json_obj.hpp"

namespace app {

attn::Json link_inputs(const AppState& s) {
  // Built from each panel's inputs alone (panels/registry.hpp): state_json would also serialise
  // every result (hundreds of milliseconds for 512 tokens × 8 heads), and the link is refreshed
  // while the learner drags.
  attn::Json out = ::attn::obj({{"panel", panel_name(s.panel)}});
  for (const PanelDef& p : panels())
    if (p.link_inputs) {
      attn::Json in = p.link_inputs(s);
      if (!in.empty()) out[p.name] = std::move(in);
    }
  // Models the user brought (by file or URL name): a link carries them as model=URL.
  attn::Json models = attn::Json::object();
  for (const PanelDef& p : panels())
    if (p.model)
      if (const LoadedModel* m = p.model->loaded(s)) models[p.name] = m->name;
  if (!models.empty()) out["models"] = std::move(models);
  return out;
}

}  // namespace app

namespace {
std::string g_embed_reply;
const char* reply(const attn::Json& j) {
  g_embed_reply = attn::dump(j);
  return g_embed_reply.c_str();
}
}  // namespace

extern "C" {

const char* attn_app_link_inputs() {
  app::App* a = app::api_app();
  if (!a) return reply(::attn::obj({{"error", ::attn::obj({{"code", "not_ready"}, {"message", "the app has not started"}})}}));
  return reply(app::link_inputs(a->state()));
}

const char* attn_app_view(int max_cells) { return reply(app::view::view_json(max_cells)); }

void attn_app_set_embed(int on) {
  if (app::App* a = app::api_app()) a->set_embed(on != 0);
}

void attn_app_set_details_open(int on) {
  app::style::set_details_open(on != 0);
  if (app::App* a = app::api_app()) a->request_frame();
}

int attn_app_tab(int dir) {
  const bool moved = app::kbd::tab(dir);
  if (app::App* a = app::api_app()) a->request_frame();
  return moved ? 1 : 0;
}

void attn_app_focus_entered(int dir) {
  app::kbd::focus_entered(dir);
  if (app::App* a = app::api_app()) a->request_frame();
}

void attn_app_focus_left() {
  app::kbd::focus_left();
  if (app::App* a = app::api_app()) a->request_frame();
}

void attn_app_toast(const char* text) {
  app::page_tools_toast(text ? text : "");
  if (app::App* a = app::api_app()) a->request_frame();
}

}  // extern "C"
