// lessons/learned_heads/extrapolation.hpp — positions do not guarantee extrapolation: accuracy by
// target position past the training length, for one model and for each position signal.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lessons/learned_heads/trainer.hpp"

namespace attn::lessons {

/// Accuracy on the predictable positions of held-out sequences whose repeat is placed anywhere up
/// to test_length (prefix uniform in 0..test_length − 2·run), counted per target position. Train
/// on shorter sequences (HeadsTrainingConfig::train_length) and the rows of a learned position
/// table beyond that length never get a gradient; sinusoidal and RoPE positions can be evaluated
/// beyond the model's context (test_length > context), learned ones cannot (Error(invalid_field)).
struct PositionAccuracy {
  int test_length = 0, train_length = 0;
  std::vector<int> counted, correct;  ///< per target position 0..test_length−1
  double accuracy_within = 0.0;       ///< over positions < train_length
  double accuracy_beyond = 0.0;       ///< over positions >= train_length (0 if none counted)
};

PositionAccuracy accuracy_by_position(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                      const std::vector<double>& params, const InductionTask& task,
                                      int train_length, int test_length, std::uint64_t seed, int sequences = 64);

/// Measured per position signal: the same task, seed and architecture trained once per signal on
/// sequences of train_length tokens (runs short enough to fit), then accuracy_by_position on
/// sequences of test_length tokens — capped at the context for learned positions, whose table ends
/// there (its rows from train_length on never got a gradient); sinusoidal, RoPE and no positions
/// are evaluated up to test_length. Runs in slices like HeadsTrainer: the results after k steps
/// are the same bits however the steps were sliced.
struct ExtrapolationConfig {
  InductionTask task{16, 32, 0, 4, 3, 7};  ///< vocab, context, prefix 0–4, runs 3–7
  learn::DecoderConfig model;              ///< d_model, heads, layers, mlp (positions: each signal in turn)
  std::vector<learn::DecoderPositions> signals{learn::DecoderPositions::learned, learn::DecoderPositions::sinusoidal,
                                               learn::DecoderPositions::rope};
  int train_length = 20;
  int test_length = 48;
  int steps = 1000;  ///< per signal
  int batch = 16;
  double lr = 3e-3;
  std::uint64_t seed = 17;
  int sequences = 128;  ///< held-out sequences per signal
};

struct ExtrapolationResult {
  learn::DecoderPositions positions = learn::DecoderPositions::learned;
  PositionAccuracy accuracy;
  double final_loss = 0.0;  ///< mean training loss of the last 50 steps
};

class ExtrapolationStudy {
 public:
  /// Validates (Error(invalid_field)): at least one signal, test_length within 2·run_max..1024,
  /// and what HeadsTrainer checks for each model.
  explicit ExtrapolationStudy(const ExtrapolationConfig& cfg);
  /// Up to max_steps Adam steps of the model in training; a finished model is evaluated and the
  /// next one starts. Returns the steps run.
  int advance(int max_steps);
  bool done() const { return results_.size() == cfg_.signals.size(); }
  int steps_done() const { return steps_done_; }
  int steps_total() const { return cfg_.steps * static_cast<int>(cfg_.signals.size()); }
  const ExtrapolationConfig& config() const { return cfg_; }
  const std::vector<ExtrapolationResult>& results() const { return results_; }
  /// The test length used for a signal (the context for learned positions).
  int test_length(learn::DecoderPositions p) const;

 private:
  HeadsTrainingConfig model_config(learn::DecoderPositions p) const;
  ExtrapolationConfig cfg_;
  std::shared_ptr<HeadsTrainer> trainer_;
  std::vector<ExtrapolationResult> results_;
  int steps_done_ = 0;
};

}  // namespace attn::lessons
