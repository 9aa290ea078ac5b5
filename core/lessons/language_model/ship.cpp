#include "lessons/language_model/ship.hpp"

#include <algorithm>
#include <cstring>

#include "attn/error.hpp"
#include "learn/checkpoint.hpp"
#include "learn/gpt2_file.hpp"
#include "learn/model.hpp"

namespace attn::lessons {

LmTrainingConfig lm_default_training(int vocab) {
  LmTrainingConfig c;
  c.model = lm_model_config(vocab);
  c.batch = 8;
  c.steps = 2000;  // about 18 minutes single-threaded here on an idle machine (0.55 s a step)
  c.lr = 3e-3;
  c.warmup = 100;
  c.min_lr = 3e-4;
  c.clip = 1.0;
  c.seed = 1611;
  return c;
}

LmShippedModel read_shipped_lm(const std::string& safetensors, const std::string& config_json) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(safetensors.data());
  const std::size_t size = safetensors.size();
  learn::ModelFileOptions opt;
  opt.config = config_json;
  const learn::ModelFile m = learn::read_gpt2_family<double>(
      size,
      [&](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
        if (offset > size || length > size - offset) throw Error(ErrorCode::invalid_field, "read past the file's end");
        std::memcpy(dst, data + offset, length);
      },
      opt);
  std::optional<learn::VocabMap> vocab = learn::read_vocab_map(m.file.metadata, m.model.decoder.vocab);
  if (!vocab) throw Error(ErrorCode::missing_field, "the file's __metadata__ has no vocabulary map (vocab_map, gpt2_ids)");
  return {m.model.decoder, m.model.layout, m.params, std::move(*vocab)};
}

LmShipped ship_lm(const LmTrainer& trainer, const LmCorpus& corpus, const std::string& corpus_name,
                  const std::string& first_steps_fnv1a, const std::vector<double>& first_losses, double seconds) {
  const LmTrainingConfig& cfg = trainer.config();
  const learn::Model model =
      learn::make_model(learn::ModelKind::decoder, cfg.model, {}, learn::kMaxFileParams, lm_limits());
  learn::Safetensors tensors = learn::transformers_tensors(model, trainer.params(), false);
  for (const auto& [k, v] : learn::vocab_map_metadata(corpus.vocab)) tensors.metadata[k] = v;
  tensors.metadata["corpus"] = corpus_name;
  LmShipped out;
  out.safetensors = learn::write_safetensors(tensors, learn::SafeDtype::F16);
  Json config = Json::parse(learn::transformers_config(cfg.model));
  const int eot = corpus.vocab.local_of(learn::kGpt2EndOfTextId);
  config["bos_token_id"] = eot;
  config["eos_token_id"] = eot;
  out.config = config.dump(2) + "\n";

  const LmShippedModel shipped = read_shipped_lm(out.safetensors, out.config);
  LmCard& c = out.card;
  c.corpus = corpus_name;
  c.books = static_cast<int>(corpus.books.size());
  const auto held = std::find(corpus.books.begin(), corpus.books.end(), corpus.heldout_first_book);
  c.heldout_book_count = static_cast<int>(corpus.books.end() - held);
  c.heldout_books = corpus.heldout_first_book + "–" + corpus.books.back();
  c.verses = corpus.verses;
  c.vocab = corpus.vocab.size();
  c.steps = trainer.step();
  c.batch = cfg.batch;
  c.context = cfg.model.context;
  c.train_tokens = static_cast<long long>(corpus.train.size());
  c.heldout_tokens = static_cast<long long>(corpus.heldout.size());
  c.tokens_seen = trainer.tokens_seen();
  const std::vector<double>& losses = trainer.losses();
  const std::size_t tail = std::min<std::size_t>(100, losses.size());
  double sum = 0.0;
  for (std::size_t i = losses.size() - tail; i < losses.size(); ++i) sum += losses[i];
  c.final_train_loss = tail ? sum / static_cast<double>(tail) : 0.0;
  c.heldout = lm_heldout_loss(shipped.cfg, shipped.layout, shipped.params, corpus.heldout);
  c.slice = lm_heldout_loss(shipped.cfg, shipped.layout, shipped.params, corpus.heldout, kLmCardSliceWindows);
  c.baselines = lm_baselines(corpus.train, corpus.heldout, corpus.vocab.size());
  c.heads = lm_head_scores(shipped.cfg, shipped.layout, shipped.params, corpus.heldout, cfg.seed);
  c.params_fnv1a = learn::params_fnv1a(shipped.params);
  c.first_steps_fnv1a = first_steps_fnv1a;
  c.first_losses = first_losses;
  c.seconds = seconds;
  out.card_json = lm_card_json(c).dump(1) + "\n";
  return out;
}

}  // namespace attn::lessons
