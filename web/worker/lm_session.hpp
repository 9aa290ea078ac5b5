// web/worker/lm_session.hpp — what the language-model Worker holds: one GPT-2-family model in float32
// (its weights once, read tensor by tensor from a file it never holds whole), GPT-2's tokenizer, and
// the requests a panel makes of them: tokenize, one forward with every attention map and the
// next-token distribution, and K/V-cache generation. The core only (no ImGui, SDL or GL); the same
// code runs in the Worker's wasm (lm_worker.cpp) and natively, where the tests drive it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attn/bpe.hpp"
#include "learn/gpt2_file.hpp"
#include "learn/vocab_map.hpp"
#include <optional>
#include "json/json_case.hpp"  // attn::Json
#include "learn/json_obj.hpp"

namespace app {

/// One forward's figures, in float32 as the model computes them.
struct LmForward {
  std::vector<int> tokens;
  int layers = 0, heads = 0, t = 0, vocab = 0;
  std::vector<float> weights;      ///< layers × heads × t × t attention weights (query rows, key columns)
  /// Head `head` of layer `layer`'s t × t map in `weights`.
  const float* head_map(int layer, int head) const {
    return weights.data() + (static_cast<std::size_t>(layer) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(head)) *
                                static_cast<std::size_t>(t) * static_cast<std::size_t>(t);
  }
  std::vector<float> last_logits;  ///< vocab logits of the last position
  std::vector<float> last_probs;   ///< softmax of last_logits: the next-token distribution
};

class LmSession {
 public:
  /// Reads a GPT-2-family safetensors file of `file_size` bytes through `read` (learn::read_gpt2_family
  /// in float32: transformers' or nanoGPT's layout, F32/F16/BF16/F64 tensors) with its config.json
  /// text (empty: none; the shapes then give the configuration, defaults as transformers') and
  /// `heads` (> 0: the head count a nanoGPT file without config.json cannot tell). The
  /// model held so far stays when this throws: attn::Error as read_gpt2_family names it.
  /// Returns info(): the model's configuration, layout and parameter count.
  attn::Json load(std::uint64_t file_size, const attn::learn::ByteRange& read, const std::string& config_json,
                  int heads = 0);
  /// Forgets the model (its memory goes back).
  void unload();
  bool loaded() const { return model_ != nullptr; }

  /// GPT-2's tokenizer from the bytes of an encoder.json (token → id) and a vocab.bpe (ranked
  /// merges). Throws attn::Error naming what is wrong; the tokenizer held so far stays.
  void set_tokenizer(const std::string& vocab_json, const std::string& merges_txt);
  bool has_tokenizer() const { return tokenizer_ != nullptr; }

  /// {loaded, layout, params, config {vocab, context, d_model, heads, layers, ...}, tokenizer, hash
  /// (learn::params_fnv1a of the float32 parameters), vocab_map (the trimmed vocabulary's size, or
  /// null), gpt2_tokens (prompts go through GPT-2's tokenizer: its vocabulary, or a map into it)}.
  /// With a vocabulary map every request and answer is in GPT-2's ids; tokenize leaves out a token
  /// the model lacks and says so in `dropped` (learn::map_prompt), forward and generate refuse one.
  attn::Json info() const;

  /// The prompt's tokens: {tokens, pieces ("Ġworld"), text (each token's characters)} (BpeTokenizer::
  /// encode; `special`: "<|endoftext|>" is id 50256). Throws Error(invalid_field) with no tokenizer.
  attn::Json tokenize(const std::string& text, bool special) const;

  /// One forward over `tokens` (1..n_positions ids, each < vocab): every layer's and head's
  /// attention weights and the last position's logits and probabilities. Throws Error(invalid_field)
  /// with no model loaded, and as learn::validate_decoder_sequence checks the tokens:
  /// Error(empty_sequence) for none, Error(invalid_field) for too many ("context (n_positions)") or
  /// an id past the vocabulary (naming its position, "tokens[i]").
  LmForward forward(const std::vector<int>& tokens) const;

  /// The `k` most probable next tokens of a forward: [{id, prob, logit, piece, text}] in descending
  /// probability, ties to the lowest id (piece and text when a tokenizer is set).
  attn::Json top(const LmForward& f, int k) const;

  /// Generation with the K/V cache (learn::decoder_generate in float32): `steps` tokens after the
  /// prompt, greedy at temperature 0, else drawn at that temperature from `seed`; stops after
  /// "<|endoftext|>" when `stop_at_end` and the tokenizer knows it. Throws as decoder_generate does,
  /// and Error(invalid_field) with no model loaded.
  std::vector<int> generate(const std::vector<int>& prompt, int steps, double temperature, std::uint64_t seed,
                            bool stop_at_end) const;

  /// Per head of a forward, in layer-major order: [{layer, head, previous_token (mean weight on
  /// the key just before the query; null for one token), first_token (mean weight on key 0)}]
  /// (learn::previous_token_score, first_token_score: the shared decoder analyses).
  static attn::Json head_scores(const LmForward& f);
  /// Each id's GPT-2 piece ("Ġworld"), and the ids' text decoded together: {tokens, pieces, text}.
  /// Throws Error(invalid_field) with no tokenizer or for an id past its vocabulary.
  attn::Json pieces(const std::vector<int>& tokens) const;
  /// Induction scores (Olsson et al. 2022): `period` random token ids (uniform over the model's
  /// vocabulary, drawn from `seed`) repeated once, one forward, and per head the mean weight of
  /// the repeat's queries on the key after their token's earlier copy (learn::induction_score).
  /// {tokens, period, seed, scores: [{layer, head, induction}]}. Throws Error(invalid_field) with no
  /// model or when 2·period passes the context.
  attn::Json induction(int period, std::uint64_t seed) const;
  /// Weight against contribution for one query of one head on `tokens` (Kobayashi et al. 2020,
  /// learn::decoder_head_contribution in float32): {layer, head, query, weights (a_qj for keys
  /// 0..query), norms (‖a_qj · W_O,h v_j‖, the key's share of the head's output after the output
  /// projection, without its bias)}. Throws Error(invalid_field) with no model, for a layer, head
  /// or query outside the model or the tokens, and as forward() checks the tokens.
  attn::Json contribution(const std::vector<int>& tokens, int layer, int head, int query) const;
  /// Each head ablated alone on `tokens` (zero ablation, and mean ablation with the head's output
  /// averaged over this prompt's positions; learn::decoder_one_head_intervention in float32): the
  /// loss of predicting each token after the first (nats per token, t − 1 targets) with the head
  /// ablated, less the clean loss. {tokens, targets, clean_loss, heads: [{layer, head, zero, mean}]}
  /// (Δloss > 0: the head helped on this prompt). 1 + 2·layers·heads forwards. Throws
  /// Error(invalid_field) with no model or fewer than 2 tokens, and as forward() checks the tokens.
  attn::Json ablation(const std::vector<int>& tokens) const;
  /// The induction probe's default period: 2 × 20 tokens fit GPT-2's and the small models' contexts.
  static constexpr int kInductionPeriod = 20;

  /// One request as JSON, the Worker's protocol (docs/models.md, "In the page"):
  ///   {op:"info"} → info();  {op:"unload"};  {op:"tokenize", text, special?};
  ///   {op:"forward", tokens, top?=10} → {tokens, layers, heads, t, top}; the weights and the last
  ///     position's probabilities are left in last_forward() for the caller to copy;
  ///   {op:"generate", tokens, steps, temperature?=0, seed?=0, stop_at_end?=true} → {tokens (new)};
  ///   {op:"pieces", tokens} → pieces();  {op:"induction", period?=20, seed?=0} → induction();
  ///   {op:"contribution", tokens, layer, head, query} → contribution();  {op:"ablation", tokens} → ablation().
  ///   A forward's answer also has `scores` (head_scores()).
  /// Throws attn::Error naming a bad field or op.
  attn::Json run(const attn::Json& request);
  /// run() on JSON text; never throws: a bad request comes back as {"error": {code, message}}
  /// (invalid_json when the text is not JSON), as answer() gives it.
  attn::Json run_text(const std::string& text);
  /// `work`'s answer, never an exception: an attn::Error comes back as the core's error JSON
  /// {"error": {code, message}} (attn::error_json), any other exception (std::bad_alloc when a
  /// model does not fit in memory) as too_large "the request could not be run: WHAT". Every
  /// reply of the Worker goes through it, so it answers only the core's error codes.
  static attn::Json answer(const std::function<attn::Json()>& work);
  const LmForward& last_forward() const { return last_; }

 private:
  std::unique_ptr<attn::learn::ModelFileF32> model_;
  std::unique_ptr<attn::BpeTokenizer> tokenizer_;
  LmForward last_;
  std::string hash_;  ///< params_fnv1a of the model held, taken once at load
  /// A trimmed GPT-2 vocabulary's map (the file's __metadata__ vocab_map/gpt2_ids): requests and
  /// answers stay in GPT-2's ids, the model runs on its own.
  std::optional<attn::learn::VocabMap> map_;
  std::vector<int> to_local(const std::vector<int>& gpt2_ids) const;
  /// forward() on the model's own ids (a trimmed vocabulary's local ids); `tokens` of the result
  /// are left for the caller.
  LmForward forward_local(const std::vector<int>& local) const;
  /// One decoder_forward of the model's own ids into `acts`, the ids checked first.
  void activations_local(const std::vector<int>& local, attn::learn::DecoderActivationsT<float>& acts) const;
  int to_gpt2(int local) const;
};

}  // namespace app
