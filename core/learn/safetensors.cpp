#include "learn/safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "attn/error.hpp"

namespace attn::learn {
namespace {

using Json = nlohmann::json;

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, "safetensors: " + msg); }

std::string range(std::uint64_t a, std::uint64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

std::uint64_t le_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool dtype_of(const std::string& s, SafeDtype& d, bool any_dtype) {
  for (SafeDtype c : {SafeDtype::F64, SafeDtype::F32, SafeDtype::F16, SafeDtype::BF16, SafeDtype::BOOL, SafeDtype::U8,
                      SafeDtype::I8, SafeDtype::I16, SafeDtype::U16, SafeDtype::I32, SafeDtype::U32, SafeDtype::I64,
                      SafeDtype::U64, SafeDtype::F8_E4M3, SafeDtype::F8_E5M2})
    if (s == safe_dtype_name(c) && (any_dtype || safe_dtype_is_float(c))) {
      d = c;
      return true;
    }
  return false;
}

/// Parses the header, remembering the first key repeated within one object (nlohmann-json keeps one
/// of two equal keys silently; a file whose readers disagree on a tensor must be refused).
Json parse_header(const char* begin, const char* end) {
  std::vector<std::set<std::string>> keys;  // one per open object; arrays push nothing
  std::vector<bool> is_object;
  std::string repeated;
  auto cb = [&](int, Json::parse_event_t ev, Json& parsed) {
    switch (ev) {
      case Json::parse_event_t::object_start: is_object.push_back(true); keys.emplace_back(); break;
      case Json::parse_event_t::array_start: is_object.push_back(false); break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!is_object.empty()) {
          if (is_object.back()) keys.pop_back();
          is_object.pop_back();
        }
        break;
      case Json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && repeated.empty())
          repeated = parsed.get<std::string>();
        break;
      case Json::parse_event_t::value: break;
    }
    return true;
  };
  Json j = Json::parse(begin, end, cb, false);
  if (j.is_discarded() || !j.is_object()) fail(ErrorCode::invalid_json, "the header is not one JSON object");
  if (!repeated.empty()) fail(ErrorCode::invalid_field, "the header repeats the name \"" + repeated + "\"");
  return j;
}

std::uint64_t offset_of(const Json& v, const std::string& name) {
  if (!v.is_number_unsigned()) fail(ErrorCode::invalid_field, "tensor \"" + name + "\": data_offsets must be two integers >= 0");
  return v.get<std::uint64_t>();
}

SafeTensor tensor_entry(const std::string& name, const Json& e, bool any_dtype) {
  const std::string where = "tensor \"" + name + "\"";
  if (!e.is_object()) fail(ErrorCode::invalid_field, where + " must be an object {dtype, shape, data_offsets}");
  for (auto it = e.begin(); it != e.end(); ++it)
    if (it.key() != "dtype" && it.key() != "shape" && it.key() != "data_offsets")
      fail(ErrorCode::invalid_field, where + " has an unknown field \"" + it.key() + "\" (dtype, shape, data_offsets)");
  SafeTensor t;
  t.name = name;
  const auto dt = e.find("dtype");
  if (dt == e.end() || !dt->is_string()) fail(ErrorCode::invalid_field, where + ": dtype must be a string");
  if (!dtype_of(dt->get<std::string>(), t.dtype, any_dtype))
    fail(ErrorCode::invalid_field, where + " has dtype \"" + dt->get<std::string>() + "\"; the core reads F64, F32, F16, BF16");
  const auto sh = e.find("shape");
  if (sh == e.end() || !sh->is_array()) fail(ErrorCode::invalid_field, where + ": shape must be an array of integers >= 0");
  for (const Json& d : *sh) {
    if (!d.is_number_unsigned()) fail(ErrorCode::invalid_field, where + ": shape must be an array of integers >= 0");
    t.shape.push_back(d.get<std::uint64_t>());
  }
  const auto off = e.find("data_offsets");
  if (off == e.end() || !off->is_array() || off->size() != 2)
    fail(ErrorCode::invalid_field, where + ": data_offsets must be [begin, end]");
  t.begin = offset_of((*off)[0], name);
  t.end = offset_of((*off)[1], name);
  if (t.begin > t.end) fail(ErrorCode::invalid_field, where + " has begin > end: data_offsets " + range(t.begin, t.end));
  // dtype size × product(shape), refusing a product that overflows 64 bits
  std::uint64_t bytes = safe_dtype_size(t.dtype);
  bool overflow = false;
  for (std::uint64_t d : t.shape) {
    if (d != 0 && bytes > std::numeric_limits<std::uint64_t>::max() / d) overflow = true;
    bytes = overflow ? 0 : bytes * d;
  }
  if (overflow || bytes != t.end - t.begin)
    fail(ErrorCode::shape_mismatch, where + ": " + safe_dtype_name(t.dtype) + " " + shape_text(t.shape) + " needs " +
                                        (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
                                        " bytes, data_offsets " + range(t.begin, t.end) + " hold " +
                                        std::to_string(t.end - t.begin));
  return t;
}

}  // namespace

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const char* safe_dtype_name(SafeDtype d) {
  switch (d) {
    case SafeDtype::F64: return "F64";
    case SafeDtype::F32: return "F32";
    case SafeDtype::F16: return "F16";
    case SafeDtype::BF16: return "BF16";
    case SafeDtype::BOOL: return "BOOL";
    case SafeDtype::U8: return "U8";
    case SafeDtype::I8: return "I8";
    case SafeDtype::I16: return "I16";
    case SafeDtype::U16: return "U16";
    case SafeDtype::I32: return "I32";
    case SafeDtype::U32: return "U32";
    case SafeDtype::I64: return "I64";
    case SafeDtype::U64: return "U64";
    case SafeDtype::F8_E4M3: return "F8_E4M3";
    case SafeDtype::F8_E5M2: return "F8_E5M2";
  }
  return "?";
}

std::size_t safe_dtype_size(SafeDtype d) {
  switch (d) {
    case SafeDtype::F64: return 8;
    case SafeDtype::F32: return 4;
    case SafeDtype::F16:
    case SafeDtype::BF16:
    case SafeDtype::I16:
    case SafeDtype::U16: return 2;
    case SafeDtype::BOOL:
    case SafeDtype::U8:
    case SafeDtype::I8:
    case SafeDtype::F8_E4M3:
    case SafeDtype::F8_E5M2: return 1;
    case SafeDtype::I32:
    case SafeDtype::U32: return 4;
    case SafeDtype::I64:
    case SafeDtype::U64: return 8;
  }
  return 0;
}

bool safe_dtype_is_float(SafeDtype d) {
  return d == SafeDtype::F64 || d == SafeDtype::F32 || d == SafeDtype::F16 || d == SafeDtype::BF16;
}

std::uint64_t SafeTensor::elements() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;  // checked against the byte range when read
  return n;
}

double half_to_double(std::uint16_t bits) {
  const int sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
  double v;
  if (exponent == 0) v = std::ldexp(static_cast<double>(fraction), -24);  // zero, subnormal
  else if (exponent == 31) v = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else v = std::ldexp(static_cast<double>(fraction | 0x400), exponent - 25);  // 1.f × 2^(e−15)
  return sign ? -v : v;
}

std::optional<std::uint16_t> double_to_half(double x) {
  if (!std::isfinite(x)) return std::nullopt;
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a < 0x1p-14) {  // zero or subnormal: a multiple of 2^−24 (1024 · 2^−24 is the smallest normal, 0x400)
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(a * 0x1p24)));
  }
  int e = 0;
  std::frexp(a, &e);                                 // a in [2^(e−1), 2^e)
  double m = std::nearbyint(std::ldexp(a, 11 - e));  // 11 significant bits: 1024..2048
  int exponent = e - 1;
  if (m == 2048.0) {
    m = 1024.0;
    ++exponent;
  }
  if (exponent > 15) return std::nullopt;
  return static_cast<std::uint16_t>(sign | ((exponent + 15) << 10) | (static_cast<int>(m) - 1024));
}

double bfloat16_to_double(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return static_cast<double>(f);
}

Safetensors read_safetensors_header(const std::uint8_t* data, std::size_t size, bool any_dtype) {
  return read_safetensors_header_of(data, size, size, any_dtype);
}

Safetensors read_safetensors_header_of(const std::uint8_t* data, std::size_t prefix_size, std::uint64_t size,
                                       bool any_dtype) {
  if (size < 8) fail(ErrorCode::invalid_field, "the file has " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  const std::uint64_t n = le_u64(data);
  if (n > kMaxSafetensorsHeader)
    fail(ErrorCode::too_large, "the header length is " + std::to_string(n) + " bytes; at most " +
                                   std::to_string(kMaxSafetensorsHeader) + " (100 MB)");
  if (n > size - 8)
    fail(ErrorCode::invalid_field, "the header length " + std::to_string(n) + " runs beyond the file: bytes " +
                                       range(8, 8 + n) + " of a " + std::to_string(size) + "-byte file");
  if (prefix_size < 8 + n)
    fail(ErrorCode::invalid_field, "only bytes " + range(0, prefix_size) + " of the header " + range(8, 8 + n) + " were read");
  const char* h = reinterpret_cast<const char*>(data + 8);
  if (n == 0 || h[0] != '{') fail(ErrorCode::invalid_json, "the header (bytes " + range(8, 8 + n) + ") does not start with '{'");
  const Json j = parse_header(h, h + n);
  Safetensors out;
  out.data_start = 8 + n;
  const std::uint64_t data_size = size - out.data_start;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) fail(ErrorCode::invalid_field, "__metadata__ must be an object of strings");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) fail(ErrorCode::invalid_field, "__metadata__.\"" + m.key() + "\" is " + m->dump() + ", not a string");
        out.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    out.tensors.push_back(tensor_entry(it.key(), *it, any_dtype));
  }
  std::stable_sort(out.tensors.begin(), out.tensors.end(), [](const SafeTensor& a, const SafeTensor& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t at = 0;
  const SafeTensor* prev = nullptr;
  for (const SafeTensor& t : out.tensors) {
    if (t.end > data_size)
      fail(ErrorCode::invalid_field, "tensor \"" + t.name + "\": data_offsets " + range(t.begin, t.end) +
                                         " run beyond the data buffer of " + std::to_string(data_size) + " bytes");
    if (t.begin < at)
      fail(ErrorCode::invalid_field, "tensor \"" + t.name + "\" (bytes " + range(t.begin, t.end) + ") overlaps \"" +
                                         prev->name + "\" (bytes " + range(prev->begin, prev->end) + ")");
    if (t.begin > at)
      fail(ErrorCode::invalid_field, "bytes " + range(at, t.begin) + " of the data belong to no tensor (before \"" + t.name + "\")");
    at = t.end;
    prev = &t;
  }
  if (at != data_size)
    fail(ErrorCode::invalid_field, "bytes " + range(at, data_size) + " of the data (" + std::to_string(data_size) +
                                       " bytes) belong to no tensor");
  return out;
}

namespace {

template <class S>
void decode_into(const std::uint8_t* p, SafeDtype d, std::size_t n, S* out, const std::string& name, std::uint64_t first) {
  if (!safe_dtype_is_float(d))
    fail(ErrorCode::invalid_field, "tensor \"" + name + "\" has dtype \"" + safe_dtype_name(d) +
                                       "\"; the core reads F64, F32, F16, BF16");
  const std::size_t width = safe_dtype_size(d);
  for (std::size_t i = 0; i < n; ++i, p += width) {
    std::uint64_t u = 0;
    for (std::size_t b = width; b-- > 0;) u = (u << 8) | p[b];
    double v = 0.0;
    switch (d) {
      case SafeDtype::F64: std::memcpy(&v, &u, 8); break;
      case SafeDtype::F32: {
        const std::uint32_t u32 = static_cast<std::uint32_t>(u);
        float f;
        std::memcpy(&f, &u32, 4);
        v = f;
        break;
      }
      case SafeDtype::F16: v = half_to_double(static_cast<std::uint16_t>(u)); break;
      case SafeDtype::BF16: v = bfloat16_to_double(static_cast<std::uint16_t>(u)); break;
      default: break;  // refused above
    }
    const S x = static_cast<S>(v);
    if (!std::isfinite(x))
      fail(ErrorCode::non_finite, "tensor \"" + name + "\" element " + std::to_string(first + i) + " is " +
                                      (std::isnan(v) ? "NaN" : std::isfinite(v) ? "beyond float's range" : "infinite"));
    out[i] = x;
  }
}

}  // namespace

void decode_elements(const std::uint8_t* p, SafeDtype d, std::size_t n, double* out, const std::string& name,
                     std::uint64_t first) {
  decode_into(p, d, n, out, name, first);
}
void decode_elements(const std::uint8_t* p, SafeDtype d, std::size_t n, float* out, const std::string& name,
                     std::uint64_t first) {
  decode_into(p, d, n, out, name, first);
}

std::vector<double> read_tensor_values(const std::uint8_t* data, std::size_t size, const Safetensors& file,
                                       const SafeTensor& t) {
  if (file.data_start > size || t.end > size - file.data_start || t.begin > t.end)
    fail(ErrorCode::invalid_field, "tensor \"" + t.name + "\": bytes " + range(t.begin, t.end) + " are not in the file");
  const std::size_t width = safe_dtype_size(t.dtype);
  std::vector<double> v(width ? static_cast<std::size_t>((t.end - t.begin) / width) : 0);
  decode_elements(data + file.data_start + t.begin, t.dtype, v.size(), v.data(), t.name);
  return v;
}

Safetensors read_safetensors(const std::uint8_t* data, std::size_t size) {
  Safetensors file = read_safetensors_header(data, size);
  for (SafeTensor& t : file.tensors) t.values = read_tensor_values(data, size, file, t);
  return file;
}

std::string write_safetensors(const Safetensors& file, SafeDtype dtype) {
  if (dtype != SafeDtype::F64 && dtype != SafeDtype::F32 && dtype != SafeDtype::F16)
    fail(ErrorCode::invalid_field, std::string("the core writes F64, F32 or F16, not ") + safe_dtype_name(dtype));
  Json header = Json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::string body;
  const std::size_t width = safe_dtype_size(dtype);
  for (const SafeTensor& t : file.tensors) {
    if (t.name == "__metadata__" || header.contains(t.name))
      fail(ErrorCode::invalid_field, "tensor name \"" + t.name + "\" is reserved or repeated");
    if (t.elements() != t.values.size())
      fail(ErrorCode::invalid_field, "tensor \"" + t.name + "\" has " + std::to_string(t.values.size()) +
                                         " values for shape " + shape_text(t.shape));
    const std::uint64_t begin = body.size();
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      const double x = t.values[i];
      const float f = static_cast<float>(x);  // round to nearest, ties to even
      const std::optional<std::uint16_t> h = dtype == SafeDtype::F16 ? double_to_half(x) : std::nullopt;
      if (!std::isfinite(x) || (dtype == SafeDtype::F32 && !std::isfinite(f)) || (dtype == SafeDtype::F16 && !h))
        fail(ErrorCode::non_finite, "tensor \"" + t.name + "\" element " + std::to_string(i) + " is " +
                                        (std::isfinite(x) ? std::string("beyond the ") + safe_dtype_name(dtype) + " range"
                                                          : std::string("not finite")));
      std::uint64_t u = 0;
      if (dtype == SafeDtype::F64) {
        std::memcpy(&u, &x, 8);
      } else if (dtype == SafeDtype::F16) {
        u = *h;
      } else {
        std::uint32_t u32;
        std::memcpy(&u32, &f, 4);
        u = u32;
      }
      put_le(body, u, static_cast<int>(width));
    }
    header[t.name] = Json{{"dtype", safe_dtype_name(dtype)}, {"shape", t.shape}, {"data_offsets", {begin, body.size()}}};
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const Json::exception&) {
    fail(ErrorCode::invalid_field, "a tensor name or metadata string is not valid UTF-8");
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + text.size() + body.size());
  put_le(out, text.size(), 8);
  return out + text + body;
}

}  // namespace attn::learn
