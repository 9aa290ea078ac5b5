// web/worker/lm_session.cpp — see lm_session.hpp.
#include "worker/lm_session.hpp"

#include <algorithm>
#include <numeric>

#include "attn/error.hpp"
#include "json/fields.hpp"
#include "json/json_case.hpp"
#include "json/model_json.hpp"
#include "json/tokenize_json.hpp"
#include "learn/decoder.hpp"
#include "learn/checkpoint.hpp"
#include "learn/decoder_analysis.hpp"
#include "attn/random.hpp"

namespace app {

using attn::ErrorCode;
using attn::Json;
namespace learn = attn::learn;

namespace {
[[noreturn]] void bad(ErrorCode code, const std::string& message) { throw attn::Error(code, message); }

// The vocabulary's "<|endoftext|>" id (an int: ids stop at kMaxTokenId), or -1 when there is no
// tokenizer or it lacks one.
int end_of_text_id(const attn::BpeTokenizer* t) { return t ? static_cast<int>(t->end_of_text_id()) : -1; }
}  // namespace

Json LmSession::load(std::uint64_t file_size, const learn::ByteRange& read, const std::string& config_json, int heads) {
  learn::ModelFileOptions opt;
  if (!config_json.empty()) opt.config = config_json;
  if (heads > 0) opt.heads = heads;
  // Read into a new holder first: a file refused half-way leaves the model held so far.
  auto next = std::make_unique<learn::ModelFileF32>(learn::read_gpt2_family<float>(file_size, read, opt));
  std::optional<learn::VocabMap> map = learn::read_vocab_map(next->file.metadata, next->model.decoder.vocab);
  hash_ = learn::params_fnv1a(next->params);
  map_ = std::move(map);
  model_ = std::move(next);
  last_ = LmForward{};
  return info();
}

void LmSession::unload() {
  model_.reset();
  map_.reset();
  last_ = LmForward{};
}

void LmSession::set_tokenizer(const std::string& vocab_json, const std::string& merges_txt) {
  tokenizer_ = std::make_unique<attn::BpeTokenizer>(attn::load_bpe_tokenizer(vocab_json, merges_txt));
}

Json LmSession::info() const {
  Json out = attn::obj({{"loaded", loaded()}, {"tokenizer", has_tokenizer()}});
  if (tokenizer_) out["end_of_text"] = end_of_text_id(tokenizer_.get());
  if (!model_) return out;
  out["layout"] = model_->layout;
  out["params"] = model_->model.layout.total();
  out["config"] = attn::model_config_json(model_->model);
  out["weight_bytes"] = model_->params.size() * sizeof(float);
  out["hash"] = hash_;
  out["vocab_map"] = map_ ? Json(map_->size()) : Json(nullptr);
  out["gpt2_tokens"] = has_tokenizer() && (map_ || model_->model.decoder.vocab == learn::kGpt2VocabSize);
  return out;
}

Json LmSession::tokenize(const std::string& text, bool special) const {
  if (!tokenizer_) bad(ErrorCode::invalid_field, "no tokenizer loaded: set GPT-2's encoder.json and vocab.bpe first");
  attn::BpeEncoding e = tokenizer_->encode(text, special);
  if (!map_) return attn::obj({{"tokens", e.ids}, {"pieces", e.pieces}, {"text", e.texts}});
  std::vector<int> ids(e.ids.begin(), e.ids.end());
  const learn::MappedPrompt mp = learn::map_prompt(*map_, ids, e.pieces);
  Json tokens = Json::array(), pieces = Json::array(), texts = Json::array();
  for (int k : mp.kept) {
    tokens.push_back(ids[static_cast<std::size_t>(k)]);
    pieces.push_back(e.pieces[static_cast<std::size_t>(k)]);
    texts.push_back(e.texts[static_cast<std::size_t>(k)]);
  }
  return attn::obj({{"tokens", tokens}, {"pieces", pieces}, {"text", texts}, {"dropped", mp.message}});
}

LmForward LmSession::forward(const std::vector<int>& tokens) const {
  if (!model_) bad(ErrorCode::invalid_field, "no model loaded");
  LmForward f = forward_local(to_local(tokens));
  f.tokens = tokens;
  return f;
}

void LmSession::activations_local(const std::vector<int>& local, learn::DecoderActivationsT<float>& acts) const {
  const learn::DecoderConfig& c = model_->model.decoder;
  learn::validate_decoder_sequence(c, local, model_->model.decoder_limits);
  learn::DecoderBatch b;
  b.batch = 1;
  b.t = static_cast<int>(local.size());
  b.tokens = local;
  b.targets = local;  // the forward computes a loss too; these targets are never read back
  learn::decoder_forward(c, model_->model.layout, model_->params.data(), b, acts);
}

LmForward LmSession::forward_local(const std::vector<int>& local) const {
  const learn::DecoderConfig& c = model_->model.decoder;
  learn::DecoderActivationsT<float> acts;
  activations_local(local, acts);

  LmForward f;
  f.tokens = local;
  f.layers = c.layers;
  f.heads = c.heads;
  f.t = static_cast<int>(local.size());
  f.vocab = c.vocab;
  const std::size_t tt = static_cast<std::size_t>(f.t) * static_cast<std::size_t>(f.t);
  f.weights.reserve(static_cast<std::size_t>(f.layers) * static_cast<std::size_t>(f.heads) * tt);
  for (const auto& l : acts.layers) f.weights.insert(f.weights.end(), l.weights.begin(), l.weights.end());
  const std::size_t V = static_cast<std::size_t>(c.vocab), last = static_cast<std::size_t>(f.t - 1) * V;
  f.last_logits.assign(acts.logits.begin() + static_cast<long>(last), acts.logits.begin() + static_cast<long>(last + V));
  f.last_probs.assign(acts.probs.begin() + static_cast<long>(last), acts.probs.begin() + static_cast<long>(last + V));
  return f;
}

Json LmSession::top(const LmForward& f, int k) const {
  std::vector<int> order(f.last_probs.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t n = std::min(order.size(), static_cast<std::size_t>(std::max(k, 0)));
  std::partial_sort(order.begin(), order.begin() + static_cast<long>(n), order.end(), [&](int a, int b) {
    const float pa = f.last_probs[static_cast<std::size_t>(a)], pb = f.last_probs[static_cast<std::size_t>(b)];
    return pa != pb ? pa > pb : a < b;
  });
  Json rows = Json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const int id = order[i];
    const int shown = to_gpt2(id);
    Json row = attn::obj({{"id", shown},
                          {"prob", static_cast<double>(f.last_probs[static_cast<std::size_t>(id)])},
                          {"logit", static_cast<double>(f.last_logits[static_cast<std::size_t>(id)])}});
    if (tokenizer_ && static_cast<std::size_t>(shown) < tokenizer_->vocab_size()) {
      try {
        row["piece"] = tokenizer_->piece(shown);
        row["text"] = tokenizer_->decode({shown});
      } catch (const attn::Error&) {
        // an id the tokenizer lacks (a model of a larger vocabulary): shown by its number only
      }
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<int> LmSession::to_local(const std::vector<int>& gpt2_ids) const {
  if (!map_) return gpt2_ids;
  std::vector<std::string> pieces;
  if (tokenizer_)
    for (int id : gpt2_ids)
      pieces.push_back(id >= 0 && static_cast<std::size_t>(id) < tokenizer_->vocab_size() ? tokenizer_->piece(id) : std::string());
  return learn::to_local_ids(*map_, gpt2_ids, pieces);
}

int LmSession::to_gpt2(int local) const {
  return map_ && local >= 0 && local < map_->size() ? map_->to_gpt2[static_cast<std::size_t>(local)] : local;
}

Json LmSession::head_scores(const LmForward& f) {
  Json rows = Json::array();
  for (int l = 0; l < f.layers; ++l)
    for (int h = 0; h < f.heads; ++h) {
      const float* w = f.head_map(l, h);
      // One token has no previous one: the score is then undefined, not 0.
      rows.push_back(attn::obj({{"layer", l},
                                {"head", h},
                                {"previous_token", f.t > 1 ? Json(learn::previous_token_score(w, f.t)) : Json(nullptr)},
                                {"first_token", learn::first_token_score(w, f.t)}}));
    }
  return rows;
}

Json LmSession::pieces(const std::vector<int>& tokens) const {
  if (!tokenizer_) bad(ErrorCode::invalid_field, "no tokenizer loaded: set GPT-2's encoder.json and vocab.bpe first");
  Json p = Json::array();
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const long long id = tokens[i];
    if (id < 0 || static_cast<std::size_t>(id) >= tokenizer_->vocab_size())
      bad(ErrorCode::invalid_field, "tokens[" + std::to_string(i) + "] = " + std::to_string(id) + " is not in the tokenizer's vocabulary");
    p.push_back(tokenizer_->piece(id));
  }
  return attn::obj({{"tokens", tokens}, {"pieces", std::move(p)}, {"text", tokenizer_->decode(std::vector<long long>(tokens.begin(), tokens.end()))}});
}

Json LmSession::induction(int period, std::uint64_t seed) const {
  if (!model_) bad(ErrorCode::invalid_field, "no model loaded");
  const learn::DecoderConfig& c = model_->model.decoder;
  if (2 * period > c.context)
    bad(ErrorCode::invalid_field, "period " + std::to_string(period) + " repeated twice passes the context (" + std::to_string(c.context) + ")");
  attn::Rng rng(seed);
  std::vector<int> tokens(static_cast<std::size_t>(2 * period));
  for (int i = 0; i < period; ++i) tokens[static_cast<std::size_t>(i)] = static_cast<int>(rng.below(static_cast<std::uint64_t>(c.vocab)));
  for (int i = 0; i < period; ++i) tokens[static_cast<std::size_t>(period + i)] = tokens[static_cast<std::size_t>(i)];
  // The model's own ids: a trimmed vocabulary's local ids are drawn uniformly as any other's.
  const LmForward f = forward_local(tokens);
  Json rows = Json::array();
  for (int l = 0; l < f.layers; ++l)
    for (int h = 0; h < f.heads; ++h)
      rows.push_back(attn::obj({{"layer", l}, {"head", h}, {"induction", learn::induction_score(f.head_map(l, h), f.t, period, period)}}));
  for (int& id : tokens) id = to_gpt2(id);
  return attn::obj({{"tokens", tokens}, {"period", period}, {"seed", seed}, {"scores", std::move(rows)}});
}

Json LmSession::contribution(const std::vector<int>& tokens, int layer, int head, int query) const {
  if (!model_) bad(ErrorCode::invalid_field, "no model loaded");
  const learn::DecoderConfig& c = model_->model.decoder;
  const int t = static_cast<int>(tokens.size());
  if (layer < 0 || layer >= c.layers || head < 0 || head >= c.heads)
    bad(ErrorCode::invalid_field, "layer " + std::to_string(layer) + ", head " + std::to_string(head) + " is not in this model (" +
                                      std::to_string(c.layers) + " layers of " + std::to_string(c.heads) + " heads)");
  if (query < 0 || query >= t)
    bad(ErrorCode::invalid_field, "query " + std::to_string(query) + " is not a position of the " + std::to_string(t) + " tokens");
  learn::DecoderActivationsT<float> acts;
  activations_local(to_local(tokens), acts);
  const learn::HeadContribution hc =
      learn::decoder_head_contribution(c, model_->model.layout, model_->params, acts, layer, head, 0, query);
  // Keys past the query are masked: only 0..query are answered.
  const auto keys = static_cast<long>(query + 1);
  return attn::obj({{"layer", layer},
                    {"head", head},
                    {"query", query},
                    {"weights", std::vector<double>(hc.weights.begin(), hc.weights.begin() + keys)},
                    {"norms", std::vector<double>(hc.norms.begin(), hc.norms.begin() + keys)}});
}

Json LmSession::ablation(const std::vector<int>& tokens) const {
  if (!model_) bad(ErrorCode::invalid_field, "no model loaded");
  if (tokens.size() < 2)
    bad(ErrorCode::invalid_field, "ablation needs at least 2 tokens: the loss is over each token after the first");
  const learn::DecoderConfig& c = model_->model.decoder;
  const std::vector<int> local = to_local(tokens);
  learn::validate_decoder_sequence(c, local, model_->model.decoder_limits);
  learn::DecoderBatch b;
  b.batch = 1;
  b.t = static_cast<int>(local.size());
  b.tokens = local;
  b.targets.assign(local.begin() + 1, local.end());  // each position predicts the next token
  b.targets.push_back(learn::kIgnoreIndex);          // the last has no next token in the prompt
  learn::DecoderActivationsT<float> clean, scratch;
  const float* params = model_->params.data();
  const double clean_loss = learn::decoder_forward(c, model_->model.layout, params, b, clean);
  const std::vector<std::vector<float>> means = learn::decoder_head_output_means(c, clean);
  using Iv = learn::HeadInterventionT<float>;
  Json heads = Json::array();
  for (int id = 0; id < c.layers * c.heads; ++id) {
    const Iv zero = learn::decoder_one_head_intervention(c, id, Iv::zero, means);
    const Iv mean = learn::decoder_one_head_intervention(c, id, Iv::mean_of_batch, means);
    const double lz = learn::decoder_forward(c, model_->model.layout, params, b, scratch, &zero);
    const double lm = learn::decoder_forward(c, model_->model.layout, params, b, scratch, &mean);
    heads.push_back(attn::obj({{"layer", id / c.heads}, {"head", id % c.heads}, {"zero", lz - clean_loss}, {"mean", lm - clean_loss}}));
  }
  return attn::obj({{"tokens", tokens}, {"targets", b.t - 1}, {"clean_loss", clean_loss}, {"heads", std::move(heads)}});
}

std::vector<int> LmSession::generate(const std::vector<int>& prompt, int steps, double temperature, std::uint64_t seed,
                                     bool stop_at_end) const {
  if (!model_) bad(ErrorCode::invalid_field, "no model loaded");
  int stop = stop_at_end ? end_of_text_id(tokenizer_.get()) : -1;
  if (map_ && stop >= 0) stop = map_->local_of(stop);  // -1 when the trimmed vocabulary lacks it
  std::vector<int> out = learn::decoder_generate(model_->model.decoder, model_->model.layout, model_->params,
                                                 to_local(prompt), steps, temperature, seed, stop);
  for (int& id : out) id = to_gpt2(id);
  return out;
}

Json LmSession::run(const Json& request) {
  const attn::Fields f(request, "request");
  const std::string op = f.text("op", "");
  if (op == "info") return info();
  if (op == "unload") {
    unload();
    return info();
  }
  if (op == "tokenize") {
    f.check_known({"op", "text", "special"});
    return tokenize(f.text("text", ""), f.has("special") && f.boolean("special", false));
  }
  if (op == "forward") {
    f.check_known({"op", "tokens", "top"});
    const int k = static_cast<int>(f.integer("top", 10, 0, 1000));
    last_ = forward(f.token_ids("tokens"));
    return attn::obj({{"tokens", last_.tokens},
                      {"layers", last_.layers},
                      {"heads", last_.heads},
                      {"t", last_.t},
                      {"vocab", last_.vocab},
                      {"top", top(last_, k)},
                      {"scores", head_scores(last_)}});
  }
  if (op == "pieces") {
    f.check_known({"op", "tokens"});
    return pieces(f.token_ids("tokens"));
  }
  if (op == "induction") {
    f.check_known({"op", "period", "seed"});
    const int period = static_cast<int>(f.integer("period", kInductionPeriod, 2, 512));
    return induction(period, f.seed("seed", 0));
  }
  if (op == "contribution") {
    f.check_known({"op", "tokens", "layer", "head", "query"});
    return contribution(f.token_ids("tokens"), static_cast<int>(f.required_integer("layer", 0, 1 << 16)),
                        static_cast<int>(f.required_integer("head", 0, 1 << 16)),
                        static_cast<int>(f.required_integer("query", 0, 1 << 16)));
  }
  if (op == "ablation") {
    f.check_known({"op", "tokens"});
    return ablation(f.token_ids("tokens"));
  }
  if (op == "generate") {
    f.check_known({"op", "tokens", "steps", "temperature", "seed", "stop_at_end"});
    const int steps = static_cast<int>(f.required_integer("steps", 0, 4096));
    const double temperature = f.has("temperature") ? f.number("temperature", 0.0) : 0.0;
    const std::uint64_t seed = f.seed("seed", 0);
    const bool stop = !f.has("stop_at_end") || f.boolean("stop_at_end", true);
    return attn::obj({{"tokens", generate(f.token_ids("tokens"), steps, temperature, seed, stop)}});
  }
  bad(ErrorCode::unknown_op, "the language-model Worker knows info, unload, tokenize, pieces, forward, induction, contribution, ablation and generate, not \"" + op + "\"");
}

Json LmSession::run_text(const std::string& text) {
  return answer([&] {
    const Json request = Json::parse(text, nullptr, false);
    if (request.is_discarded()) bad(ErrorCode::invalid_json, "the request is not JSON");
    return run(request);
  });
}

Json LmSession::answer(const std::function<Json()>& work) {
  try {
    return work();
  } catch (const attn::Error& e) {
    return attn::error_json(e);
  } catch (const std::exception& e) {
    return attn::error_json(attn::Error(ErrorCode::too_large, std::string("the request could not be run: ") + e.what()));
  }
}

}  // namespace app
