// learn/checkpoint.hpp — a trained run stored as exact bits: a JSON header and named float64 arrays.
//
// Layout (all integers little-endian):
//   bytes 0..7    magic "ATTNCKPT"
//   bytes 8..11   format version (1)
//   bytes 12..15  header length H in bytes
//   H bytes       header, UTF-8 JSON: {"meta": {...}, "arrays": [{"name", "length"}, ...]}
//   then          each array in header order, length × 8 bytes, IEEE-754 binary64 little-endian
//   last 8 bytes  FNV-1a 64 of every byte before it
// Doubles are copied bit for bit, so a checkpoint read back on any platform gives the weights the
// trainer produced, not a decimal approximation of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {
using Json = nlohmann::json;  ///< the same alias as json/json_case.hpp (the header is JSON)
}  // namespace attn

namespace attn::learn {

struct Checkpoint {
  Json meta = Json::object();  ///< what produced the arrays (model, configuration, seed, steps)
  std::vector<std::pair<std::string, std::vector<double>>> arrays;

  /// The array called `name`. Throws Error(invalid_field) naming it when absent.
  const std::vector<double>& array(const std::string& name) const;
  void add(const std::string& name, std::vector<double> values) { arrays.emplace_back(name, std::move(values)); }
};

/// The bytes of a checkpoint (layout above). Throws Error(invalid_field) for an empty or repeated
/// array name.
std::string encode_checkpoint(const Checkpoint& ckpt);

/// Reads bytes written by encode_checkpoint. Throws Error(invalid_field) with what is wrong: wrong
/// magic or version, truncated data, a checksum mismatch (a damaged download), a malformed header.
Checkpoint decode_checkpoint(const std::uint8_t* data, std::size_t size);

/// FNV-1a 64 over the bits of a double array (identifies a parameter vector in state() and logs).
std::uint64_t fnv1a_doubles(const std::vector<double>& values);

/// 16 lowercase hex digits.
std::string hex64(std::uint64_t v);

/// hex64(fnv1a_doubles(params)): how state(), checkpoints and logs name a parameter vector.
std::string params_fnv1a(const std::vector<double>& params);
/// The same hash of float32 parameters, each widened to double (exact): a model read in float32
/// and the same file read in float64 have one hash.
std::string params_fnv1a(const std::vector<float>& params);

/// A run restored from a checkpoint must be finished (step == steps): Adam's moments are not
/// recorded, so it could not continue. Throws Error(invalid_field) giving both figures.
void require_finished_run(int step, int steps);

/// A parameter vector must fit its configuration's layout: throws Error(invalid_field) "`whose`
/// has N parameters; its configuration needs M" when got != need.
void require_param_count(const char* whose, std::size_t got, std::size_t need);

}  // namespace attn::learn
