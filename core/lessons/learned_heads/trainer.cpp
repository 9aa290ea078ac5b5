#include "lessons/learned_heads/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "learn/decoder_analysis.hpp"
#include "learn/layers.hpp"
#include "learn/params.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

HeadsTrainer::HeadsTrainer(const HeadsTrainingConfig& cfg)
    : cfg_(cfg), train_task_(cfg.task), data_rng_(cfg.seed ^ 0x5eedda7aULL) {
  validate_task(cfg.task);
  model_ = cfg.model;
  model_.vocab = cfg.task.vocab;
  model_.context = cfg.task.context;
  learn::validate_decoder_config(model_);
  if (cfg.batch < 1 || cfg.batch > 256) bad("batch must be between 1 and 256");
  if (cfg.steps < 0 || cfg.steps > 100000) bad("steps must be between 0 and 100000");
  if (!(cfg.adam.lr > 0.0) || !(cfg.adam.lr <= 1.0)) bad("the learning rate must be in (0, 1]");
  if (cfg.train_length != 0) {
    if (cfg.train_length < cfg.task.prefix_max + 2 * cfg.task.run_max || cfg.train_length > cfg.task.context)
      bad("train_length must fit the longest layout (" + std::to_string(cfg.task.prefix_max + 2 * cfg.task.run_max) +
          ") and the context (" + std::to_string(cfg.task.context) + ")");
    train_task_.context = cfg.train_length;
  }
  layout_ = learn::decoder_layout(model_);
  params_ = learn::init_params(layout_, cfg.seed);
  initial_ = params_;
}

HeadsTrainer::HeadsTrainer(const HeadsTrainingConfig& cfg, const learn::DecoderConfig& model,
                           const std::vector<double>& start)
    : HeadsTrainer(cfg) {
  if (model.vocab != cfg.task.vocab)
    bad("the model's vocabulary (" + std::to_string(model.vocab) + " tokens) is not the task's (" +
        std::to_string(cfg.task.vocab) + ")");
  if (model.context < cfg.task.context)
    bad("the model's context (" + std::to_string(model.context) + " tokens) is shorter than the task's sequences (" +
        std::to_string(cfg.task.context) + ")");
  learn::validate_decoder_config(model);
  cfg_.model = model;
  model_ = model;
  layout_ = learn::decoder_layout(model_);
  learn::require_param_count("the model", start.size(), layout_.total());
  params_ = start;
  initial_ = start;
}

double HeadsTrainer::uniform_loss() const { return std::log(static_cast<double>(model_.vocab)); }

int HeadsTrainer::advance(int max_steps) {
  int ran = 0;
  while (ran < max_steps && step_ < cfg_.steps) {
    const InductionBatch b = make_induction_batch(train_task_, data_rng_, cfg_.batch);
    learn::DecoderActivations a;
    grads_.assign(layout_.total(), 0.0);
    const double loss = learn::decoder_forward(model_, layout_, params_.data(), b.batch, a);
    learn::decoder_backward(model_, layout_, params_.data(), b.batch, a, grads_.data());
    const double other = learn::decoder_target_scores(a, b.other_targets, model_.vocab).loss;
    if (cfg_.clip > 0.0) learn::clip_grad_norm(grads_.data(), grads_.size(), cfg_.clip);
    learn::adam_step(params_.data(), grads_.data(), params_.size(), adam_, cfg_.adam);
    losses_.push_back(loss);
    other_losses_.push_back(other);
    ++step_;
    ++ran;
  }
  return ran;
}

HeadsTrainingConfig heads_config_for_model(const learn::DecoderConfig& model, HeadsTrainingConfig base) {
  if (model.vocab < 2) bad("the model's vocabulary has " + std::to_string(model.vocab) + " token(s); the task needs 2");
  InductionTask& t = base.task;
  if (model.context < t.prefix_max + 2 * t.run_max) {
    // Shorter runs and prefix, so that the longest layout fills the model's context.
    t.run_max = std::min(t.run_max, model.context / 2);
    if (t.run_max < 2)
      bad("the model's context (" + std::to_string(model.context) +
          " tokens) is too short for the task: a run of 2 tokens seen twice needs 4");
    t.run_min = std::min(t.run_min, t.run_max);
    t.prefix_max = std::min(t.prefix_max, model.context - 2 * t.run_max);
    t.prefix_min = std::min(t.prefix_min, t.prefix_max);
  }
  t.vocab = model.vocab;
  t.context = std::min(t.context, model.context);
  base.model = model;
  validate_task(t);
  return base;
}

}  // namespace attn::lessons
