// json/model_json.hpp — the model-file ops of the JSON contract (README "Model files").
//
//   model_info   : model (a safetensors path), heads, positions, context, attention, kind
//                  → kind, config, tensors [{name, dtype, shape}], params, params_fnv1a, metadata
//   model_logits : the same fields + tokens B×T (decoder), or source (B token lists, each its own
//                  length) and target_in B×U (seq2seq, teacher forced)
//                  → logits B×T×V and weights L×B×h×T×T (decoder); logits B×U×Vt and, with
//                  additive attention, alignment B×U×S_b (seq2seq)
// The file is read through the installed case-file reader (json/case_files.hpp); heads,
// positions, context, attention and kind override the file's __metadata__ (learn/model_file.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include "learn/model.hpp"

namespace attn {

/// The "model" object that learn::model_from_json reads back into the same configuration:
/// {"kind":"decoder","vocab",...} or {"kind":"seq2seq","src_vocab",...}.
nlohmann::json model_config_json(const learn::Model& model);

}  // namespace attn
