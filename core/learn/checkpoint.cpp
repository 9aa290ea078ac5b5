#include "learn/checkpoint.hpp"

#include <cstring>
#include <set>
#include <string>

#include "attn/error.hpp"

namespace attn::learn {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'T', 'N', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kVersion = 1;

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, "checkpoint: " + msg); }

constexpr std::uint64_t kFnvOffset = 1469598103934665603ULL, kFnvPrime = 1099511628211ULL;

std::uint64_t fnv1a(const std::uint8_t* p, std::size_t n, std::uint64_t h = kFnvOffset) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kFnvPrime;
  return h;
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint32_t get_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

std::uint64_t bits_of(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

}  // namespace

const std::vector<double>& Checkpoint::array(const std::string& name) const {
  for (const auto& a : arrays)
    if (a.first == name) return a.second;
  bad("no array named '" + name + "'");
}

std::string encode_checkpoint(const Checkpoint& ckpt) {
  Json header = Json::object();
  header["meta"] = ckpt.meta;
  header["arrays"] = Json::array();
  std::set<std::string> names;
  for (const auto& a : ckpt.arrays) {
    if (a.first.empty()) bad("an array has an empty name");
    if (!names.insert(a.first).second) bad("array '" + a.first + "' appears twice");
    header["arrays"].push_back(Json{{"name", a.first}, {"length", a.second.size()}});
  }
  const std::string text = header.dump();
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kVersion);
  put_u32(out, static_cast<std::uint32_t>(text.size()));
  out += text;
  for (const auto& a : ckpt.arrays)
    for (double d : a.second) put_u64(out, bits_of(d));
  put_u64(out, fnv1a(reinterpret_cast<const std::uint8_t*>(out.data()), out.size()));
  return out;
}

Checkpoint decode_checkpoint(const std::uint8_t* data, std::size_t size) {
  if (!data || size < 24) bad("too short to be a checkpoint (" + std::to_string(size) + " bytes)");
  if (std::memcmp(data, kMagic, sizeof kMagic) != 0) bad("not a checkpoint (the first bytes are not ATTNCKPT)");
  const std::uint32_t version = get_u32(data + 8);
  if (version != kVersion) bad("format version " + std::to_string(version) + " is not 1");
  if (fnv1a(data, size - 8) != get_u64(data + size - 8))
    bad("checksum mismatch: the file is damaged or truncated (" + std::to_string(size) + " bytes)");
  const std::uint32_t hlen = get_u32(data + 12);
  if (16 + static_cast<std::size_t>(hlen) > size - 8) bad("the header runs past the end of the file");
  const std::string text(reinterpret_cast<const char*>(data + 16), hlen);
  const Json header = Json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("arrays") || !header["arrays"].is_array())
    bad("the header is not a JSON object with an \"arrays\" list");
  Checkpoint out;
  out.meta = header.contains("meta") ? header["meta"] : Json::object();
  std::size_t at = 16 + hlen;
  const std::size_t end = size - 8;
  for (const Json& a : header["arrays"]) {
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !a.contains("length") ||
        !a["length"].is_number_unsigned())
      bad("an array entry needs a \"name\" string and a \"length\" >= 0");
    const std::string name = a["name"].get<std::string>();
    const std::uint64_t n = a["length"].get<std::uint64_t>();
    if (n > (end - at) / 8) bad("array '" + name + "' runs past the end of the file");
    std::vector<double> values(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < values.size(); ++i, at += 8) {
      const std::uint64_t u = get_u64(data + at);
      std::memcpy(&values[i], &u, sizeof u);
    }
    out.arrays.emplace_back(name, std::move(values));
  }
  if (at != end) bad(std::to_string(end - at) + " bytes after the last array");
  return out;
}

void require_finished_run(int step, int steps) {
  if (step != steps)
    throw Error(ErrorCode::invalid_field, "a restored run must be finished: step " + std::to_string(step) + " of " +
                                              std::to_string(steps) +
                                              " (Adam's moments are not recorded, so it could not continue)");
}

void require_param_count(const char* whose, std::size_t got, std::size_t need) {
  if (got != need)
    throw Error(ErrorCode::invalid_field, std::string(whose) + " has " + std::to_string(got) +
                                              " parameters; its configuration needs " + std::to_string(need));
}

std::uint64_t fnv1a_doubles(const std::vector<double>& values) {
  std::uint64_t h = kFnvOffset;
  for (double d : values) {
    std::uint8_t b[8];
    const std::uint64_t u = bits_of(d);
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>((u >> (8 * i)) & 0xff);
    h = fnv1a(b, 8, h);
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 0xf];
  return s;
}

std::string params_fnv1a(const std::vector<double>& params) { return hex64(fnv1a_doubles(params)); }

std::string params_fnv1a(const std::vector<float>& params) {
  std::uint64_t h = kFnvOffset;
  for (float f : params) {
    std::uint8_t b[8];
    const std::uint64_t u = bits_of(static_cast<double>(f));
    for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>((u >> (8 * i)) & 0xff);
    h = fnv1a(b, 8, h);
  }
  return hex64(h);
}

}  // namespace attn::learn
