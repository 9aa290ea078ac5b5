#include "learn/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "learn/decoder_rows.hpp"
#include "learn/layers.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

/// Causal allowed mask T×T (query i sees keys j <= i).
std::vector<unsigned char> causal_allowed(int t) {
  std::vector<unsigned char> m(static_cast<size_t>(t) * t, 0);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j <= i; ++j) m[static_cast<size_t>(i) * t + j] = 1;
  return m;
}

}  // namespace

namespace rows {

const char* head_weight_name(const DecoderConfig& c) { return c.tied_head ? "embed.weight" : "unembed.weight"; }

template <class S>
void activation_forward(Activation a, S* out, const S* inp, int n) {
  if (a == Activation::gelu) gelu_forward(out, inp, n);
  else if (a == Activation::gelu_new) gelu_new_forward(out, inp, n);
  else relu_forward(out, inp, n);
}

void activation_backward(Activation a, double* dinp, const double* dout, const double* inp, int n) {
  if (a == Activation::gelu) gelu_backward(dinp, dout, inp, n);
  else if (a == Activation::gelu_new) gelu_new_backward(dinp, dout, inp, n);
  else relu_backward(dinp, dout, inp, n);
}

AttentionShape head_shape(const DecoderConfig& c, int t, int l) {
  const int d = c.d_model, dk = d / c.heads;
  AttentionShape s;
  s.tq = s.tk = t;
  s.dk = s.dv = dk;
  s.q_stride = s.k_stride = s.v_stride = 3 * d;
  s.out_stride = d;
  s.scale = decoder_attention_scale(c, l);
  return s;
}

// The per-layer pieces (documented in decoder_rows.hpp). Out of line: each is a matrix product or
// more, so a call costs nothing, and -O3 would otherwise copy them into every caller.

template <class S>
[[gnu::noinline]] void embed_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, const int* tokens, int n,
                int first, const Matrix& pe, S* x) {
  const int d = c.d_model;
  embedding_forward(x, tokens, tensor_in(layout, P, "embed.weight"), n, d);
  if (c.positions == DecoderPositions::learned) {
    residual_forward(x, tensor_in(layout, P, "pos.weight") + static_cast<size_t>(first) * d, n * d);
  } else if (c.positions == DecoderPositions::sinusoidal) {
    const double* table = pe.data() + static_cast<size_t>(first) * d;
    if constexpr (std::is_same_v<S, double>) residual_forward(x, table, n * d);
    else
      for (int i = 0; i < n * d; ++i) x[i] += static_cast<S>(table[i]);
  }
}

template <class S>
[[gnu::noinline]] const S* layernorm_rows(std::vector<S>& out, std::vector<S>& mean, std::vector<S>& rstd,
                             const ParamLayout& layout, const S* P, const std::string& name, const S* x,
                             int n, int d, double eps) {
  out.resize(static_cast<size_t>(n) * d);
  mean.resize(static_cast<size_t>(n));
  rstd.resize(static_cast<size_t>(n));
  layernorm_forward(out.data(), mean.data(), rstd.data(), x, tensor_in(layout, P, name + ".weight"),
                    tensor_in(layout, P, name + ".bias"), n, d, eps);
  return out.data();
}

template <class S>
[[gnu::noinline]] void qkv_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, int l, const S* x, int n,
              typename DecoderActivationsT<S>::Layer& L) {
  const int d = c.d_model;
  const S* attn_in =
      c.layer_norm ? layernorm_rows(L.ln1, L.ln1_mean, L.ln1_rstd, layout, P, decoder_param_name(l, "ln1"), x, n, d,
                                    c.layer_norm_eps)
                   : x;
  L.qkv.resize(static_cast<size_t>(n) * 3 * d);
  linear_forward(L.qkv.data(), attn_in, tensor_in(layout, P, decoder_param_name(l, "attn.in_proj_weight")),
                 c.bias ? tensor_in(layout, P, decoder_param_name(l, "attn.in_proj_bias")) : nullptr, n, d, 3 * d);
}

template <class S>
[[gnu::noinline]] void rope_rows(const DecoderConfig& c, const RopeTable& rope, S* qkv, int n, int first) {
  if (c.positions != DecoderPositions::rope) return;
  const int d = c.d_model, dk = d / c.heads;
  for (int hh = 0; hh < c.heads; ++hh) {
    rope_forward(qkv + hh * dk, rope, n, 3 * d, first);
    rope_forward(qkv + d + hh * dk, rope, n, 3 * d, first);
  }
}

template <class S>
[[gnu::noinline]] void attn_out_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, int l, const S* heads_out,
                   int n, S* x, std::vector<S>& scratch) {
  const int d = c.d_model;
  scratch.resize(static_cast<size_t>(n) * d);
  linear_forward(scratch.data(), heads_out, tensor_in(layout, P, decoder_param_name(l, "attn.out_proj.weight")),
                 c.bias ? tensor_in(layout, P, decoder_param_name(l, "attn.out_proj.bias")) : nullptr, n, d, d);
  residual_forward(x, scratch.data(), n * d);
}

template <class S>
[[gnu::noinline]] void mlp_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, int l, S* x, int n,
              typename DecoderActivationsT<S>::Layer& L, std::vector<S>& scratch) {
  const int d = c.d_model, m = c.mlp;
  if (m <= 0) return;
  const S* mlp_in =
      c.layer_norm ? layernorm_rows(L.ln2, L.ln2_mean, L.ln2_rstd, layout, P, decoder_param_name(l, "ln2"), x, n, d,
                                    c.layer_norm_eps)
                   : x;
  L.mlp_pre.resize(static_cast<size_t>(n) * m);
  L.mlp_act.resize(static_cast<size_t>(n) * m);
  linear_forward(L.mlp_pre.data(), mlp_in, tensor_in(layout, P, decoder_param_name(l, "mlp.0.weight")),
                 tensor_in(layout, P, decoder_param_name(l, "mlp.0.bias")), n, d, m);
  activation_forward(c.activation, L.mlp_act.data(), L.mlp_pre.data(), n * m);
  scratch.resize(static_cast<size_t>(n) * d);
  linear_forward(scratch.data(), L.mlp_act.data(), tensor_in(layout, P, decoder_param_name(l, "mlp.2.weight")),
                 tensor_in(layout, P, decoder_param_name(l, "mlp.2.bias")), n, m, d);
  residual_forward(x, scratch.data(), n * d);
}

template <class S>
[[gnu::noinline]] void head_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, const S* x, int n,
               DecoderActivationsT<S>& a, S* logits) {
  const int d = c.d_model;
  const S* head_in =
      c.layer_norm ? layernorm_rows(a.lnf, a.lnf_mean, a.lnf_rstd, layout, P, "ln_f", x, n, d, c.layer_norm_eps) : x;
  linear_forward(logits, head_in, tensor_in(layout, P, head_weight_name(c)), nullptr, n, d, c.vocab);
}

#define ATTN_DECODER_ROWS(S)                                                                                          \
  template void activation_forward<S>(Activation, S*, const S*, int);                                                 \
  template void embed_rows<S>(const DecoderConfig&, const ParamLayout&, const S*, const int*, int, int, const Matrix&, \
                              S*);                                                                                    \
  template const S* layernorm_rows<S>(std::vector<S>&, std::vector<S>&, std::vector<S>&, const ParamLayout&, const S*, \
                                      const std::string&, const S*, int, int, double);                                \
  template void qkv_rows<S>(const DecoderConfig&, const ParamLayout&, const S*, int, const S*, int,                   \
                            DecoderActivationsT<S>::Layer&);                                                          \
  template void rope_rows<S>(const DecoderConfig&, const RopeTable&, S*, int, int);                                   \
  template void attn_out_rows<S>(const DecoderConfig&, const ParamLayout&, const S*, int, const S*, int, S*,          \
                                 std::vector<S>&);                                                                    \
  template void mlp_rows<S>(const DecoderConfig&, const ParamLayout&, const S*, int, S*, int,                         \
                            DecoderActivationsT<S>::Layer&, std::vector<S>&);                                         \
  template void head_rows<S>(const DecoderConfig&, const ParamLayout&, const S*, const S*, int, DecoderActivationsT<S>&, \
                             S*);
ATTN_DECODER_ROWS(double)
ATTN_DECODER_ROWS(float)
#undef ATTN_DECODER_ROWS

}  // namespace rows

namespace {

template <class S>
void check_intervention(const DecoderConfig& c, int B, int T, const HeadInterventionT<S>& iv) {
  const int dk = c.d_model / c.heads;
  const size_t lh = static_cast<size_t>(c.layers) * c.heads;
  if (iv.mode.size() != lh)
    bad(ErrorCode::shape_mismatch, "the intervention names " + std::to_string(iv.mode.size()) +
                                       " heads; the model has " + std::to_string(lh) + " (layers x heads)");
  for (size_t i = 0; i < lh; ++i) {
    if (iv.mode[i] == HeadInterventionT<S>::mean_of_batch &&
        (iv.means.size() != lh || iv.means[i].size() != static_cast<size_t>(dk)))
      bad(ErrorCode::shape_mismatch, "mean ablation needs d_k = " + std::to_string(dk) + " numbers per head");
    if (iv.mode[i] == HeadInterventionT<S>::patch &&
        (!iv.source || iv.source->batch != B || iv.source->t != T ||
         iv.source->layers.size() != static_cast<size_t>(c.layers)))
      bad(ErrorCode::shape_mismatch, "patching needs a source run of the same model on a batch of the same shape");
  }
}

/// Replaces what the intervened heads of layer l passed on (N rows of heads_out).
template <class S>
void apply_intervention(const DecoderConfig& c, int l, int N, const HeadInterventionT<S>& iv, std::vector<S>& heads_out) {
  const int d = c.d_model, h = c.heads, dk = d / h;
  for (int hh = 0; hh < h; ++hh) {
    const size_t id = static_cast<size_t>(l) * h + hh;
    const typename HeadInterventionT<S>::Mode mode = iv.mode[id];
    if (mode == HeadInterventionT<S>::keep) continue;
    for (int r = 0; r < N; ++r) {
      S* o = heads_out.data() + static_cast<size_t>(r) * d + hh * dk;
      for (int c2 = 0; c2 < dk; ++c2) {
        if (mode == HeadInterventionT<S>::zero) o[c2] = S(0);
        else if (mode == HeadInterventionT<S>::mean_of_batch) o[c2] = iv.means[id][static_cast<size_t>(c2)];
        else o[c2] = iv.source->layers[static_cast<size_t>(l)].heads_out[static_cast<size_t>(r) * d + hh * dk + c2];
      }
    }
  }
}

}  // namespace

using namespace rows;

template <class S>
double decoder_forward(const DecoderConfig& c, const ParamLayout& layout, const S* params,
                       const DecoderBatch& batch, DecoderActivationsT<S>& a,
                       const typename NonDeduced<HeadInterventionT<S>>::type* iv) {
  const int B = batch.batch, T = batch.t, d = c.d_model, h = c.heads, dk = d / h, V = c.vocab;
  const int N = B * T;
  const size_t nd = static_cast<size_t>(N) * d;
  if (iv) check_intervention(c, B, T, *iv);
  a.batch = B;
  a.t = T;
  a.layers.resize(static_cast<size_t>(c.layers));

  std::vector<S> x(nd), scratch;
  const Matrix pe = c.positions == DecoderPositions::sinusoidal ? sinusoidal_positions(T, d) : Matrix();
  for (int b = 0; b < B; ++b)
    embed_rows(c, layout, params, batch.tokens.data() + static_cast<size_t>(b) * T, T, 0, pe,
               x.data() + static_cast<size_t>(b) * T * d);
  const std::vector<unsigned char> allowed = causal_allowed(T);
  const RopeTable rope = c.positions == DecoderPositions::rope ? rope_table(T, dk) : RopeTable{};

  for (int l = 0; l < c.layers; ++l) {
    typename DecoderActivationsT<S>::Layer& L = a.layers[static_cast<size_t>(l)];
    const AttentionShape hs = head_shape(c, T, l);
    L.x_in = x;
    qkv_rows(c, layout, params, l, x.data(), N, L);
    L.weights.resize(static_cast<size_t>(B) * h * T * T);
    L.heads_out.resize(nd);
    for (int b = 0; b < B; ++b) {
      S* qkv = L.qkv.data() + static_cast<size_t>(b) * T * 3 * d;
      rope_rows(c, rope, qkv, T, 0);
      for (int hh = 0; hh < h; ++hh)
        attention_forward(L.heads_out.data() + static_cast<size_t>(b) * T * d + hh * dk,
                          L.weights.data() + (static_cast<size_t>(b) * h + hh) * T * T, qkv + hh * dk,
                          qkv + d + hh * dk, qkv + 2 * d + hh * dk, allowed.data(), hs);
    }
    if (iv) apply_intervention(c, l, N, *iv, L.heads_out);
    attn_out_rows(c, layout, params, l, L.heads_out.data(), N, x.data(), scratch);
    L.x_mid = x;
    mlp_rows(c, layout, params, l, x.data(), N, L, scratch);
  }
  a.x_final = x;
  a.logits.resize(static_cast<size_t>(N) * V);
  a.probs.resize(static_cast<size_t>(N) * V);
  head_rows(c, layout, params, x.data(), N, a, a.logits.data());
  a.loss = cross_entropy_forward(a.probs.data(), a.logits.data(), batch.targets.data(), N, V, &a.counted);
  return a.loss;
}
template double decoder_forward<double>(const DecoderConfig&, const ParamLayout&, const double*, const DecoderBatch&,
                                        DecoderActivationsT<double>&, const HeadInterventionT<double>*);
template double decoder_forward<float>(const DecoderConfig&, const ParamLayout&, const float*, const DecoderBatch&,
                                       DecoderActivationsT<float>&, const HeadInterventionT<float>*);

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
    linear_backward(dlnf.data(), tensor_in(layout, grads, head_weight_name(c)), nullptr, dlogits.data(), a.lnf.data(),
                    tensor_in(layout, params, head_weight_name(c)), N, d, V);
    layernorm_backward(dx.data(), tensor_in(layout, grads, "ln_f.weight"), tensor_in(layout, grads, "ln_f.bias"),
                       dlnf.data(), a.x_final.data(), tensor_in(layout, params, "ln_f.weight"), a.lnf_mean.data(),
                       a.lnf_rstd.data(), N, d);
  } else {
    linear_backward(dx.data(), tensor_in(layout, grads, head_weight_name(c)), nullptr, dlogits.data(), a.x_final.data(),
                    tensor_in(layout, params, head_weight_name(c)), N, d, V);
  }

  const RopeTable rope = c.positions == DecoderPositions::rope ? rope_table(T, dk) : RopeTable{};
  std::vector<double> tmp(nd);
  for (int l = c.layers - 1; l >= 0; --l) {
    const DecoderActivations::Layer& L = a.layers[static_cast<size_t>(l)];
    const AttentionShape hs = head_shape(c, T, l);
    if (m > 0) {
      // x_out = x_mid + mlp(in), in = ln2(x_mid) or x_mid
      std::vector<double> dact(static_cast<size_t>(N) * m, 0.0), dpre(static_cast<size_t>(N) * m, 0.0);
      linear_backward(dact.data(), tensor_in(layout, grads, decoder_param_name(l, "mlp.2.weight")),
                      tensor_in(layout, grads, decoder_param_name(l, "mlp.2.bias")), dx.data(), L.mlp_act.data(),
                      tensor_in(layout, params, decoder_param_name(l, "mlp.2.weight")), N, m, d);
      activation_backward(c.activation, dpre.data(), dact.data(), L.mlp_pre.data(), N * m);
      std::fill(tmp.begin(), tmp.end(), 0.0);
      const double* mlp_in = c.layer_norm ? L.ln2.data() : L.x_mid.data();
      linear_backward(tmp.data(), tensor_in(layout, grads, decoder_param_name(l, "mlp.0.weight")),
                      tensor_in(layout, grads, decoder_param_name(l, "mlp.0.bias")), dpre.data(), mlp_in,
                      tensor_in(layout, params, decoder_param_name(l, "mlp.0.weight")), N, d, m);
      if (c.layer_norm)
        layernorm_backward(dx.data(), tensor_in(layout, grads, decoder_param_name(l, "ln2.weight")),
                           tensor_in(layout, grads, decoder_param_name(l, "ln2.bias")), tmp.data(), L.x_mid.data(),
                           tensor_in(layout, params, decoder_param_name(l, "ln2.weight")), L.ln2_mean.data(), L.ln2_rstd.data(), N,
                           d);
      else
        residual_backward(dx.data(), tmp.data(), static_cast<int>(nd));
    }
    // x_mid = x_in + out_proj(heads(in_proj(in))), in = ln1(x_in) or x_in
    std::vector<double> dheads(nd, 0.0), dqkv(static_cast<size_t>(N) * 3 * d, 0.0);
    linear_backward(dheads.data(), tensor_in(layout, grads, decoder_param_name(l, "attn.out_proj.weight")),
                    c.bias ? tensor_in(layout, grads, decoder_param_name(l, "attn.out_proj.bias")) : nullptr, dx.data(),
                    L.heads_out.data(), tensor_in(layout, params, decoder_param_name(l, "attn.out_proj.weight")), N, d, d);
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
    linear_backward(tmp.data(), tensor_in(layout, grads, decoder_param_name(l, "attn.in_proj_weight")),
                    c.bias ? tensor_in(layout, grads, decoder_param_name(l, "attn.in_proj_bias")) : nullptr, dqkv.data(),
                    attn_in, tensor_in(layout, params, decoder_param_name(l, "attn.in_proj_weight")), N, d, 3 * d);
    if (c.layer_norm)
      layernorm_backward(dx.data(), tensor_in(layout, grads, decoder_param_name(l, "ln1.weight")),
                         tensor_in(layout, grads, decoder_param_name(l, "ln1.bias")), tmp.data(), L.x_in.data(),
                         tensor_in(layout, params, decoder_param_name(l, "ln1.weight")), L.ln1_mean.data(), L.ln1_rstd.data(), N, d);
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
