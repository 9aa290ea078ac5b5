// lessons/language_model/corpus.hpp — the default language model's text: the King James Bible as
// Debian's bible-kjv prints it (`bible -f Gen1:1-Rev22:21`, public domain), in GPT-2's tokens, its
// vocabulary trimmed to the ids the text uses, split into training and held-out books.
//
// The text a model sees: every verse's words followed by "\n" (the verse labels dropped), and
// "<|endoftext|>" after each book, the separator GPT-2 was trained with between documents.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attn/bpe.hpp"
#include "learn/vocab_map.hpp"

namespace attn::lessons {

/// One line of `bible` output: "Ge1:1 In the beginning God created the heaven and the earth."
struct KjvVerse {
  std::string book;  ///< the program's abbreviation: "Ge", "1Sm", "Rev"
  int chapter = 0, verse = 0;
  std::string text;
};

/// The verses of `bible -f` output, one a line, each "BOOK C:V TEXT" (BOOK the abbreviation, C and
/// V decimal). Empty lines are skipped. Throws Error(invalid_field) "line N: ..." (N from 1) for a
/// line without such a label, Error(empty_sequence) when there is no verse.
std::vector<KjvVerse> parse_kjv(const std::string& text);

/// The first held-out book: Hebrews to Revelation (9 books, 1,138 verses) are held out.
inline constexpr const char* kKjvHeldoutFirstBook = "Heb";

/// The corpus in GPT-2 ids and in the model's local ids.
struct LmCorpus {
  std::vector<std::string> books;         ///< in the text's order
  std::vector<std::size_t> book_start;    ///< token index where each book starts, then the total
  int verses = 0;
  std::vector<int> gpt2_tokens;           ///< the whole text
  learn::VocabMap vocab;                  ///< every GPT-2 id the text uses, ascending
  std::vector<int> train, heldout;        ///< local ids: the books before heldout_first_book, and from it on
  std::string heldout_first_book;
};

/// Tokenises the verses with GPT-2's BPE (each verse's text + "\n" encoded alone, which gives the
/// same pieces as the whole text: the newline is a piece of its own), "<|endoftext|>" (the
/// tokenizer's end_of_text_id) after each book. The vocabulary is read from the whole text,
/// held-out books included, so that every held-out token has a row (a held-out-only token is
/// learnt from no example). Throws Error(invalid_field) when the tokenizer has no "<|endoftext|>",
/// when heldout_first_book is not a book of the text or is its first, and the tokenizer's errors.
LmCorpus build_lm_corpus(const std::vector<KjvVerse>& verses, const BpeTokenizer& tokenizer,
                         const std::string& heldout_first_book = kKjvHeldoutFirstBook);

}  // namespace attn::lessons
