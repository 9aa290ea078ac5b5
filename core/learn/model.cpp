#include "learn/model.hpp"

#include <string>

#include "attn/error.hpp"

namespace attn::learn {

Model make_model(ModelKind kind, const DecoderConfig& dec, const Seq2SeqConfig& s2s, std::size_t max_params,
                 const DecoderLimits& limits) {
  Model m;
  m.kind = kind;
  m.decoder_limits = limits;
  if (kind == ModelKind::decoder) {
    validate_decoder_config(dec, limits);
    m.decoder = dec;
    m.layout = decoder_layout(dec);
  } else {
    validate_seq2seq_config(s2s);
    m.seq2seq = s2s;
    m.layout = seq2seq_layout(s2s);
  }
  if (m.layout.total() > max_params)
    throw Error(ErrorCode::too_large, "the model has " + std::to_string(m.layout.total()) +
                                          " parameters; at most " + std::to_string(max_params));
  return m;
}

void validate_batch(const Model& model, const Batch& batch) {
  if (model.kind == ModelKind::decoder) validate_decoder_batch(model.decoder, batch.decoder, model.decoder_limits);
  else validate_seq2seq_batch(model.seq2seq, batch.seq2seq);
}

double loss_and_grads(const Model& model, const std::vector<double>& params, const Batch& batch,
                      std::vector<double>& grads) {
  grads.assign(model.layout.total(), 0.0);
  if (model.kind == ModelKind::decoder) {
    thread_local DecoderActivations acts;  // reused: its buffers keep their capacity across steps
    const double loss = decoder_forward(model.decoder, model.layout, params.data(), batch.decoder, acts);
    decoder_backward(model.decoder, model.layout, params.data(), batch.decoder, acts, grads.data());
    return loss;
  }
  thread_local Seq2SeqActivations acts;
  // Padded decoder steps left out: the same loss and gradient bits (DecoderRows).
  const double loss = seq2seq_forward(model.seq2seq, model.layout, params.data(), batch.seq2seq, acts, DecoderRows::valid);
  seq2seq_backward(model.seq2seq, model.layout, params.data(), batch.seq2seq, acts, grads.data());
  return loss;
}

double train_step(const Model& model, std::vector<double>& params, AdamState& adam, const AdamConfig& cfg,
                  std::optional<double> clip, const Batch& batch, std::vector<double>& grads) {
  const double loss = loss_and_grads(model, params, batch, grads);
  if (clip) clip_grad_norm(grads.data(), grads.size(), *clip);
  adam_step(params.data(), grads.data(), params.size(), adam, cfg);
  return loss;
}

}  // namespace attn::learn
