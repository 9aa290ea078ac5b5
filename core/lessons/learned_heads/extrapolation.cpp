#include "lessons/learned_heads/extrapolation.hpp"

#include <algorithm>
#include <string>

#include "attn/error.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

PositionAccuracy accuracy_by_position(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                      const std::vector<double>& params, const InductionTask& task,
                                      int train_length, int test_length, std::uint64_t seed, int sequences) {
  if (test_length < task.run_max * 2 || test_length > 1024) bad("test_length must fit a repeated run and be <= 1024");
  learn::DecoderConfig c = cfg;
  if (test_length > cfg.context) {
    if (cfg.positions == learn::DecoderPositions::learned)
      bad("learned positions have no row beyond the context (" + std::to_string(cfg.context) +
          "): test_length must be <= context");
    c.context = test_length;  // sinusoidal, RoPE and none have no table to run out of
  }
  PositionAccuracy out;
  out.test_length = test_length;
  out.train_length = train_length;
  out.counted.assign(static_cast<size_t>(test_length), 0);
  out.correct.assign(static_cast<size_t>(test_length), 0);
  Rng rng(seed ^ 0xe7a401a7ULL);
  InductionBatch b;
  b.batch.batch = sequences;
  b.batch.t = test_length;
  b.batch.tokens.resize(static_cast<size_t>(sequences) * test_length);
  b.batch.targets.assign(b.batch.tokens.size(), learn::kIgnoreIndex);
  for (int s = 0; s < sequences; ++s) {
    const int run = draw_between(rng, task.run_min, task.run_max);
    InductionLayout lay{draw_between(rng, 0, test_length - 2 * run), run};
    int* tok = b.batch.tokens.data() + static_cast<size_t>(s) * test_length;
    for (int i = 0; i < test_length; ++i) tok[i] = static_cast<int>(rng.below(static_cast<std::uint64_t>(task.vocab)));
    for (int k = 0; k < run; ++k) tok[lay.repeat_start() + k] = tok[lay.prefix + k];
    for (int i = lay.repeat_start(); i <= lay.repeat_start() + run - 2; ++i)
      b.batch.targets[static_cast<size_t>(s) * test_length + i] = tok[i + 1];
    b.layouts.push_back(lay);
  }
  learn::DecoderActivations a;
  learn::decoder_forward(c, layout, params.data(), b.batch, a);
  int within = 0, within_ok = 0, beyond = 0, beyond_ok = 0;
  for (size_t r = 0; r < b.batch.targets.size(); ++r) {
    const int tg = b.batch.targets[r];
    if (tg == learn::kIgnoreIndex) continue;
    const double* p = a.probs.data() + r * cfg.vocab;
    int best = 0;
    for (int j = 1; j < cfg.vocab; ++j)
      if (p[j] > p[best]) best = j;
    const int pos = static_cast<int>(r % test_length);
    out.counted[static_cast<size_t>(pos)]++;
    out.correct[static_cast<size_t>(pos)] += best == tg;
    // the target sits at pos + 1: "within" when the whole input and target were seen in training
    if (pos + 1 < train_length) {
      ++within;
      within_ok += best == tg;
    } else {
      ++beyond;
      beyond_ok += best == tg;
    }
  }
  out.accuracy_within = within ? static_cast<double>(within_ok) / within : 0.0;
  out.accuracy_beyond = beyond ? static_cast<double>(beyond_ok) / beyond : 0.0;
  return out;
}

ExtrapolationStudy::ExtrapolationStudy(const ExtrapolationConfig& cfg) : cfg_(cfg) {
  if (cfg.signals.empty() || cfg.signals.size() > 4) bad("the extrapolation study needs 1 to 4 position signals");
  if (cfg.test_length < 2 * cfg.task.run_max || cfg.test_length > 1024)
    bad("test_length must hold a repeated run (>= " + std::to_string(2 * cfg.task.run_max) + ") and be <= 1024");
  if (cfg.train_length == 0 || cfg.train_length >= cfg.task.context)
    bad("train_length must be below the context (" + std::to_string(cfg.task.context) + ") to test longer sequences");
  if (cfg.sequences < 1 || cfg.sequences > 1024) bad("sequences must be between 1 and 1024");
  for (learn::DecoderPositions p : cfg.signals) HeadsTrainer probe(model_config(p));  // the trainer's own checks
  trainer_ = std::make_shared<HeadsTrainer>(model_config(cfg.signals.front()));
}

HeadsTrainingConfig ExtrapolationStudy::model_config(learn::DecoderPositions p) const {
  HeadsTrainingConfig c;
  c.task = cfg_.task;
  c.model = cfg_.model;
  c.model.positions = p;
  c.batch = cfg_.batch;
  c.adam.lr = cfg_.lr;
  c.seed = cfg_.seed;
  c.steps = cfg_.steps;
  c.train_length = cfg_.train_length;
  return c;
}

int ExtrapolationStudy::test_length(learn::DecoderPositions p) const {
  return p == learn::DecoderPositions::learned ? std::min(cfg_.test_length, cfg_.task.context) : cfg_.test_length;
}

int ExtrapolationStudy::advance(int max_steps) {
  int ran = 0;
  while (!done() && ran < max_steps) {
    ran += trainer_->advance(max_steps - ran);
    if (!trainer_->done()) break;
    const learn::DecoderPositions p = cfg_.signals[results_.size()];
    ExtrapolationResult r;
    r.positions = p;
    r.accuracy = accuracy_by_position(trainer_->model(), trainer_->layout(), trainer_->params(), cfg_.task,
                                      cfg_.train_length, test_length(p), cfg_.seed, cfg_.sequences);
    const std::vector<double>& l = trainer_->losses();
    const size_t k = std::min<size_t>(50, l.size());
    double sum = 0.0;
    for (size_t i = l.size() - k; i < l.size(); ++i) sum += l[i];
    r.final_loss = k ? sum / static_cast<double>(k) : 0.0;
    results_.push_back(std::move(r));
    if (!done()) trainer_ = std::make_shared<HeadsTrainer>(model_config(cfg_.signals[results_.size()]));
  }
  steps_done_ += ran;
  return ran;
}

}  // namespace attn::lessons
