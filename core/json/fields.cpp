#include "json/fields.hpp"

#include <algorithm>
#include <cmath>

#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "json/json_case.hpp"

namespace attn {
namespace {
[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }
}  // namespace

Fields::Fields(const nlohmann::json& obj, std::string where, std::string prefix)
    : obj_(obj), where_(std::move(where)), prefix_(std::move(prefix)) {
  if (!obj_.is_object()) fail(ErrorCode::invalid_field, where_ + " must be an object");
}

bool Fields::has(const char* field) const {
  auto it = obj_.find(field);
  return it != obj_.end() && !it->is_null();
}

const nlohmann::json* Fields::optional(const char* field) const {
  auto it = obj_.find(field);
  return it == obj_.end() || it->is_null() ? nullptr : &*it;
}

const nlohmann::json& Fields::required(const char* field) const {
  const nlohmann::json* j = optional(field);
  if (!j) fail(ErrorCode::missing_field, "missing field \"" + name(field) + "\"");
  return *j;
}

long long Fields::integer(const char* field, long long fallback, long long lo, long long hi) const {
  const nlohmann::json* p = optional(field);
  if (!p) return fallback;
  const nlohmann::json& j = *p;
  if (!j.is_number_integer()) fail(ErrorCode::invalid_field, name(field) + " must be an integer");
  const long long v = j.is_number_unsigned() && j.get<unsigned long long>() > static_cast<unsigned long long>(hi)
                          ? hi + 1
                          : j.get<long long>();
  if (v < lo || v > hi)
    fail(ErrorCode::invalid_field, name(field) + " must be between " + std::to_string(lo) + " and " +
                                       std::to_string(hi) + ", got " + j.dump());
  return v;
}

long long Fields::required_integer(const char* field, long long lo, long long hi) const {
  required(field);
  return integer(field, 0, lo, hi);
}

std::uint64_t Fields::seed(const char* field, std::uint64_t fallback) const {
  const nlohmann::json* p = optional(field);
  if (!p) return fallback;
  const nlohmann::json& j = *p;
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<long long>() >= 0) return static_cast<std::uint64_t>(j.get<long long>());
  fail(ErrorCode::invalid_field, name(field) + " must be an integer >= 0");
}

double Fields::number(const char* field, double fallback) const {
  const nlohmann::json* p = optional(field);
  if (!p) return fallback;
  if (!p->is_number()) fail(ErrorCode::invalid_field, name(field) + " must be a number");
  const double v = p->get<double>();
  if (!std::isfinite(v)) fail(ErrorCode::non_finite, name(field) + " must be finite");
  return v;
}

bool Fields::boolean(const char* field, bool fallback) const {
  const nlohmann::json* p = optional(field);
  if (!p) return fallback;
  if (!p->is_boolean()) fail(ErrorCode::invalid_field, name(field) + " must be true or false");
  return p->get<bool>();
}

std::string Fields::text(const char* field, const std::string& fallback) const {
  const nlohmann::json* p = optional(field);
  if (!p) return fallback;
  if (!p->is_string()) fail(ErrorCode::invalid_field, name(field) + " must be a string");
  return p->get<std::string>();
}

Matrix Fields::matrix(const char* field) const { return matrix_from_json(required(field), name(field)); }

Vector Fields::vector(const char* field) const {
  const nlohmann::json& j = required(field);
  const std::string n = name(field);
  if (!j.is_array()) fail(ErrorCode::invalid_field, n + " must be an array of numbers");
  if (j.empty()) fail(ErrorCode::empty_sequence, n + " is empty");
  if (static_cast<Index>(j.size()) > kMaxWidth)
    fail(ErrorCode::too_large, n + " has " + std::to_string(j.size()) + " entries; the limit is " +
                                   std::to_string(kMaxWidth));
  Vector v(static_cast<Index>(j.size()));
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number())
      fail(ErrorCode::invalid_field, n + "[" + std::to_string(i) + "] is " + j[i].dump() + ", not a number");
    v(static_cast<Index>(i)) = j[i].get<double>();
    if (!std::isfinite(v(static_cast<Index>(i))))
      fail(ErrorCode::non_finite, n + "[" + std::to_string(i) + "] is not finite");
  }
  return v;
}

std::vector<bool> Fields::flags(const char* field) const { return bools_from_json(required(field), name(field)); }

std::vector<bool> Fields::optional_flags(const char* field) const {
  return has(field) ? flags(field) : std::vector<bool>{};
}

std::vector<long long> Fields::integers(const char* field, const std::vector<long long>& fallback, long long lo,
                                        long long hi) const {
  const nlohmann::json* p = optional(field);
  if (!p) return fallback;
  const std::string n = name(field);
  if (!p->is_array()) fail(ErrorCode::invalid_field, n + " must be an array of integers");
  std::vector<long long> out;
  for (size_t i = 0; i < p->size(); ++i) {
    const nlohmann::json& e = (*p)[i];
    const std::string at = n + "[" + std::to_string(i) + "]";
    if (!e.is_number_integer()) fail(ErrorCode::invalid_field, at + " must be an integer");
    const long long v = e.is_number_unsigned() && e.get<unsigned long long>() > static_cast<unsigned long long>(hi)
                            ? hi + 1
                            : e.get<long long>();
    if (v < lo || v > hi)
      fail(ErrorCode::invalid_field, at + " must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    out.push_back(v);
  }
  return out;
}

std::vector<int> Fields::token_ids(const char* field) const {
  const nlohmann::json& j = required(field);
  const std::string n = name(field);
  if (!j.is_array() || j.empty() || j.size() > 4096)
    fail(ErrorCode::invalid_field, n + " must be one sequence: a list of 1 to n_positions token ids");
  std::vector<int> ids;
  ids.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& e = j[i];
    // An unsigned value past 2^63 reads back negative here, and is refused with the rest.
    if (!e.is_number_integer() || e.get<long long>() < 0 || e.get<long long>() > (1LL << 30))
      fail(ErrorCode::invalid_field, n + "[" + std::to_string(i) + "] must be a token id (an integer >= 0)");
    ids.push_back(static_cast<int>(e.get<long long>()));
  }
  return ids;
}

Fields Fields::object(const char* field, const std::string& where) const {
  return Fields(required(field), where, name(field) + ".");
}

void Fields::check_known(std::initializer_list<const char*> known) const {
  for (auto it = obj_.begin(); it != obj_.end(); ++it)
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return it.key() == k; }))
      fail(ErrorCode::invalid_field, "unknown field \"" + it.key() + "\" in " + where_);
}

void Fields::check_known(const std::vector<std::string>& known) const {
  for (auto it = obj_.begin(); it != obj_.end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end())
      fail(ErrorCode::invalid_field, "unknown field \"" + it.key() + "\" in " + where_);
}

}  // namespace attn
