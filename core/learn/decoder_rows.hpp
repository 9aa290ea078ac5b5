#pragma once
// The decoder's per-layer pieces, internal to core/learn: decoder_forward (decoder.cpp) runs them on
// all B·T' rows at once (training, teacher forcing), decoder_incremental_logits (decoder_cache.cpp)
// on one new row at a time over a K/V cache (generation). Both call these, so the two cannot drift
// apart. c is the model's configuration, P its parameters in decoder_layout(c) order, l a layer;
// rows are row-major and d = d_model wide unless said otherwise. Nothing here checks its input:
// the public functions that call them do. Each is a template over the element type S (double, or
// float for a model held in float32), instantiated for both in decoder.cpp.
#include <string>
#include <vector>

#include "attn/linalg.hpp"
#include "learn/decoder.hpp"
#include "learn/layers.hpp"

namespace attn::learn::rows {

/// One head's shape over t rows of a packed qkv buffer (3·d wide) into an output d wide, d_k
/// features a head, layer l's scale (decoder_attention_scale: 1/sqrt(d_k), Vaswani et al. 2017, eq. 1,
/// with GPT-2's options).
AttentionShape head_shape(const DecoderConfig& c, int t, int l);

/// "embed.weight" with a tied head, else "unembed.weight": the weight the logits read.
const char* head_weight_name(const DecoderConfig& c);

/// The MLP's nonlinearity over n numbers, forward and backward (layers.hpp's relu / gelu / gelu_new).
template <class S>
void activation_forward(Activation a, S* out, const S* inp, int n);
void activation_backward(Activation a, double* dinp, const double* dout, const double* inp, int n);

/// x (n×d) = embed[tokens] + the positions first..first+n−1 of one sequence (learned or
/// sinusoidal; pe holds the sinusoidal table).
template <class S>
void embed_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, const int* tokens, int n, int first,
                const Matrix& pe, S* x);

/// out, mean, rstd (resized to n rows) = LayerNorm(x; the named weight and bias), d features a row
/// (Ba et al. 2016); returns out.data().
template <class S>
const S* layernorm_rows(std::vector<S>& out, std::vector<S>& mean, std::vector<S>& rstd, const ParamLayout& layout,
                        const S* P, const std::string& name, const S* x, int n, int d, double eps);

/// The attention sublayer's input: L.ln1 (pre-norm) and L.qkv = in·in_proj_weightᵀ (+ in_proj_bias) (n×3d).
template <class S>
void qkv_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, int l, const S* x, int n,
              typename DecoderActivationsT<S>::Layer& L);

/// RoPE on every head's q and k of n qkv rows at positions first..first+n−1 (v is never rotated;
/// Su et al. 2021, eq. 34). Nothing unless the model uses RoPE.
template <class S>
void rope_rows(const DecoderConfig& c, const RopeTable& rope, S* qkv, int n, int first);

/// x (n×d) += heads_out·out_projᵀ (+ out_proj.bias) (scratch is resized and overwritten).
template <class S>
void attn_out_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, int l, const S* heads_out, int n, S* x,
                   std::vector<S>& scratch);

/// x (n×d) += mlp(ln2(x)) (or mlp(x) without layer norm), saving L.ln2*, L.mlp_pre, L.mlp_act.
/// Nothing when the model has no MLP.
template <class S>
void mlp_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, int l, S* x, int n,
              typename DecoderActivationsT<S>::Layer& L, std::vector<S>& scratch);

/// logits (n×V) = ln_f(x)·unembedᵀ (or x·unembedᵀ; embed.weight for a tied head), saving ln_f's output
/// and statistics in a.
template <class S>
void head_rows(const DecoderConfig& c, const ParamLayout& layout, const S* P, const S* x, int n,
               DecoderActivationsT<S>& a, S* logits);

}  // namespace attn::learn::rows
