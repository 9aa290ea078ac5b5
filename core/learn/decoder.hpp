// learn/decoder.hpp — a small decoder-only transformer, forward and backward.
//
// {"kind":"decoder","vocab":V,"context":T,"d_model":d,"heads":h,"layers":L,"mlp":m,
//  "positions":"learned"|"sinusoidal"|"rope"|"none","layer_norm":false}
// Parameters, named and laid out as PyTorch's state_dict (weights out × in, as torch stores them):
//   embed.weight V×d; pos.weight T×d (learned positions only);
//   per layer l: layers.l.attn.in_proj_weight 3d×d (rows q, then k, then v) and
//   layers.l.attn.out_proj.weight d×d (nn.MultiheadAttention(d, h, bias=False));
//   if m > 0: layers.l.mlp.0.weight m×d, .0.bias m, layers.l.mlp.2.weight d×m, .2.bias d;
//   with layer_norm: layers.l.ln1.{weight,bias}, layers.l.ln2.{weight,bias} (only with an MLP, which it
//   feeds), ln_f.{weight,bias} (d each);
//   unembed.weight V×d (no bias).
// Forward on B sequences of T' ≤ T tokens: x = embed[tokens] + pos[0..T'−1] (learned) or + the
// sinusoidal table (attn::sinusoidal_positions); per layer x += attn(x) with a causal mask, then
// x += mlp(x) (Linear, ReLU, Linear) when m > 0; logits = x·unembedᵀ. Pre-norm with layer_norm:
// x += attn(ln1(x)); x += mlp(ln2(x)); logits = ln_f(x)·unembedᵀ. Heads split d into d_k = d/h
// columns (head i: columns i·d_k…), scale 1/sqrt(d_k) (Vaswani et al. 2017, §3.2). RoPE rotates each
// head's q and k (as attn::apply_rope does, on d_k features) and never v.
// Loss: softmax cross-entropy over the targets, −100 ignored, averaged over the counted ones.
#pragma once

#include <string>
#include <vector>

#include "learn/params.hpp"

namespace attn::learn {

enum class DecoderPositions { learned, sinusoidal, rope, none };
/// "learned" / "sinusoidal" / "rope" / "none".
const char* decoder_positions_name(DecoderPositions p);

struct DecoderConfig {
  int vocab = 16, context = 32, d_model = 32, heads = 4, layers = 2, mlp = 0;
  DecoderPositions positions = DecoderPositions::learned;
  bool layer_norm = false;
};

/// B sequences of T' tokens, row-major B×T'; targets kIgnoreIndex (−100) are not counted.
struct DecoderBatch {
  int batch = 0, t = 0;
  std::vector<int> tokens, targets;
};

/// What the forward saves for the backward (and what a panel reads: weights per layer).
struct DecoderActivations {
  int batch = 0, t = 0;
  struct Layer {
    std::vector<double> x_in;                 ///< B·T'×d, the residual stream entering the layer
    std::vector<double> ln1, ln1_mean, ln1_rstd;
    std::vector<double> qkv;                  ///< B·T'×3d, q and k after RoPE
    std::vector<double> weights;              ///< B×h×T'×T' attention weights
    std::vector<double> heads_out;            ///< B·T'×d, the heads concatenated (before out_proj)
    std::vector<double> x_mid;                ///< B·T'×d, after the attention residual
    std::vector<double> ln2, ln2_mean, ln2_rstd;
    std::vector<double> mlp_pre, mlp_act;     ///< B·T'×m
  };
  std::vector<Layer> layers;
  std::vector<double> x_final, lnf, lnf_mean, lnf_rstd;  ///< B·T'×d
  std::vector<double> logits, probs;                     ///< B·T'×V
  double loss = 0.0;
  int counted = 0;
};

/// The decoder's parameter layout (state_dict order) with each tensor's PyTorch 1.13 default law:
/// Embedding N(0, 1); in_proj_weight xavier_uniform U(±sqrt(6/(d + 3d))); Linear weight and bias
/// U(±1/sqrt(fan_in)) (out_proj, mlp, unembed); LayerNorm weight 1, bias 0.
ParamLayout decoder_layout(const DecoderConfig& cfg);

/// "layers.<layer>.<rest>": the state_dict name of one decoder layer's parameter, e.g.
/// decoder_param_name(0, "attn.in_proj_weight") (the layers are an nn.ModuleList named "layers").
std::string decoder_param_name(int layer, const char* rest);

/// Checks a configuration: vocab 1..4096, context 1..1024, d_model 1..512, heads 1..64 dividing
/// d_model, layers 0..8, mlp 0..2048. Throws Error(invalid_field) naming the field.
void validate_decoder_config(const DecoderConfig& cfg);

/// Checks a batch against cfg: B 1..512, 1 <= T' <= context, B·T' <= 65536, tokens in [0, V),
/// targets in [0, V) or −100, at least one counted target. Throws Error(invalid_field /
/// shape_mismatch / too_large) naming the position.
void validate_decoder_batch(const DecoderConfig& cfg, const DecoderBatch& batch);

/// An intervention on head outputs (before out_proj), for ablation and activation patching
/// (forward only). mode[l·heads + h] says what head h of layer l passes on:
///   keep  — its own output;
///   zero  — zeros (zero ablation);
///   mean_of_batch — means[l·heads + h] (d_k numbers) at every position (mean ablation);
///   patch — the same head's output in `source` (a forward of another batch of the same shape).
struct HeadIntervention {
  enum Mode { keep, zero, mean_of_batch, patch };
  std::vector<Mode> mode;
  std::vector<std::vector<double>> means;  ///< per head, d_k numbers (mean_of_batch)
  const DecoderActivations* source = nullptr;
};

/// Forward pass; returns the mean loss (also in acts.loss). params in decoder_layout(cfg) order.
/// With an intervention, acts.layers[l].heads_out holds what the heads passed on (after it).
/// Throws Error(shape_mismatch) when the intervention does not fit the model or the batch.
double decoder_forward(const DecoderConfig& cfg, const ParamLayout& layout, const double* params,
                       const DecoderBatch& batch, DecoderActivations& acts,
                       const HeadIntervention* intervention = nullptr);

/// Logits of one sequence computed position by position with a growing K/V cache (each new query
/// attends to the cached keys 0..t, the bottom-right causal alignment), as generation does; the
/// same per-layer pieces as decoder_forward, so the result equals its logits to rounding.
/// tokens T' (1..context) → logits T'×V, row-major. Throws Error(invalid_field) for a length or a
/// token out of range, Error(shape_mismatch) when params do not fit the layout.
std::vector<double> decoder_incremental_logits(const DecoderConfig& cfg, const ParamLayout& layout,
                                               const std::vector<double>& params, const std::vector<int>& tokens);

/// Backward pass of the loss of the last decoder_forward: grads (layout order) += ∂loss/∂params.
void decoder_backward(const DecoderConfig& cfg, const ParamLayout& layout, const double* params,
                      const DecoderBatch& batch, const DecoderActivations& acts, double* grads);

}  // namespace attn::learn
