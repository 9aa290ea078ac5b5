// The Language model panel: see language_model.hpp.
#include "panels/language_model.hpp"
#include "panels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "app/app_state.hpp"
#include "panels/lesson_ui.hpp"
#include "panels/lm_link.hpp"
#include "panels/patch.hpp"
#include "panels/generation.hpp"
#include "widgets/plots.hpp"
#include "widgets/slider.hpp"
#include "platform/emscripten_shim.hpp"
#include "learn/json_obj.hpp"

namespace app {

using attn::Json;
namespace lm = attn::lessons::lm;

namespace {

constexpr char kRecall[] = "language_model";

void set_error(LanguageModelState& m, const Json& reply) {
  const Json& e = reply["error"];
  m.error = ErrorInfo{e.value("code", "invalid_field"), e.value("message", "the language-model Worker failed")};
  changed();
}

bool held(const LanguageModelState& m) { return m.info.is_object() && m.info.value("loaded", false); }
}  // namespace

bool lm_uses_gpt2_pieces(const LanguageModelState& m) {
  return held(m) && m.info.value("gpt2_tokens", false);
}

namespace {

int model_layers(const LanguageModelState& m) { return held(m) ? m.info["config"].value("layers", 0) : 0; }
int model_heads(const LanguageModelState& m) { return held(m) ? m.info["config"].value("heads", 0) : 0; }

// The prompt as token ids, for a model whose vocabulary is not GPT-2's: "3 14 15" (spaces or
// commas between). False, with the reason, when it is not such a list.
bool parse_ids(const std::string& text, std::vector<int>& ids, std::string& why) {
  ids.clear();
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == ',' || text[i] == '\t' || text[i] == '\n') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9' && j - i < 9) ++j;
    if (j == i || (j < text.size() && text[j] != ' ' && text[j] != ',' && text[j] != '\t' && text[j] != '\n')) {
      why = "this model's vocabulary is not GPT-2's, so the prompt is token ids separated by spaces; \"" +
            text.substr(i, 12) + "\" is not one";
      return false;
    }
    ids.push_back(std::stoi(text.substr(i, j - i)));
    i = j;
  }
  if (ids.empty()) why = "the prompt gives no token ids";
  return !ids.empty();
}

void run_prompt(LanguageModelState& m) {
  if (!held(m)) return;
  if (lm_uses_gpt2_pieces(m) && !m.ids_prompt) {
    m.tokenize_id = lm_link::request(attn::obj({{"op", "tokenize"}, {"text", m.prompt}}));
    return;
  }
  std::vector<int> ids;
  std::string why;
  if (!parse_ids(m.prompt, ids, why)) {
    m.error = invalid(why);
    return;
  }
  m.view.pieces.clear();
  m.view.texts.clear();
  for (int id : ids) m.view.texts.push_back("#" + std::to_string(id));
  m.forward_id = lm_link::request(attn::obj({{"op", "forward"}, {"tokens", ids}, {"top", kLmTopShown}}));
  if (lm_uses_gpt2_pieces(m)) m.prompt_pieces_id = lm_link::request(attn::obj({{"op", "pieces"}, {"tokens", ids}}));
}

double number_or_nan(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// The forward's figures into the view: maps as matrices (the heatmap widget's type), the scores,
// and the captions worded by core/lessons from them.
void install_forward(LanguageModelState& m, const lm_link::Reply& r) {
  LmView& v = m.view;
  v.layers = r.reply.value("layers", 0);
  v.heads = r.reply.value("heads", 0);
  v.t = r.reply.value("t", 0);
  v.tokens = r.reply["tokens"].get<std::vector<int>>();
  if (v.texts.size() != v.tokens.size()) {
    v.texts.clear();
    for (int id : v.tokens) v.texts.push_back("#" + std::to_string(id));
  }
  const std::size_t tt = static_cast<std::size_t>(v.t) * static_cast<std::size_t>(v.t);
  v.maps.assign(static_cast<std::size_t>(v.layers * v.heads), attn::Matrix());
  for (std::size_t k = 0; k < v.maps.size() && (k + 1) * tt <= r.weights.size(); ++k) {
    attn::Matrix w(v.t, v.t);
    for (int i = 0; i < v.t; ++i)
      for (int j = 0; j < v.t; ++j) w(i, j) = r.weights[k * tt + static_cast<std::size_t>(i * v.t + j)];
    v.maps[k] = std::move(w);
  }
  v.allowed = attn::BoolMatrix(v.t, v.t);
  for (int i = 0; i < v.t; ++i)
    for (int j = 0; j < v.t; ++j) v.allowed(i, j) = j <= i;
  v.top = r.reply["top"];
  if (!lm_uses_gpt2_pieces(m))  // another vocabulary: GPT-2's pieces of these ids would be wrong
    for (Json& row : v.top) {
      row["text"] = "#" + std::to_string(row.value("id", 0));
      row.erase("piece");
    }
  v.scores.clear();
  for (const Json& s : r.reply["scores"]) {
    lm::HeadScore h;
    h.layer = s.value("layer", 0);
    h.head = s.value("head", 0);
    h.previous_token = number_or_nan(s, "previous_token");
    h.first_token = number_or_nan(s, "first_token");
    h.induction = std::numeric_limits<double>::quiet_NaN();
    v.scores.push_back(h);
  }
  if (m.induction.is_object())
    for (const Json& s : m.induction["scores"]) {
      const std::size_t k = static_cast<std::size_t>(s.value("layer", 0) * v.heads + s.value("head", 0));
      if (k < v.scores.size()) v.scores[k].induction = number_or_nan(s, "induction");
    }
  v.heads_caption = lm::heads_caption(v.scores, v.t);
  double mass = 0.0;
  for (const Json& row : v.top) mass += row.value("prob", 0.0);
  v.next_caption = v.top.empty() ? std::string()
                                 : lm::next_token_caption(v.top[0].value("text", "#" + std::to_string(v.top[0].value("id", 0))),
                                                          v.top[0].value("prob", 0.0), mass, static_cast<int>(v.top.size()));
  ++v.version;
  m.layer = std::min(m.layer, std::max(0, v.layers - 1));
  m.head = std::min(m.head, std::max(0, v.heads - 1));
  if (m.query >= v.t) m.query = -1;
  changed();
}

std::vector<std::string> strings_of(const Json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const Json& x : j)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

// The card's figures as the trainer wrote them; its sentence from lessons::lm::card_caption.
void install_card(LanguageModelState& m, const Json& card) {
  lm::CardFigures c;
  c.corpus = card.value("corpus", "");
  c.tokens_seen = card.value("tokens_seen", 0LL);
  const Json& h = card.contains("heldout_loss") ? card["heldout_loss"] : Json();
  c.heldout_loss = h.is_object() ? h.value("loss", 0.0) : 0.0;
  const Json& b = card.contains("baselines") ? card["baselines"] : Json();
  c.unigram = b.is_object() ? b.value("unigram", 0.0) : 0.0;
  c.bigram = b.is_object() ? b.value("bigram", 0.0) : 0.0;
  c.bigram_interpolated = b.is_object() ? b.value("bigram_interpolated", 0.0) : 0.0;
  const Json& f = card.contains("formed") ? card["formed"] : Json();
  if (f.is_object()) {
    c.previous_token = strings_of(f.value("previous_token", Json::array()));
    c.induction = strings_of(f.value("induction", Json::array()));
    c.first_token = strings_of(f.value("first_token", Json::array()));
  }
  m.card = card;
  m.card_caption = lm::card_caption(c);
  changed();
}

}  // namespace

void init_language_model(LanguageModelState& m) { m = LanguageModelState{}; }

void lm_load_url(LanguageModelState& m, const std::string& model_url, const std::string& config_url, const char* source) {
  m.load_id = lm_link::load_url(model_url, config_url);
  m.loading_source = source;
  m.loading_name = model_url;
  m.loading_config = config_url;
  changed();
}

void lm_file_posted(LanguageModelState& m, int id, const std::string& name, const std::string& config_name) {
  m.load_id = id;
  m.loading_source = "file";
  m.loading_name = name;
  m.loading_config = config_name;
  changed();
}

bool lm_set_prompt(LanguageModelState& m, const std::string& prompt) {
  if (prompt.size() > static_cast<std::size_t>(kLmMaxPromptBytes)) {
    m.error = invalid("the prompt is " + std::to_string(prompt.size()) + " bytes; the panel takes at most " +
                      std::to_string(kLmMaxPromptBytes));
    m.prompt_text = m.prompt;
    return false;
  }
  if (prompt.empty()) {
    m.error = ErrorInfo{"empty_sequence", "the prompt is empty: type at least one character"};
    m.prompt_text = m.prompt;
    return false;
  }
  if (held(m) && (!lm_uses_gpt2_pieces(m) || m.ids_prompt)) {
    std::vector<int> ids;
    std::string why;
    if (!parse_ids(prompt, ids, why)) {
      m.error = invalid(why);
      m.prompt_text = m.prompt;
      return false;
    }
  }
  m.prompt = prompt;
  m.prompt_text = prompt;
  m.error.reset();
  run_prompt(m);
  changed();
  return true;
}

bool lm_generate(LanguageModelState& m) {
  if (!held(m) || m.view.tokens.empty()) {
    m.error = invalid("no model and prompt yet: generation starts from a loaded model's prompt");
    return false;
  }
  m.generate_id = lm_link::request(attn::obj({{"op", "generate"},
                                              {"tokens", m.view.tokens},
                                              {"steps", m.steps},
                                              {"temperature", m.temperature},
                                              {"seed", m.seed}}));
  changed();
  return true;
}

void lm_take_replies(AppState& s, LanguageModelState& m) {
  for (lm_link::Reply& r : lm_link::take()) {
    const bool failed = r.reply.is_object() && r.reply.contains("error");
    if (r.id == m.load_id) {
      m.load_id = 0;
      if (failed) {
        set_error(m, r.reply);
        continue;
      }
      m.info = r.reply;
      m.source = m.loading_source;
      m.model_name = m.loading_name;
      m.config_name = m.loading_config;
      m.error.reset();
      m.view = LmView{};
      m.induction = nullptr;
      m.generation = nullptr;
      m.layer = m.head = 0;
      m.query = -1;
      if (!lm_uses_gpt2_pieces(m) || m.ids_prompt) {  // token ids: the prompt becomes the first ids of its vocabulary
        std::vector<int> ids;
        std::string why;
        if (!parse_ids(m.prompt, ids, why)) {
          const int n = std::min(8, std::max(1, m.info["config"].value("context", 8)));
          std::string p;
          for (int i = 0; i < n; ++i) p += (i ? " " : "") + std::to_string(i % std::max(1, m.info["config"].value("vocab", 1)));
          m.prompt = m.prompt_text = p;
        }
      }
      run_prompt(m);
      m.induction_id = lm_link::request(attn::obj({{"op", "induction"}}));
      m.card = nullptr;
      m.card_caption.clear();
      if (m.source == "default") m.card_id = lm_link::fetch_json(kLmDefaultCardUrl);
      host_trained_event(s, "language_model", 0, m.source == "default" ? "checkpoint" : "file");
      changed();
    } else if (r.id == m.tokenize_id) {
      m.tokenize_id = 0;
      if (failed) {
        set_error(m, r.reply);
        continue;
      }
      m.view.pieces = r.reply["pieces"].get<std::vector<std::string>>();
      m.view.texts = r.reply["text"].get<std::vector<std::string>>();
      m.dropped = r.reply.value("dropped", "");
      const std::vector<int> tokens = r.reply["tokens"].get<std::vector<int>>();
      const int context = m.info["config"].value("context", 0);
      if (tokens.empty()) {
        m.error = ErrorInfo{"empty_sequence", "the prompt gives no tokens"};
      } else if (context > 0 && static_cast<int>(tokens.size()) > context) {
        m.error = invalid("the prompt is " + std::to_string(tokens.size()) + " tokens; this model's context is " +
                          std::to_string(context));
      } else {
        m.forward_id = lm_link::request(attn::obj({{"op", "forward"}, {"tokens", tokens}, {"top", kLmTopShown}}));
      }
      changed();
    } else if (r.id == m.forward_id) {
      m.forward_id = 0;
      if (failed) {
        set_error(m, r.reply);
        continue;
      }
      install_forward(m, r);
    } else if (r.id == m.induction_id) {
      m.induction_id = 0;
      if (failed) continue;  // a model whose context holds no probe: the column stays "n/a"
      m.induction = r.reply;
      for (const Json& sc : m.induction["scores"]) {
        const std::size_t k = static_cast<std::size_t>(sc.value("layer", 0) * m.view.heads + sc.value("head", 0));
        if (k < m.view.scores.size()) m.view.scores[k].induction = number_or_nan(sc, "induction");
      }
      m.view.heads_caption = lm::heads_caption(m.view.scores, m.view.t);
      changed();
    } else if (r.id == m.generate_id) {
      m.generate_id = 0;
      if (failed) {
        set_error(m, r.reply);
        continue;
      }
      m.generation = attn::obj({{"prompt_tokens", m.view.tokens},
                                {"tokens", r.reply["tokens"]},
                                {"steps", m.steps},
                                {"temperature", m.temperature},
                                {"seed", m.seed}});
      m.pieces_id = lm_link::request(attn::obj({{"op", "pieces"}, {"tokens", r.reply["tokens"]}}));
      changed();
    } else if (r.id == m.card_id) {
      m.card_id = 0;
      if (failed || !r.reply.is_object()) continue;  // the card is an addition: the model works without it
      install_card(m, r.reply);
    } else if (r.id == m.prompt_pieces_id) {
      m.prompt_pieces_id = 0;
      if (failed) continue;  // ids past the tokenizer's vocabulary: shown as numbers
      m.view.pieces = r.reply["pieces"].get<std::vector<std::string>>();
      m.view.texts.clear();
      for (const std::string& piece : m.view.pieces) m.view.texts.push_back(piece);
      changed();
    } else if (r.id == m.pieces_id) {
      m.pieces_id = 0;
      if (failed || !m.generation.is_object()) continue;
      m.generation["pieces"] = r.reply["pieces"];
      m.generation["text"] = r.reply["text"];
      changed();
    }
  }
}

// --- JSON ----------------------------------------------------------------------------------

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
}  // namespace

Json language_model_state_json(const LanguageModelState& m) {
  Json model = nullptr;
  if (held(m))
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
                                {"first_token", num(h.first_token)}}));
  const bool busy = m.load_id || m.tokenize_id || m.forward_id || m.induction_id || m.generate_id || m.pieces_id || m.prompt_pieces_id || m.card_id;
  return attn::obj({{"inputs", language_model_inputs_json(m)},
                    {"model", std::move(model)},
                    {"loading", std::move(loading)},
                    {"prompt", m.prompt},
                    {"tokens", m.view.tokens},
                    {"pieces", m.view.pieces},
                    {"text", m.view.texts},
                    {"dropped", m.dropped},
                    {"card", m.card.is_object() ? attn::obj({{"caption", m.card_caption},
                                                             {"corpus", m.card.value("corpus", "")},
                                                             {"tokens_seen", m.card.value("tokens_seen", 0LL)},
                                                             {"heldout_loss", m.card.value("heldout_loss", Json())},
                                                             {"baselines", m.card.value("baselines", Json())},
                                                             {"formed", m.card.value("formed", Json())}})
                                                : Json(nullptr)},
                    {"next", std::move(next)},
                    {"scores", std::move(scores)},
                    {"captions", attn::obj({{"heads", m.view.heads_caption}, {"next", m.view.next_caption}})},
                    {"map", map_json(m)},
                    {"generation", m.generation},
                    {"busy", busy},
                    {"error", error_value(m.error)}});
}

bool apply_language_model_json(LanguageModelState& m, const Json& patch) {
  LanguageModelState next = m;
  std::string prompt = m.prompt, model_url, config_url;
  bool generate = false, ids = m.ids_prompt;
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
    else if (k == "query") next.query = get_int(v, "query", -1, 1 << 20);
    else if (k == "steps") next.steps = get_int(v, "steps", 1, kLmMaxSteps);
    else if (k == "temperature") next.temperature = get_double(v, "temperature");
    else if (k == "seed") next.seed = get_seed(v);
    else if (k == "generate") generate = get_bool(v, "generate");
    else if (k == "model") model_url = get_string(v, "model");
    else if (k == "config") config_url = get_string(v, "config");
    else refuse("unknown language_model input '" + k + "'");
  });
  if (!(next.temperature >= 0.0 && next.temperature <= kLmMaxTemperature)) {
    m.error = invalid("temperature must be between 0 (greedy) and " + short_number(kLmMaxTemperature, 3));
    return false;
  }
  if (held(m) && (next.layer >= model_layers(m) || next.head >= model_heads(m))) {
    m.error = invalid("layer " + std::to_string(next.layer) + ", head " + std::to_string(next.head) + " is not in this model (" +
                      std::to_string(model_layers(m)) + " layers × " + std::to_string(model_heads(m)) + " heads)");
    return false;
  }
  if (held(m) && next.query >= m.view.t && m.view.t > 0) {
    m.error = invalid("query " + std::to_string(next.query) + " is past the prompt's " + std::to_string(m.view.t) + " tokens");
    return false;
  }
  if (!config_url.empty() && model_url.empty()) {
    m.error = invalid("config is read with a model: give model and config together");
    return false;
  }
  const bool prompt_changed = prompt != m.prompt || ids != m.ids_prompt;
  const bool ids_before = m.ids_prompt;
  m.ids_prompt = ids;
  m.layer = next.layer, m.head = next.head, m.query = next.query;
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
  return true;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

std::string bytes_text(double b) {
  if (b >= 1e9) return short_number(b / 1e9, 3) + " GB";
  if (b >= 1e6) return short_number(b / 1e6, 3) + " MB";
  return short_number(b / 1e3, 3) + " kB";
}

// 124439808 → "124,439,808".
std::string grouped(long long n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > (n < 0 ? 1 : 0); i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string piece_label(const LmView& v, std::size_t i) {
  const std::string t = i < v.texts.size() ? v.texts[i] : (i < v.tokens.size() ? "#" + std::to_string(v.tokens[i]) : "?");
  return style::shown_text(t);
}

void draw_model_line(LanguageModelState& m) {
  const float fs = ImGui::GetFontSize();
  if (held(m)) {
    const Json& c = m.info["config"];
    const std::string line = "Model: " + m.model_name + " \xC2\xB7 " + std::to_string(c.value("layers", 0)) + " layers \xC3\x97 " +
                             std::to_string(c.value("heads", 0)) + " heads, d_model " + std::to_string(c.value("d_model", 0)) +
                             ", vocabulary " + std::to_string(c.value("vocab", 0)) + ", context " +
                             std::to_string(c.value("context", 0)) + " \xC2\xB7 " +
                             grouped(m.info.value("params", 0LL)) + " parameters (" + m.info.value("layout", "") + ")";
    txt::note(line.c_str());
  }
  if (m.load_id) {
    const lm_link::Progress p = lm_link::progress(m.load_id);
    const std::string what = "Loading " + m.loading_name + ": " + bytes_text(p.loaded) +
                             (p.total > 0 ? " of " + bytes_text(p.total) : std::string());
    ImGui::ProgressBar(p.total > 0 ? static_cast<float>(p.loaded / p.total) : 0.0f, ImVec2(widgets::fit_width(fs * 24), 0), "");
    ImGui::SameLine();
    ImGui::TextUnformatted(what.c_str());
  } else if (!held(m)) {
    txt::para("No model is loaded yet. Load a GPT-2-family file (safetensors with its config.json), or open the page "
              "with model=URL&config=URL.");
  }
  if (ImGui::Button("Load a GPT-2 file...")) shim::page_action("load_model:language_model");
}

void draw_tokens(const LmView& v) {
  if (v.tokens.empty()) return;
  const float fs = ImGui::GetFontSize();
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(fs * 0.3f, fs * 0.3f));
  for (std::size_t i = 0; i < v.tokens.size(); ++i) {
    const std::string piece = i < v.pieces.size() ? style::shown_text(v.pieces[i]) : (i < v.texts.size() ? v.texts[i] : "");
    const std::string id = i < v.pieces.size() ? std::to_string(v.tokens[i]) : "";  // ids alone: "#3" says it
    const float w = std::max(ImGui::CalcTextSize(piece.c_str()).x, ImGui::CalcTextSize(id.c_str()).x) + fs * 0.6f;
    if (i) widgets::same_line_if_fits(w);
    ImGui::BeginGroup();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + fs * 2.4f), IM_COL32(236, 242, 250, 255), 4.0f);
    ImGui::SetCursorScreenPos(ImVec2(p0.x + fs * 0.3f, p0.y + fs * 0.1f));
    ImGui::TextUnformatted(piece.c_str());
    ImGui::SetCursorScreenPos(ImVec2(p0.x + fs * 0.3f, p0.y + fs * 1.2f));
    ImGui::TextDisabled("%s", id.c_str());
    ImGui::SetCursorScreenPos(p0);
    ImGui::Dummy(ImVec2(w, fs * 2.4f));
    ImGui::EndGroup();
  }
  ImGui::PopStyleVar();
}

void draw_next(const LmView& v, float width) {
  if (v.top.empty()) return;
  std::vector<std::string> labels;
  std::vector<double> probs;
  for (const Json& row : v.top) {
    labels.push_back(style::shown_text(row.value("text", "#" + std::to_string(row.value("id", 0)))) + "  (" +
                     std::to_string(row.value("id", 0)) + ")");
    probs.push_back(row.value("prob", 0.0));
  }
  plot::bar_table("next token", labels, {plot::BarColumn{"probability", probs, 1.0, style::accent_u32()}}, width);
}

// Every layer × head map, small; a click picks the one enlarged.
void draw_grid(LanguageModelState& m, float width, Ui& ui) {
  const LmView& v = m.view;
  const float fs = ImGui::GetFontSize();
  const float gap = fs * 0.4f;
  int cols = std::max(1, v.heads);
  while (cols > 1 && (width - gap * (cols - 1)) / cols < fs * 3.0f) cols = (cols + 1) / 2;
  const float cell_w = std::floor((width - gap * (cols - 1)) / cols);
  ImGui::PushID("grid");
  for (int k = 0; k < static_cast<int>(v.maps.size()); ++k) {
    if (k % cols != 0) ImGui::SameLine(0, gap);
    const int l = k / std::max(1, v.heads), h = k % std::max(1, v.heads);
    ImGui::BeginGroup();
    const bool picked = l == m.layer && h == m.head;
    ImGui::PushFont(ui.fonts.small);
    ImGui::TextColored(picked ? ImVec4(0.12f, 0.44f, 0.70f, 1.0f) : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), "%s%s",
                       lm::head_label(l, h).c_str(), picked ? " \xE2\x97\x80" : "");
    ImGui::PopFont();
    HeatmapSpec spec;
    spec.values = &v.maps[static_cast<std::size_t>(k)];
    spec.allowed = &v.allowed;
    spec.version = v.version;
    spec.legend = false;
    spec.width = cell_w;
    spec.max_cell = 8.0f;
    ImGui::PushID(k);
    const HeatmapEvent e = heatmap(("lm " + lm::head_label(l, h)).c_str(), spec, ui.gpu);
    ImGui::PopID();
    if (e.clicked_row >= 0) {
      m.layer = l;
      m.head = h;
      m.query = e.clicked_row;
      changed();
    }
    ImGui::Dummy(ImVec2(cell_w, 0));
    ImGui::EndGroup();
  }
  ImGui::PopID();
}

void draw_enlarged(LanguageModelState& m, float width, Ui& ui) {
  const LmView& v = m.view;
  const std::size_t k = static_cast<std::size_t>(m.layer * v.heads + m.head);
  if (k >= v.maps.size()) return;
  static std::vector<std::string> labels;
  labels.clear();
  for (std::size_t i = 0; i < v.tokens.size(); ++i) labels.push_back(piece_label(v, i));
  const int q = m.query >= 0 && m.query < v.t ? m.query : v.t - 1;
  style::heading(ui.fonts, ("Head " + lm::head_label(m.layer, m.head) + ": where each query reads").c_str());
  HeatmapSpec spec = numbered_spec(v.maps[k], labels, labels, v.version, width, 30.0f);
  spec.allowed = &v.allowed;
  spec.numbers = v.t <= 12;
  spec.selected_row = q;
  const HeatmapEvent e = heatmap("lm enlarged", spec, ui.gpu);
  if (e.clicked_row >= 0) {
    m.query = e.clicked_row;
    changed();
  }
  // The traced row: the query's three largest weights, as the Alignment panel reads one row.
  const attn::Matrix& w = v.maps[k];
  std::vector<int> order(static_cast<std::size_t>(q + 1));
  for (int j = 0; j <= q; ++j) order[static_cast<std::size_t>(j)] = j;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return w(q, a) > w(q, b); });
  std::string line = "Query \"" + labels[static_cast<std::size_t>(q)] + "\" (" + std::to_string(q) + ") reads ";
  for (std::size_t r = 0; r < order.size() && r < 3; ++r)
    line += (r ? ", " : "") + std::string("\"") + labels[static_cast<std::size_t>(order[r])] + "\" " + short_number(w(q, order[r]), 2);
  line += ". Click a row to trace another query.";
  txt::para(line.c_str());
}

void draw_generation(LanguageModelState& m) {
  const float fs = ImGui::GetFontSize();
  if (widgets::int_field("steps", &m.steps, fs * 7)) m.steps = std::clamp(m.steps, 1, kLmMaxSteps);
  widgets::same_line_if_fits(widgets::labeled_width(fs * 8, "temperature"), fs);
  float tau = static_cast<float>(m.temperature);
  ImGui::SetNextItemWidth(fs * 8);
  if (widgets::slider_float("temperature", &tau, 0.0f, 2.0f, "%.2f")) m.temperature = tau;
  widgets::seed_field(m.seed, fs * 8);
  widgets::same_line_if_fits(widgets::button_width("Generate"), fs);
  ImGui::BeginDisabled(m.generate_id != 0 || !held(m));
  if (ImGui::Button("Generate")) lm_generate(m);
  ImGui::EndDisabled();
  txt::note(m.temperature > 0.0 ? "Drawn at this temperature from the seed: the same seed gives the same tokens."
                                 : "Greedy: each step takes the most probable token (ties to the lowest id).");
  if (m.generation.is_object() && m.generation.contains("text")) {
    const std::string out = "\xE2\x80\xA6" + style::shown_text(m.generation["text"].get<std::string>());
    txt::para(out.c_str());
    txt::note("Each new token reuses the keys and values cached for the earlier ones (the K/V cache); only the "
              "new query is computed. No <|endoftext|> is put before the prompt, and generation stops at one.");
  }
}

}  // namespace

void draw_language_model_panel(LanguageModelState& m, Ui& ui) {
  const float fs = ImGui::GetFontSize();
  txt::para("Try: type a prompt. Notice which earlier tokens each head reads, and what the model expects next.");
  style::error_box(m.error);
  draw_model_line(m);

  ImGui::SetNextItemWidth(widgets::fit_labeled(ImGui::GetContentRegionAvail().x, "prompt"));
  if (ImGui::InputText("prompt", &m.prompt_text, ImGuiInputTextFlags_EnterReturnsTrue) ||
      (ImGui::IsItemDeactivatedAfterEdit() && m.prompt_text != m.prompt)) {
    const bool ids_before = m.ids_prompt;
    m.ids_prompt = !lm_uses_gpt2_pieces(m) && held(m);  // typed text goes to GPT-2's tokenizer where it can
    if (!lm_set_prompt(m, m.prompt_text)) m.ids_prompt = ids_before;
  }
  draw_tokens(m.view);
  if (!m.dropped.empty()) txt::note(m.dropped.c_str());
  if (m.view.maps.empty()) return;

  const txt::TwoColumns cols = txt::two_columns(0.5f);
  txt::begin_column(cols.left_w);
  draw_enlarged(m, cols.left_w, ui);
  cols.to_right();
  style::heading(ui.fonts, "Next token");
  draw_next(m.view, cols.right_w);
  txt::note(m.view.next_caption.c_str());
  txt::end_column(cols.right_w);

  style::heading(ui.fonts, "Every layer \xC3\x97 head (click one)");
  draw_grid(m, ImGui::GetContentRegionAvail().x, ui);
  txt::para(m.view.heads_caption.c_str());

  if (!m.card_caption.empty()) txt::note(m.card_caption.c_str());
  style::details("Generate", [&] { draw_generation(m); });
  style::details("Head scores table", [&] {
    std::vector<std::string> labels;
    std::vector<double> prev, first, ind;
    for (const lm::HeadScore& h : m.view.scores) {
      labels.push_back(lm::head_label(h.layer, h.head));
      prev.push_back(h.previous_token);
      first.push_back(h.first_token);
      ind.push_back(h.induction);
    }
    plot::bar_table("head scores", labels,
                    {plot::BarColumn{"previous token", prev, 1.0, style::accent_u32()},
                     plot::BarColumn{"first token", first, 1.0, IM_COL32(60, 140, 110, 255)},
                     plot::BarColumn{"induction", ind, 1.0, IM_COL32(120, 90, 170, 255)}},
                    ImGui::GetContentRegionAvail().x);
    txt::note("Previous token: mean weight on the key just before each query. First token: mean weight on key 0. "
              "Induction: on 20 random tokens repeated once, mean weight on the key after the earlier copy of the "
              "query's token (Olsson et al. 2022).");
  });
  style::details("Bring your own GPT-2", [] {
    txt::para("Drop a GPT-2-family safetensors file with its config.json on the page, or pick both with \"Load a "
              "GPT-2 file\". A course page can link to model=URL&config=URL; a file on another site must be served "
              "with CORS headers (Access-Control-Allow-Origin). The file is read tensor by tensor in a Worker, up to "
              "GPT-2 medium; the model shown stays if a file is refused.");
  });
  (void)fs;
}

// --- the registry's entry --------------------------------------------------------------------

namespace {
constexpr PanelDef make_panel() {
  PanelDef p = own_state_panel<LanguageModelState, language_model_state_json, apply_language_model_json,
                               language_model_inputs_json, draw_language_model_panel, kRecall>(
      "language_model", "Language model", "a real-text GPT-2: maps, next token", "Language model: attention in a GPT-2");
  p.tick = [](AppState& s, bool shown) {
    LanguageModelState& m = s.language_model;
    if (shown && !m.default_requested && !held(m) && m.load_id == 0) {
      m.default_requested = true;
      lm_load_url(m, kLmDefaultModelUrl, kLmDefaultConfigUrl, "default");
    }
    lm_take_replies(s, m);  // answers may have come between frames
  };
  p.busy = [](const AppState& s) {
    const LanguageModelState& m = s.language_model;
    return m.load_id || m.tokenize_id || m.forward_id || m.induction_id || m.generate_id || m.pieces_id || m.prompt_pieces_id || m.card_id;
  };
  return p;
}
constexpr PanelDef kPanel = make_panel();
}  // namespace

const PanelDef& language_model_panel() { return kPanel; }

}  // namespace app
