// web/panels/patch.hpp — readers of set() patches and pieces of state() shared by the panels.
// A malformed patch throws PatchError, which apply_json reports as invalid_field with its message.
// Not attn::Fields: in a patch `null` is refused rather than read as absent (JSON.stringify turns a
// NaN a script meant to set into null, and dropping it would hide the bad input).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lessons/random_heads.hpp"
#include "lessons/alignment.hpp"
#include "lessons/permutation.hpp"
#include "lessons/check.hpp"
#include "json/json_case.hpp"
#include "json/lesson_json.hpp"
#include "attn/linalg.hpp"
#include "attn/error.hpp"
#include "widgets/error_info.hpp"

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

// --- the lesson-claim panels' readers (their messages as the page has always given them) --------

/// A malformed patch: PatchError(message).
[[noreturn]] inline void refuse(const std::string& message) { throw PatchError{message}; }

/// An integral number in [lo, hi] ("KEY must be an integer between LO and HI").
inline int get_int(const attn::Json& j, const char* key, int lo, int hi) { return get_number<int>(j, key, lo, hi); }

/// Any number; finiteness is the core's business (its setters report non_finite in the panel).
inline double get_double(const attn::Json& j, const char* key) {
  if (!j.is_number()) refuse(std::string(key) + " must be a number");
  return j.get<double>();
}

/// An array of numbers, each as get_double.
inline std::vector<double> get_numbers(const attn::Json& j, const char* key) {
  if (!j.is_array()) refuse(std::string(key) + " must be an array of numbers");
  std::vector<double> out;
  for (const attn::Json& x : j) out.push_back(get_double(x, key));
  return out;
}

/// A seed as get_seed, its range spelled "0 and 2^53" (the lesson panels' message).
inline std::uint64_t get_lesson_seed(const attn::Json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (!j.is_number() || j.get<double>() < 0 || j.get<double>() > 9007199254740992.0 ||
      j.get<double>() != std::floor(j.get<double>()))
    refuse("seed must be an integer between 0 and 2^53");
  return static_cast<std::uint64_t>(j.get<double>());
}

/// The fields the sentence panels' inputs share (sentence, seed, d_model; RandomHeadsInput,
/// PositionSymmetryInput): `k`'s value read into `in` (a sentence also into the field's text
/// `sentence_text`). False for any other key, which the caller reads.
template <class In>
bool read_sentence_field(const std::string& k, const attn::Json& v, In& in, std::string& sentence_text) {
  if (k == "sentence") {
    in.sentence = get_string(v, "sentence");
    sentence_text = in.sentence;
  } else if (k == "seed") {
    in.seed = get_seed(v);
  } else if (k == "d_model") {
    in.d_model = get_number<int>(v, "d_model", -1000000, 1000000);
  } else {
    return false;
  }
  return true;
}

/// f(key, value) for each field of a patch, in the patch's order.
template <typename F>
void each(const attn::Json& patch, F&& f) {
  for (auto it = patch.begin(); it != patch.end(); ++it) f(it.key(), *it);
}

/// The checks of several results, in order, as one JSON array.
inline attn::Json all_checks(std::initializer_list<const std::vector<attn::Check>*> lists) {
  attn::Json out = attn::Json::array();
  for (const auto* l : lists)
    for (const attn::Check& c : *l) out.push_back(attn::to_json(c));
  return out;
}

/// Token ids as typed ("3 4 5"; spaces, commas, tabs and newlines between), for panels whose model
/// reads ids: each a whole number of at most as many digits as `max_id`, at most `max_count` of
/// them; `what` names the field. Throws attn::Error(invalid_field) naming the first item that is not
/// such an id, or the count. Ids past a model's vocabulary are the model's check, not this one.
inline std::vector<int> parse_token_ids(const std::string& text, const char* what, int max_id, std::size_t max_count) {
  const auto refuse_ids = [&](const std::string& why) { throw attn::Error(attn::ErrorCode::invalid_field, std::string(what) + ": " + why); };
  const auto gap = [](char c) { return c == ' ' || c == ',' || c == '\t' || c == '\n'; };
  const std::size_t digits = std::to_string(max_id).size();
  std::vector<int> ids;
  std::size_t i = 0;
  while (i < text.size()) {
    if (gap(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    std::size_t end = j;
    while (end < text.size() && !gap(text[end])) ++end;
    if (j == i || end != j || j - i > digits)
      refuse_ids("\"" + text.substr(i, end - i) + "\" is not a token id (ids are whole numbers 0.." + std::to_string(max_id) + ")");
    ids.push_back(std::stoi(text.substr(i, j - i)));
    if (ids.size() > max_count) refuse_ids("at most " + std::to_string(max_count) + " ids");
    i = end;
  }
  return ids;
}

/// A 0/1 copy of a bool matrix, for the heatmap widget.
inline attn::Matrix bool_to_matrix(const attn::BoolMatrix& b) { return b.cast<double>(); }

}  // namespace app
