// lessons/learned_heads/trainer.hpp — training a decoder on the repeated-run task, in slices.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/random.hpp"
#include "learn/checkpoint.hpp"
#include "learn/decoder.hpp"
#include "learn/optim.hpp"
#include "lessons/learned_heads/task.hpp"

namespace attn::lessons {

/// Training on the task in slices: advance(n) runs up to n Adam steps and can be called any number
/// of times; the batches come from the trainer's own seeded stream, so the weights after k steps are
/// the same bits however the k steps were sliced.
struct HeadsTrainingConfig {
  InductionTask task;
  learn::DecoderConfig model;  ///< vocab and context are taken from the task
  int batch = 16;
  learn::AdamConfig adam{3e-3, 0.9, 0.999, 1e-8, 0.0};
  double clip = 1.0;
  std::uint64_t seed = 17;
  int steps = 1800;
  int train_length = 0;  ///< training sequences' length (0 = the task's context); layouts fit it
};

/// The run configuration for training and measuring a given decoder (a loaded model) on `base`'s
/// task: the task's vocab becomes the model's and its context the shorter of the two; a model
/// whose context is shorter than the longest layout (prefix_max + 2·run_max) gets shorter runs
/// (run_max = min(run_max, context / 2), run_min at most that) and prefix (at most context −
/// 2·run_max). The model is `model`. Throws Error(invalid_field) for a vocabulary under 2 or a
/// context under 4 (a run of 2 seen twice).
HeadsTrainingConfig heads_config_for_model(const learn::DecoderConfig& model, HeadsTrainingConfig base);

struct HeadsRun;

class HeadsTrainer {
 public:
  /// Validates the configuration (Error(invalid_field)) and draws the initial parameters.
  explicit HeadsTrainer(const HeadsTrainingConfig& cfg);
  /// A finished run restored from its record (a checkpoint): parameters, losses and step. Adam's
  /// moments are not recorded, so a restored run cannot continue; its step must equal its
  /// configuration's steps. Throws Error(invalid_field) when the record does not fit its config.
  /// Defined with the record (format.cpp).
  explicit HeadsTrainer(const HeadsRun& run);
  /// A run that starts from `start` (a model read from a file, learn/model_file.hpp) instead of
  /// the seeded initial draw; Adam starts afresh. `model` is that model's configuration, kept as
  /// it is: its vocab must be the task's and its context at least the task's (the task's
  /// sequences are fed as they are; a longer context is not used). config().model is `model`.
  /// Throws Error(invalid_field) naming the vocab or context that does not fit, or when start is
  /// not the layout's size.
  HeadsTrainer(const HeadsTrainingConfig& cfg, const learn::DecoderConfig& model, const std::vector<double>& start);
  /// Runs at most max_steps more steps (never beyond cfg.steps); returns how many ran.
  int advance(int max_steps);
  int step() const { return step_; }
  bool done() const { return step_ >= cfg_.steps; }
  const HeadsTrainingConfig& config() const { return cfg_; }
  const learn::DecoderConfig& model() const { return model_; }
  /// log V (nats): the cross-entropy of a uniform guess over the model's vocabulary.
  double uniform_loss() const;
  const learn::ParamLayout& layout() const { return layout_; }
  const std::vector<double>& params() const { return params_; }
  const std::vector<double>& initial_params() const { return initial_; }
  /// Per step: the training loss on the predictable positions, and at the other positions.
  const std::vector<double>& losses() const { return losses_; }
  const std::vector<double>& other_losses() const { return other_losses_; }

  /// The run's whole state — configuration, model, parameters (and the initial ones), Adam's
  /// moments and step count, the data generator, step and losses — as a checkpoint (meta {model:
  /// "decoder", task: "induction", kind: "trainer_state", config, model_vocab, model_context,
  /// step, adam_step, data_rng}; arrays params, initial, adam_m, adam_v, losses, other_losses).
  /// A trainer restored from it and advanced gives the bits this one would have: how a run
  /// moves to a Web Worker and back. The state's format lives with the record (format.cpp).
  learn::Checkpoint state_checkpoint() const;
  /// A trainer at the state `ckpt` records (state_checkpoint). Throws Error(invalid_field) naming
  /// what does not fit: another kind of checkpoint, a configuration the trainer refuses, an array
  /// of the wrong size, a step beyond the configuration's or without one loss per step.
  static HeadsTrainer from_state(const learn::Checkpoint& ckpt);
  /// Takes over the state `ckpt` records, which must be of this run (the same configuration and
  /// model): the same checks as from_state, the trainer unchanged when one fails.
  void load_state(const learn::Checkpoint& ckpt);

 private:
  HeadsTrainingConfig cfg_;
  InductionTask train_task_;  ///< the task with context = train_length
  learn::DecoderConfig model_;
  learn::ParamLayout layout_;
  std::vector<double> params_, initial_, grads_;
  learn::AdamState adam_;
  Rng data_rng_;
  int step_ = 0;
  std::vector<double> losses_, other_losses_;
};

}  // namespace attn::lessons
