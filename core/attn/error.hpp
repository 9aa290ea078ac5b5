// attn/error.hpp — the one exception type of the core.
//
// Every failure at the API edge throws attn::Error with a stable code (the
// strings below are part of the JSON contract and never change) and a message
// that names the offending shape, row, position or value.
#pragma once

#include <stdexcept>
#include <string>

namespace attn {

enum class ErrorCode {
  invalid_json,               ///< input is not parseable JSON / not an object
  unknown_op,                 ///< "op" names no operation
  missing_field,              ///< a required field is absent
  invalid_field,              ///< a field has the wrong type or a value out of range
  empty_sequence,             ///< T = 0 or d = 0 (as the lesson's reference rejects)
  shape_mismatch,             ///< matrix shapes do not fit together
  non_finite,                 ///< NaN or infinity in an input or an intermediate score
  no_allowed_key,             ///< a query row has no allowed key (empty_rows = error)
  causal_alignment_required,  ///< causal = true with Tq != Tk: say top_left or bottom_right
  invalid_scale,              ///< scale not finite or not > 0
  invalid_mask,               ///< mask part malformed (negative window, ...)
  too_large,                  ///< sizes beyond the documented limits
};

/// Stable snake_case name of a code, e.g. "shape_mismatch".
const char* code_name(ErrorCode code) noexcept;

/// The core's exception: a stable code plus a human message.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }
  const char* code_name() const noexcept { return attn::code_name(code_); }

 private:
  ErrorCode code_;
};

/// Throws Error(invalid_field) "NAME must be between LO and HI, got V" unless lo <= v <= hi
/// (an integer field of an experiment's input: sizes, counts, indices).
void require_range(const char* name, long long v, long long lo, long long hi);

}  // namespace attn
