// json/ops.hpp — the op table of the JSON contract: op name → the fields it reads → its function.
//
// attn::run_case dispatches through op_table(); the unknown-field check of every request (its
// keys against "op" + OpSpec::fields, message "unknown field \"KEY\" in NAME case") and
// unknown_op's list of known ops are derived from the same table, so an op's fields are written
// once, next to its function.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json/fields.hpp"

namespace attn {

/// One op of the JSON contract.
struct OpSpec {
  const char* name;                  ///< the request's "op"
  std::vector<std::string> fields;   ///< every field it reads, besides "op"
  nlohmann::json (*run)(const Fields& request);
  /// true: the op checks its own fields because they depend on a value (model_gradients: the
  /// batch fields follow model.kind); `fields` is then its widest set, for documentation.
  bool checks_own_fields = false;
};

/// Every op, in the order unknown_op lists them: attention, self_attention, multi_head, the
/// lesson's ops (json_lesson_ops.hpp), the learning ops (learn_json.hpp), then, once
/// register_file_ops() has run, the model-file ops (model_json.hpp) and the tokenizer ops
/// (tokenize_json.hpp).
const std::vector<OpSpec>& op_table();

/// Appends `ops` to op_table() (an op already there by name is not added twice). Not thread-safe:
/// call it before any case runs.
void add_ops(const std::vector<OpSpec>& ops);

/// Adds the ops that read files a request names (model_info, model_logits, generate, tokenize,
/// detokenize) to op_table(). The attn tool and the tests call it (json/file_ops.cpp). The page,
/// which has no file system, does not, so its download carries none of their code (the GPT-2
/// reader, the float32 forward, the tokenizer and its Unicode tables) and answers them unknown_op.
void register_file_ops();
/// The ops of each part, in table order (json_case.cpp, json_lesson_ops.cpp, learn_json.cpp,
/// model_json.cpp, tokenize_json.cpp).
const std::vector<OpSpec>& core_ops();
const std::vector<OpSpec>& lesson_ops();
const std::vector<OpSpec>& learn_ops();
const std::vector<OpSpec>& model_file_ops();
const std::vector<OpSpec>& tokenize_ops();

/// "a, b, c": the names of `ops`, in order.
std::string op_names(const std::vector<OpSpec>& ops);

/// Runs `name` from `ops` on `request` (unknown-field check, then the op); nullopt when `ops` has
/// no such op. Throws attn::Error as the op does.
std::optional<nlohmann::json> run_op(const std::vector<OpSpec>& ops, const std::string& name,
                                     const nlohmann::json& request);

}  // namespace attn
