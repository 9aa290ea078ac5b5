// lessons/model_export.hpp — a shipped checkpoint's model as a safetensors file, so that PyTorch
// (load_state_dict(strict=True)) and the lab's loader (learn/model_file.hpp) read the same bytes.
#pragma once

#include <string>

#include <vector>

#include "learn/checkpoint.hpp"
#include "lessons/learned_heads/format.hpp"
#include "lessons/translate/format.hpp"

namespace attn::lessons {

/// A decoder of a Learned heads run as safetensors bytes (F64, layout order): `model` the trained
/// configuration, `params` its parameters after `step` steps of `cfg`'s run. "__metadata__": kind
/// "decoder", heads, positions, context, seed, steps, config (heads_config_json), params_fnv1a.
/// The page's Export and `attn export` both write through it. Throws Error(shape_mismatch) when
/// params is not the layout's size.
std::string heads_model_safetensors(const HeadsTrainingConfig& cfg, const learn::DecoderConfig& model, int step,
                                    const std::vector<double>& params);

/// One of a Translate run's two models (`attention`: the additive one) as safetensors bytes, with
/// "__metadata__" kind "seq2seq", attention, seed, steps, config (translate_config_json),
/// params_fnv1a. Throws Error(shape_mismatch) when params is not the layout's size.
std::string translate_model_safetensors(const TranslateConfig& cfg, bool attention, int step,
                                        const std::vector<double>& params);

/// A seq2seq model as it came (no run behind it, e.g. one read from a file over other
/// vocabularies): F64 safetensors with metadata kind, attention and params_fnv1a. Throws
/// Error(shape_mismatch) when params is not the model's layout size.
std::string seq2seq_model_safetensors(const learn::Seq2SeqConfig& model, const std::vector<double>& params);

/// The safetensors bytes (learn::write_safetensors, F64, tensors in layout order) of one model of a
/// checkpoint: the Learned heads run (checkpoints/learned_heads.ckpt, a decoder; `which` must be
/// empty) or one of the Translate pair (checkpoints/translate.ckpt; `which` "none" for the fixed
/// summary, "additive" or empty for the attention model). "__metadata__": kind, seed, steps,
/// params_fnv1a (learn::fnv1a_doubles of the parameters, hex64), config (the run's configuration,
/// compact JSON), and heads, positions, context (decoder) or attention (seq2seq) — what the loader
/// cannot read from the shapes. Throws the checkpoint readers' Error(invalid_field) (another task,
/// a hash mismatch), and Error(invalid_field) for a `which` the checkpoint does not hold.
std::string checkpoint_to_safetensors(const learn::Checkpoint& ckpt, const std::string& which = "");

}  // namespace attn::lessons
