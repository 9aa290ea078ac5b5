// The Language model panel's JSON: its link inputs, state() and set() (see language_model.hpp).
#include "panels/language_model.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "json/lesson_json.hpp"
#include "learn/json_obj.hpp"
#include "panels/lm_link.hpp"
#include "panels/patch.hpp"
#include "panels/generation.hpp"
#include "widgets/heatmap.hpp"

namespace app {

using attn::Json;
namespace lm = attn::lessons::lm;

Json language_model_inputs_json(const LanguageModelState& m) {
  return attn::obj({{"prompt", m.prompt},
                    {"ids", m.ids_prompt},
                    {"layer", m.layer},
                    {"head", m.head},
                    {"query", m.query},
                    {"steps", m.steps},
                    {"temperature", m.temperature},
                    {"seed", m.seed}});
}

namespace {
// The enlarged head's weights as the Worker computed them: {layer, head, query, weights (t × t)}.
Json map_json(const LanguageModelState& m) {
  const std::size_t k = static_cast<std::size_t>(m.layer * m.view.heads + m.head);
  if (k >= m.view.maps.size()) return nullptr;
  return attn::obj({{"layer", m.layer}, {"head", m.head}, {"query", m.query}, {"weights", attn::to_json(m.view.maps[k])}});
}

// The traced row's weight against contribution: {layer, head, query, weights, norms, caption}.
Json contribution_json(const LmContribution& c) {
  if (c.query < 0) return nullptr;
  return attn::obj({{"layer", c.layer},
                    {"head", c.head},
                    {"query", c.query},
                    {"weights", c.weights},
                    {"norms", c.norms},
                    {"caption", c.caption}});
}
}  // namespace

Json language_model_state_json(const LanguageModelState& m) {
  Json model = nullptr;
  if (lm_holds_model(m))
    model = attn::obj({{"source", m.source},
                       {"name", m.model_name},
                       {"config_file", m.config_name},
                       {"config", m.info["config"]},
                       {"layout", m.info.value("layout", "")},
                       {"params", m.info.value("params", 0)},
                       {"hash", m.info.value("hash", "")}});
  const lm_link::Progress p = lm_link::progress(m.load_id);
  Json loading = m.load_id ? attn::obj({{"name", m.loading_name}, {"loaded", p.loaded}, {"total", p.total}}) : Json(nullptr);
  Json next = Json::array();
  for (const Json& row : m.view.top)
    next.push_back(attn::obj({{"id", row.value("id", 0)},
                              {"piece", row.contains("piece") ? row["piece"] : Json(nullptr)},
                              {"text", row.value("text", "")},
                              {"p", row.value("prob", 0.0)}}));
  Json scores = Json::array();
  auto num = [](double v) { return std::isnan(v) ? Json(nullptr) : Json(v); };
  for (const lm::HeadScore& h : m.view.scores)
    scores.push_back(attn::obj({{"layer", h.layer},
                                {"head", h.head},
                                {"previous_token", num(h.previous_token)},
                                {"induction", num(h.induction)},
                                {"first_token", num(h.first_token)},
                                {"zero_ablation", num(h.zero_ablation)},
                                {"mean_ablation", num(h.mean_ablation)}}));
  Json card = m.card;
  if (card.is_object()) card["caption"] = m.card_caption;
  return attn::obj({{"inputs", language_model_inputs_json(m)},
                    {"model", std::move(model)},
                    {"loading", std::move(loading)},
                    {"prompt", m.prompt},
                    {"tokens", m.view.tokens},
                    {"pieces", m.view.pieces},
                    {"text", m.view.texts},
                    {"dropped", m.dropped},
                    {"card", std::move(card)},
                    {"next", std::move(next)},
                    {"scores", std::move(scores)},
                    {"captions", attn::obj({{"heads", m.view.heads_caption},
                                            {"next", m.view.next_caption},
                                            {"trace", m.trace},
                                            {"ablation", m.ablation_caption}})},
                    {"ablation", m.ablation_caption.empty() ? Json(nullptr)
                                                            : attn::obj({{"clean_loss", m.ablation_clean}, {"targets", m.ablation_targets}})},
                    {"map", map_json(m)},
                    {"contribution", contribution_json(m.contribution)},
                    {"generation", m.generation},
                    {"busy", lm_busy(m)},
                    {"error", error_value(m.error)}});
}

bool apply_language_model_json(LanguageModelState& m, const Json& patch) {
  LanguageModelState next = m;
  std::string prompt = m.prompt, model_url, config_url;
  bool generate = false, ablate = false, ids = m.ids_prompt, query_given = false;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "prompt") prompt = get_string(v, "prompt");
    else if (k == "ids") ids = get_bool(v, "ids");
    else if (k == "tokens") {
      if (!v.is_array() || v.empty() || v.size() > 4096) refuse("tokens must be an array of 1 to 4096 token ids");
      prompt.clear();
      for (const Json& x : v) prompt += (prompt.empty() ? "" : " ") + std::to_string(get_int(x, "tokens", 0, 1 << 30));
      ids = true;
    }
    else if (k == "layer") next.layer = get_int(v, "layer", 0, 1023);
    else if (k == "head") next.head = get_int(v, "head", 0, 1023);
    else if (k == "query") next.query = get_int(v, "query", -1, 1 << 20), query_given = true;
    else if (k == "steps") next.steps = get_int(v, "steps", 1, kLmMaxSteps);
    else if (k == "temperature") next.temperature = get_double(v, "temperature");
    else if (k == "seed") next.seed = get_seed(v);
    else if (k == "generate") generate = get_bool(v, "generate");
    else if (k == "ablate") ablate = get_bool(v, "ablate");
    else if (k == "model") model_url = get_string(v, "model");
    else if (k == "config") config_url = get_string(v, "config");
    else refuse("unknown language_model input '" + k + "'");
  });
  if (!(next.temperature >= 0.0 && next.temperature <= kLmMaxTemperature)) {
    m.error = invalid("temperature must be between 0 (greedy) and " + short_number(kLmMaxTemperature, 3));
    return false;
  }
  const int layers = lm_holds_model(m) ? m.info["config"].value("layers", 0) : 0;
  const int heads = lm_holds_model(m) ? m.info["config"].value("heads", 0) : 0;
  if (lm_holds_model(m) && (next.layer >= layers || next.head >= heads)) {
    m.error = invalid("layer " + std::to_string(next.layer) + ", head " + std::to_string(next.head) + " is not in this model (" +
                      std::to_string(layers) + " layers \xC3\x97 " + std::to_string(heads) + " heads)");
    return false;
  }
  // The query is checked against the prompt it will trace: the one in this patch when it is given
  // as ids (a typed text's length is known only once it is tokenized; a query past it traces the last token).
  const bool new_prompt = prompt != m.prompt || ids != m.ids_prompt;
  int t = new_prompt ? 0 : m.view.t;
  if (new_prompt && ids) {
    try {
      t = static_cast<int>(parse_token_ids(prompt, "tokens", 1 << 30, 4096).size());
    } catch (const attn::Error&) {  // not ids: the prompt itself is refused below, naming why
    }
  }
  // (A query kept from before that a shorter prompt passes goes back to the last token.)
  if (lm_holds_model(m) && t > 0 && next.query >= t && (query_given || !new_prompt)) {
    m.error = invalid("query " + std::to_string(next.query) + " is past the prompt's " + std::to_string(t) + " tokens");
    return false;
  }
  if (!config_url.empty() && model_url.empty()) {
    m.error = invalid("config is read with a model: give model and config together");
    return false;
  }
  const bool prompt_changed = new_prompt;
  const bool ids_before = m.ids_prompt;
  m.ids_prompt = ids;
  lm_select(m, next.layer, next.head, next.query);
  m.steps = next.steps, m.temperature = next.temperature, m.seed = next.seed;
  m.error.reset();
  changed();
  if (prompt_changed && !lm_set_prompt(m, prompt)) {
    m.ids_prompt = ids_before;
    return false;
  }
  if (!model_url.empty()) {
    m.default_requested = true;  // a link's model replaces the default, never races it
    lm_load_url(m, model_url, config_url, "url");
  }
  if (generate && !lm_generate(m)) return false;
  if (ablate && !lm_ablate(m)) return false;
  return true;
}

}  // namespace app
