// json/fields.hpp — the one reader of JSON request fields, for every op of the JSON contract
// (json_case, json_lesson_ops, learn_json) and for the app's set()/URL parsing.
//
// One rule for absence: a field that is missing and a field whose value is `null` are the same
// thing (absent). An optional field that is absent takes its default; a required field that is
// absent throws Error(missing_field) "missing field \"PREFIX NAME\"".
//
// Messages name a field as PREFIX + NAME, where the prefix is the path of the object being read
// ("" for a request, "dropout." or "batches[3]." for a nested object), and unknown fields are
// reported with the object's description ("attention case", "mask", ...).
//
//   Fields f(request, "cost case");            // the object, its description for messages
//   f.check_known({"op", "t", "window"});      // invalid_field: unknown field "x" in cost case
//   long long t = f.integer("t", 1024, 1, 1 << 20);
//   Fields m = f.object("mask", "mask");       // nested: messages say mask.causal, ...
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/types.hpp"

namespace attn {

/// Typed, range-checked reads of one JSON object's fields. Holds a reference: the object must
/// outlive the reader. Every getter throws attn::Error; the codes are part of the JSON contract:
///   missing_field  a required field is absent (missing or null)
///   invalid_field  wrong JSON type, a value outside its range, an unknown field
///   non_finite     a number that is not finite (from the parser's out-of-range literals)
/// Arrays: a matrix is an array of rows of numbers (T×d, as attn::matrix_from_json), a vector a
/// flat array of numbers, flags a flat array of true/false.
class Fields {
 public:
  /// `obj` must be a JSON object (Error(invalid_field) "<where> must be an object" otherwise).
  /// `where` describes it in unknown-field messages; `prefix` is prepended to field names.
  Fields(const nlohmann::json& obj, std::string where, std::string prefix = "");

  /// The object read.
  const nlohmann::json& json() const { return obj_; }
  /// PREFIX + name, as messages spell the field.
  std::string name(const char* field) const { return prefix_ + field; }

  /// True when the field is present and not null.
  bool has(const char* field) const;
  /// The field's value; Error(missing_field) "missing field \"PREFIX NAME\"" when absent.
  const nlohmann::json& required(const char* field) const;
  /// The field's value, or nullptr when absent.
  const nlohmann::json* optional(const char* field) const;

  /// An integer in [lo, hi]; `fallback` when absent. Errors: invalid_field "NAME must be an
  /// integer" (not an integer: 1.5, "3", true) and "NAME must be between LO and HI, got V"
  /// (unsigned values past hi are reported as out of range, never wrapped).
  long long integer(const char* field, long long fallback, long long lo, long long hi) const;
  /// A required integer in [lo, hi] (missing_field when absent, then as integer()).
  long long required_integer(const char* field, long long lo, long long hi) const;
  /// A seed: any integer in 0..2^64−1; `fallback` when absent. Error: invalid_field
  /// "NAME must be an integer >= 0".
  std::uint64_t seed(const char* field, std::uint64_t fallback) const;
  /// A finite number; `fallback` when absent. Errors: invalid_field "NAME must be a number",
  /// non_finite "NAME must be finite".
  double number(const char* field, double fallback) const;
  /// true/false; `fallback` when absent. Error: invalid_field "NAME must be true or false".
  bool boolean(const char* field, bool fallback) const;
  /// A string; `fallback` when absent. Error: invalid_field "NAME must be a string".
  std::string text(const char* field, const std::string& fallback) const;

  /// Required T×d matrix (attn::matrix_from_json: missing_field, invalid_field, empty_sequence,
  /// shape_mismatch, too_large, non_finite).
  Matrix matrix(const char* field) const;
  /// Required vector of n >= 1 finite numbers (n <= kMaxWidth). Errors: missing_field,
  /// invalid_field "NAME must be an array of numbers" / "NAME[i] is V, not a number",
  /// empty_sequence, too_large, non_finite "NAME[i] is not finite".
  Vector vector(const char* field) const;
  /// Required flags (attn::bools_from_json: invalid_field).
  std::vector<bool> flags(const char* field) const;
  /// Optional flags: empty when absent.
  std::vector<bool> optional_flags(const char* field) const;
  /// Optional array of integers, each in [lo, hi]; `fallback` when absent. Errors: invalid_field
  /// "NAME must be an array of integers" / "NAME[i] must be an integer" /
  /// "NAME[i] must be between LO and HI".
  std::vector<long long> integers(const char* field, const std::vector<long long>& fallback, long long lo,
                                  long long hi) const;

  /// Required list of token ids, one sequence: 1 to 4096 integers, each in [0, 2^30] (the bounds
  /// keep the list's memory and an id's int small; the model then checks its own vocabulary and
  /// context). Errors: missing_field; invalid_field "NAME must be one sequence: a list of 1 to
  /// n_positions token ids" (not an array, empty, too long) and "NAME[i] must be a token id (an
  /// integer >= 0)".
  std::vector<int> token_ids(const char* field) const;

  /// A nested object read with the prefix PREFIX + NAME + "." (required: missing_field when
  /// absent; invalid_field "<where> must be an object" when it is not one).
  Fields object(const char* field, const std::string& where) const;

  /// The final check: every key of the object is in `known`. A key whose value is null is still
  /// a key: an unknown field is refused whatever its value. Error: invalid_field
  /// "unknown field \"KEY\" in <where>".
  void check_known(std::initializer_list<const char*> known) const;
  void check_known(const std::vector<std::string>& known) const;

 private:
  const nlohmann::json& obj_;
  std::string where_, prefix_;
};

}  // namespace attn
