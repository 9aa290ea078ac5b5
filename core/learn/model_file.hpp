// learn/model_file.hpp — a model in a safetensors file: its kind and configuration read from the
// tensors' names and shapes (the state_dict names of decoder.hpp and seq2seq.hpp), its parameters
// in layout order.
//
// What the shapes cannot say comes from the file's "__metadata__" (string values) or from the
// caller's options of the same names, an option overriding the metadata:
//   kind       "decoder" | "seq2seq"  (default: decoder when embed.weight is present, seq2seq when
//              src_embed.weight is)
//   heads      decoder: attention heads per layer (required; the shapes hold d_model only)
//   positions  decoder: "learned" | "sinusoidal" | "rope" | "none" (default: learned when the file
//              has pos.weight; required otherwise)
//   context    decoder: the longest sequence (default: pos.weight's rows, else 1024, the most the
//              decoder takes: sinusoidal and RoPE positions are computed for any length)
//   attention  seq2seq: "additive" | "none" (default: additive when attn.w_s.weight is present)
//   encoder    seq2seq: "forward" | "bidirectional" (default: bidirectional when
//              encoder.weight_hh_l0_reverse is present, as nn.GRU(bidirectional=True) names it)
//   activation, layer_norm_eps, scale_attn_weights, scale_attn_by_inverse_layer_idx
//              decoder: GPT-2's options (decoder.hpp) when not the lab's defaults (model_safetensors
//              writes them); bias and tied_head show in the names (layers.0.attn.in_proj_bias;
//              no unembed.weight)
// Every other dimension is a tensor's: vocab and d_model from embed.weight, layers from the
// highest layers.N, mlp from layers.0.mlp.0.weight, layer_norm from ln_f.weight; src/tgt vocab and
// embed from src_embed/tgt_embed, hidden from encoder.weight_hh_l0, attn_dim from attn.w_s.weight.
// The file must then hold exactly the configuration's layout (decoder_layout / seq2seq_layout).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "learn/model.hpp"
#include "learn/safetensors.hpp"

namespace attn::learn {

/// The loader's options, each overriding the "__metadata__" key of the same name (see above).
struct ModelFileOptions {
  std::optional<std::string> kind, positions, attention, encoder;
  std::optional<int> heads, context;
  /// The text of a GPT-2-family file's config.json (gpt2_file.hpp); refused for the lab's layout.
  std::optional<std::string> config;
};

/// A model read from a file: the model, its parameters in layout order, and the file's header
/// (tensors in data order without their values, metadata).
template <class S>
struct ModelFileT {
  Model model;
  std::vector<S> params;
  Safetensors file;
  std::string layout = "lab";  ///< the names it was read under: "lab", "transformers" or "nanogpt"
};
using ModelFile = ModelFileT<double>;
/// A GPT-2-family model held in float32 (gpt2_file.hpp): the weights once, never a float64 copy.
using ModelFileF32 = ModelFileT<float>;

/// Parameters of a model read from a file: 2^22 = 4,194,304 (32 MiB of doubles), separate from
/// training's kMaxParams.
inline constexpr std::size_t kMaxFileParams = std::size_t{1} << 22;

/// Reads a model from safetensors bytes under the lab's names (the page's trained panels read their
/// files through it; load_any_model_file also takes the GPT-2 family). Throws the reader's errors
/// (safetensors.hpp), then:
///   missing_field   no embed.weight or src_embed.weight to tell the kind; a metadata value the
///                   shapes cannot supply (heads; positions without pos.weight); a tensor the
///                   configuration's layout needs, naming it and its shape;
///   invalid_field   a kind, positions, attention, heads or context value that is not one of
///                   its choices or not an integer; the configuration's validator refusing a
///                   dimension; a tensor the layout does not have, listing the names it expects;
///   shape_mismatch  a tensor whose shape differs from the layout's, naming both shapes;
///   too_large       beyond kMaxFileParams, giving the limit and the model's count;
///   invalid_field   a GPT-2-family file (is_gpt2_family), saying which reader takes it.
ModelFile load_model_file(const std::uint8_t* data, std::size_t size, const ModelFileOptions& options = {});

/// A tensor's torch shape in a layout: [cols] for a vector, [rows, cols] for a matrix.
std::vector<std::uint64_t> torch_shape(const ParamInfo& p);

/// The model's tensors (layout order, torch shapes, params' values) and `metadata`, ready for
/// write_safetensors. Throws Error(shape_mismatch) when params is not layout-sized.
Safetensors model_safetensors(const Model& model, const std::vector<double>& params,
                              std::map<std::string, std::string> metadata);

}  // namespace attn::learn
