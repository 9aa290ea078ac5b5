// tests/text/test_bpe.cpp — GPT-2's byte-level BPE in the core (attn/bpe.hpp, attn/unicode.hpp)
// on a vocabulary and merges built by hand, every expected id worked out on paper from
// OpenAI's encoder.py (gpt-2 src/encoder.py): merge the lowest-ranked pair, every occurrence
// left to right, until no pair has a rank. GPT-2's own files: tests/text/gpt2_goldens.mjs.
#include <attn/bpe.hpp>
#include <attn/error.hpp>
#include <attn/unicode.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace {

using attn::BpeTokenizer;
using attn::ErrorCode;

// What `expr` throws: its code and message ("" / no code when nothing is thrown).
template <class F>
std::pair<int, std::string> thrown(F f) {
  try {
    f();
  } catch (const attn::Error& e) {
    return {static_cast<int>(e.code()), e.what()};
  }
  return {-1, ""};
}
#define CHECK_THROWS_CODE_WITH(expr, code, part)                                  \
  do {                                                                            \
    const auto _t = thrown([&] { (void)(expr); });                                \
    INFO("message: " << _t.second);                                               \
    CHECK(_t.first == static_cast<int>(code));                                    \
    CHECK(_t.second.find(part) != std::string::npos);                             \
  } while (0)

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [b, e] : attn::gpt2_pretokenize(text)) out.push_back(text.substr(b, e - b));
  return out;
}

// The hand-built tokenizer: byte-level "Ġ" is the space (bytes_to_unicode: 0x20 → U+0120).
// Ranks are line order: (a,b)=0 (Ġ,a)=1 (ab,c)=2 (b,c)=3 (a,a)=4 (aa,aa)=5 (',s)=6.
BpeTokenizer tiny() {
  return BpeTokenizer({{"a", 0}, {"b", 1}, {"c", 2}, {"Ġ", 3}, {"ab", 4}, {"abc", 5}, {"Ġa", 6}, {"bc", 7}, {"aa", 8},
                       {"aaaa", 9}, {"!", 10}, {"'", 11}, {"s", 12}, {"'s", 13}, {"<|endoftext|>", 14}},
                      {{"a", "b"}, {"Ġ", "a"}, {"ab", "c"}, {"b", "c"}, {"a", "a"}, {"aa", "aa"}, {"'", "s"}});
}

// Every byte as its own token (ids 0..255 in byte order) and no merges: ids are the text's bytes.
BpeTokenizer bytes_only(std::vector<std::pair<std::string, std::string>> merges = {}) {
  std::vector<std::pair<std::string, long long>> vocab;
  for (int b = 0; b < 256; ++b) vocab.emplace_back(attn::gpt2_byte_chars()[b], b);
  vocab.emplace_back("<|endoftext|>", 256);
  for (const auto& [a, b] : merges) vocab.emplace_back(a + b, static_cast<long long>(vocab.size()));
  return BpeTokenizer(vocab, merges);
}

std::vector<int> ids_of(const std::string& s) {
  std::vector<int> ids;
  for (unsigned char c : s) ids.push_back(c);
  return ids;
}

std::vector<long long> as_ll(const std::vector<int>& v) { return std::vector<long long>(v.begin(), v.end()); }

}  // namespace

TEST_CASE("bytes_to_unicode: GPT-2's 256 byte characters", "[bpe]") {
  const auto& c = attn::gpt2_byte_chars();
  CHECK(c['a'] == "a");
  CHECK(c['!'] == "!");
  CHECK(c[0x20] == "\xC4\xA0");      // space → Ġ U+0120 (the 33rd non-printable byte: U+0100 + 32)
  CHECK(c[0x0A] == "\xC4\x8A");      // newline → Ċ U+010A
  CHECK(c[0x00] == "\xC4\x80");      // U+0100
  CHECK(c[0x7F] == "\xC4\xA1");      // DEL: the 34th non-printable byte → U+0121
  CHECK(c[0xA0] == "\xC5\x82");      // NBSP byte: U+0122 + 32 = U+0142
  CHECK(c[0xAD] == "\xC5\x83");      // soft hyphen, the last of the 68: U+0143
  CHECK(c[0xE9] == "\xC3\xA9");      // é stands for itself (printable Latin-1)
}

TEST_CASE("pre-tokeniser: GPT-2's pattern as Python's regex module matches it", "[bpe]") {
  using V = std::vector<std::string>;
  CHECK(split("") == V{});
  CHECK(split("Hello world") == V{"Hello", " world"});
  // contractions: lower-case 's 't 're 've 'm 'll 'd only
  CHECK(split("I'm they'll we'd it's") == V{"I", "'m", " they", "'ll", " we", "'d", " it", "'s"});
  CHECK(split("don't you're we've") == V{"don", "'t", " you", "'re", " we", "'ve"});
  CHECK(split("I'M") == V{"I", "'", "M"});
  CHECK(split("'sa") == V{"'s", "a"});
  CHECK(split("!'s") == V{"!'", "s"});  // the punctuation run takes the apostrophe first
  // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+'
  CHECK(split("abc123def") == V{"abc", "123", "def"});
  CHECK(split("123 4567 2026") == V{"123", " 4567", " 2026"});
  CHECK(split("hello!!! world?") == V{"hello", "!!!", " world", "?"});
  CHECK(split(" !!") == V{" !!"});
  CHECK(split("caf\xC3\xA9 na\xC3\xAFve") == V{"caf\xC3\xA9", " na\xC3\xAFve"});
  CHECK(split("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E") == V{"\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"});  // 日本語: Lo
  CHECK(split("x\xC2\xB2") == V{"x", "\xC2\xB2"});  // ² is No: a number
  // white space: '\s+(?!\S)' backs off one character before a non-space, '\s+' takes a lone one
  CHECK(split("a   b") == V{"a", "  ", " b"});
  CHECK(split("a  ") == V{"a", "  "});
  CHECK(split("a \n") == V{"a", " \n"});
  CHECK(split("  a") == V{" ", " a"});
  CHECK(split("a\n\nb") == V{"a", "\n", "\n", "b"});
  CHECK(split("a\n\n c") == V{"a", "\n\n", " c"});
  CHECK(split("a\tb") == V{"a", "\t", "b"});
  CHECK(split("a \t b") == V{"a", " \t", " b"});
  CHECK(split("a\xC2\xA0" "b") == V{"a", "\xC2\xA0", "b"});  // NBSP is White_Space
}

TEST_CASE("pre-tokeniser: white space is the White_Space property (Python regex), not JavaScript's class", "[bpe]") {
  // JavaScript's \s lacks U+0085 and has U+FEFF, so the npm goldens (tests/text/gpt2_goldens.mjs)
  // would split these differently; the reference encoder runs Python's `regex`, where \s is the
  // White_Space property (PropList.txt): U+0085 yes, U+FEFF (category Cf) no.
  using V = std::vector<std::string>;
  CHECK(attn::is_unicode_white_space(0x85));
  CHECK_FALSE(attn::is_unicode_white_space(0xFEFF));
  CHECK(split("x\xC2\x85!!") == V{"x", "\xC2\x85", "!!"});           // NEL: a space, not punctuation
  CHECK(split("x\xC2\x85\xC2\x85y") == V{"x", "\xC2\x85", "\xC2\x85", "y"});
  CHECK(split("x\xEF\xBB\xBF!") == V{"x", "\xEF\xBB\xBF!"});         // BOM: punctuation-like, not a space
  CHECK(split("x \xEF\xBB\xBF") == V{"x", " \xEF\xBB\xBF"});
}

TEST_CASE("unicode classes: categories from the generated tables", "[bpe]") {
  CHECK(std::string(attn::unicode_tables_version()).rfind("15.", 0) == 0);
  CHECK(attn::is_unicode_letter(U'a'));
  CHECK(attn::is_unicode_letter(0x00E9));   // é Ll
  CHECK(attn::is_unicode_letter(0x65E5));   // 日: in UnicodeData's CJK "First>".."Last>" range
  CHECK(attn::is_unicode_letter(0xAC00));   // Hangul syllable (a First>/Last> range)
  CHECK(attn::is_unicode_letter(0x02B0));   // ʰ Lm
  CHECK_FALSE(attn::is_unicode_letter(0x0301));  // combining acute: Mn
  CHECK(attn::is_unicode_number(0x0663));   // Arabic-Indic 3: Nd
  CHECK(attn::is_unicode_number(0x2167));   // Roman numeral VIII: Nl
  CHECK(attn::is_unicode_number(0x00BD));   // ½: No
  CHECK_FALSE(attn::is_unicode_number(U'a'));
  CHECK(attn::is_unicode_white_space(0x3000));
  CHECK(attn::is_unicode_white_space(0x2028));
  CHECK_FALSE(attn::is_unicode_white_space(0x200B));  // zero width space: Cf, not White_Space
  CHECK_FALSE(attn::is_unicode_letter(0x1F44D));      // 👍: So
}

TEST_CASE("BPE: ids of a hand-built vocabulary and merges", "[bpe]") {
  const BpeTokenizer t = tiny();
  // "abc": (a,b)=0 first → ab c; then (ab,c)=2 → abc
  CHECK(t.encode("abc").ids == std::vector<int>{5});
  CHECK(t.encode("bc").ids == std::vector<int>{7});
  // " abc" is one piece: Ġ a b c; (a,b)=0 beats (Ġ,a)=1 → Ġ ab c → Ġ abc; (Ġ,abc) has no rank
  CHECK(t.encode(" abc").ids == std::vector<int>{3, 5});
  CHECK(t.encode(" a").ids == std::vector<int>{6});
  CHECK(t.encode("abc abc").ids == std::vector<int>{5, 3, 5});
  // equal ranks: leftmost first, every occurrence: aaaaa → aa aa a → aaaa a
  CHECK(t.encode("aaaaa").ids == std::vector<int>{9, 0});
  CHECK(t.encode("aaa").ids == std::vector<int>{8, 0});
  CHECK(t.encode("a's").ids == std::vector<int>{0, 13});
  CHECK(t.encode("a!!").ids == std::vector<int>{0, 10, 10});
  const attn::BpeEncoding e = t.encode(" abc!");
  CHECK(e.pieces == std::vector<std::string>{"Ġ", "abc", "!"});
  CHECK(e.texts == std::vector<std::string>{" ", "abc", "!"});
}

TEST_CASE("BPE: a round merges every occurrence before looking at the pairs it made", "[bpe]") {
  // Ranks not in training order: (ab,a)=0 ranks below (a,b)=1. encoder.py merges both (a,b) of
  // "abab" in one iteration (ab ab); merging one pair at a time by rank would give aba b.
  const BpeTokenizer t({{"a", 0}, {"b", 1}, {"ab", 2}, {"aba", 3}}, {{"ab", "a"}, {"a", "b"}});
  CHECK(t.encode("abab").ids == std::vector<int>{2, 2});
  CHECK(t.encode("aba").ids == std::vector<int>{3});  // ab a, then (ab,a) in the next round
  // a pair listed twice keeps its later rank (encoder.py's dict): (a,b) is now rank 2, above (b,c)=1
  const BpeTokenizer u({{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}}, {{"a", "b"}, {"b", "c"}, {"a", "b"}});
  CHECK(u.encode("abc").ids == std::vector<int>{0, 4});
}

TEST_CASE("BPE: long runs of one letter are not quadratic", "[bpe]") {
  const BpeTokenizer t = tiny();
  const std::string many(100000, 'a');  // one piece: 50,000 aa, then 25,000 aaaa
  const auto start = std::chrono::steady_clock::now();
  const attn::BpeEncoding e = t.encode(many);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(e.ids == std::vector<int>(25000, 9));
  CHECK(seconds < 5.0);  // a quadratic merge would take minutes here
  CHECK(t.encode(std::string(300, 'a')).ids == std::vector<int>(75, 9));
}

TEST_CASE("BPE: special <|endoftext|> only when asked", "[bpe]") {
  const BpeTokenizer t = bytes_only();
  const std::string s = "a<|endoftext|>b";
  CHECK(t.encode(s).ids == ids_of(s));  // plain text: byte by byte
  CHECK(t.encode(s, true).ids == std::vector<int>{'a', 256, 'b'});
  CHECK(t.encode("<|endoftext|><|endoftext|>", true).ids == std::vector<int>{256, 256});
  const BpeTokenizer no_eot({{"a", 0}}, {});
  CHECK_THROWS_CODE_WITH(no_eot.encode("a", true), ErrorCode::invalid_field, "<|endoftext|>");
  CHECK(t.end_of_text_id() == 256);
  CHECK(tiny().end_of_text_id() == 14);
  CHECK(no_eot.end_of_text_id() == -1);
}

TEST_CASE("BPE: each token's text, U+FFFD where a token splits a character", "[bpe]") {
  const BpeTokenizer t = bytes_only();
  const attn::BpeEncoding e = t.encode("\xC3\xA9");  // é as two byte tokens
  CHECK(e.ids == std::vector<int>{0xC3, 0xA9});
  CHECK(e.pieces == std::vector<std::string>{"\xC3\x83", "\xC2\xA9"});  // Ã ©
  CHECK(e.texts == std::vector<std::string>{"\xEF\xBF\xBD", "\xEF\xBF\xBD"});
  // a 3-byte prefix of a 4-byte character is one maximal subpart: one U+FFFD
  CHECK(attn::utf8_with_replacements("\xF0\x9F\x91") == "\xEF\xBF\xBD");
  CHECK(attn::utf8_with_replacements("a\xF0\x80z") == "a\xEF\xBF\xBD\xEF\xBF\xBDz");
  CHECK(attn::utf8_with_replacements("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("BPE: detokenize inverts tokenize", "[bpe]") {
  const BpeTokenizer bytes = bytes_only({{"Ġ", "t"}, {"h", "e"}, {"Ġt", "he"}});
  const BpeTokenizer t = tiny();
  for (const std::string s : {"", "Hello, world!", " the the  the\n", "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",
                              "a\xC2\x85" "b\xEF\xBB\xBF", "  \n\t x", "<|endoftext|>", "\x01\x7F"}) {
    INFO(s);
    CHECK(bytes.decode(as_ll(bytes.encode(s).ids)) == s);
    CHECK(bytes.decode(as_ll(bytes.encode(s, true).ids)) == s);
  }
  CHECK(bytes.encode(" the").ids.size() == 1);
  for (const std::string s : {"abc abc", "aaaaa  ba!", "a's"}) CHECK(t.decode(as_ll(t.encode(s).ids)) == s);
  CHECK(t.decode({5, 3, 6, 10}) == "abc  a!");
  CHECK(t.piece(3) == "Ġ");
}

TEST_CASE("BPE: refusals name what is wrong", "[bpe]") {
  const BpeTokenizer t = tiny();
  CHECK_THROWS_CODE_WITH(t.decode({5, 99}), ErrorCode::invalid_field, "tokens[1] = 99");
  CHECK_THROWS_CODE_WITH(t.decode({-1}), ErrorCode::invalid_field, "tokens[0]");
  CHECK_THROWS_CODE_WITH(t.encode("ab\xFF"), ErrorCode::invalid_field, "not valid UTF-8 at byte 2");
  CHECK_THROWS_CODE_WITH(t.encode("a\xE6\x97"), ErrorCode::invalid_field, "at byte 1");      // truncated
  CHECK_THROWS_CODE_WITH(t.encode("\xC0\x80"), ErrorCode::invalid_field, "at byte 0");       // overlong
  CHECK_THROWS_CODE_WITH(t.encode("xy\xED\xA0\x80"), ErrorCode::invalid_field, "at byte 2"); // surrogate
  CHECK_THROWS_CODE_WITH(t.encode("xyz"), ErrorCode::invalid_field, "no token \"x\"");        // not in the vocabulary
  CHECK_THROWS_CODE_WITH(t.encode(std::string(attn::kMaxTokenizeBytes + 1, 'a')), ErrorCode::too_large, "at most");
  CHECK_THROWS_CODE_WITH(BpeTokenizer({{"a", 0}, {"b", 0}}, {}), ErrorCode::invalid_field, "id 0");
  CHECK_THROWS_CODE_WITH(BpeTokenizer({{"a", -3}}, {}), ErrorCode::invalid_field, "\"a\"");
}

TEST_CASE("merges file: #version skipped, a line of other than two symbols refused", "[bpe]") {
  using M = std::vector<std::pair<std::string, std::string>>;
  CHECK(attn::parse_bpe_merges("#version: 0.2\na b\n\xC4\xA0 t\n") == M{{"a", "b"}, {"Ġ", "t"}});
  CHECK(attn::parse_bpe_merges("a b\r\nab c") == M{{"a", "b"}, {"ab", "c"}});  // no #version, CRLF, no last line end
  CHECK(attn::parse_bpe_merges("#version: 0.2\n").empty());
  CHECK(attn::parse_bpe_merges("").empty());
  CHECK_THROWS_CODE_WITH(attn::parse_bpe_merges("#version: 0.2\na b\nabc\n"), ErrorCode::invalid_field, "merges line 3");
  CHECK_THROWS_CODE_WITH(attn::parse_bpe_merges("a b c\n"), ErrorCode::invalid_field, "merges line 1");
  CHECK_THROWS_CODE_WITH(attn::parse_bpe_merges("a b\n\nb c\n"), ErrorCode::invalid_field, "merges line 2");
}
