// learn/model.hpp — one interface over the two models: loss and gradients, and a training step.
//
// A Model is a configuration (decoder or seq2seq, see decoder.hpp and seq2seq.hpp) plus its
// parameter layout; parameters, gradients and Adam's moments are flat buffers in that layout.
// Training is deterministic: the same parameters, batches and optimiser settings give the same
// bits on every platform (fixed-order loops, attn::det functions, no FMA contraction).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "learn/decoder.hpp"
#include "learn/optim.hpp"
#include "learn/params.hpp"
#include "learn/seq2seq.hpp"

namespace attn::learn {

enum class ModelKind { decoder, seq2seq };

struct Model {
  ModelKind kind = ModelKind::decoder;
  DecoderConfig decoder;
  Seq2SeqConfig seq2seq;
  DecoderLimits decoder_limits;  ///< what the configuration and a batch were checked against
  ParamLayout layout;  ///< filled by make_model()
};

/// Parameters per model: 2^18 = 262,144 doubles (2 MiB; the lab's models are about 20,000).
inline constexpr std::size_t kMaxParams = std::size_t{1} << 18;

/// Validates the configuration and builds its layout. Throws Error(invalid_field), or
/// Error(too_large) beyond max_params (training's kMaxParams unless a caller, such as the model-file
/// loader, sets its own limit). A decoder is checked against `limits` (the lab's, or the GPT-2
/// family's for a model read from such a file), and so are its batches (validate_batch).
Model make_model(ModelKind kind, const DecoderConfig& dec, const Seq2SeqConfig& s2s,
                 std::size_t max_params = kMaxParams, const DecoderLimits& limits = {});

/// One batch of either kind (only the member matching the model's kind is read).
struct Batch {
  DecoderBatch decoder;
  Seq2SeqBatch seq2seq;
};

/// Throws Error naming the position when the batch does not fit the model (see the models' validators).
void validate_batch(const Model& model, const Batch& batch);

/// Mean cross-entropy of the batch; grads (layout-sized) is overwritten with ∂loss/∂params.
double loss_and_grads(const Model& model, const std::vector<double>& params, const Batch& batch,
                      std::vector<double>& grads);

/// One optimiser step: loss_and_grads, then clip_grad_norm if clip is set (max_norm > 0), then
/// adam_step. Returns the loss computed before the update (what torch's training loop logs).
double train_step(const Model& model, std::vector<double>& params, AdamState& adam, const AdamConfig& cfg,
                  std::optional<double> clip, const Batch& batch, std::vector<double>& grads_scratch);

}  // namespace attn::learn
