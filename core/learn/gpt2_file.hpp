// learn/gpt2_file.hpp — GPT-2-family files as the ecosystem writes them, read into the lab's decoder.
//
// Two layouts (safetensors, F64/F32/F16/BF16 parameters):
//   transformers  GPT2LMHeadModel: "transformer." before every name but lm_head, or the original
//                 upload's names without it; Conv1D weights stored [in, out] (y = x·W + b); c_attn's
//                 3C output columns are q | k | v, head h at columns h·d_k… within each; the
//                 buffers h.N.attn.bias (causal mask [1, 1, P, P], any dtype) and
//                 h.N.attn.masked_bias (a scalar) are checked for shape and skipped; lm_head.weight
//                 is used when present, else the head is tied to wte.
//   nanogpt       karpathy/nanoGPT's GPT: transformer.wte / wpe / h.N / ln_f, nn.Linear weights
//                 [out, in], lm_head.weight stored (the tied pair may keep only it), optional biases
//                 (bias=False drops them from the LayerNorms too), exact GELU.
// Told apart by shapes: c_attn.weight [C, 3C] is transformers', [3C, C] nanoGPT's.
//
// They become the lab's decoder (decoder.hpp) with GPT-2's options: learned positions (context =
// wpe's rows), pre-norm LayerNorm, an MLP of n_inner (4·C) units, bias when c_attn has one (a
// missing LayerNorm or MLP bias becomes zeros, which is the same function), the activation, the
// LayerNorm ε and the scaling options of config.json, a tied head when lm_head.weight is absent or
// holds wte's values bit for bit. Parameters are transposed into the lab's [out, in] rows.
//
// config.json (transformers' GPT2Config), optional: n_embd, n_head, n_layer, n_positions,
// vocab_size, n_inner, activation_function (default "gelu_new"; nanoGPT's files default to
// "gelu"), layer_norm_epsilon (1e-5), scale_attn_weights (true), scale_attn_by_inverse_layer_idx
// (false), tie_word_embeddings (true). Unknown keys are ignored; a known key of the wrong type is
// refused. Heads: config.json's n_head, else the request's heads, else __metadata__ "heads", else
// C / 64 when 64 divides C (GPT-2's head width).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "learn/model_file.hpp"

namespace attn::learn {

/// True when the header's names are the GPT-2 family's: wte.weight or lm_head.weight, with or
/// without the "transformer." prefix, beside h.N.… blocks or wpe.weight.
bool is_gpt2_family(const Safetensors& header);

/// Reads `length` bytes of a file at `offset` into dst (a file read tensor by tensor, never whole).
/// Throws attn::Error when it cannot.
using ByteRange = std::function<void(std::uint64_t offset, std::size_t length, std::uint8_t* dst)>;

/// A safetensors file's header (tensors without their values, metadata) read through `read`: the
/// 8-byte length, then the header's bytes, at most kMaxSafetensorsHeader. Throws the header
/// reader's errors (safetensors.hpp) and the reader's; Error(invalid_field) for a file under 8 bytes.
Safetensors read_safetensors_header_range(std::uint64_t file_size, const ByteRange& read);

/// True when a file read through `read` names a GPT-2-family model (is_gpt2_family of its header);
/// false when its header is malformed (the full reader reports that) or the reader throws attn::Error.
bool is_gpt2_family_range(std::uint64_t file_size, const ByteRange& read);

/// A GPT-2-family file of file_size bytes read through `read`: the header first, then each tensor
/// in chunks of at most 4 MiB, converted into the model's parameters in S (double, or float:
/// F32/F16/BF16 exactly, F64 rounded), so that the weights are held once. The result's `layout` is
/// "transformers" or "nanogpt". Throws the reader's errors, the header reader's (safetensors.hpp),
/// and attn::Error naming the tensor, field or value:
///   invalid_json    options.config is not JSON;
///   invalid_field   a config key of the wrong type or value (an activation it does not know,
///                   n_head not dividing n_embd), a request's heads that contradicts config.json,
///                   a tensor no layout has, a parameter of an integer dtype, limits (DecoderLimits
///                   kGpt2FamilyLimits) exceeded;
///   missing_field   a tensor the layout needs, or heads that nothing gives;
///   shape_mismatch  a tensor (buffers included) whose shape differs from the one the others and
///                   config.json imply, naming both;
///   non_finite      a NaN or infinite parameter (naming the tensor and element).
template <class S>
ModelFileT<S> read_gpt2_family(std::uint64_t file_size, const ByteRange& read, const ModelFileOptions& options);

/// True when the first bytes of a file (at least its header; see read_safetensors_header_of) name
/// a GPT-2-family model. Malformed headers give false (the full reader reports them).
bool is_gpt2_family_file(const std::uint8_t* prefix, std::size_t prefix_size, std::uint64_t file_size);


/// A model from safetensors bytes of either kind: a GPT-2-family file (load_gpt2_family, float64)
/// or one under the lab's names (load_model_file). Throws as they do.
ModelFile load_any_model_file(const std::uint8_t* data, std::size_t size, const ModelFileOptions& options = {});

/// A decoder in transformers' GPT2LMHeadModel layout: `safetensors` holds F32 tensors under the
/// "transformer." names (Conv1D weights [in, out], c_attn's columns q | k | v, lm_head.weight
/// written too, since a tied module's state_dict lists both names; zero biases when the decoder has
/// none, which is the same function), and `config` its config.json (model_type gpt2, n_embd, n_head,
/// n_layer, n_positions, n_ctx, vocab_size, n_inner, activation_function, layer_norm_epsilon,
/// scale_attn_weights, scale_attn_by_inverse_layer_idx, tie_word_embeddings). A torch module with
/// transformers' names loads it with strict=True. Throws Error(invalid_field) naming the option
/// when the decoder does not fit GPT-2's layout (positions other than learned, no LayerNorm, no
/// MLP), Error(non_finite) for a parameter beyond float's range.
/// The tensors of transformers_export (values in double; write_safetensors picks the dtype) with
/// __metadata__ {"format": "pt"}. lm_head.weight is written when `lm_head` or when the head is not
/// tied; without it the file is the original GPT-2 upload's kind (the head reads wte). Throws as
/// transformers_export.
Safetensors transformers_tensors(const Model& model, const std::vector<double>& params, bool lm_head);

/// transformers_export's config.json text for a decoder configuration (keys as listed there).
std::string transformers_config(const DecoderConfig& c);

struct TransformersExport {
  std::string safetensors, config;
};
TransformersExport transformers_export(const Model& model, const std::vector<double>& params);

}  // namespace attn::learn
