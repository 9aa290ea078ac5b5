// attn/tokenizer.hpp — whitespace tokens, a vocabulary and an embedding lookup.
//
// As the lesson's script builds it: tokens are the whitespace-separated words,
// case-sensitive ("The" and "the" differ); the vocabulary is the sorted set of
// unique tokens (byte order of UTF-8, as Python's sorted() on str for ASCII),
// ids in that order.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attn/types.hpp"

namespace attn {

/// Split on ASCII whitespace (space, tab, CR, LF, FF, VT). Empty input gives no tokens.
std::vector<std::string> tokenize(const std::string& text);

struct Vocabulary {
  std::vector<std::string> tokens;   ///< sorted unique tokens; id = index
  std::map<std::string, int> ids;    ///< token → id
};

/// Vocabulary of the sorted unique tokens.
Vocabulary build_vocabulary(const std::vector<std::string>& tokens);

/// Ids of `tokens` in `vocab`. Throws Error(invalid_field) naming an unknown token.
std::vector<int> token_ids(const Vocabulary& vocab, const std::vector<std::string>& tokens);

/// Rows of `table` (vocab×d_model) for each id: T×d_model.
/// Throws Error(invalid_field) for an id outside the table.
Matrix embed(const Matrix& table, const std::vector<int>& ids);

}  // namespace attn
