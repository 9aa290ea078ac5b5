// A vocabulary trimmed from GPT-2's (core/learn/vocab_map.hpp): the map kept in a file's
// __metadata__ read back and checked, a token outside it named, bad maps refused with their codes.
#include <learn/vocab_map.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "support/support.hpp"

namespace {

using attn::ErrorCode;
using namespace attn::learn;

}  // namespace

TEST_CASE("vocab map: ids map both ways and survive the metadata", "[learn][vocab_map]") {
  const VocabMap m = make_vocab_map({11, 13, 198, 383, 50256}, 5);
  CHECK(m.size() == 5);
  CHECK(m.local_of(11) == 0);
  CHECK(m.local_of(383) == 3);
  CHECK(m.local_of(50256) == 4);
  CHECK(m.local_of(12) == -1);
  CHECK(m.local_of(-1) == -1);
  CHECK(m.local_of(60000) == -1);
  const std::map<std::string, std::string> meta = vocab_map_metadata(m);
  CHECK(meta.at("vocab_map") == "gpt2");
  CHECK(meta.at("gpt2_ids") == "[11,13,198,383,50256]");
  std::map<std::string, std::string> file_meta = meta;
  file_meta["format"] = "pt";
  const auto back = read_vocab_map(file_meta, 5);
  REQUIRE(back);
  CHECK(back->to_gpt2 == m.to_gpt2);
  CHECK_FALSE(read_vocab_map({{"format", "pt"}}, 50257));  // GPT-2's own ids: no map
  CHECK(to_local_ids(m, {383, 11, 198, 50256}) == std::vector<int>{3, 0, 2, 4});
}

TEST_CASE("vocab map: a token outside the vocabulary is named, and a prompt keeps the rest", "[learn][vocab_map]") {
  const VocabMap m = make_vocab_map({11, 13, 198, 383}, 4);
  CHECK_ATTN_ERROR(to_local_ids(m, {383, 31373, 11}), ErrorCode::invalid_field);
  CHECK_THROWS_WITH(to_local_ids(m, {383, 31373, 11}, {"ĠThe", "Ġhello", ","}),
                    Catch::Contains("tokens[1] = 31373 (\"Ġhello\") is not in the model's vocabulary (4 of GPT-2's 50257 tokens)"));
  const MappedPrompt p = map_prompt(m, {383, 31373, 11, 995, 13}, {"ĠThe", "Ġhello", ",", "Ġworld", "."});
  CHECK(p.local == std::vector<int>{3, 0, 1});
  CHECK(p.kept == std::vector<int>{0, 2, 4});
  CHECK(p.dropped == std::vector<int>{1, 3});
  CHECK_THAT(p.message, Catch::Contains("tokens[1] = 31373 (\"Ġhello\"), tokens[3] = 995 (\"Ġworld\") are not in the model's vocabulary"));
  CHECK_THAT(p.message, Catch::Contains("the rest of the prompt is kept"));
  const MappedPrompt all = map_prompt(m, {11, 13});
  CHECK(all.local == std::vector<int>{0, 1});
  CHECK(all.message.empty());
  const MappedPrompt many = map_prompt(m, {1, 2, 3, 4, 5, 6, 7});
  CHECK(many.local.empty());
  CHECK_THAT(many.message, Catch::Contains("and 2 more are not in"));
}

TEST_CASE("vocab map: bad maps are refused, naming the entry", "[learn][vocab_map]") {
  CHECK_ATTN_ERROR(make_vocab_map({11, 13}, 3), ErrorCode::shape_mismatch);
  CHECK_THROWS_WITH(make_vocab_map({11, 13}, 3), Catch::Contains("has 2 GPT-2 ids; the model's embedding has 3 rows"));
  CHECK_THROWS_WITH(make_vocab_map({11, 13, 13}), Catch::Contains("gpt2_ids[2] = 13 does not exceed gpt2_ids[1] = 13"));
  CHECK_THROWS_WITH(make_vocab_map({11, 198, 13}), Catch::Contains("gpt2_ids[2] = 13 does not exceed"));
  CHECK_THROWS_WITH(make_vocab_map({11, 50257}), Catch::Contains("gpt2_ids[1] = 50257 is not a GPT-2 id"));
  CHECK_ATTN_ERROR(make_vocab_map({-1, 3}), ErrorCode::invalid_field);
  const auto read = [](std::map<std::string, std::string> meta, int vocab) { return read_vocab_map(meta, vocab); };
  CHECK_ATTN_ERROR(read({{"vocab_map", "gpt2"}, {"gpt2_ids", "[1,2"}}, 2), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(read({{"vocab_map", "gpt2"}, {"gpt2_ids", "{\"a\":1}"}}, 1), ErrorCode::invalid_field);
  CHECK_THROWS_WITH(read({{"vocab_map", "gpt2"}, {"gpt2_ids", "[1,2.5]"}}, 2), Catch::Contains("gpt2_ids[1] = 2.5"));
  CHECK_THROWS_WITH(read({{"vocab_map", "gpt2"}, {"gpt2_ids", "[1,\"7\"]"}}, 2), Catch::Contains("gpt2_ids[1] = \"7\""));
  CHECK_THROWS_WITH(read({{"vocab_map", "gpt2"}, {"gpt2_ids", "[1,99999999999]"}}, 2), Catch::Contains("not a GPT-2 id"));
  CHECK_ATTN_ERROR(read({{"vocab_map", "gpt2"}, {"gpt2_ids", "[1,2,3]"}}, 2), ErrorCode::shape_mismatch);
  CHECK_THROWS_WITH(read({{"vocab_map", "llama"}, {"gpt2_ids", "[1]"}}, 1), Catch::Contains("vocab_map must be \"gpt2\""));
  CHECK_THROWS_WITH(read({{"gpt2_ids", "[1]"}}, 1), Catch::Contains("no vocab_map"));
  CHECK_THROWS_WITH(read({{"vocab_map", "gpt2"}}, 1), Catch::Contains("no gpt2_ids"));
}
