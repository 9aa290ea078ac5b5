// The safetensors reader and writer (core/learn/safetensors.hpp): element decodes checked on
// bit patterns whose values are worked out by hand from the IEEE-754 layouts, the writer's exact
// bytes, and every refusal on a hand-built hostile file.
#include <learn/safetensors.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "support/support.hpp"

namespace {

using attn::ErrorCode;
using attn::learn::SafeDtype;
using attn::learn::Safetensors;
using attn::learn::SafeTensor;

std::string le(std::uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

/// 8-byte length, the header text as given, then the data.
std::string file_of(const std::string& header, const std::string& data = "") {
  return le(header.size(), 8) + header + data;
}

Safetensors read(const std::string& bytes) {
  return attn::learn::read_safetensors(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

double f64_of(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

}  // namespace

TEST_CASE("safetensors: F16 decodes exactly, subnormals and extremes included", "[learn][safetensors]") {
  using attn::learn::half_to_double;
  CHECK(half_to_double(0x3C00) == 1.0);                            // exponent 15 = bias, fraction 0
  CHECK(half_to_double(0xC000) == -2.0);                           // sign, exponent 16
  CHECK(half_to_double(0x0001) == std::ldexp(1.0, -24));           // smallest subnormal: 2^-14 · 2^-10
  CHECK(half_to_double(0x03FF) == std::ldexp(1023.0, -24));        // largest subnormal
  CHECK(half_to_double(0x0400) == std::ldexp(1.0, -14));           // smallest normal
  CHECK(half_to_double(0x7BFF) == 65504.0);                        // largest: (2 − 2^-10) · 2^15
  CHECK(half_to_double(0x3555) == 1365.0 / 4096.0);                // (1 + 341/1024) · 2^-2
  CHECK(half_to_double(0x0000) == 0.0);
  CHECK(std::signbit(half_to_double(0x8000)));                     // −0 keeps its sign
  CHECK(std::isinf(half_to_double(0x7C00)));
  CHECK(std::isnan(half_to_double(0x7E00)));
}

TEST_CASE("safetensors: BF16 and F32 decode exactly", "[learn][safetensors]") {
  using attn::learn::bfloat16_to_double;
  CHECK(bfloat16_to_double(0x3F80) == 1.0);                        // exponent 127, fraction 0
  CHECK(bfloat16_to_double(0xC0A0) == -5.0);                       // −(1 + 32/128) · 2^2
  CHECK(bfloat16_to_double(0x3EAB) == 171.0 / 512.0);              // (1 + 43/128) · 2^-2
  CHECK(bfloat16_to_double(0x0001) == std::ldexp(1.0, -133));      // subnormal: 2^16 · 2^-149
  CHECK(bfloat16_to_double(0x7F7F) == std::ldexp(255.0, 120));     // largest: (2 − 2^-7) · 2^127
  // F32 through a file: 0x3DCCCCCD is the float nearest 0.1, (2^23 + 0x4CCCCD) · 2^-27.
  const std::string data = le(0x3DCCCCCDu, 4) + le(0x00000001u, 4) + le(0x7F7FFFFFu, 4) + le(0xBF800000u, 4);
  const Safetensors f = read(file_of(R"({"x":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", data));
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.tensors[0].values == std::vector<double>{std::ldexp(13421773.0, -27), std::ldexp(1.0, -149),
                                                   std::ldexp(16777215.0, 104), -1.0});
  // F16 and BF16 tensors in one file, little-endian.
  const Safetensors g = read(file_of(
      R"({"b":{"dtype":"BF16","shape":[1],"data_offsets":[2,4]},"h":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})",
      le(0x0001, 2) + le(0x3F80, 2)));
  REQUIRE(g.tensors.size() == 2);
  CHECK(g.tensors[0].name == "h");  // data order
  CHECK(g.tensors[0].values[0] == std::ldexp(1.0, -24));
  CHECK(g.tensors[1].values[0] == 1.0);
}

TEST_CASE("safetensors: the writer's bytes are the format's, padded to 8, in the given order", "[learn][safetensors]") {
  Safetensors f;
  f.metadata = {{"kind", "decoder"}};
  SafeTensor z{"z", SafeDtype::F64, {2}, 0, 0, {1.0, -2.0}};
  SafeTensor a{"a", SafeDtype::F64, {}, 0, 0, {0.5}};
  f.tensors = {z, a};
  const std::string bytes = attn::learn::write_safetensors(f);
  const std::string json = R"({"__metadata__":{"kind":"decoder"},"a":{"data_offsets":[16,24],"dtype":"F64","shape":[]},)"
                           R"("z":{"data_offsets":[0,16],"dtype":"F64","shape":[2]}})";
  const std::size_t n = (json.size() + 7) / 8 * 8;
  REQUIRE(bytes.size() == 8 + n + 24);
  CHECK(bytes.substr(0, 8) == le(n, 8));
  CHECK(bytes.substr(8, n) == json + std::string(n - json.size(), ' '));
  // 1.0 = 0x3FF0000000000000, −2.0 = 0xC000000000000000, 0.5 = 0x3FE0000000000000
  CHECK(bytes.substr(8 + n) == le(0x3FF0000000000000u, 8) + le(0xC000000000000000u, 8) + le(0x3FE0000000000000u, 8));
  const Safetensors back = read(bytes);
  CHECK(back.metadata == f.metadata);
  REQUIRE(back.tensors.size() == 2);
  CHECK(back.tensors[0].name == "z");
  CHECK(back.tensors[0].values == z.values);
  CHECK(back.tensors[1].shape.empty());
  CHECK(attn::learn::write_safetensors(back) == bytes);  // deterministic
}

TEST_CASE("safetensors: F32 writing rounds to nearest, ties to even", "[learn][safetensors]") {
  Safetensors f;
  // 0.1 → 13421773 · 2^-27; 1 + 2^-24 lies halfway between 1 and 1 + 2^-23 → 1 (even);
  // 1 + 3 · 2^-24 halfway between 1 + 2^-23 and 1 + 2^-22 → 1 + 2^-22 (even fraction).
  f.tensors = {SafeTensor{"w", SafeDtype::F64, {3}, 0, 0, {0.1, 1.0 + std::ldexp(1.0, -24), 1.0 + std::ldexp(3.0, -24)}}};
  const Safetensors back = read(attn::learn::write_safetensors(f, SafeDtype::F32));
  CHECK(back.tensors[0].dtype == SafeDtype::F32);
  CHECK(back.tensors[0].values == std::vector<double>{std::ldexp(13421773.0, -27), 1.0, 1.0 + std::ldexp(1.0, -22)});
}

TEST_CASE("safetensors: double_to_half inverts half_to_double on every finite F16 and rounds ties to even",
          "[learn][safetensors]") {
  using attn::learn::double_to_half;
  using attn::learn::half_to_double;
  int checked = 0;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    if (((b >> 10) & 0x1f) == 0x1f) continue;  // infinity, NaN
    const auto h = double_to_half(half_to_double(static_cast<std::uint16_t>(b)));
    REQUIRE(h);
    REQUIRE(*h == b);
    ++checked;
  }
  CHECK(checked == 63488);
  // Halfway cases go to the even fraction; just above halfway rounds up.
  CHECK(*double_to_half(1.0 + std::ldexp(1.0, -11)) == 0x3C00);                       // 1 + 2^-11 → 1
  CHECK(*double_to_half(1.0 + std::ldexp(3.0, -11)) == 0x3C02);                       // → 1 + 2^-9
  CHECK(*double_to_half(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)) == 0x3C01);
  CHECK(*double_to_half(std::ldexp(1.0, -25)) == 0x0000);                             // half the smallest subnormal
  CHECK(*double_to_half(std::ldexp(3.0, -25)) == 0x0002);                             // 1.5 units → 2
  CHECK(*double_to_half(std::ldexp(2047.0, -25)) == 0x0400);                          // rounds up to the smallest normal
  CHECK(*double_to_half(65519.0) == 0x7BFF);                                          // below the halfway point to 2^16
  CHECK_FALSE(double_to_half(65520.0));
  CHECK(*double_to_half(-0.0) == 0x8000);
  CHECK(*double_to_half(-2.0) == 0xC000);
  Safetensors f;
  f.tensors = {SafeTensor{"w", SafeDtype::F64, {3}, 0, 0, {0.1, -1.5, 1e-7}}};
  const Safetensors back = read(attn::learn::write_safetensors(f, SafeDtype::F16));
  CHECK(back.tensors[0].dtype == SafeDtype::F16);
  CHECK(back.tensors[0].values == std::vector<double>{half_to_double(0x2E66), -1.5, half_to_double(0x0002)});
}

TEST_CASE("safetensors: the writer refuses what it cannot store", "[learn][safetensors]") {
  using attn::learn::write_safetensors;
  Safetensors f;
  f.tensors = {SafeTensor{"w", SafeDtype::F64, {2}, 0, 0, {1.0, f64_of(0x7FF8000000000000u)}}};
  CHECK_ATTN_ERROR(write_safetensors(f), ErrorCode::non_finite);
  CHECK_THROWS_WITH(write_safetensors(f), Catch::Contains("\"w\" element 1"));
  f.tensors[0].values = {1.0, 1e39};  // finite in F64, beyond the float range
  CHECK_NOTHROW(write_safetensors(f));
  CHECK_ATTN_ERROR(write_safetensors(f, SafeDtype::F32), ErrorCode::non_finite);
  CHECK_ATTN_ERROR(write_safetensors(f, SafeDtype::F16), ErrorCode::non_finite);
  f.tensors[0].values = {1.0, 65520.0};  // rounds past F16's largest finite value, 65504
  CHECK_ATTN_ERROR(write_safetensors(f, SafeDtype::F16), ErrorCode::non_finite);
  CHECK_THROWS_WITH(write_safetensors(f, SafeDtype::F16), Catch::Contains("beyond the F16 range"));
  CHECK_ATTN_ERROR(write_safetensors(f, SafeDtype::BF16), ErrorCode::invalid_field);
  f.tensors[0].values = {1.0};  // does not fill [2]
  CHECK_ATTN_ERROR(write_safetensors(f), ErrorCode::invalid_field);
  f.tensors = {SafeTensor{"w", SafeDtype::F64, {1}, 0, 0, {1.0}}, SafeTensor{"w", SafeDtype::F64, {1}, 0, 0, {2.0}}};
  CHECK_ATTN_ERROR(write_safetensors(f), ErrorCode::invalid_field);
}

TEST_CASE("safetensors: hostile files are refused with their codes", "[learn][safetensors]") {
  const std::string one = le(0x3FF0000000000000u, 8);  // 1.0
  const auto entry = [](const std::string& dtype, const std::string& shape, int b, int e) {
    return "{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + std::to_string(b) + "," +
           std::to_string(e) + "]}";
  };
  // a good file, to show the cases below differ from it in one thing only
  CHECK(read(file_of("{\"a\":" + entry("F64", "[1]", 0, 8) + "}  ", one)).tensors[0].values[0] == 1.0);

  CHECK_ATTN_ERROR(read("abc"), ErrorCode::invalid_field);                                  // shorter than 8 bytes
  CHECK_ATTN_ERROR(read(le(100, 8) + "{}"), ErrorCode::invalid_field);                      // header beyond the file
  CHECK_ATTN_ERROR(read(le(100000001, 8) + "{}"), ErrorCode::too_large);                    // over 100 MB
  CHECK_ATTN_ERROR(read(le(0, 8)), ErrorCode::invalid_json);                                // empty header
  CHECK_ATTN_ERROR(read(file_of(" {}")), ErrorCode::invalid_json);                          // not starting with '{'
  CHECK_ATTN_ERROR(read(file_of("[1]")), ErrorCode::invalid_json);
  CHECK_ATTN_ERROR(read(file_of("{\"a\":")), ErrorCode::invalid_json);                      // truncated JSON
  CHECK_ATTN_ERROR(read(file_of("{} x")), ErrorCode::invalid_json);                         // trailing garbage
  // a repeated name, which nlohmann-json alone would silently collapse
  const std::string dup = "{\"a\":" + entry("F64", "[1]", 0, 8) + ",\"a\":" + entry("F64", "[1]", 8, 16) + "}";
  CHECK_ATTN_ERROR(read(file_of(dup, one + one)), ErrorCode::invalid_field);
  CHECK_THROWS_WITH(read(file_of(dup, one + one)), Catch::Contains("\"a\""));
  CHECK_ATTN_ERROR(read(file_of("{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}")), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(read(file_of("{\"a\":{\"dtype\":\"F64\",\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", one)),
                   ErrorCode::invalid_field);
  // offsets
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F64", "[1]", 0, 8) + "}", "1234")), ErrorCode::invalid_field);  // data short
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F64", "[1]", 8, 0) + "}", one)), ErrorCode::invalid_field);     // begin > end
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F32", "[2]", 0, 8) + ",\"b\":" + entry("F32", "[2]", 4, 12) + "}",
                                one + "1234")),
                   ErrorCode::invalid_field);                                                         // overlap
  CHECK_THROWS_WITH(read(file_of("{\"a\":" + entry("F32", "[2]", 0, 8) + ",\"b\":" + entry("F32", "[2]", 4, 12) + "}",
                                 one + "1234")),
                    Catch::Contains("overlaps"));
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F64", "[1]", 8, 16) + "}", one + one)), ErrorCode::invalid_field);  // gap
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F64", "[1]", 0, 8) + "}", one + "x")), ErrorCode::invalid_field);  // trailing
  CHECK_ATTN_ERROR(read(file_of("{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[-1,7]}}", one)),
                   ErrorCode::invalid_field);
  // sizes, dtypes, fields
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F64", "[2]", 0, 8) + "}", one)), ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("F64", "[4294967296,4294967296]", 0, 8) + "}", one)),
                   ErrorCode::shape_mismatch);                                                       // product overflows
  CHECK_ATTN_ERROR(read(file_of("{\"a\":" + entry("I32", "[2]", 0, 8) + "}", one)), ErrorCode::invalid_field);
  CHECK_THROWS_WITH(read(file_of("{\"a\":" + entry("I32", "[2]", 0, 8) + "}", one)), Catch::Contains("I32"));
  CHECK_ATTN_ERROR(read(file_of("{\"a\":{\"dtype\":\"F64\",\"shape\":[1]}}", one)), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(read(file_of("{\"a\":{\"dtype\":\"F64\",\"shape\":[1.5],\"data_offsets\":[0,8]}}", one)),
                   ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(read(file_of("{\"a\":[1]}", one)), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(read(file_of("{\"__metadata__\":{\"heads\":4}}")), ErrorCode::invalid_field);     // non-string
  CHECK_ATTN_ERROR(read(file_of("{\"__metadata__\":[\"x\"]}")), ErrorCode::invalid_field);
  // non-finite weights, named by tensor and element
  const std::string nan_file = file_of("{\"w\":" + entry("F64", "[2]", 0, 16) + "}", one + le(0x7FF8000000000000u, 8));
  CHECK_ATTN_ERROR(read(nan_file), ErrorCode::non_finite);
  CHECK_THROWS_WITH(read(nan_file), Catch::Contains("\"w\" element 1"));
  CHECK_ATTN_ERROR(read(file_of("{\"w\":" + entry("F32", "[1]", 0, 4) + "}", le(0xFF800000u, 4))), ErrorCode::non_finite);
  CHECK_ATTN_ERROR(read(file_of("{\"w\":" + entry("F16", "[1]", 0, 2) + "}", le(0x7C00, 2))), ErrorCode::non_finite);
  CHECK_ATTN_ERROR(read(file_of("{\"w\":" + entry("BF16", "[1]", 0, 2) + "}", le(0x7FC0, 2))), ErrorCode::non_finite);
}
