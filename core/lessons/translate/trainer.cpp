#include "lessons/translate/trainer.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "learn/checkpoint.hpp"
#include "learn/params.hpp"
#include "lessons/translate/format.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

constexpr std::uint64_t kOrderSalt = 0x7a11b0a7d00dULL;  // the data order's stream, apart from the init's

TranslateModel make_model(const TranslateConfig& cfg, bool attention) {
  TranslateModel m;
  m.config = translate_model_config(cfg, attention);
  m.layout = learn::seq2seq_layout(m.config);
  m.params = learn::init_params(m.layout, cfg.seed);
  return m;
}

double train_step(TranslateModel& m, learn::AdamState& adam, const TranslateConfig& cfg, const learn::Seq2SeqBatch& b) {
  learn::Seq2SeqActivations acts;
  std::vector<double> grads(m.layout.total(), 0.0);
  // Padded decoder steps left out: the same loss and gradient bits (learn::DecoderRows).
  const double loss = learn::seq2seq_forward(m.config, m.layout, m.params.data(), b, acts, learn::DecoderRows::valid);
  learn::seq2seq_backward(m.config, m.layout, m.params.data(), b, acts, grads.data());
  if (cfg.clip > 0.0) learn::clip_grad_norm(grads.data(), grads.size(), cfg.clip);
  learn::adam_step(m.params.data(), grads.data(), m.params.size(), adam, cfg.adam);
  return loss;
}

}  // namespace

TranslateTrainer::TranslateTrainer(const TranslateConfig& cfg, StartValidation start)
    : cfg_(cfg), order_rng_(cfg.seed ^ kOrderSalt) {
  validate_translate_config(cfg);
  data_ = make_translation_dataset(cfg.data);
  none_ = make_model(cfg, false);
  additive_ = make_model(cfg, true);
  pending_ = PendingValidation{};
  if (start == StartValidation::now) record_validation();
}

void TranslateTrainer::record_validation() {
  pending_ = PendingValidation{};
  while (pending_) validation_part();
}

void TranslateTrainer::new_epoch() {
  // Fisher–Yates with the core's sampler, then pairs of similar length batched together (fewer
  // padded decoder steps): each run of kChunk batches is sorted by source length, cut into batches,
  // and the batches of the epoch are shuffled again.
  const size_t B = static_cast<size_t>(cfg_.batch), n = data_.train.size();
  std::vector<int> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int>(i);
  for (size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[order_rng_.below(i + 1)]);
  const size_t usable = n / B * B, chunk = kChunk * B;
  for (size_t c = 0; c < usable; c += chunk) {
    const auto first = perm.begin() + static_cast<long>(c);
    const auto last = perm.begin() + static_cast<long>(std::min(usable, c + chunk));
    std::stable_sort(first, last, [&](int a, int b) { return data_.train[a].source.size() < data_.train[b].source.size(); });
  }
  batches_.clear();
  for (size_t c = 0; c < usable; c += B)
    batches_.emplace_back(perm.begin() + static_cast<long>(c), perm.begin() + static_cast<long>(c + B));
  for (size_t i = batches_.size() - 1; i > 0; --i) std::swap(batches_[i], batches_[order_rng_.below(i + 1)]);
  cursor_ = 0;
}

void TranslateTrainer::train_one_step() {
  if (cursor_ >= batches_.size()) new_epoch();
  const learn::Seq2SeqBatch b = translation_batch(data_.train, batches_[cursor_++]);
  none_losses_.push_back(train_step(none_, none_adam_, cfg_, b));
  additive_losses_.push_back(train_step(additive_, additive_adam_, cfg_, b));
  ++step_;
  if (step_ % cfg_.eval_every == 0 || step_ == cfg_.steps) pending_ = PendingValidation{};
}

void TranslateTrainer::validation_part() {
  PendingValidation& p = *pending_;
  const std::vector<TranslationPair>& pairs = data_.validation;
  if (p.start < pairs.size()) {
    teacher_forced_loss_part(p.attention ? additive_ : none_, pairs, p.start, p.total[p.attention], p.counted[p.attention]);
    p.start += kTranslateLossBatch;
  }
  if (p.start < pairs.size()) return;
  if (!p.attention) {  // the fixed summary measured: the attention model next
    p.attention = true;
    p.start = 0;
    return;
  }
  // teacher_forced_loss of each, from the same sums in the same order
  val_steps_.push_back(step_);
  none_val_.push_back(teacher_forced_mean(p.total[0], p.counted[0]));
  additive_val_.push_back(teacher_forced_mean(p.total[1], p.counted[1]));
  pending_.reset();
}

int TranslateTrainer::advance(int max_steps) {
  while (pending_) validation_part();
  int ran = 0;
  while (ran < max_steps && step_ < cfg_.steps) {
    train_one_step();
    while (pending_) validation_part();
    ++ran;
  }
  return ran;
}

int TranslateTrainer::advance_part() {
  if (pending_) {
    validation_part();
    return 1;
  }
  if (step_ >= cfg_.steps) return 0;
  train_one_step();
  return 1;
}

// The record carries its validation losses: none is measured (the pending one is dropped).
TranslateTrainer::TranslateTrainer(const TranslateRun& run) : TranslateTrainer(run.config, StartValidation::pending) {
  pending_.reset();
  learn::require_finished_run(run.step, cfg_.steps);
  if (run.none_params.size() != none_.params.size() || run.additive_params.size() != additive_.params.size())
    bad("the record's parameter counts do not fit the configuration (" + std::to_string(none_.params.size()) + ", " +
        std::to_string(additive_.params.size()) + ")");
  if (run.none_losses.size() != static_cast<size_t>(run.step) || run.additive_losses.size() != static_cast<size_t>(run.step))
    bad("the record needs one loss per step for each model (" + std::to_string(run.step) + ")");
  if (run.none_validation.size() != run.validation_steps.size() ||
      run.additive_validation.size() != run.validation_steps.size())
    bad("the record needs one validation loss per validation step for each model");
  none_.params = run.none_params;
  additive_.params = run.additive_params;
  none_losses_ = run.none_losses;
  additive_losses_ = run.additive_losses;
  val_steps_ = run.validation_steps;
  none_val_ = run.none_validation;
  additive_val_ = run.additive_validation;
  step_ = run.step;
}

// The seeded pair's step-0 validation is left pending and measured (or left pending) once the
// model from the file is in place.
TranslateTrainer::TranslateTrainer(const TranslateConfig& cfg, const learn::Seq2SeqConfig& model,
                                   const std::vector<double>& start, StartValidation validation)
    : TranslateTrainer(cfg, StartValidation::pending) {
  const int en = english_vocab().size(), fr = french_vocab().size();
  if (model.src_vocab != en || model.tgt_vocab != fr)
    bad("the model's vocabularies (" + std::to_string(model.src_vocab) + " source, " + std::to_string(model.tgt_vocab) +
        " target tokens) are not the lesson's (" + std::to_string(en) + " English, " + std::to_string(fr) +
        " French words)");
  learn::validate_seq2seq_config(model);
  TranslateModel& m = model.attention ? additive_ : none_;
  m.config = model;
  m.layout = learn::seq2seq_layout(model);
  learn::require_param_count("the model", start.size(), m.layout.total());
  m.params = start;
  if (validation == StartValidation::now) record_validation();
}

}  // namespace attn::lessons
