// tests/attn/test_tokenizer.cpp — whitespace tokens, sorted unique vocabulary, embedding lookup.
#include <attn/tokenizer.hpp>

#include "support/support.hpp"

using namespace attn_test;
using Strings = std::vector<std::string>;

TEST_CASE("tokenizer: the lesson sentence", "[tokenizer]") {
  const Strings tokens = attn::tokenize("The cat sat on the mat");
  CHECK(tokens == Strings{"The", "cat", "sat", "on", "the", "mat"});
  const attn::Vocabulary v = attn::build_vocabulary(tokens);
  // Sorted unique, case-sensitive: uppercase sorts before lowercase (byte order).
  CHECK(v.tokens == Strings{"The", "cat", "mat", "on", "sat", "the"});
  CHECK(v.ids.at("The") == 0);
  CHECK(v.ids.at("the") == 5);
  CHECK(attn::token_ids(v, tokens) == std::vector<int>{0, 1, 4, 3, 5, 2});
}

TEST_CASE("tokenizer: whitespace and duplicates", "[tokenizer]") {
  CHECK(attn::tokenize("").empty());
  CHECK(attn::tokenize(" \t\n\r\f\v ").empty());
  CHECK(attn::tokenize("  a\tb\nc\r\nd\fe\vf  ") == Strings{"a", "b", "c", "d", "e", "f"});
  CHECK(attn::tokenize("le chat, noir.") == Strings{"le", "chat,", "noir."});
  const attn::Vocabulary v = attn::build_vocabulary({"b", "a", "b", "B", "a"});
  CHECK(v.tokens == Strings{"B", "a", "b"});
  CHECK(v.ids.size() == 3);
  CHECK(attn::build_vocabulary({}).tokens.empty());
}

TEST_CASE("tokenizer: lookup errors and embedding rows", "[tokenizer]") {
  const attn::Vocabulary v = attn::build_vocabulary({"a", "b"});
  CHECK_ATTN_ERROR(attn::token_ids(v, {"a", "c"}), attn::ErrorCode::invalid_field);
  const Matrix table = M({{1, 2}, {3, 4}});
  CHECK_MATRIX_NEAR(attn::embed(table, {1, 0, 1}), M({{3, 4}, {1, 2}, {3, 4}}), 0.0);
  CHECK_ATTN_ERROR(attn::embed(table, {0, 2}), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::embed(table, {-1}), attn::ErrorCode::invalid_field);
}
