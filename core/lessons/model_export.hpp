// lessons/model_export.hpp — a shipped checkpoint's model as a safetensors file, so that PyTorch
// (load_state_dict(strict=True)) and the lab's loader (learn/model_file.hpp) read the same bytes.
#pragma once

#include <string>

#include "learn/checkpoint.hpp"

namespace attn::lessons {

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
