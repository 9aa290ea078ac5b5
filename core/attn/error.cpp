#include "attn/error.hpp"

#include <string>

namespace attn {

const char* code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_json: return "invalid_json";
    case ErrorCode::unknown_op: return "unknown_op";
    case ErrorCode::missing_field: return "missing_field";
    case ErrorCode::invalid_field: return "invalid_field";
    case ErrorCode::empty_sequence: return "empty_sequence";
    case ErrorCode::shape_mismatch: return "shape_mismatch";
    case ErrorCode::non_finite: return "non_finite";
    case ErrorCode::no_allowed_key: return "no_allowed_key";
    case ErrorCode::causal_alignment_required: return "causal_alignment_required";
    case ErrorCode::invalid_scale: return "invalid_scale";
    case ErrorCode::invalid_mask: return "invalid_mask";
    case ErrorCode::too_large: return "too_large";
  }
  return "unknown";
}

void require_range(const char* name, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    throw Error(ErrorCode::invalid_field, std::string(name) + " must be between " + std::to_string(lo) + " and " +
                                              std::to_string(hi) + ", got " + std::to_string(v));
}

}  // namespace attn
