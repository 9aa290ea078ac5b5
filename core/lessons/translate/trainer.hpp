// lessons/translate/trainer.hpp — the Translate pair trained in slices, and its state as a checkpoint.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "attn/random.hpp"
#include "learn/checkpoint.hpp"
#include "learn/optim.hpp"
#include "learn/run_record.hpp"
#include "lessons/translate/data.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

struct TranslateRun;

/// The pair trained in slices: advance(n) runs up to n steps of both models; the weights after k
/// steps are the same bits however the k steps were sliced. Data order: an epoch is a permutation
/// of the training pairs drawn with the trainer's Rng (seed); each run of kChunk·batch pairs is
/// sorted by source length and cut into batches (less padding), and the epoch's batches are
/// shuffled; the pairs beyond the last whole batch are skipped that epoch.
class TranslateTrainer {
 public:
  /// When the step-0 validation is measured: in the constructor (`now`: validation_steps() is {0}
  /// at once), or left pending (`pending`) for the run's first parts, so that building the
  /// trainer runs no forward pass in a frame that also trains (advance() measures it first).
  enum class StartValidation { now, pending };
  /// Validates (Error(invalid_field)), builds the dataset and draws both models' initial parameters.
  explicit TranslateTrainer(const TranslateConfig& cfg, StartValidation start = StartValidation::now);
  /// A finished run restored from its record; it cannot continue (Adam's moments are not stored).
  /// Throws Error(invalid_field) when the record does not fit its configuration.
  explicit TranslateTrainer(const TranslateRun& run);
  /// A run whose model of `model`'s kind (model.attention: the attention model, else the fixed
  /// summary) starts from `start` (a model read from a file, learn/model_file.hpp) with its own
  /// dimensions; the other model is cfg's seeded one. Adam starts afresh for both. Throws
  /// Error(invalid_field) when the model's vocabularies are not the lesson's (English source,
  /// French target, data.hpp) or its configuration is refused, and when start is not
  /// its layout's size.
  TranslateTrainer(const TranslateConfig& cfg, const learn::Seq2SeqConfig& model, const std::vector<double>& start,
                   StartValidation validation = StartValidation::now);
  /// Runs at most max_steps more steps (never beyond cfg.steps), each with its validation when due,
  /// after finishing a validation advance_part() left pending (advance(0) does only that). Returns
  /// the steps run.
  int advance(int max_steps);
  /// One part of the run, for a frame's slice: the next forward pass of a pending validation
  /// measurement (one model over 64 validation pairs; a measurement is 2 × ⌈pairs / 64⌉ parts),
  /// else one training step, whose validation, when one is due, is left pending. Returns 1 when a
  /// part ran, 0 when the run is done. Parts give the same bits as advance(): after the same
  /// steps, the same parameters, losses and validation losses.
  int advance_part();
  int step() const { return step_; }
  /// Every step run and the last validation measured.
  bool done() const { return step_ >= cfg_.steps && !pending_; }
  const TranslateConfig& config() const { return cfg_; }
  const TranslationDataset& data() const { return data_; }
  /// attention = false: the fixed summary; true: additive attention.
  const TranslateModel& model(bool attention) const { return attention ? additive_ : none_; }
  /// Per step: each model's training loss (mean per target token of the batch).
  const std::vector<double>& losses(bool attention) const { return attention ? additive_losses_ : none_losses_; }
  /// Validation loss at validation_steps() (0, every eval_every, the last step); a measurement
  /// advance_part() left pending is not among them until its last pass has run.
  const std::vector<int>& validation_steps() const { return val_steps_; }
  const std::vector<double>& validation_losses(bool attention) const { return attention ? additive_val_ : none_val_; }

  /// The run's whole state — configuration, both models (configuration and parameters), both
  /// Adam states, the batch order (generator, the epoch's batches, cursor), step, losses,
  /// validations and a validation part-way — as a checkpoint (meta {model: "seq2seq pair", task:
  /// "translate", kind: "trainer_state", ...}). A trainer restored from it and advanced gives the
  /// bits this one would have: how a run moves to a Web Worker and back.
  learn::Checkpoint state_checkpoint() const;
  /// A trainer at the state `ckpt` records. Throws Error(invalid_field) naming what does not fit.
  static TranslateTrainer from_state(const learn::Checkpoint& ckpt);
  /// Takes over the state `ckpt` records, which must be of this run (the same configuration and
  /// models): the same checks as from_state, the trainer unchanged when one fails.
  void load_state(const learn::Checkpoint& ckpt);

 private:
  static constexpr size_t kChunk = 8;
  // A validation measurement under way (advance_part): the model measured and the next pair, and
  // each model's sums of teacher_forced_loss.
  struct PendingValidation {
    bool attention = false;
    size_t start = 0;
    double total[2] = {0.0, 0.0};
    long counted[2] = {0, 0};
  };
  // Takes over a state read by learn::trainer_state_from_checkpoint, after every check.
  void take_state(const learn::TrainerState& st);
  static std::optional<PendingValidation> read_pending(const Json& pending, const std::vector<double>& total,
                                                       size_t validation_pairs);
  void record_validation();
  void train_one_step();
  void validation_part();
  void new_epoch();
  TranslateConfig cfg_;
  TranslationDataset data_;
  TranslateModel none_, additive_;
  learn::AdamState none_adam_, additive_adam_;
  Rng order_rng_;
  std::vector<std::vector<int>> batches_;  ///< the epoch's batches (pair indices)
  size_t cursor_ = 0;
  int step_ = 0;
  std::vector<double> none_losses_, additive_losses_, none_val_, additive_val_;
  std::vector<int> val_steps_;
  std::optional<PendingValidation> pending_;
};

}  // namespace attn::lessons
