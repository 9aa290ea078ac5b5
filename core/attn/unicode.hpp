// attn/unicode.hpp — UTF-8 decoding and the Unicode classes GPT-2's pre-tokeniser needs.
//
// The classes are those of Python's `regex` module in OpenAI's pattern (Radford et al. 2019,
// encoder.py): \p{L} = general categories Lu Ll Lt Lm Lo, \p{N} = Nd Nl No, \s = the White_Space
// property. Their tables are generated at build time (cmake/gen_unicode_tables.py) from Debian's
// unicode-data (UnicodeData.txt, PropList.txt; Unicode 15.0), never typed by hand.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

/// The Unicode version of the generated tables, e.g. "15.0.0".
const char* unicode_tables_version() noexcept;

/// Unicode general category L* (Lu Ll Lt Lm Lo): GPT-2's \p{L}.
bool is_unicode_letter(char32_t cp) noexcept;
/// Unicode general category N* (Nd Nl No): GPT-2's \p{N}.
bool is_unicode_number(char32_t cp) noexcept;
/// The White_Space property (PropList.txt): GPT-2's \s under Python's `regex` (it includes
/// U+0085 and excludes U+FEFF, unlike JavaScript's \s).
bool is_unicode_white_space(char32_t cp) noexcept;

/// Code points of UTF-8 `text`, with the byte offset where each starts (`offsets` gets one more
/// entry: text.size()). Strict UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
/// Throws Error(invalid_field) "WHAT is not valid UTF-8 at byte N".
void decode_utf8(const std::string& text, std::vector<char32_t>& code_points, std::vector<std::size_t>& offsets,
                 const char* what = "text");

/// `bytes` decoded as UTF-8 and encoded back, every maximal ill-formed subsequence replaced by
/// one U+FFFD (Unicode's "substitution of maximal subparts", as Python's errors="replace" and
/// JavaScript's TextDecoder do). Never throws.
std::string utf8_with_replacements(const std::string& bytes);

/// Appends `cp` (at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, char32_t cp);

}  // namespace attn
