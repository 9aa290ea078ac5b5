#include "lessons/language_model/trainer.hpp"

#include <cmath>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

bool ends_with(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

}  // namespace

learn::DecoderConfig lm_model_config(int vocab) {
  learn::DecoderConfig c;
  c.vocab = vocab;
  c.context = 128;
  c.d_model = 64;  // F16 weights under 2 MiB: the 9,831-row embedding is most of them
  c.heads = 4;
  c.layers = 4;
  c.mlp = 256;
  c.positions = learn::DecoderPositions::learned;
  c.layer_norm = true;
  c.bias = true;
  c.activation = learn::Activation::gelu_new;
  c.layer_norm_eps = 1e-5;
  c.tied_head = true;
  return c;
}

const learn::DecoderLimits& lm_limits() { return learn::kGpt2FamilyLimits; }

std::vector<double> gpt2_init_params(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                     std::uint64_t seed) {
  const double std_w = 0.02, std_proj = 0.02 / std::sqrt(2.0 * cfg.layers);
  std::vector<double> p(layout.total(), 0.0);
  Rng rng(seed);
  for (const learn::ParamInfo& t : layout.params()) {
    double* dst = p.data() + t.offset;
    if (t.is_vector) {
      const double v = t.init.kind == learn::InitLaw::ones ? 1.0 : 0.0;  // LayerNorm weight 1; biases 0
      for (std::size_t i = 0; i < t.size(); ++i) dst[i] = v;
      continue;
    }
    const double s = ends_with(t.name, "attn.out_proj.weight") || ends_with(t.name, "mlp.2.weight") ? std_proj : std_w;
    for (std::size_t i = 0; i < t.size(); ++i) dst[i] = s * rng.normal();
  }
  return p;
}

double lm_learning_rate(const LmTrainingConfig& cfg, int step) {
  if (step < cfg.warmup) return cfg.lr * (step + 1) / cfg.warmup;
  const int span = cfg.steps - 1 - cfg.warmup;
  if (span <= 0) return cfg.lr;
  const double progress = static_cast<double>(step - cfg.warmup) / span;  // 0 .. 1
  const double pi = 3.14159265358979323846;
  return cfg.min_lr + 0.5 * (1.0 + det::cos(pi * progress)) * (cfg.lr - cfg.min_lr);
}

learn::DecoderBatch lm_batch(const std::vector<int>& stream, int batch, int t, Rng& rng) {
  if (stream.size() <= static_cast<std::size_t>(t))
    bad("the training text (" + std::to_string(stream.size()) + " tokens) must be longer than the context (" +
        std::to_string(t) + ")");
  learn::DecoderBatch b;
  b.batch = batch;
  b.t = t;
  b.tokens.resize(static_cast<std::size_t>(batch) * t);
  b.targets.resize(b.tokens.size());
  const std::uint64_t starts = stream.size() - static_cast<std::size_t>(t);
  for (int r = 0; r < batch; ++r) {
    const std::size_t s = static_cast<std::size_t>(rng.below(starts));
    for (int i = 0; i < t; ++i) {
      b.tokens[static_cast<std::size_t>(r) * t + i] = stream[s + i];
      b.targets[static_cast<std::size_t>(r) * t + i] = stream[s + i + 1];
    }
  }
  return b;
}

LmTrainer::LmTrainer(const LmTrainingConfig& cfg, const std::vector<int>& train)
    : cfg_(cfg), train_(train), data_rng_(cfg.seed ^ 0xba7c4ULL) {
  learn::validate_decoder_config(cfg.model, lm_limits());
  if (cfg.batch < 1 || cfg.batch > 64) bad("batch must be between 1 and 64");
  if (cfg.steps < 0 || cfg.steps > 1000000) bad("steps must be between 0 and 1000000");
  if (!(cfg.min_lr > 0.0) || !(cfg.min_lr <= cfg.lr) || !(cfg.lr <= 1.0)) bad("the learning rates must satisfy 0 < min_lr <= lr <= 1");
  if (cfg.warmup < 0 || cfg.warmup > cfg.steps) bad("warmup must be between 0 and steps");
  if (train.size() <= static_cast<std::size_t>(cfg.model.context))
    bad("the training text must be longer than the context (" + std::to_string(cfg.model.context) + " tokens)");
  for (std::size_t i = 0; i < train.size(); ++i)
    if (train[i] < 0 || train[i] >= cfg.model.vocab)
      bad("train[" + std::to_string(i) + "] = " + std::to_string(train[i]) + " is outside the vocabulary");
  layout_ = learn::decoder_layout(cfg.model);
  params_ = gpt2_init_params(cfg.model, layout_, cfg.seed);
}

int LmTrainer::advance(int max_steps) {
  int ran = 0;
  while (ran < max_steps && step_ < cfg_.steps) {
    const learn::DecoderBatch b = lm_batch(train_, cfg_.batch, cfg_.model.context, data_rng_);
    learn::DecoderActivations a;
    grads_.assign(layout_.total(), 0.0);
    const double loss = learn::decoder_forward(cfg_.model, layout_, params_.data(), b, a);
    learn::decoder_backward(cfg_.model, layout_, params_.data(), b, a, grads_.data());
    if (cfg_.clip > 0.0) learn::clip_grad_norm(grads_.data(), grads_.size(), cfg_.clip);
    learn::AdamConfig adam;
    adam.lr = lm_learning_rate(cfg_, step_);
    learn::adam_step(params_.data(), grads_.data(), params_.size(), adam_, adam);
    losses_.push_back(loss);
    ++step_;
    ++ran;
  }
  return ran;
}

long long LmTrainer::tokens_seen() const {
  return static_cast<long long>(step_) * cfg_.batch * cfg_.model.context;
}

}  // namespace attn::lessons
