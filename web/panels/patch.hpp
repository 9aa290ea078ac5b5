// web/panels/patch.hpp — readers of set() patches and pieces of state() shared by the Alignment,
// Random-init heads and Permutation panels (moved from app_state.cpp, unchanged). A malformed patch
// throws PatchError, which apply_json reports as invalid_field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lessons/random_heads.hpp"
#include "lessons/alignment.hpp"
#include "lessons/permutation.hpp"
#include "lessons/check.hpp"
#include "json/json_case.hpp"
#include "attn/linalg.hpp"
#include "error_info.hpp"

namespace app {

inline ErrorInfo invalid(std::string message) { return ErrorInfo{"invalid_field", std::move(message)}; }

// Row sums of `w`, summed by the core in index order (w · 1), so the page shows the
// core's numbers rather than its own arithmetic.
inline std::vector<double> row_sums(const attn::Matrix& w) {
  const attn::Matrix sums = attn::matmul(w, attn::Matrix::Ones(w.cols(), 1), "weights·1");
  std::vector<double> out(static_cast<size_t>(sums.rows()));
  for (attn::Index i = 0; i < sums.rows(); ++i) out[static_cast<size_t>(i)] = sums(i, 0);
  return out;
}

inline attn::Json error_value(const std::optional<ErrorInfo>& e) {
  if (!e) return nullptr;
  return attn::Json{{"code", e->code}, {"message", e->message}};
}

inline const char* positions_name(attn::PositionKind p) {
  return p == attn::PositionKind::sinusoidal ? "sinusoidal" : (p == attn::PositionKind::rope ? "rope" : "none");
}

inline attn::Json vector_json(const std::vector<double>& v) { return attn::Json(v); }

// Thrown by the patch readers below for a malformed patch (not a core error).
struct PatchError {
  std::string message;
};

template <typename T>
inline T get_number(const attn::Json& j, const char* key, T lo, T hi) {
  if (!j.is_number()) throw PatchError{std::string(key) + " must be a number"};
  const double d = j.get<double>();
  if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || d != static_cast<double>(static_cast<long long>(d)))
    throw PatchError{std::string(key) + " must be an integer between " + std::to_string(lo) + " and " +
                     std::to_string(hi)};
  return static_cast<T>(d);
}

inline bool get_bool(const attn::Json& j, const char* key) {
  if (!j.is_boolean()) throw PatchError{std::string(key) + " must be true or false"};
  return j.get<bool>();
}

inline std::string get_string(const attn::Json& j, const char* key) {
  if (!j.is_string()) throw PatchError{std::string(key) + " must be a string"};
  return j.get<std::string>();
}

inline attn::PositionKind get_positions(const attn::Json& j) {
  if (j.is_boolean()) return j.get<bool>() ? attn::PositionKind::sinusoidal : attn::PositionKind::none;
  if (j.is_string() && j == "sinusoidal") return attn::PositionKind::sinusoidal;
  if (j.is_string() && j == "none") return attn::PositionKind::none;
  if (j.is_string() && j == "rope") return attn::PositionKind::rope;
  throw PatchError{"positions must be true, false, \"none\", \"sinusoidal\" or \"rope\""};
}

// Seeds go through JSON as numbers; beyond 2^53 a double cannot carry them exactly.
inline std::uint64_t get_seed(const attn::Json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  return get_number<std::uint64_t>(j, "seed", 0, (1ULL << 53));
}

}  // namespace app
