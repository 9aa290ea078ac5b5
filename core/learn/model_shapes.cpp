// Both models' configurations, parameter layouts (PyTorch state_dict names and init laws) and batch
// checks: run once per step or per model, string-heavy, so in wasm they are compiled for size
// (core/CMakeLists.txt) while the forward and backward passes keep -O3.
#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "learn/decoder.hpp"
#include "learn/layers.hpp"
#include "learn/seq2seq.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

std::string at2(int b, int t) { return "[" + std::to_string(b) + "][" + std::to_string(t) + "]"; }

// The bounds a decoder batch of B sequences of T' tokens keeps whatever its ids are.
void check_decoder_batch_size(const DecoderConfig& c, int batch, int t, const DecoderLimits& lim) {
  if (static_cast<long>(batch) * t > 65536)
    bad(ErrorCode::too_large, "at most 65536 tokens per batch (B·T), got " + std::to_string(long(batch) * t));
  // Memory bound: the saved weights (B·h·T'²) and the widest activation (B·T'·max(3d, m, V)).
  const long widest = std::max({3L * c.d_model, long(c.mlp), long(c.vocab)});
  if (long(batch) * c.heads * t * t > lim.batch_numbers || long(batch) * t * widest > lim.batch_numbers)
    bad(ErrorCode::too_large, "batch too large for this model: B·heads·T'² and B·T'·max(3·d_model, mlp, vocab) must "
                              "each stay within " + std::to_string(lim.batch_numbers) + " numbers");
}

// Error(invalid_field) "NAME = ID is outside the vocabulary 0..V−1" unless 0 <= id < V.
void check_token_id(const DecoderConfig& c, const std::string& name, int id, const char* hint = "") {
  if (id < 0 || id >= c.vocab)
    bad(ErrorCode::invalid_field, name + " = " + std::to_string(id) + " is outside the vocabulary 0.." +
                                      std::to_string(c.vocab - 1) + hint);
}

}  // namespace

std::string decoder_param_name(int layer, const char* rest) {
  return "layers." + std::to_string(layer) + "." + rest;
}

const char* decoder_positions_name(DecoderPositions p) {
  switch (p) {
    case DecoderPositions::learned: return "learned";
    case DecoderPositions::sinusoidal: return "sinusoidal";
    case DecoderPositions::rope: return "rope";
    default: return "none";
  }
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::gelu: return "gelu";
    case Activation::gelu_new: return "gelu_new";
    default: return "relu";
  }
}

Activation activation_of(const std::string& s, const std::string& field) {
  if (s == "relu") return Activation::relu;
  if (s == "gelu") return Activation::gelu;
  // transformers' "gelu_pytorch_tanh" is the same tanh formula as "gelu_new".
  if (s == "gelu_new" || s == "gelu_pytorch_tanh") return Activation::gelu_new;
  bad(ErrorCode::invalid_field, field + " must be \"relu\", \"gelu\" or \"gelu_new\", got \"" + s + "\"");
}

double decoder_attention_scale(const DecoderConfig& c, int layer) {
  const int dk = c.d_model / c.heads;
  double s = c.scale_attn_weights ? 1.0 / std::sqrt(static_cast<double>(dk)) : 1.0;
  if (c.scale_attn_by_inverse_layer_idx) s /= static_cast<double>(layer + 1);
  return s;
}

void validate_decoder_config(const DecoderConfig& c, const DecoderLimits& lim) {
  require_model_range("vocab", c.vocab, 1, lim.vocab);
  require_model_range("context", c.context, 1, lim.context);
  require_model_range("d_model", c.d_model, 1, lim.d_model);
  require_model_range("heads", c.heads, 1, lim.heads);
  require_model_range("layers", c.layers, 0, lim.layers);
  require_model_range("mlp", c.mlp, 0, lim.mlp);
  if (c.d_model % c.heads != 0)
    bad(ErrorCode::invalid_field, "model.heads = " + std::to_string(c.heads) + " must divide model.d_model = " +
                                      std::to_string(c.d_model));
  if (!(c.layer_norm_eps > 0.0 && c.layer_norm_eps <= 1.0))
    bad(ErrorCode::invalid_field, "model.layer_norm_eps must be a number in (0, 1], got " + std::to_string(c.layer_norm_eps));
}

void validate_decoder_batch(const DecoderConfig& c, const DecoderBatch& b, const DecoderLimits& lim) {
  if (b.batch < 1 || b.t < 1) bad(ErrorCode::empty_sequence, "tokens must have at least one row and one column");
  if (b.batch > 512) bad(ErrorCode::too_large, "at most 512 sequences per batch, got " + std::to_string(b.batch));
  if (b.t > c.context)
    bad(ErrorCode::invalid_field, "sequences have " + std::to_string(b.t) + " tokens, beyond model.context = " +
                                      std::to_string(c.context));
  check_decoder_batch_size(c, b.batch, b.t, lim);
  const size_t n = static_cast<size_t>(b.batch) * b.t;
  if (b.tokens.size() != n || b.targets.size() != n)
    bad(ErrorCode::shape_mismatch, "tokens and targets must both be " + std::to_string(b.batch) + "x" +
                                       std::to_string(b.t));
  int counted = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string at = at2(static_cast<int>(i / b.t), static_cast<int>(i % b.t));
    check_token_id(c, "tokens" + at, b.tokens[i]);
    if (b.targets[i] == kIgnoreIndex) continue;
    check_token_id(c, "targets" + at, b.targets[i], " (use -100 to ignore a position)");
    ++counted;
  }
  if (counted == 0)
    bad(ErrorCode::invalid_field, "every target of the batch is -100 (ignored): the loss would be undefined");
}

void validate_decoder_sequence(const DecoderConfig& c, const std::vector<int>& tokens, const DecoderLimits& lim) {
  if (tokens.empty()) bad(ErrorCode::empty_sequence, "tokens: the sequence needs at least one token");
  if (static_cast<long>(tokens.size()) > c.context)
    bad(ErrorCode::invalid_field, "tokens has " + std::to_string(tokens.size()) +
                                      " ids, beyond the model's context (n_positions) of " + std::to_string(c.context));
  check_decoder_batch_size(c, 1, static_cast<int>(tokens.size()), lim);
  for (size_t i = 0; i < tokens.size(); ++i) check_token_id(c, "tokens[" + std::to_string(i) + "]", tokens[i]);
}

ParamLayout decoder_layout(const DecoderConfig& c) {
  const int d = c.d_model, m = c.mlp;
  const double lin_d = 1.0 / std::sqrt(static_cast<double>(d));
  ParamLayout p;
  p.add_matrix("embed.weight", c.vocab, d, InitLaw::standard_normal());
  if (c.positions == DecoderPositions::learned) p.add_matrix("pos.weight", c.context, d, InitLaw::standard_normal());
  for (int l = 0; l < c.layers; ++l) {
    if (c.layer_norm) {
      p.add_vector(decoder_param_name(l, "ln1.weight"), d, InitLaw::one());
      p.add_vector(decoder_param_name(l, "ln1.bias"), d, InitLaw::zero());
    }
    // xavier_uniform_ on the 3d×d in_proj_weight: fan_in d, fan_out 3d.
    p.add_matrix(decoder_param_name(l, "attn.in_proj_weight"), 3 * d, d,
                 InitLaw::symmetric(std::sqrt(6.0 / static_cast<double>(d + 3 * d))));
    // nn.MultiheadAttention(bias=True) zeroes in_proj_bias and out_proj.bias at init.
    if (c.bias) p.add_vector(decoder_param_name(l, "attn.in_proj_bias"), 3 * d, InitLaw::zero());
    p.add_matrix(decoder_param_name(l, "attn.out_proj.weight"), d, d, InitLaw::symmetric(lin_d));
    if (c.bias) p.add_vector(decoder_param_name(l, "attn.out_proj.bias"), d, InitLaw::zero());
    if (m > 0) {
      if (c.layer_norm) {
        p.add_vector(decoder_param_name(l, "ln2.weight"), d, InitLaw::one());
        p.add_vector(decoder_param_name(l, "ln2.bias"), d, InitLaw::zero());
      }
      const double lin_m = 1.0 / std::sqrt(static_cast<double>(m));
      p.add_matrix(decoder_param_name(l, "mlp.0.weight"), m, d, InitLaw::symmetric(lin_d));
      p.add_vector(decoder_param_name(l, "mlp.0.bias"), m, InitLaw::symmetric(lin_d));
      p.add_matrix(decoder_param_name(l, "mlp.2.weight"), d, m, InitLaw::symmetric(lin_m));
      p.add_vector(decoder_param_name(l, "mlp.2.bias"), d, InitLaw::symmetric(lin_m));
    }
  }
  if (c.layer_norm) {
    p.add_vector("ln_f.weight", d, InitLaw::one());
    p.add_vector("ln_f.bias", d, InitLaw::zero());
  }
  if (!c.tied_head) p.add_matrix("unembed.weight", c.vocab, d, InitLaw::symmetric(lin_d));
  return p;
}

ParamLayout seq2seq_layout(const Seq2SeqConfig& c) {
  const int E = c.embed, H = c.hidden, A = c.attn_dim, C = c.context_dim();
  const InitLaw gru = InitLaw::symmetric(1.0 / std::sqrt(static_cast<double>(H)));
  ParamLayout p;
  p.add_matrix("src_embed.weight", c.src_vocab, E, InitLaw::standard_normal());
  p.add_matrix("tgt_embed.weight", c.tgt_vocab, E, InitLaw::standard_normal());
  p.add_matrix("encoder.weight_ih_l0", 3 * H, E, gru);
  p.add_matrix("encoder.weight_hh_l0", 3 * H, H, gru);
  p.add_vector("encoder.bias_ih_l0", 3 * H, gru);
  p.add_vector("encoder.bias_hh_l0", 3 * H, gru);
  if (c.bidirectional) {  // nn.GRU's state_dict order: the reverse direction after the forward one
    p.add_matrix("encoder.weight_ih_l0_reverse", 3 * H, E, gru);
    p.add_matrix("encoder.weight_hh_l0_reverse", 3 * H, H, gru);
    p.add_vector("encoder.bias_ih_l0_reverse", 3 * H, gru);
    p.add_vector("encoder.bias_hh_l0_reverse", 3 * H, gru);
  }
  p.add_matrix("decoder.weight_ih", 3 * H, E + C, gru);
  p.add_matrix("decoder.weight_hh", 3 * H, H, gru);
  p.add_vector("decoder.bias_ih", 3 * H, gru);
  p.add_vector("decoder.bias_hh", 3 * H, gru);
  if (c.attention) {
    const InitLaw lin_h = InitLaw::symmetric(1.0 / std::sqrt(static_cast<double>(H)));
    p.add_matrix("attn.w_s.weight", A, H, lin_h);
    // nn.Linear(C, A): its laws' fan_in is C
    const InitLaw lin_c = InitLaw::symmetric(1.0 / std::sqrt(static_cast<double>(C)));
    p.add_matrix("attn.w_h.weight", A, C, lin_c);
    p.add_vector("attn.w_h.bias", A, lin_c);
    p.add_matrix("attn.v.weight", 1, A, InitLaw::symmetric(1.0 / std::sqrt(static_cast<double>(A))));
  }
  const InitLaw lin_out = InitLaw::symmetric(1.0 / std::sqrt(static_cast<double>(H + C)));
  p.add_matrix("out.weight", c.tgt_vocab, H + C, lin_out);
  p.add_vector("out.bias", c.tgt_vocab, lin_out);
  return p;
}

void validate_seq2seq_config(const Seq2SeqConfig& c) {
  require_model_range("src_vocab", c.src_vocab, 1, 4096);
  require_model_range("tgt_vocab", c.tgt_vocab, 1, 4096);
  require_model_range("embed", c.embed, 1, 512);
  require_model_range("hidden", c.hidden, 1, 512);
  if (c.attention) require_model_range("attn_dim", c.attn_dim, 1, 512);
}

void validate_seq2seq_batch(const Seq2SeqConfig& c, const Seq2SeqBatch& b) {
  if (b.batch < 1 || b.src_len < 1 || b.tgt_len < 1)
    bad(ErrorCode::empty_sequence, "source, target_in and target_out need at least one row and one column");
  if (b.batch > 512) bad(ErrorCode::too_large, "at most 512 pairs per batch, got " + std::to_string(b.batch));
  if (b.src_len > 512 || b.tgt_len > 512)
    bad(ErrorCode::too_large, "source and target are limited to 512 tokens each");
  if (static_cast<long>(b.batch) * std::max(b.src_len, b.tgt_len) > 65536)
    bad(ErrorCode::too_large, "at most 65536 tokens per batch (B·max(S, U))");
  if (long(b.batch) * b.tgt_len * b.src_len * std::max(1, c.attention ? c.attn_dim : 1) > (1L << 22) ||
      long(b.batch) * b.tgt_len * c.tgt_vocab > (1L << 22))
    bad(ErrorCode::too_large, "batch too large for this model: B·U·S·attn_dim and B·U·tgt_vocab must each stay "
                              "within 4194304 numbers");
  if (b.source.size() != static_cast<size_t>(b.batch) * b.src_len)
    bad(ErrorCode::shape_mismatch, "source must be " + std::to_string(b.batch) + "x" + std::to_string(b.src_len));
  if (b.target_in.size() != static_cast<size_t>(b.batch) * b.tgt_len ||
      b.target_out.size() != static_cast<size_t>(b.batch) * b.tgt_len)
    bad(ErrorCode::shape_mismatch, "target_in and target_out must both be " + std::to_string(b.batch) + "x" +
                                       std::to_string(b.tgt_len));
  if (b.source_lengths.size() != static_cast<size_t>(b.batch))
    bad(ErrorCode::shape_mismatch, "source_lengths has " + std::to_string(b.source_lengths.size()) +
                                       " entries for " + std::to_string(b.batch) + " sources");
  int counted = 0;
  for (int i = 0; i < b.batch; ++i) {
    const int len = b.source_lengths[static_cast<size_t>(i)];
    if (len < 1 || len > b.src_len)
      bad(ErrorCode::invalid_field, "source_lengths[" + std::to_string(i) + "] = " + std::to_string(len) +
                                        " must be between 1 and the source width " + std::to_string(b.src_len));
    for (int t = 0; t < len; ++t) {
      const int tok = b.source[static_cast<size_t>(i) * b.src_len + t];
      if (tok < 0 || tok >= c.src_vocab)
        bad(ErrorCode::invalid_field, "source" + at2(i, t) + " = " + std::to_string(tok) +
                                          " is outside the source vocabulary 0.." + std::to_string(c.src_vocab - 1));
    }
    for (int t = 0; t < b.tgt_len; ++t) {
      const int ti = b.target_in[static_cast<size_t>(i) * b.tgt_len + t];
      const int to = b.target_out[static_cast<size_t>(i) * b.tgt_len + t];
      if (ti < 0 || ti >= c.tgt_vocab)
        bad(ErrorCode::invalid_field, "target_in" + at2(i, t) + " = " + std::to_string(ti) +
                                          " is outside the target vocabulary 0.." + std::to_string(c.tgt_vocab - 1));
      if (to == kIgnoreIndex) continue;
      if (to < 0 || to >= c.tgt_vocab)
        bad(ErrorCode::invalid_field, "target_out" + at2(i, t) + " = " + std::to_string(to) +
                                          " is outside the target vocabulary 0.." + std::to_string(c.tgt_vocab - 1) +
                                          " (use -100 to ignore a position)");
      ++counted;
    }
  }
  if (counted == 0)
    bad(ErrorCode::invalid_field, "every target_out of the batch is -100 (ignored): the loss would be undefined");
}

}  // namespace attn::learn
