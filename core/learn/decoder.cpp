#include "learn/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "learn/layers.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

std::string lname(int l, const char* rest) { return "layers." + std::to_string(l) + "." + rest; }

/// Causal allowed mask T×T (query i sees keys j <= i).
std::vector<unsigned char> causal_allowed(int t) {
  std::vector<unsigned char> m(static_cast<size_t>(t) * t, 0);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j <= i; ++j) m[static_cast<size_t>(i) * t + j] = 1;
  return m;
}

AttentionShape head_shape(int t, int d, int dk) {
  AttentionShape s;
  s.tq = s.tk = t;
  s.dk = s.dv = dk;
  s.q_stride = s.k_stride = s.v_stride = 3 * d;
  s.out_stride = d;
  s.scale = 1.0 / std::sqrt(static_cast<double>(dk));
  return s;
}

}  // namespace

const char* decoder_positions_name(DecoderPositions p) {
  switch (p) {
    case DecoderPositions::learned: return "learned";
    case DecoderPositions::sinusoidal: return "sinusoidal";
    case DecoderPositions::rope: return "rope";
    default: return "none";
  }
}

void validate_decoder_config(const DecoderConfig& c) {
  require_model_range("vocab", c.vocab, 1, 4096);
  require_model_range("context", c.context, 1, 1024);
  require_model_range("d_model", c.d_model, 1, 512);
  require_model_range("heads", c.heads, 1, 64);
  require_model_range("layers", c.layers, 0, 8);
  require_model_range("mlp", c.mlp, 0, 2048);
  if (c.d_model % c.heads != 0)
    bad(ErrorCode::invalid_field, "model.heads = " + std::to_string(c.heads) + " must divide model.d_model = " +
                                      std::to_string(c.d_model));
}

void validate_decoder_batch(const DecoderConfig& c, const DecoderBatch& b) {
  if (b.batch < 1 || b.t < 1) bad(ErrorCode::empty_sequence, "tokens must have at least one row and one column");
  if (b.batch > 512) bad(ErrorCode::too_large, "at most 512 sequences per batch, got " + std::to_string(b.batch));
  if (b.t > c.context)
    bad(ErrorCode::invalid_field, "sequences have " + std::to_string(b.t) + " tokens, beyond model.context = " +
                                      std::to_string(c.context));
  if (static_cast<long>(b.batch) * b.t > 65536)
    bad(ErrorCode::too_large, "at most 65536 tokens per batch (B·T), got " + std::to_string(long(b.batch) * b.t));
  // Memory bound: the saved weights (B·h·T'²) and the widest activation (B·T'·max(3d, m, V)).
  const long widest = std::max({3L * c.d_model, long(c.mlp), long(c.vocab)});
  if (long(b.batch) * c.heads * b.t * b.t > (1L << 22) || long(b.batch) * b.t * widest > (1L << 22))
    bad(ErrorCode::too_large, "batch too large for this model: B·heads·T'² and B·T'·max(3·d_model, mlp, vocab) must "
                              "each stay within 4194304 numbers");
  const size_t n = static_cast<size_t>(b.batch) * b.t;
  if (b.tokens.size() != n || b.targets.size() != n)
    bad(ErrorCode::shape_mismatch, "tokens and targets must both be " + std::to_string(b.batch) + "x" +
                                       std::to_string(b.t));
  int counted = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::string at = "[" + std::to_string(i / b.t) + "][" + std::to_string(i % b.t) + "]";
    if (b.tokens[i] < 0 || b.tokens[i] >= c.vocab)
      bad(ErrorCode::invalid_field, "tokens" + at + " = " + std::to_string(b.tokens[i]) +
                                        " is outside the vocabulary 0.." + std::to_string(c.vocab - 1));
    if (b.targets[i] == kIgnoreIndex) continue;
    if (b.targets[i] < 0 || b.targets[i] >= c.vocab)
      bad(ErrorCode::invalid_field, "targets" + at + " = " + std::to_string(b.targets[i]) +
                                        " is outside the vocabulary 0.." + std::to_string(c.vocab - 1) +
                                        " (use -100 to ignore a position)");
    ++counted;
  }
  if (counted == 0)
    bad(ErrorCode::invalid_field, "every target of the batch is -100 (ignored): the loss would be undefined");
}

ParamLayout decoder_layout(const DecoderConfig& c) {
  const int d = c.d_model, m = c.mlp;
  const double lin_d = 1.0 / std::sqrt(static_cast<double>(d));
  ParamLayout p;
  p.add_matrix("embed.weight", c.vocab, d, InitLaw::standard_normal());
  if (c.positions == DecoderPositions::learned) p.add_matrix("pos.weight", c.context, d, InitLaw::standard_normal());
  for (int l = 0; l < c.layers; ++l) {
    if (c.layer_norm) {
      p.add_vector(lname(l, "ln1.weight"), d, InitLaw::one());
      p.add_vector(lname(l, "ln1.bias"), d, InitLaw::zero());
    }
    // xavier_uniform_ on the 3d×d in_proj_weight: fan_in d, fan_out 3d.
    p.add_matrix(lname(l, "attn.in_proj_weight"), 3 * d, d,
                 InitLaw::symmetric(std::sqrt(6.0 / static_cast<double>(d + 3 * d))));
    p.add_matrix(lname(l, "attn.out_proj.weight"), d, d, InitLaw::symmetric(lin_d));
    if (m > 0) {
      if (c.layer_norm) {
        p.add_vector(lname(l, "ln2.weight"), d, InitLaw::one());
        p.add_vector(lname(l, "ln2.bias"), d, InitLaw::zero());
      }
      const double lin_m = 1.0 / std::sqrt(static_cast<double>(m));
      p.add_matrix(lname(l, "mlp.0.weight"), m, d, InitLaw::symmetric(lin_d));
      p.add_vector(lname(l, "mlp.0.bias"), m, InitLaw::symmetric(lin_d));
      p.add_matrix(lname(l, "mlp.2.weight"), d, m, InitLaw::symmetric(lin_m));
      p.add_vector(lname(l, "mlp.2.bias"), d, InitLaw::symmetric(lin_m));
    }
  }
  if (c.layer_norm) {
    p.add_vector("ln_f.weight", d, InitLaw::one());
    p.add_vector("ln_f.bias", d, InitLaw::zero());
  }
  p.add_matrix("unembed.weight", c.vocab, d, InitLaw::symmetric(lin_d));
  return p;
}

double decoder_forward(const DecoderConfig& c, const ParamLayout& layout, const double* params,
                       const DecoderBatch& batch, DecoderActivations& a, const HeadIntervention* iv) {
  const int B = batch.batch, T = batch.t, d = c.d_model, h = c.heads, dk = d / h, m = c.mlp, V = c.vocab;
  const int N = B * T;
  const size_t nd = static_cast<size_t>(N) * d;
  if (iv) {
    const size_t lh = static_cast<size_t>(c.layers) * h;
    if (iv->mode.size() != lh)
      bad(ErrorCode::shape_mismatch, "the intervention names " + std::to_string(iv->mode.size()) +
                                         " heads; the model has " + std::to_string(lh) + " (layers x heads)");
    for (size_t i = 0; i < lh; ++i) {
      if (iv->mode[i] == HeadIntervention::mean_of_batch && (iv->means.size() != lh || iv->means[i].size() != static_cast<size_t>(dk)))
        bad(ErrorCode::shape_mismatch, "mean ablation needs d_k = " + std::to_string(dk) + " numbers per head");
      if (iv->mode[i] == HeadIntervention::patch &&
          (!iv->source || iv->source->batch != B || iv->source->t != T ||
           iv->source->layers.size() != static_cast<size_t>(c.layers)))
        bad(ErrorCode::shape_mismatch, "patching needs a source run of the same model on a batch of the same shape");
    }
  }
  a.batch = B;
  a.t = T;
  a.layers.resize(static_cast<size_t>(c.layers));

  // x = embed[tokens] + positions
  std::vector<double> x(nd);
  embedding_forward(x.data(), batch.tokens.data(), tensor_in(layout, params, "embed.weight"), N, d);
  if (c.positions == DecoderPositions::learned) {
    const double* pos = tensor_in(layout, params, "pos.weight");
    for (int b = 0; b < B; ++b) residual_forward(x.data() + static_cast<size_t>(b) * T * d, pos, T * d);
  } else if (c.positions == DecoderPositions::sinusoidal) {
    const Matrix pe = sinusoidal_positions(T, d);
    for (int b = 0; b < B; ++b) residual_forward(x.data() + static_cast<size_t>(b) * T * d, pe.data(), T * d);
  }
  const std::vector<unsigned char> allowed = causal_allowed(T);
  const RopeTable rope = c.positions == DecoderPositions::rope ? rope_table(T, dk) : RopeTable{};
  const AttentionShape hs = head_shape(T, d, dk);

  for (int l = 0; l < c.layers; ++l) {
    DecoderActivations::Layer& L = a.layers[static_cast<size_t>(l)];
    L.x_in = x;
    const double* attn_in = x.data();
    if (c.layer_norm) {
      L.ln1.resize(nd);
      L.ln1_mean.resize(N);
      L.ln1_rstd.resize(N);
      layernorm_forward(L.ln1.data(), L.ln1_mean.data(), L.ln1_rstd.data(), x.data(),
                        tensor_in(layout, params, lname(l, "ln1.weight")), tensor_in(layout, params, lname(l, "ln1.bias")),
                        N, d);
      attn_in = L.ln1.data();
    }
    L.qkv.resize(static_cast<size_t>(N) * 3 * d);
    linear_forward(L.qkv.data(), attn_in, tensor_in(layout, params, lname(l, "attn.in_proj_weight")), nullptr, N, d,
                   3 * d);
    L.weights.resize(static_cast<size_t>(B) * h * T * T);
    L.heads_out.resize(nd);
    for (int b = 0; b < B; ++b) {
      double* qkv = L.qkv.data() + static_cast<size_t>(b) * T * 3 * d;
      for (int hh = 0; hh < h; ++hh) {
        double* q = qkv + hh * dk;
        double* k = qkv + d + hh * dk;
        const double* v = qkv + 2 * d + hh * dk;
        if (c.positions == DecoderPositions::rope) {
          rope_forward(q, rope, T, 3 * d);
          rope_forward(k, rope, T, 3 * d);
        }
        attention_forward(L.heads_out.data() + static_cast<size_t>(b) * T * d + hh * dk,
                          L.weights.data() + (static_cast<size_t>(b) * h + hh) * T * T, q, k, v, allowed.data(), hs);
      }
    }
    if (iv) {
      for (int hh = 0; hh < h; ++hh) {
        const size_t id = static_cast<size_t>(l) * h + hh;
        const HeadIntervention::Mode mode = iv->mode[id];
        if (mode == HeadIntervention::keep) continue;
        for (int r = 0; r < N; ++r) {
          double* o = L.heads_out.data() + static_cast<size_t>(r) * d + hh * dk;
          for (int c2 = 0; c2 < dk; ++c2) {
            if (mode == HeadIntervention::zero) o[c2] = 0.0;
            else if (mode == HeadIntervention::mean_of_batch) o[c2] = iv->means[id][static_cast<size_t>(c2)];
            else o[c2] = iv->source->layers[static_cast<size_t>(l)].heads_out[static_cast<size_t>(r) * d + hh * dk + c2];
          }
        }
      }
    }
    std::vector<double> proj(nd);
    linear_forward(proj.data(), L.heads_out.data(), tensor_in(layout, params, lname(l, "attn.out_proj.weight")),
                   nullptr, N, d, d);
    residual_forward(x.data(), proj.data(), static_cast<int>(nd));
    L.x_mid = x;
    if (m > 0) {
      const double* mlp_in = x.data();
      if (c.layer_norm) {
        L.ln2.resize(nd);
        L.ln2_mean.resize(N);
        L.ln2_rstd.resize(N);
        layernorm_forward(L.ln2.data(), L.ln2_mean.data(), L.ln2_rstd.data(), x.data(),
                          tensor_in(layout, params, lname(l, "ln2.weight")),
                          tensor_in(layout, params, lname(l, "ln2.bias")), N, d);
        mlp_in = L.ln2.data();
      }
      L.mlp_pre.resize(static_cast<size_t>(N) * m);
      L.mlp_act.resize(static_cast<size_t>(N) * m);
      linear_forward(L.mlp_pre.data(), mlp_in, tensor_in(layout, params, lname(l, "mlp.0.weight")),
                     tensor_in(layout, params, lname(l, "mlp.0.bias")), N, d, m);
      relu_forward(L.mlp_act.data(), L.mlp_pre.data(), N * m);
      linear_forward(proj.data(), L.mlp_act.data(), tensor_in(layout, params, lname(l, "mlp.2.weight")),
                     tensor_in(layout, params, lname(l, "mlp.2.bias")), N, m, d);
      residual_forward(x.data(), proj.data(), static_cast<int>(nd));
    }
  }
  a.x_final = x;
  const double* head_in = x.data();
  if (c.layer_norm) {
    a.lnf.resize(nd);
    a.lnf_mean.resize(N);
    a.lnf_rstd.resize(N);
    layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), x.data(),
                      tensor_in(layout, params, "ln_f.weight"), tensor_in(layout, params, "ln_f.bias"), N, d);
    head_in = a.lnf.data();
  }
  a.logits.resize(static_cast<size_t>(N) * V);
  a.probs.resize(static_cast<size_t>(N) * V);
  linear_forward(a.logits.data(), head_in, tensor_in(layout, params, "unembed.weight"), nullptr, N, d, V);
  a.loss = cross_entropy_forward(a.probs.data(), a.logits.data(), batch.targets.data(), N, V, &a.counted);
  return a.loss;
}

void decoder_backward(const DecoderConfig& c, const ParamLayout& layout, const double* params,
                      const DecoderBatch& batch, const DecoderActivations& a, double* grads) {
  const int B = batch.batch, T = batch.t, d = c.d_model, h = c.heads, dk = d / h, m = c.mlp, V = c.vocab;
  const int N = B * T;
  const size_t nd = static_cast<size_t>(N) * d;
  std::vector<double> dlogits(static_cast<size_t>(N) * V, 0.0);
  cross_entropy_backward(dlogits.data(), a.probs.data(), batch.targets.data(), N, V, a.counted);

  std::vector<double> dx(nd, 0.0);  // ∂loss/∂(residual stream), walked back layer by layer
  if (c.layer_norm) {
    std::vector<double> dlnf(nd, 0.0);
    linear_backward(dlnf.data(), tensor_in(layout, grads, "unembed.weight"), nullptr, dlogits.data(), a.lnf.data(),
                    tensor_in(layout, params, "unembed.weight"), N, d, V);
    layernorm_backward(dx.data(), tensor_in(layout, grads, "ln_f.weight"), tensor_in(layout, grads, "ln_f.bias"),
                       dlnf.data(), a.x_final.data(), tensor_in(layout, params, "ln_f.weight"), a.lnf_mean.data(),
                       a.lnf_rstd.data(), N, d);
  } else {
    linear_backward(dx.data(), tensor_in(layout, grads, "unembed.weight"), nullptr, dlogits.data(), a.x_final.data(),
                    tensor_in(layout, params, "unembed.weight"), N, d, V);
  }

  const RopeTable rope = c.positions == DecoderPositions::rope ? rope_table(T, dk) : RopeTable{};
  const AttentionShape hs = head_shape(T, d, dk);
  std::vector<double> tmp(nd);
  for (int l = c.layers - 1; l >= 0; --l) {
    const DecoderActivations::Layer& L = a.layers[static_cast<size_t>(l)];
    if (m > 0) {
      // x_out = x_mid + mlp(in), in = ln2(x_mid) or x_mid
      std::vector<double> dact(static_cast<size_t>(N) * m, 0.0), dpre(static_cast<size_t>(N) * m, 0.0);
      linear_backward(dact.data(), tensor_in(layout, grads, lname(l, "mlp.2.weight")),
                      tensor_in(layout, grads, lname(l, "mlp.2.bias")), dx.data(), L.mlp_act.data(),
                      tensor_in(layout, params, lname(l, "mlp.2.weight")), N, m, d);
      relu_backward(dpre.data(), dact.data(), L.mlp_pre.data(), N * m);
      std::fill(tmp.begin(), tmp.end(), 0.0);
      const double* mlp_in = c.layer_norm ? L.ln2.data() : L.x_mid.data();
      linear_backward(tmp.data(), tensor_in(layout, grads, lname(l, "mlp.0.weight")),
                      tensor_in(layout, grads, lname(l, "mlp.0.bias")), dpre.data(), mlp_in,
                      tensor_in(layout, params, lname(l, "mlp.0.weight")), N, d, m);
      if (c.layer_norm)
        layernorm_backward(dx.data(), tensor_in(layout, grads, lname(l, "ln2.weight")),
                           tensor_in(layout, grads, lname(l, "ln2.bias")), tmp.data(), L.x_mid.data(),
                           tensor_in(layout, params, lname(l, "ln2.weight")), L.ln2_mean.data(), L.ln2_rstd.data(), N,
                           d);
      else
        residual_backward(dx.data(), tmp.data(), static_cast<int>(nd));
    }
    // x_mid = x_in + out_proj(heads(in_proj(in))), in = ln1(x_in) or x_in
    std::vector<double> dheads(nd, 0.0), dqkv(static_cast<size_t>(N) * 3 * d, 0.0);
    linear_backward(dheads.data(), tensor_in(layout, grads, lname(l, "attn.out_proj.weight")), nullptr, dx.data(),
                    L.heads_out.data(), tensor_in(layout, params, lname(l, "attn.out_proj.weight")), N, d, d);
    for (int b = 0; b < B; ++b) {
      const double* qkv = L.qkv.data() + static_cast<size_t>(b) * T * 3 * d;
      double* g = dqkv.data() + static_cast<size_t>(b) * T * 3 * d;
      for (int hh = 0; hh < h; ++hh) {
        attention_backward(g + hh * dk, g + d + hh * dk, g + 2 * d + hh * dk,
                           dheads.data() + static_cast<size_t>(b) * T * d + hh * dk,
                           L.weights.data() + (static_cast<size_t>(b) * h + hh) * T * T, qkv + hh * dk,
                           qkv + d + hh * dk, qkv + 2 * d + hh * dk, hs);
        if (c.positions == DecoderPositions::rope) {
          rope_backward(g + hh * dk, rope, T, 3 * d);
          rope_backward(g + d + hh * dk, rope, T, 3 * d);
        }
      }
    }
    std::fill(tmp.begin(), tmp.end(), 0.0);
    const double* attn_in = c.layer_norm ? L.ln1.data() : L.x_in.data();
    linear_backward(tmp.data(), tensor_in(layout, grads, lname(l, "attn.in_proj_weight")), nullptr, dqkv.data(),
                    attn_in, tensor_in(layout, params, lname(l, "attn.in_proj_weight")), N, d, 3 * d);
    if (c.layer_norm)
      layernorm_backward(dx.data(), tensor_in(layout, grads, lname(l, "ln1.weight")),
                         tensor_in(layout, grads, lname(l, "ln1.bias")), tmp.data(), L.x_in.data(),
                         tensor_in(layout, params, lname(l, "ln1.weight")), L.ln1_mean.data(), L.ln1_rstd.data(), N, d);
    else
      residual_backward(dx.data(), tmp.data(), static_cast<int>(nd));
  }
  embedding_backward(tensor_in(layout, grads, "embed.weight"), dx.data(), batch.tokens.data(), N, d);
  if (c.positions == DecoderPositions::learned) {
    double* dpos = tensor_in(layout, grads, "pos.weight");
    for (int b = 0; b < B; ++b) residual_backward(dpos, dx.data() + static_cast<size_t>(b) * T * d, T * d);
  }
}

}  // namespace attn::learn
