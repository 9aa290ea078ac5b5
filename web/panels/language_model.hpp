// web/panels/language_model.hpp — the Language model panel: a GPT-2-family model held by the
// language-model Worker (web/worker/lm_session.hpp, reached through panels/lm_link.hpp), a prompt
// in GPT-2's pieces, the next-token distribution, every layer × head attention map with one
// enlarged and its query row traced, the heads' measured scores, and generation with the K/V
// cache. The panel computes nothing itself: the figures come back from the Worker's core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/types.hpp"
#include "json/json_case.hpp"
#include "lessons/language_model/captions.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct Ui;
struct AppState;

/// The model the panel opens with (fetched when the panel is first shown) and its config.json.
inline constexpr const char* kLmDefaultModelUrl = "checkpoints/kjv-lm.safetensors";
inline constexpr const char* kLmDefaultConfigUrl = "checkpoints/kjv-lm.config.json";
/// The default model's card: its corpus, tokens seen, held-out loss against count baselines and the
/// heads that formed, measured when it was trained (lessons/language_model/card.hpp).
inline constexpr const char* kLmDefaultCardUrl = "checkpoints/kjv-lm.card.json";
/// The prompt the panel opens with.
inline constexpr const char* kLmDefaultPrompt = "In the beginning God created the heaven and the earth. And the earth was";
/// Limits of the inputs: the prompt's bytes, generation's steps and temperature.
inline constexpr int kLmMaxPromptBytes = 2000;
inline constexpr int kLmMaxSteps = 64;
inline constexpr double kLmMaxTemperature = 5.0;
/// Next-token rows shown.
inline constexpr int kLmTopShown = 10;

/// What one forward gave, as the Worker sent it.
struct LmView {
  std::vector<int> tokens;
  std::vector<std::string> pieces, texts;  ///< GPT-2's pieces ("Ġworld") and each token's text
  std::vector<std::string> labels;         ///< the maps' row and column labels (texts as shown)
  int layers = 0, heads = 0, t = 0;
  std::vector<attn::Matrix> maps;  ///< layers·heads maps, t × t (query rows), layer-major
  attn::BoolMatrix allowed;        ///< the causal mask the maps were computed under, for the legend
  attn::Json top = attn::Json::array();  ///< [{id, prob, logit, piece, text}]
  std::vector<attn::lessons::lm::HeadScore> scores;
  std::string heads_caption, next_caption;
  std::uint64_t version = 0;
};

/// The traced query row of the enlarged head, weight against contribution (the Worker's
/// contribution op): the keys shown (the largest weights, and the largest contribution when it is
/// not among them), their figures, and the sentence lessons::lm::contribution_reading words.
struct LmContribution {
  int layer = -1, head = -1, query = -1;  ///< -1: nothing measured yet
  std::vector<double> weights, norms;     ///< over keys 0..query, as the Worker sent them
  std::vector<int> keys;                  ///< the rows shown, by descending weight
  std::vector<double> shown_weights, shown_norms;
  std::vector<std::string> shown_labels;  ///< "token (position)"
  double max_norm = 0.0;                  ///< the bars' scale: the largest norm over every key
  std::string caption;
};
/// Rows of the weight-against-contribution table: the keys of largest weight.
inline constexpr int kLmContributionRows = 5;

struct LanguageModelState {
  // inputs
  std::string prompt = kLmDefaultPrompt;
  std::string prompt_text = kLmDefaultPrompt;  ///< the field while it is edited
  bool ids_prompt = false;  ///< the prompt is token ids ("3 14 15"), not text for GPT-2's tokenizer
  int layer = 0, head = 0;  ///< the enlarged map
  int query = -1;           ///< the traced query row (-1: the last token)
  int steps = 20;
  double temperature = 0.0;  ///< 0: greedy
  std::uint64_t seed = 1;
  std::string model_path_text, config_path_text;  ///< "Bring your own GPT-2": the paths as typed
  // the model
  std::string source;        ///< "default", "file" or "url" once a model is loaded
  std::string model_name, config_name;
  attn::Json info;           ///< the session's info() of the model held (null: none)
  bool default_requested = false;
  int load_id = 0;           ///< the load under way (0: none)
  std::string loading_source, loading_name, loading_config;
  // requests under way (0: none)
  int tokenize_id = 0, forward_id = 0, induction_id = 0, generate_id = 0, pieces_id = 0, prompt_pieces_id = 0,
      contribution_id = 0, ablation_id = 0;
  // results
  LmView view;
  attn::Json card;           ///< the default model's card (null for another model, or before it came)
  std::string card_caption;  ///< worded from the card by lessons::lm::card_caption
  int card_id = 0;
  std::string dropped;       ///< prompt tokens a trimmed vocabulary lacks, named (empty: none)
  attn::Json induction;      ///< {tokens, period, seed, scores} of the induction probe (null before)
  attn::Json generation;     ///< {prompt_tokens, tokens, pieces, text, temperature, seed, steps} (null before)
  std::string trace;         ///< the traced query row, read by lessons::lm::row_reading
  LmContribution contribution;
  /// Each head ablated alone on the prompt (the Worker's ablation op, asked by "Ablate each head"):
  /// the clean loss and target count; the Δloss go into view.scores. Cleared by a new forward.
  double ablation_clean = 0.0;
  int ablation_targets = 0;
  double ablation_max = 0.0;  ///< the bars' scale: the largest |Δloss|
  std::string ablation_caption;
  bool ablate_after_forward = false;  ///< asked while the prompt's forward was under way
  std::optional<ErrorInfo> error;
};

/// A fresh panel: nothing loaded; the default model is fetched when the panel is first shown.
void init_language_model(LanguageModelState& m);
/// True when a model is held (the session's info() says loaded).
bool lm_holds_model(const LanguageModelState& m);
/// True while some request to the Worker has no answer yet.
bool lm_busy(const LanguageModelState& m);
/// Enlarge head `head` of layer `layer` and trace query row `query` (-1: the last token); the
/// trace sentence follows and the row's weight against contribution is asked of the Worker. Out-of-range values are the setters' to refuse (apply_language_model_json).
void lm_select(LanguageModelState& m, int layer, int head, int query);
/// True when the model held reads prompts through GPT-2's tokenizer (the session's gpt2_tokens: GPT-2's
/// 50,257 tokens, or a trimmed vocabulary mapped into them); any other takes token ids ("3 14 15").
bool lm_uses_gpt2_pieces(const LanguageModelState& m);
/// Loads the GPT-2-family file at `model_url` with `config_url` ("": none) through the Worker;
/// `source` "default" or "url". The model shown stays until the new one is installed.
void lm_load_url(LanguageModelState& m, const std::string& model_url, const std::string& config_url, const char* source);
/// Set the prompt (at most kLmMaxPromptBytes bytes); it is tokenized and run when a model is held.
bool lm_set_prompt(LanguageModelState& m, const std::string& prompt);
/// Ablate each head alone on the prompt's tokens (zero and mean ablation, Δloss per head; asked
/// while the prompt is being run, once its forward is in); the prompt needs at least 2 tokens. False, with the reason shown, when there is no such prompt.
bool lm_ablate(LanguageModelState& m);
/// Start generation from the prompt's tokens with the panel's steps, temperature and seed.
bool lm_generate(LanguageModelState& m);
/// Takes the Worker's answers and starts the requests they lead to (tick).
void lm_take_replies(AppState& s, LanguageModelState& m);

/// {inputs {prompt, layer, head, query, steps, temperature, seed}}.
attn::Json language_model_inputs_json(const LanguageModelState& m);
/// {inputs, model {source, name, config_file, config, layout, params, hash}, loading, prompt, tokens,
/// pieces, text, dropped, card (with its caption), next [{id, piece, text, p}], scores [{layer,
/// head, previous_token, induction, first_token}], captions {heads, next, trace}, map, generation,
/// busy, error} (docs/models.md, "The Language model panel").
attn::Json language_model_state_json(const LanguageModelState& m);
/// set({language_model: patch}): prompt (text), tokens (ids: the prompt as ids), ids, layer, head,
/// query, steps, temperature, seed, generate (true: run generation), ablate (true: ablate each
/// head), model and config (URLs: load
/// that model). A malformed patch throws
/// PatchError; a value out of range is refused with the last good state kept.
bool apply_language_model_json(LanguageModelState& m, const attn::Json& patch);

void draw_language_model_panel(LanguageModelState& m, Ui& ui);

struct PanelDef;
const PanelDef& language_model_panel();

}  // namespace app
