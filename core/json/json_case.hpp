// json/json_case.hpp — the JSON case contract shared by the `attn` tool and the page.
//
// One JSON object in, one out (README "JSON contract"):
//   {"op":"attention", "query":Tq×d_k, "key":Tk×d_k, "value":Tk×d_v, "mask":M, "scale":s,
//    "empty_rows":"error"|"zero"} → {"output", "weights", "scores" (null where not allowed)}
//   {"op":"self_attention", "x", "w_q", "w_k", "w_v", mask, scale, empty_rows}
//       → the above plus "query", "key", "value"
//   {"op":"multi_head", "heads", "x" | ("x_query","x_key_value"), "w_q","w_k","w_v","w_o"?, ...}
//       → {"output", "concat", "weights": h×Tq×Tk}
//   M = {"causal": false|true|"top_left"|"bottom_right", "key_valid":[bool×Tk],
//        "allowed": Tq×Tk bools, "half_width": w}   (|i − j| <= w; "window" is its former spelling)
// On bad input: {"error":{"code":"...","message":"..."}}.
// Fields are read with attn::Fields (json/fields.hpp): null in a field means absent. Ops are
// dispatched through the op table (json/ops.hpp).
// Matrices are arrays of rows. Numbers are written with 17 significant digits
// (the shortest form that round-trips), so they read back exactly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "attn/error.hpp"
#include "lessons/alignment.hpp"
#include "lessons/permutation.hpp"
#include "lessons/random_heads.hpp"
#include "attn/heads.hpp"

namespace attn {

using Json = nlohmann::json;

/// Run one case object. Throws attn::Error (never another exception type) on bad input.
Json run_case(const Json& request);

/// Parse `text` and run it; never throws: errors come back as {"error":{code,message}}.
/// `ok` (if given) is set to whether the result is a success.
Json run_case_text(const std::string& text, bool* ok = nullptr);

/// {"error":{"code":...,"message":...}}
Json error_json(const Error& e);

/// Serialise a result to a JSON string; doubles round-trip exactly.
std::string dump(const Json& j);

// Matrix ⇄ JSON (arrays of rows).
Json to_json(const Matrix& m);
/// Scores with null where `allowed` is false.
Json scores_to_json(const Matrix& scores, const BoolMatrix& allowed);
/// Throws Error(invalid_field / missing_field / shape_mismatch (ragged rows) / non_finite / too_large),
/// naming `field`.
Matrix matrix_from_json(const Json& j, const std::string& field);

// Parsers of the contract's shared parts, for every op (json_lesson_ops.cpp too).
/// An array of booleans. Throws Error(invalid_field) naming `field`.
std::vector<bool> bools_from_json(const Json& j, const std::string& field);
/// The "mask" object (null → no mask). Throws invalid_field, shape_mismatch, invalid_mask.
MaskSpec mask_from_json(const Json& j);
/// "scale" and "empty_rows" of a request. Throws invalid_field, invalid_scale.
AttentionOptions options_from_json(const Json& request);

// Plain structs of the experiments, for the page's state() and for tests. Matrices become arrays
// of rows, vectors flat arrays; none of these throws.
/// {"claim", "measured", "limit", "expect": "at_most"|"above", "pass"}.
Json to_json(const Check& c);
Json to_json(const std::vector<Check>& checks);
Json to_json(const AttentionResult& r);
Json to_json(const AlignmentRead& r);
Json to_json(const RandomHeadsResult& r);
Json to_json(const PermutationResult& r);

}  // namespace attn
