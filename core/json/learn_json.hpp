// json/learn_json.hpp — the learning ops of the JSON contract (README "Learning ops").
//
//   attention_backward : the attention op's fields + grad_output Tq×d_v
//                        → output, weights, grad_query, grad_key, grad_value
//   model_gradients    : model, params, one batch → loss, grads (same names and shapes as params)
//   train_steps        : model, params, batches [...], optimizer {name "adam", lr, betas, eps,
//                        weight_decay}, clip → losses, params
//   init_params        : model, seed → params (PyTorch 1.13's default laws, the core's sampler)
// Named tensors are objects keyed by state_dict name; a weight is an array of rows (out × in, as
// torch stores it), a 1-D tensor a flat array. null in an optional field means absent.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "learn/model.hpp"

namespace attn::learn {

using Json = nlohmann::json;

/// Runs `op` if it is a learning op (nullopt otherwise). Throws attn::Error on bad input.
std::optional<Json> run_learn_op(const std::string& op, const Json& request);
/// "attention_backward, model_gradients, train_steps, init_params".
const char* learn_op_names();

/// The "model" object → a validated Model. Throws Error(missing_field / invalid_field).
Model model_from_json(const Json& j);
/// {"name": tensor} in the model's layout: every name required, none unknown, shapes exact, finite.
std::vector<double> params_from_json(const Model& model, const Json& j, const std::string& field = "params");
Json params_to_json(const Model& model, const std::vector<double>& values);
/// The batch fields of a request (tokens/targets, or source/source_lengths/target_in/target_out),
/// validated against the model. `where` prefixes messages (e.g. "batches[3].").
Batch batch_from_json(const Model& model, const Json& j, const std::string& where = "");

}  // namespace attn::learn
