// The Language model panel's state: the requests it makes of the language-model Worker and what it
// keeps of their answers (see language_model.hpp; JSON in language_model_json.cpp, drawing in
// language_model_draw.cpp).
#include "panels/language_model.hpp"
#include "panels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "app/app_state.hpp"
#include "attn/masks.hpp"
#include "panels/lm_link.hpp"
#include "panels/patch.hpp"
#include "panels/generation.hpp"
#include "widgets/ui_style.hpp"
#include "learn/json_obj.hpp"

namespace app {

using attn::Json;
namespace lm = attn::lessons::lm;

namespace {

constexpr char kRecall[] = "language_model";
/// Typed ids: GPT-2-family vocabularies stop at 65,536 tokens, contexts at 1,024 (learn::kGpt2FamilyLimits).
constexpr int kMaxTypedId = 65535;
constexpr std::size_t kMaxTypedIds = 1024;

std::string id_text(int id) { return "#" + std::to_string(id); }

// The prompt's ids when it is typed as ids; false, with the reason shown, when it is not such a list.
bool prompt_ids(LanguageModelState& m, const std::string& text, std::vector<int>& ids) {
  return guarded(m.error, [&] {
    ids = parse_token_ids(text, "prompt", kMaxTypedId, kMaxTypedIds);
    if (ids.empty()) throw attn::Error(attn::ErrorCode::empty_sequence, "prompt: no token ids");
  });
}

bool reads_ids(const LanguageModelState& m) { return !lm_uses_gpt2_pieces(m) || m.ids_prompt; }

void run_prompt(LanguageModelState& m) {
  if (!lm_holds_model(m)) return;
  if (!reads_ids(m)) {
    m.tokenize_id = lm_link::request(attn::obj({{"op", "tokenize"}, {"text", m.prompt}}));
    return;
  }
  std::vector<int> ids;
  if (!prompt_ids(m, m.prompt, ids)) return;
  m.view.pieces.clear();
  m.view.texts.clear();
  for (int id : ids) m.view.texts.push_back(id_text(id));
  m.forward_id = lm_link::request(attn::obj({{"op", "forward"}, {"tokens", ids}, {"top", kLmTopShown}}));
  if (lm_uses_gpt2_pieces(m)) m.prompt_pieces_id = lm_link::request(attn::obj({{"op", "pieces"}, {"tokens", ids}}));
}

double number_or_nan(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// The induction probe's scores into the heads' scores, and the heads' caption from them all.
void apply_induction(LmView& v, const Json& induction) {
  if (induction.is_object())
    for (const Json& s : induction["scores"]) {
      const std::size_t k = static_cast<std::size_t>(s.value("layer", 0) * v.heads + s.value("head", 0));
      if (k < v.scores.size()) v.scores[k].induction = number_or_nan(s, "induction");
    }
  v.heads_caption = lm::heads_caption(v.scores, v.t);
}

// The traced row of the enlarged head, worded by lessons::lm::row_reading.
void update_trace(LanguageModelState& m) {
  const LmView& v = m.view;
  const std::size_t k = static_cast<std::size_t>(m.layer * v.heads + m.head);
  if (k >= v.maps.size() || v.t == 0) {
    m.trace.clear();
    return;
  }
  const int q = m.query >= 0 && m.query < v.t ? m.query : v.t - 1;
  std::vector<double> row(static_cast<std::size_t>(q + 1));
  for (int j = 0; j <= q; ++j) row[static_cast<std::size_t>(j)] = v.maps[k](q, j);
  m.trace = lm::row_reading(row, q, v.labels);
}

// The contribution table's rows and sentence from the Worker's figures and the current labels:
// the keys of largest weight (ties: the earlier), then the largest contribution if not among them.
void word_contribution(LanguageModelState& m) {
  LmContribution& c = m.contribution;
  c.keys.clear();
  c.shown_weights.clear();
  c.shown_norms.clear();
  c.shown_labels.clear();
  c.caption.clear();
  if (c.weights.empty() || c.weights.size() != c.norms.size()) return;
  std::vector<int> order(c.weights.size());
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = static_cast<int>(j);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return c.weights[static_cast<std::size_t>(a)] > c.weights[static_cast<std::size_t>(b)]; });
  order.resize(std::min(order.size(), static_cast<std::size_t>(kLmContributionRows)));
  const int most = static_cast<int>(std::max_element(c.norms.begin(), c.norms.end()) - c.norms.begin());
  if (std::find(order.begin(), order.end(), most) == order.end()) order.push_back(most);
  c.keys = order;
  for (int j : order) {
    c.shown_weights.push_back(c.weights[static_cast<std::size_t>(j)]);
    c.shown_norms.push_back(c.norms[static_cast<std::size_t>(j)]);
    const std::size_t u = static_cast<std::size_t>(j);
    c.shown_labels.push_back((u < m.view.labels.size() ? m.view.labels[u] : id_text(j)) + " (" + std::to_string(j) + ")");
  }
  c.max_norm = c.norms[static_cast<std::size_t>(most)];
  c.caption = lm::contribution_reading(c.weights, c.norms, m.view.labels);  // sizes checked above: never throws
}

// Asks the Worker for the traced row's weight against contribution (the answer replaces the last).
void request_contribution(LanguageModelState& m) {
  const LmView& v = m.view;
  if (v.t == 0 || m.layer >= v.layers || m.head >= v.heads) return;
  const int q = m.query >= 0 && m.query < v.t ? m.query : v.t - 1;
  m.contribution_id = lm_link::request(attn::obj(
      {{"op", "contribution"}, {"tokens", v.tokens}, {"layer", m.layer}, {"head", m.head}, {"query", q}}));
}

// The enlarged head and traced row, and the row's sentence; the caller asks for its contribution.
void select_row(LanguageModelState& m, int layer, int head, int query) {
  m.layer = layer;
  m.head = head;
  m.query = query;
  update_trace(m);
  changed();
}

// --- the Worker's answers, one function per request ------------------------------------------

using Answer = void (*)(AppState&, LanguageModelState&, const lm_link::Reply&);

void install_model(AppState& s, LanguageModelState& m, const lm_link::Reply& r) {
  m.info = r.reply;
  m.source = m.loading_source;
  m.model_name = m.loading_name;
  m.config_name = m.loading_config;
  m.error.reset();
  m.view = LmView{};
  m.induction = nullptr;
  m.generation = nullptr;
  m.trace.clear();
  m.contribution = LmContribution{};
  m.layer = m.head = 0;
  m.query = -1;
  std::vector<int> ids;
  if (reads_ids(m) && !prompt_ids(m, m.prompt, ids)) {  // token ids: the prompt becomes the first ids of the vocabulary
    const Json& c = m.info["config"];
    const int n = std::min(8, std::max(1, c.value("context", 8))), vocab = std::max(1, c.value("vocab", 1));
    std::string p;
    for (int i = 0; i < n; ++i) p += (i ? " " : "") + std::to_string(i % vocab);
    m.prompt = m.prompt_text = p;
    m.error.reset();
  }
  run_prompt(m);
  m.induction_id = lm_link::request(attn::obj({{"op", "induction"}}));
  m.card = nullptr;
  m.card_caption.clear();
  if (m.source == "default") m.card_id = lm_link::fetch_json(kLmDefaultCardUrl);
  host_trained_event(s, "language_model", 0, m.source == "default" ? "checkpoint" : "file");
}

void install_tokens(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  m.view.pieces = r.reply["pieces"].get<std::vector<std::string>>();
  m.view.texts = r.reply["text"].get<std::vector<std::string>>();
  m.dropped = r.reply.value("dropped", "");
  const std::vector<int> tokens = r.reply["tokens"].get<std::vector<int>>();
  const int context = m.info["config"].value("context", 0);
  if (tokens.empty())
    m.error = ErrorInfo{"empty_sequence", "the prompt gives no tokens"};
  else if (context > 0 && static_cast<int>(tokens.size()) > context)
    m.error = invalid("the prompt is " + std::to_string(tokens.size()) + " tokens; this model's context is " +
                      std::to_string(context));
  else
    m.forward_id = lm_link::request(attn::obj({{"op", "forward"}, {"tokens", tokens}, {"top", kLmTopShown}}));
  if (m.forward_id == 0) m.ablate_after_forward = false;  // refused: no prompt comes of it to ablate
}

// The forward's figures into the view: maps as matrices (the heatmap widget's type), the scores,
// and the captions worded by core/lessons from them.
void install_forward(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  LmView& v = m.view;
  v.layers = r.reply.value("layers", 0);
  v.heads = r.reply.value("heads", 0);
  v.t = r.reply.value("t", 0);
  v.tokens = r.reply["tokens"].get<std::vector<int>>();
  if (v.texts.size() != v.tokens.size()) {
    v.texts.clear();
    for (int id : v.tokens) v.texts.push_back(id_text(id));
  }
  v.labels.clear();
  for (const std::string& t : v.texts) v.labels.push_back(style::shown_text(t));
  const std::size_t tt = static_cast<std::size_t>(v.t) * static_cast<std::size_t>(v.t);
  v.maps.assign(static_cast<std::size_t>(v.layers * v.heads), attn::Matrix());
  for (std::size_t k = 0; k < v.maps.size() && (k + 1) * tt <= r.weights.size(); ++k)
    v.maps[k] = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                    r.weights.data() + k * tt, v.t, v.t).cast<double>();
  v.allowed = attn::causal_mask(v.t, v.t, attn::Causal::square);
  v.top = r.reply["top"];
  if (!lm_uses_gpt2_pieces(m))  // another vocabulary: GPT-2's pieces of these ids would be wrong
    for (Json& row : v.top) {
      row["text"] = id_text(row.value("id", 0));
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
  apply_induction(v, m.induction);
  m.ablation_caption.clear();  // the scores above are the new prompt's: no head is ablated on it yet
  m.ablation_id = 0;
  double mass = 0.0;
  for (const Json& row : v.top) mass += row.value("prob", 0.0);
  v.next_caption = v.top.empty() ? std::string()
                                 : lm::next_token_caption(v.top[0].value("text", id_text(v.top[0].value("id", 0))),
                                                          v.top[0].value("prob", 0.0), mass, static_cast<int>(v.top.size()));
  ++v.version;
  m.contribution = LmContribution{};  // measured on the old tokens
  select_row(m, std::min(m.layer, std::max(0, v.layers - 1)), std::min(m.head, std::max(0, v.heads - 1)),
             m.query >= v.t ? -1 : m.query);
  request_contribution(m);  // new tokens: the row is measured again (a pending answer is for the old ones)
  if (m.ablate_after_forward) lm_ablate(m);
}

void install_induction(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  m.induction = r.reply;
  apply_induction(m.view, m.induction);
}

void install_contribution(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  LmContribution& c = m.contribution;
  c.layer = r.reply.value("layer", -1);
  c.head = r.reply.value("head", -1);
  c.query = r.reply.value("query", -1);
  c.weights = r.reply["weights"].get<std::vector<double>>();
  c.norms = r.reply["norms"].get<std::vector<double>>();
  word_contribution(m);
}

// Each head's Δloss into the heads' scores, if the answer is for the tokens shown.
void install_ablation(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  LmView& v = m.view;
  if (r.reply["tokens"] != Json(v.tokens)) return;  // the prompt changed since it was asked
  m.ablation_clean = r.reply.value("clean_loss", 0.0);
  m.ablation_targets = r.reply.value("targets", 0);
  m.ablation_max = 0.0;
  for (const Json& h : r.reply["heads"]) {
    const std::size_t k = static_cast<std::size_t>(h.value("layer", 0) * v.heads + h.value("head", 0));
    if (k >= v.scores.size()) continue;
    v.scores[k].zero_ablation = number_or_nan(h, "zero");
    v.scores[k].mean_ablation = number_or_nan(h, "mean");
    for (double d : {v.scores[k].zero_ablation, v.scores[k].mean_ablation})
      if (d > m.ablation_max) m.ablation_max = d;  // bars show increases; a decrease is its number alone
  }
  if (!(m.ablation_max > 0.0)) m.ablation_max = 1.0;
  m.ablation_caption = lm::ablation_caption(v.scores, m.ablation_clean, m.ablation_targets);
}

void install_generation(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  m.generation = attn::obj({{"prompt_tokens", m.view.tokens},
                            {"tokens", r.reply["tokens"]},
                            {"steps", m.steps},
                            {"temperature", m.temperature},
                            {"seed", m.seed}});
  m.pieces_id = lm_link::request(attn::obj({{"op", "pieces"}, {"tokens", r.reply["tokens"]}}));
}

void install_generated_pieces(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  if (!m.generation.is_object()) return;
  m.generation["pieces"] = r.reply["pieces"];
  m.generation["text"] = r.reply["text"];
}

void install_prompt_pieces(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  m.view.pieces = r.reply["pieces"].get<std::vector<std::string>>();
  m.view.texts = m.view.pieces;
  m.view.labels.clear();
  for (const std::string& t : m.view.texts) m.view.labels.push_back(style::shown_text(t));
  update_trace(m);
  word_contribution(m);
}

std::vector<std::string> strings_of(const Json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const Json& x : j)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

// The card's figures as the trainer wrote them; its sentence from lessons::lm::card_caption.
void install_card(AppState&, LanguageModelState& m, const lm_link::Reply& r) {
  const Json& card = r.reply;
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
}


// Each request the panel makes: where its id is kept, whether a refusal is the panel's error (the
// induction probe, the card and pieces only add to what is shown), and what its answer does.
struct Request {
  int LanguageModelState::*id;
  bool shows_error;
  Answer answer;
};
constexpr Request kRequests[] = {
    {&LanguageModelState::load_id, true, install_model},
    {&LanguageModelState::tokenize_id, true, install_tokens},
    {&LanguageModelState::forward_id, true, install_forward},
    {&LanguageModelState::induction_id, false, install_induction},
    {&LanguageModelState::generate_id, true, install_generation},
    {&LanguageModelState::pieces_id, false, install_generated_pieces},
    {&LanguageModelState::prompt_pieces_id, false, install_prompt_pieces},
    {&LanguageModelState::card_id, false, install_card},
    {&LanguageModelState::contribution_id, false, install_contribution},
    {&LanguageModelState::ablation_id, true, install_ablation},
};

}  // namespace

bool lm_holds_model(const LanguageModelState& m) { return m.info.is_object() && m.info.value("loaded", false); }

bool lm_uses_gpt2_pieces(const LanguageModelState& m) { return lm_holds_model(m) && m.info.value("gpt2_tokens", false); }

bool lm_busy(const LanguageModelState& m) {
  return std::any_of(std::begin(kRequests), std::end(kRequests), [&](const Request& q) { return m.*q.id != 0; });
}

void lm_select(LanguageModelState& m, int layer, int head, int query) {
  const bool moved = layer != m.layer || head != m.head || query != m.query;
  select_row(m, layer, head, query);
  if (moved) request_contribution(m);  // a patch that keeps the selection asks nothing of the Worker
}

void init_language_model(LanguageModelState& m) { m = LanguageModelState{}; }

void lm_load_url(LanguageModelState& m, const std::string& model_url, const std::string& config_url, const char* source) {
  m.load_id = lm_link::load_url(model_url, config_url);
  m.loading_source = source;
  m.loading_name = model_url;
  m.loading_config = config_url;
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
  std::vector<int> ids;
  if (lm_holds_model(m) && reads_ids(m) && !prompt_ids(m, prompt, ids)) {
    m.prompt_text = m.prompt;
    return false;
  }
  m.prompt = prompt;
  m.prompt_text = prompt;
  m.error.reset();
  run_prompt(m);
  changed();
  return true;
}

bool lm_ablate(LanguageModelState& m) {
  // A model or a new prompt on its way (or the default model not yet asked for): ablate what comes.
  if (m.forward_id != 0 || m.tokenize_id != 0 || m.load_id != 0 || (!lm_holds_model(m) && !m.default_requested)) {
    m.ablate_after_forward = true;
    return true;
  }
  m.ablate_after_forward = false;
  if (!lm_holds_model(m) || m.view.tokens.size() < 2) {
    m.error = invalid("ablation needs a loaded model and a prompt of at least 2 tokens: the loss is over each token after the first");
    return false;
  }
  m.ablation_id = lm_link::request(attn::obj({{"op", "ablation"}, {"tokens", m.view.tokens}}));
  changed();
  return true;
}

bool lm_generate(LanguageModelState& m) {
  if (!lm_holds_model(m) || m.view.tokens.empty()) {
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
  for (const lm_link::Reply& r : lm_link::take())
    for (const Request& q : kRequests) {
      if (r.id == 0 || r.id != m.*q.id) continue;
      m.*q.id = 0;
      if (!r.reply.is_object() || r.reply.contains("error")) {
        if (q.id == &LanguageModelState::forward_id || q.id == &LanguageModelState::tokenize_id ||
            q.id == &LanguageModelState::load_id)
          m.ablate_after_forward = false;  // no model or prompt came of it to ablate
        if (q.shows_error) {
          const Json& e = r.reply.is_object() ? r.reply["error"] : Json();
          m.error = ErrorInfo{e.value("code", "invalid_field"), e.value("message", "the language-model Worker failed")};
        }
      } else {
        q.answer(s, m, r);
      }
      changed();
      break;
    }
}

// --- the registry's entry --------------------------------------------------------------------

namespace {
constexpr PanelDef make_panel() {
  PanelDef p = own_state_panel<LanguageModelState, language_model_state_json, apply_language_model_json,
                               language_model_inputs_json, draw_language_model_panel, kRecall>(
      "language_model", "Language model", "a real-text GPT-2: maps, next token", "Language model: attention in a GPT-2");
  p.tick = [](AppState& s, bool shown) {
    LanguageModelState& m = s.language_model;
    if (shown && !m.default_requested && !lm_holds_model(m) && m.load_id == 0) {
      m.default_requested = true;
      lm_load_url(m, kLmDefaultModelUrl, kLmDefaultConfigUrl, "default");
    }
    lm_take_replies(s, m);  // answers may have come between frames
  };
  p.busy = [](const AppState& s) { return lm_busy(s.language_model); };
  return p;
}
constexpr PanelDef kPanel = make_panel();
}  // namespace

const PanelDef& language_model_panel() { return kPanel; }

}  // namespace app
