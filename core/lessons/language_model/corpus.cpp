#include "lessons/language_model/corpus.hpp"

#include <algorithm>
#include <cctype>

#include "attn/error.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

bool digits(const std::string& s, std::size_t b, std::size_t e) {
  if (b >= e || e - b > 4) return false;
  for (std::size_t i = b; i < e; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

}  // namespace

std::vector<KjvVerse> parse_kjv(const std::string& text) {
  std::vector<KjvVerse> out;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto fail = [&](const std::string& why) {
      bad(ErrorCode::invalid_field, "line " + std::to_string(line_no) + ": " + why + ": \"" + line.substr(0, 40) + "\"");
    };
    const std::size_t space = line.find(' ');
    if (space == std::string::npos) fail("no verse label (BOOK C:V) before a space");
    const std::size_t colon = line.rfind(':', space);
    if (colon == std::string::npos) fail("the label has no ':'");
    std::size_t c0 = colon;
    while (c0 > 0 && std::isdigit(static_cast<unsigned char>(line[c0 - 1]))) --c0;
    if (c0 == 0 || !digits(line, c0, colon) || !digits(line, colon + 1, space))
      fail("the label is not BOOK CHAPTER:VERSE");
    KjvVerse v;
    v.book = line.substr(0, c0);
    v.chapter = std::stoi(line.substr(c0, colon - c0));
    v.verse = std::stoi(line.substr(colon + 1, space - colon - 1));
    v.text = line.substr(space + 1);
    out.push_back(std::move(v));
  }
  if (out.empty()) bad(ErrorCode::empty_sequence, "the text holds no verse");
  return out;
}

LmCorpus build_lm_corpus(const std::vector<KjvVerse>& verses, const BpeTokenizer& tokenizer,
                         const std::string& heldout_first_book) {
  const long long eot = tokenizer.end_of_text_id();
  if (eot < 0) bad(ErrorCode::invalid_field, "the tokenizer has no \"<|endoftext|>\"");
  LmCorpus c;
  c.heldout_first_book = heldout_first_book;
  c.verses = static_cast<int>(verses.size());
  for (std::size_t i = 0; i < verses.size(); ++i) {
    if (i == 0 || verses[i].book != verses[i - 1].book) {
      c.books.push_back(verses[i].book);
      c.book_start.push_back(c.gpt2_tokens.size());
    }
    const BpeEncoding e = tokenizer.encode(verses[i].text + "\n");
    c.gpt2_tokens.insert(c.gpt2_tokens.end(), e.ids.begin(), e.ids.end());
    if (i + 1 == verses.size() || verses[i + 1].book != verses[i].book) c.gpt2_tokens.push_back(static_cast<int>(eot));
  }
  c.book_start.push_back(c.gpt2_tokens.size());
  const auto held = std::find(c.books.begin(), c.books.end(), heldout_first_book);
  if (held == c.books.end()) bad(ErrorCode::invalid_field, "the text has no book \"" + heldout_first_book + "\" to hold out");
  if (held == c.books.begin()) bad(ErrorCode::invalid_field, "the held-out books cannot start with the first book");
  std::vector<int> ids = c.gpt2_tokens;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  c.vocab = learn::make_vocab_map(std::move(ids));
  const std::vector<int> local = learn::to_local_ids(c.vocab, c.gpt2_tokens);
  const std::size_t split = c.book_start[static_cast<std::size_t>(held - c.books.begin())];
  c.train.assign(local.begin(), local.begin() + static_cast<long>(split));
  c.heldout.assign(local.begin() + static_cast<long>(split), local.end());
  return c;
}

}  // namespace attn::lessons
