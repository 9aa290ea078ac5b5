// learn/decoder.hpp — a small decoder-only transformer, forward and backward.
//
// {"kind":"decoder","vocab":V,"context":T,"d_model":d,"heads":h,"layers":L,"mlp":m,
//  "positions":"learned"|"sinusoidal"|"rope"|"none","layer_norm":false,
//  "bias":false,"activation":"relu"|"gelu"|"gelu_new","layer_norm_eps":1e-5,"tied_head":false,
//  "scale_attn_weights":true,"scale_attn_by_inverse_layer_idx":false}
// The options after layer_norm are GPT-2's (transformers' GPT2Config, nanoGPT's GPTConfig): one
// decoder family, as GPT2Config is one class with options; their defaults are the lab's own models.
// Parameters, named and laid out as PyTorch's state_dict (weights out × in, as torch stores them):
//   embed.weight V×d; pos.weight T×d (learned positions only);
//   per layer l: layers.l.attn.in_proj_weight 3d×d (rows q, then k, then v) and
//   layers.l.attn.out_proj.weight d×d (nn.MultiheadAttention(d, h, bias=False));
//   if m > 0: layers.l.mlp.0.weight m×d, .0.bias m, layers.l.mlp.2.weight d×m, .2.bias d;
//   with layer_norm: layers.l.ln1.{weight,bias}, layers.l.ln2.{weight,bias} (only with an MLP, which it
//   feeds), ln_f.{weight,bias} (d each);
//   unembed.weight V×d (no bias), absent with tied_head (the head reads embed.weight).
//   With bias: layers.l.attn.in_proj_bias 3d and layers.l.attn.out_proj.bias d (GPT-2's c_attn and
//   attn.c_proj biases; the MLP's biases are always there, zero where a file has none).
// Forward on B sequences of T' ≤ T tokens: x = embed[tokens] + pos[0..T'−1] (learned) or + the
// sinusoidal table (attn::sinusoidal_positions); per layer x += attn(x) with a causal mask, then
// x += mlp(x) (Linear, activation, Linear) when m > 0; logits = x·unembedᵀ. Pre-norm with layer_norm:
// x += attn(ln1(x)); x += mlp(ln2(x)); logits = ln_f(x)·unembedᵀ. Heads split d into d_k = d/h
// columns (head i: columns i·d_k…), scale 1/sqrt(d_k) (Vaswani et al. 2017, §3.2), or 1 without
// scale_attn_weights, times 1/(l + 1) in layer l with scale_attn_by_inverse_layer_idx (GPT-2's options).
// Activations: ReLU; GELU x·Φ(x) (Hendrycks & Gimpel 2016, erf form, torch's nn.GELU()); gelu_new,
// its tanh approximation 0.5x(1 + tanh(sqrt(2/π)(x + 0.044715x³))) (GPT-2's, transformers' default). RoPE rotates each
// head's q and k (as attn::apply_rope does, on d_k features) and never v.
// Loss: softmax cross-entropy over the targets, −100 ignored, averaged over the counted ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/linalg.hpp"
#include "attn/random.hpp"
#include "learn/layers.hpp"
#include "learn/params.hpp"

namespace attn::learn {

enum class DecoderPositions { learned, sinusoidal, rope, none };
/// "learned" / "sinusoidal" / "rope" / "none".
const char* decoder_positions_name(DecoderPositions p);

/// The MLP's nonlinearity (GPT-2's activation_function).
enum class Activation { relu, gelu, gelu_new };
/// "relu" / "gelu" / "gelu_new".
const char* activation_name(Activation a);
/// The activation named s ("relu", "gelu", "gelu_new"; "gelu_pytorch_tanh" is gelu_new's formula).
/// Throws Error(invalid_field) naming `field` and the choices.
Activation activation_of(const std::string& s, const std::string& field);

struct DecoderConfig {
  int vocab = 16, context = 32, d_model = 32, heads = 4, layers = 2, mlp = 0;
  DecoderPositions positions = DecoderPositions::learned;
  bool layer_norm = false;
  bool bias = false;                              ///< q/k/v and output projection biases
  Activation activation = Activation::relu;
  double layer_norm_eps = 1e-5;                   ///< LayerNorm's ε (variance + ε under the root)
  bool tied_head = false;                         ///< logits = x·embed.weightᵀ (no unembed.weight)
  bool scale_attn_weights = true;                 ///< scores ÷ sqrt(d_k)
  bool scale_attn_by_inverse_layer_idx = false;   ///< scores of layer l also ÷ (l + 1)
};

/// Limits of a configuration: the lab's own models (training, the small model files) or the GPT-2
/// family read from a file (up to GPT-2 medium: 355 M parameters).
struct DecoderLimits {
  int vocab = 4096, context = 1024, d_model = 512, heads = 64, layers = 8, mlp = 2048;
  /// A batch's bound on each of B·heads·T'² (saved weights) and B·T'·max(3·d_model, mlp, vocab).
  long batch_numbers = 1L << 22;
};
/// The GPT-2 family's bounds, up to GPT-2 medium: vocab 65,536, n_positions 1,024, n_embd 1,024,
/// heads 64, 24 layers, MLP 4·n_embd; a batch up to 2^26 numbers per buffer, so that one sequence of
/// 1,024 tokens runs with GPT-2's 50,257-token vocabulary.
inline constexpr DecoderLimits kGpt2FamilyLimits{65536, 1024, 1024, 64, 24, 4096, 1L << 26};

/// The attention scores' scale in layer l: 1/sqrt(d_k) (or 1 without scale_attn_weights), times
/// 1/(l + 1) with scale_attn_by_inverse_layer_idx (transformers' GPT2Attention._attn).
double decoder_attention_scale(const DecoderConfig& cfg, int layer);

/// B sequences of T' tokens, row-major B×T'; targets kIgnoreIndex (−100) are not counted.
struct DecoderBatch {
  int batch = 0, t = 0;
  std::vector<int> tokens, targets;
};

/// What the forward saves for the backward (and what a panel reads: weights per layer), in the
/// model's element type S (double; float for a full-size model held in float32).
template <class S>
struct DecoderActivationsT {
  int batch = 0, t = 0;
  struct Layer {
    std::vector<S> x_in;                 ///< B·T'×d, the residual stream entering the layer
    std::vector<S> ln1, ln1_mean, ln1_rstd;
    std::vector<S> qkv;                  ///< B·T'×3d, q and k after RoPE
    std::vector<S> weights;              ///< B×h×T'×T' attention weights
    std::vector<S> heads_out;            ///< B·T'×d, the heads concatenated (before out_proj)
    std::vector<S> x_mid;                ///< B·T'×d, after the attention residual
    std::vector<S> ln2, ln2_mean, ln2_rstd;
    std::vector<S> mlp_pre, mlp_act;     ///< B·T'×m
  };
  std::vector<Layer> layers;
  std::vector<S> x_final, lnf, lnf_mean, lnf_rstd;  ///< B·T'×d
  std::vector<S> logits, probs;                     ///< B·T'×V
  double loss = 0.0;
  int counted = 0;
};
using DecoderActivations = DecoderActivationsT<double>;

/// The decoder's parameter layout (state_dict order) with each tensor's PyTorch 1.13 default law:
/// Embedding N(0, 1); in_proj_weight xavier_uniform U(±sqrt(6/(d + 3d))); Linear weight and bias
/// U(±1/sqrt(fan_in)) (out_proj, mlp, unembed); LayerNorm weight 1, bias 0.
ParamLayout decoder_layout(const DecoderConfig& cfg);

/// "layers.<layer>.<rest>": the state_dict name of one decoder layer's parameter, e.g.
/// decoder_param_name(0, "attn.in_proj_weight") (the layers are an nn.ModuleList named "layers").
std::string decoder_param_name(int layer, const char* rest);

/// Checks a configuration: vocab 1..4096, context 1..1024, d_model 1..512, heads 1..64 dividing
/// d_model, layers 0..8, mlp 0..2048 (or `limits`), layer_norm_eps finite and in (0, 1]. Throws
/// Error(invalid_field) naming the field.
void validate_decoder_config(const DecoderConfig& cfg, const DecoderLimits& limits = {});

/// Checks a batch against cfg: B 1..512, 1 <= T' <= context, B·T' <= 65536, tokens in [0, V),
/// targets in [0, V) or −100, at least one counted target, buffers within limits.batch_numbers.
/// Throws Error(invalid_field / shape_mismatch / too_large) naming the position.
void validate_decoder_batch(const DecoderConfig& cfg, const DecoderBatch& batch, const DecoderLimits& limits = {});

/// Checks one sequence for a forward, as a request that gives it as one flat list names it: 1 to
/// context ids, each in [0, V), within limits as a batch of one. The batch {1, T', tokens, targets =
/// tokens} then passes validate_decoder_batch, so a caller checks once. Throws Error(empty_sequence)
/// for no token, Error(invalid_field) past the context or for "tokens[i] = ID" outside the
/// vocabulary, Error(too_large) past limits.batch_numbers.
void validate_decoder_sequence(const DecoderConfig& cfg, const std::vector<int>& tokens, const DecoderLimits& limits = {});

/// An intervention on head outputs (before out_proj), for ablation and activation patching
/// (forward only). mode[l·heads + h] says what head h of layer l passes on:
///   keep  — its own output;
///   zero  — zeros (zero ablation);
///   mean_of_batch — means[l·heads + h] (d_k numbers) at every position (mean ablation);
///   patch — the same head's output in `source` (a forward of another batch of the same shape).
template <class S>
struct HeadInterventionT {
  enum Mode { keep, zero, mean_of_batch, patch };
  std::vector<Mode> mode;
  std::vector<std::vector<S>> means;  ///< per head, d_k numbers (mean_of_batch)
  const DecoderActivationsT<S>* source = nullptr;
};
using HeadIntervention = HeadInterventionT<double>;

/// T itself, in a parameter that must not take part in deducing T (an intervention given as nullptr).
template <class T>
struct NonDeduced {
  using type = T;
};

/// Forward pass; returns the mean loss (also in acts.loss). params in decoder_layout(cfg) order, of
/// element type S: double (every model; the float64 path of the checks) or float (a full-size model
/// held in float32, layers.hpp's float overloads: the same function in one template).
/// With an intervention, acts.layers[l].heads_out holds what the heads passed on (after it).
/// Throws Error(shape_mismatch) when the intervention does not fit the model or the batch.
template <class S>
double decoder_forward(const DecoderConfig& cfg, const ParamLayout& layout, const S* params,
                       const DecoderBatch& batch, DecoderActivationsT<S>& acts,
                       const typename NonDeduced<HeadInterventionT<S>>::type* intervention = nullptr);

/// Logits of one sequence computed position by position with a growing K/V cache (each new query
/// attends to the cached keys 0..t, the bottom-right causal alignment), as generation does; the
/// same per-layer pieces as decoder_forward, so the result equals its logits to rounding.
/// tokens T' (1..context) → logits T'×V, row-major. Throws Error(invalid_field) for a length or a
/// token out of range, Error(shape_mismatch) when params do not fit the layout. S: double or float.
template <class S>
std::vector<S> decoder_incremental_logits(const DecoderConfig& cfg, const ParamLayout& layout,
                                          const std::vector<S>& params, const std::vector<int>& tokens);

/// K/V-cache decoding, one token at a time: step(token) runs the new position through every layer
/// (its query over the cached keys 0..t, the bottom-right causal alignment), appends its keys and
/// values to the cache and returns its V logits. The same per-layer pieces as decoder_forward, so
/// each row equals the full forward's to rounding. Holds references: cfg, layout and params must
/// outlive it. Throws Error(shape_mismatch) when params do not fit the layout; step throws
/// Error(invalid_field) for a token out of the vocabulary or a position past the context.
template <class S>
class DecoderCacheT {
 public:
  DecoderCacheT(const DecoderConfig& cfg, const ParamLayout& layout, const std::vector<S>& params);
  std::vector<S> step(int token);
  int length() const { return length_; }

 private:
  const DecoderConfig& c_;
  const ParamLayout& layout_;
  const std::vector<S>& params_;
  Matrix pe_;
  RopeTable rope_;
  std::vector<std::vector<S>> kcache_, vcache_;  ///< per layer, t×d (heads side by side)
  int length_ = 0;
};
using DecoderCache = DecoderCacheT<double>;

/// The next token from one position's V logits: temperature 0 is greedy (the first maximum, ties to
/// the lowest id, as torch.argmax); τ > 0 draws from softmax(logits/τ) by the inverse CDF of one
/// uniform draw of rng.
template <class S>
int next_token(const std::vector<S>& logits, double temperature, Rng* rng);

/// Generation: the prompt (1.. tokens) through a DecoderCache, then `steps` tokens, each from the last
/// position's logits (next_token) and fed back. Returns the new tokens. Seeded: the same seed gives
/// the same tokens natively and in wasm. A `stop_token` >= 0 ends generation once drawn (it is the
/// last token returned), as "<|endoftext|>" ends a GPT-2 text. Throws Error(empty_sequence) for an empty prompt,
/// Error(invalid_field) when prompt + steps pass the context, for a token out of the vocabulary or a
/// temperature that is negative or not finite.
template <class S>
std::vector<int> decoder_generate(const DecoderConfig& cfg, const ParamLayout& layout, const std::vector<S>& params,
                                  const std::vector<int>& prompt, int steps, double temperature = 0.0,
                                  std::uint64_t seed = 0, int stop_token = -1);

/// Backward pass of the loss of the last decoder_forward: grads (layout order) += ∂loss/∂params.
void decoder_backward(const DecoderConfig& cfg, const ParamLayout& layout, const double* params,
                      const DecoderBatch& batch, const DecoderActivations& acts, double* grads);

}  // namespace attn::learn
