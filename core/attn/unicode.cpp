#include "attn/unicode.hpp"

#include <algorithm>

#include "attn/error.hpp"

namespace attn {
namespace {

struct CodeRange {
  char32_t lo, hi;  // inclusive
};

// kLetterRanges, kNumberRanges, kWhiteSpaceRanges, ATTN_UNICODE_VERSION: written at build time
// into the build directory (core/CMakeLists.txt runs cmake/gen_unicode_tables.py).
#include "attn_unicode_tables.inc"

template <std::size_t N>
bool in_ranges(const CodeRange (&table)[N], char32_t cp) {
  const CodeRange* it = std::upper_bound(table, table + N, cp, [](char32_t c, const CodeRange& r) { return c < r.lo; });
  return it != table && cp <= (it - 1)->hi;
}

// Length of the well-formed UTF-8 sequence at s[i] (Unicode Table 3-7), 0 if ill-formed; the
// decoded code point in `cp`. `bad_len` gets the length of the maximal ill-formed subpart.
std::size_t utf8_at(const std::string& s, std::size_t i, char32_t& cp, std::size_t& bad_len) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  bad_len = 1;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlongs
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  char32_t v = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) return 0;
    const unsigned char t = b(i + k);
    if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) return 0;
    v = (v << 6) | (t & 0x3F);
    bad_len = k + 1;  // a valid prefix so far: one replacement covers it
  }
  cp = v;
  return n;
}

}  // namespace

const char* unicode_tables_version() noexcept { return ATTN_UNICODE_VERSION; }

bool is_unicode_letter(char32_t cp) noexcept {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return in_ranges(kLetterRanges, cp);
}

bool is_unicode_number(char32_t cp) noexcept {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return in_ranges(kNumberRanges, cp);
}

bool is_unicode_white_space(char32_t cp) noexcept {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  return in_ranges(kWhiteSpaceRanges, cp);
}

void decode_utf8(const std::string& text, std::vector<char32_t>& code_points, std::vector<std::size_t>& offsets,
                 const char* what) {
  code_points.clear();
  offsets.clear();
  code_points.reserve(text.size());
  offsets.reserve(text.size() + 1);
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    std::size_t bad = 0;
    const std::size_t n = utf8_at(text, i, cp, bad);
    if (n == 0) throw Error(ErrorCode::invalid_field, std::string(what) + " is not valid UTF-8 at byte " + std::to_string(i));
    code_points.push_back(cp);
    offsets.push_back(i);
    i += n;
  }
  offsets.push_back(text.size());
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8_with_replacements(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    char32_t cp = 0;
    std::size_t bad = 0;
    const std::size_t n = utf8_at(bytes, i, cp, bad);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      i += bad;
    } else {
      out.append(bytes, i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace attn
