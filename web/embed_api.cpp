#include "embed_api.hpp"

#include <string>

#include "api.hpp"
#include "app.hpp"
#include "page_tools.hpp"
#include "page_view.hpp"

namespace app {

attn::Json link_inputs(const AppState& s) {
  // Built from the inputs alone: state_json would also serialise every result (hundreds of
  // milliseconds for 512 tokens × 8 heads), and the link is refreshed while the learner drags.
  // The three first panels mirror their "inputs" in state_json (app_state.cpp); the browser test
  // "a link reproduces the view" checks that they stay the same.
  using attn::Json;
  const AlignmentState& a = s.alignment;
  const HeadsState& h = s.heads;
  const PermutationState& p = s.permutation;
  auto positions = [](attn::PositionSignal v) {
    return v == attn::PositionSignal::sinusoidal ? "sinusoidal" : (v == attn::PositionSignal::rope ? "rope" : "none");
  };
  Json out = Json{
      {"panel", panel_name(s.panel)},
      {"alignment", {{"weights", attn::to_json(a.weights)}, {"values", attn::to_json(a.values)},
                     {"selected_row", a.selected_row}}},
      {"heads", {{"sentence", h.input.sentence}, {"seed", h.input.seed}, {"d_model", h.input.d_model},
                 {"heads", h.input.heads}, {"d_k", h.input.d_k}, {"causal", h.input.causal},
                 {"valid_length", h.input.valid_length >= 0 ? Json(h.input.valid_length) : Json(nullptr)},
                 {"positions", positions(h.input.positions)},
                 {"init", h.input.init == attn::HeadsInit::core ? "core" : "torch_replica"}}},
      {"permutation", {{"sentence", p.input.sentence}, {"seed", p.input.seed}, {"d_model", p.input.d_model},
                       {"permutation", p.input.permutation}, {"causal", p.input.causal},
                       {"positions", positions(p.input.positions)}, {"query", p.input.query},
                       {"shuffle_seed", p.shuffle_seed}}},
  };
  // The lesson panels (fixed-size models: cheap): their "inputs", minus what set() cannot
  // take back (the script panel's run count), plus the additive panel's step.
  const Json lesson = lesson_state_json(s);
  for (auto it = lesson.begin(); it != lesson.end(); ++it) {
    if (!it->is_object() || !it->contains("inputs") || !(*it)["inputs"].is_object()) continue;
    Json in = (*it)["inputs"];
    if (it.key() == "script") in.erase("runs");
    if (it.key() == "additive" && it->contains("step")) in["step"] = (*it)["step"];
    if (!in.empty()) out[it.key()] = std::move(in);
  }
  out["cost"] = cost_state_json(s)["inputs"];  // the Cost panel: every input set() takes back
  out["learned_heads"] = learned_heads_inputs_json(s.learned_heads.input);  // inputs only, never the run
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
  if (!a) return reply(attn::Json{{"error", {{"code", "not_ready"}, {"message", "the app has not started"}}}});
  return reply(app::link_inputs(a->state()));
}

const char* attn_app_view(int max_cells) { return reply(app::view::view_json(max_cells)); }

void attn_app_set_embed(int on) {
  if (app::App* a = app::api_app()) a->set_embed(on != 0);
}

void attn_app_toast(const char* text) {
  app::page_tools_toast(text ? text : "");
  if (app::App* a = app::api_app()) a->request_frame();
}

}  // extern "C"
