// lessons/language_model/trainer.hpp — the default language model trained on the corpus: GPT-2's
// architecture at a small size, GPT-2's initialisation, Adam with warmup and cosine decay, batches
// of random windows of the training books. Seeded: the same configuration and corpus give the
// same bits.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/random.hpp"
#include "learn/decoder.hpp"
#include "learn/optim.hpp"

namespace attn::lessons {

/// The run's configuration. model.vocab is the corpus vocabulary's size (lm_model_config).
struct LmTrainingConfig {
  learn::DecoderConfig model;
  int batch = 8;               ///< sequences per step, each model.context tokens (+1 target)
  int steps = 1000;
  double lr = 2e-3;            ///< peak learning rate, reached after `warmup` steps
  int warmup = 100;
  double min_lr = 2e-4;        ///< the cosine decay's floor, at the last step
  double clip = 1.0;           ///< clip_grad_norm's max_norm (0: none)
  std::uint64_t seed = 1611;   ///< initialisation; batches use seed ^ 0xba7c4
};

/// GPT-2's options at a small size (transformers' GPT2Config names): n_embd 64, n_head 4, n_layer 4,
/// n_inner 256, n_positions 128, learned positions, pre-norm LayerNorm ε 1e-5, biases, gelu_new, a
/// head tied to wte, scores ÷ sqrt(d_k); vocab_size = `vocab`.
learn::DecoderConfig lm_model_config(int vocab);

/// The bounds a language model is checked against (learn::kGpt2FamilyLimits: vocabularies past
/// the lab's 4,096 and batches of B·T·vocab logits).
const learn::DecoderLimits& lm_limits();

/// GPT-2's initialisation (transformers' GPT2PreTrainedModel._init_weights, initializer_range
/// 0.02): every weight matrix and both embeddings N(0, 0.02²); the residual projections
/// (attn.out_proj.weight, mlp.2.weight: GPT-2's c_proj) N(0, (0.02/sqrt(2·n_layer))²); biases 0;
/// LayerNorm weights 1. Drawn with attn::Rng(seed).normal() tensor after tensor in layout order,
/// row by row. The laws are GPT-2's; the numbers are not torch's.
std::vector<double> gpt2_init_params(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                     std::uint64_t seed);

/// The learning rate of step s (0-based): lr·(s + 1)/warmup during the warmup, then a cosine from lr
/// down to min_lr at the last step (nanoGPT's get_lr, decay over the remaining steps).
double lm_learning_rate(const LmTrainingConfig& cfg, int step);

/// A batch of `batch` windows of t + 1 consecutive tokens of `stream`, each starting at
/// rng.below(stream.size() − t) (drawn in order): tokens = the first t, targets = the next t.
/// Throws Error(invalid_field) when the stream is not longer than t.
learn::DecoderBatch lm_batch(const std::vector<int>& stream, int batch, int t, Rng& rng);

/// Training in slices: advance(n) runs up to n steps; the bits after k steps do not depend on the
/// slicing. Holds a reference to `train` (local ids), which must outlive it.
class LmTrainer {
 public:
  /// Validates the configuration (validate_decoder_config against lm_limits(); batch 1..64, steps
  /// 0..1,000,000, 0 < min_lr <= lr <= 1, warmup 0..steps) and draws the initial parameters.
  /// Throws Error(invalid_field) naming the field, or when `train` has a token outside the
  /// vocabulary or is not longer than the context.
  LmTrainer(const LmTrainingConfig& cfg, const std::vector<int>& train);
  int advance(int max_steps);
  int step() const { return step_; }
  bool done() const { return step_ >= cfg_.steps; }
  const LmTrainingConfig& config() const { return cfg_; }
  const learn::ParamLayout& layout() const { return layout_; }
  const std::vector<double>& params() const { return params_; }
  /// Training loss of each step (the batch's mean cross-entropy in nats, before its update).
  const std::vector<double>& losses() const { return losses_; }
  /// Tokens the model has been trained on: steps · batch · context (targets counted).
  long long tokens_seen() const;

 private:
  LmTrainingConfig cfg_;
  const std::vector<int>& train_;
  learn::ParamLayout layout_;
  std::vector<double> params_, grads_;
  learn::AdamState adam_;
  Rng data_rng_;
  int step_ = 0;
  std::vector<double> losses_;
};

}  // namespace attn::lessons
