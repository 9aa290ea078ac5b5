// The language-model Worker's session (web/worker/lm_session.*) on the GPT-2-family files torch wrote
// (gpt2/, generate_gpt2_fixtures.py): a file read through a byte-range reader gives torch's attention
// weights and next-token distribution within the fixtures' float32 tolerance, generation gives
// torch's greedy tokens, a refused file leaves the model held, and GPT-2's tokenizer gives OpenAI's ids.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <new>
#include <sstream>

#include "attn/error.hpp"
#include "worker/lm_session.hpp"

#ifndef ATTN_GPT2_FIXTURES_DIR
#error "ATTN_GPT2_FIXTURES_DIR must name tests/reference/gpt2"
#endif

namespace {

using attn::Json;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fixture(const std::string& name) { return std::string(ATTN_GPT2_FIXTURES_DIR) + "/" + name; }

/// Loads NAME.safetensors (with CONFIG.config.json when `config_name` is not empty) through a
/// byte-range reader that counts its calls, as the Worker's FileReaderSync reader does.
Json load(app::LmSession& s, const std::string& name, const std::string& config_name, int* reads = nullptr) {
  const std::string bytes = slurp(fixture(name + ".safetensors"));
  const std::string config = config_name.empty() ? "" : slurp(fixture(config_name + ".config.json"));
  return s.load(bytes.size(), [&](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
    if (reads) ++*reads;
    REQUIRE(offset + length <= bytes.size());
    std::copy_n(bytes.data() + offset, length, reinterpret_cast<char*>(dst));
  }, config);
}

}  // namespace

TEST_CASE("lm session: a forward gives torch's attention weights and next-token distribution", "[reference][lm]") {
  const Json spec = Json::parse(slurp(fixture("hf-generate-model.json")));
  app::LmSession s;
  int reads = 0;
  const Json info = load(s, "hf-generate-model", "hf-generate-model", &reads);
  CHECK(reads > 1);  // the header, then tensor by tensor: never the file in one read
  CHECK(info["loaded"] == true);
  CHECK(info["layout"] == "transformers");

  const std::vector<int> tokens = spec["case"]["tokens"][0].get<std::vector<int>>();
  const app::LmForward f = s.forward(tokens);
  const double tol = spec["tolerance"].get<double>();
  const Json& w = spec["expect"]["weights"];  // [layer][batch][head][query][key]
  REQUIRE(f.weights.size() == static_cast<size_t>(f.layers * f.heads * f.t * f.t));
  double worst = 0.0;
  size_t i = 0;
  for (int l = 0; l < f.layers; ++l)
    for (int h = 0; h < f.heads; ++h)
      for (int q = 0; q < f.t; ++q)
        for (int k = 0; k < f.t; ++k) worst = std::max(worst, std::fabs(f.weights[i++] - w[l][0][h][q][k].get<double>()));
  CHECK(worst < tol);

  // softmax of torch's last-position logits, computed here in double
  const Json& logits = spec["expect"]["logits"][0][static_cast<size_t>(f.t - 1)];
  double mx = -1e300, total = 0.0;
  for (const Json& v : logits) mx = std::max(mx, v.get<double>());
  for (const Json& v : logits) total += std::exp(v.get<double>() - mx);
  REQUIRE(f.last_probs.size() == logits.size());
  double worst_p = 0.0;
  for (size_t j = 0; j < logits.size(); ++j)
    worst_p = std::max(worst_p, std::fabs(f.last_probs[j] - std::exp(logits[j].get<double>() - mx) / total));
  CHECK(worst_p < tol);

  // top(): descending probabilities, the first one torch's argmax
  const Json top = s.top(f, 5);
  REQUIRE(top.size() == 5);
  size_t argmax = 0;
  for (size_t j = 1; j < logits.size(); ++j)
    if (logits[j].get<double>() > logits[argmax].get<double>()) argmax = j;
  CHECK(top[0]["id"] == argmax);
  for (size_t j = 1; j < top.size(); ++j) CHECK(top[j - 1]["prob"].get<double>() >= top[j]["prob"].get<double>());
}

TEST_CASE("lm session: generation with the K/V cache gives torch's greedy tokens", "[reference][lm]") {
  const Json spec = Json::parse(slurp(fixture("hf-generate-greedy.json")));
  app::LmSession s;
  load(s, "hf-generate-model", "hf-generate-model");
  const Json out = s.run(Json{{"op", "generate"}, {"tokens", spec["case"]["tokens"]}, {"steps", spec["case"]["steps"]}});
  CHECK(out["tokens"] == spec["expect"]["tokens"]);
}

TEST_CASE("lm session: a refused file or request leaves the model held", "[reference][lm]") {
  app::LmSession s;
  load(s, "hf-generate-model", "hf-generate-model");
  const Json before = s.info();
  // a file with a buffer of the wrong shape: refused, naming the tensor; the model stays
  try {
    load(s, "bad-mask-buffer-shape", "hf-prefix-f32-buffers");
    FAIL("the file was taken");
  } catch (const attn::Error& e) {
    INFO(e.what());
    CHECK(e.code() == attn::ErrorCode::shape_mismatch);
    CHECK(std::string(e.what()).find("attn.bias") != std::string::npos);
  }
  CHECK(s.info() == before);
  // a reader that fails mid-file: the reader's error, the model stays
  const std::string bytes = slurp(fixture("hf-noprefix-f16.safetensors"));
  CHECK_THROWS(s.load(bytes.size(), [&](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
    if (offset > 64) throw attn::Error(attn::ErrorCode::invalid_field, "the network went away");
    std::copy_n(bytes.data() + offset, length, reinterpret_cast<char*>(dst));
  }, ""));
  CHECK(s.info() == before);

  const int vocab = before["config"]["vocab"].get<int>();
  const Json past_vocab = s.run_text(Json{{"op", "forward"}, {"tokens", {1, vocab}}}.dump());
  INFO(past_vocab.dump());
  CHECK(past_vocab["error"]["code"] == "invalid_field");
  CHECK(past_vocab["error"]["message"].get<std::string>().find("tokens[1]") != std::string::npos);
  // the Worker reads a token list with the JSON contract's reader: the same codes and words
  const Json empty = s.run_text(R"({"op":"forward","tokens":[]})");
  CHECK(empty["error"]["code"] == "invalid_field");
  CHECK(empty["error"]["message"] == "tokens must be one sequence: a list of 1 to n_positions token ids");
  CHECK(s.run_text(R"({"op":"generate","tokens":[1,-2],"steps":1})")["error"]["message"] ==
        "tokens[1] must be a token id (an integer >= 0)");
  CHECK(s.run_text(R"({"op":"generate","steps":1})")["error"]["code"] == "missing_field");
  CHECK(s.run_text("{not json")["error"]["code"] == "invalid_json");
  CHECK(s.run_text(R"({"op":"train"})")["error"]["code"] == "unknown_op");
  CHECK(s.run_text(R"({"op":"forward","tokens":[1],"topk":3})")["error"]["code"] == "invalid_field");
  const int context = before["config"]["context"].get<int>();
  // a forward checks its one sequence once, naming positions as the flat list does
  CHECK_THROWS_WITH(s.forward({}), "tokens: the sequence needs at least one token");
  CHECK_THROWS_WITH(s.forward(std::vector<int>(static_cast<std::size_t>(context) + 1, 1)),
                    "tokens has " + std::to_string(context + 1) + " ids, beyond the model's context (n_positions) of " +
                        std::to_string(context));
  const Json too_long = s.run_text(Json{{"op", "generate"}, {"tokens", {1}}, {"steps", context}}.dump());
  CHECK(too_long["error"]["code"] == "invalid_field");
  CHECK(too_long["error"]["message"].get<std::string>().find("context") != std::string::npos);
  CHECK(s.info() == before);
  // weight against contribution: a head, layer or query outside the model or the tokens is named
  const auto contribution = [&](int layer, int head, int query) {
    return s.run_text(Json{{"op", "contribution"}, {"tokens", {3, 14, 15}}, {"layer", layer}, {"head", head}, {"query", query}}.dump());
  };
  CHECK(contribution(0, before["config"]["heads"].get<int>(), 0)["error"]["message"].get<std::string>().find("is not in this model") !=
        std::string::npos);
  CHECK(contribution(before["config"]["layers"].get<int>(), 0, 0)["error"]["code"] == "invalid_field");
  CHECK(contribution(0, 0, 3)["error"]["message"] == "query 3 is not a position of the 3 tokens");
  CHECK(s.run_text(R"({"op":"contribution","tokens":[3],"layer":0,"head":0})")["error"]["code"] == "missing_field");
  CHECK(s.run_text(R"({"op":"ablation","tokens":[3]})")["error"]["message"].get<std::string>().find("at least 2 tokens") !=
        std::string::npos);
  CHECK(s.run_text(R"({"op":"ablation","tokens":[3,99]})")["error"]["message"].get<std::string>().find("tokens[1]") !=
        std::string::npos);
  const Json row = contribution(1, 2, 2);
  CHECK(row["weights"].size() == 3);
  CHECK(row["norms"].size() == 3);

  s.unload();
  CHECK(s.run_text(R"({"op":"forward","tokens":[1]})")["error"]["message"] == "no model loaded");
}

TEST_CASE("lm session: every reply carries a core error code, never an exception", "[reference][lm]") {
  // the Worker's load and tokenizer calls answer through answer(), as run_text does
  const Json core = app::LmSession::answer([]() -> Json { throw attn::Error(attn::ErrorCode::shape_mismatch, "w is 2x3"); });
  CHECK(core == Json{{"error", {{"code", "shape_mismatch"}, {"message", "w is 2x3"}}}});
  const Json memory = app::LmSession::answer([]() -> Json { throw std::bad_alloc(); });
  CHECK(memory["error"]["code"] == "too_large");
  CHECK(memory["error"]["message"].get<std::string>().rfind("the request could not be run: ", 0) == 0);
  CHECK(app::LmSession::answer([] { return Json{{"ok", true}}; }) == Json{{"ok", true}});
  app::LmSession s;
  const Json tokenizer = app::LmSession::answer([&] {
    s.set_tokenizer("[1, 2]", "a b");
    return s.info();
  });
  CHECK(tokenizer["error"]["code"] == "invalid_field");
  CHECK_FALSE(s.has_tokenizer());
}

#ifdef ATTN_GPT2_TOKENIZER_DIR
TEST_CASE("lm session: GPT-2's tokenizer gives OpenAI's ids and names the top tokens", "[reference][lm]") {
  const std::string dir = ATTN_GPT2_TOKENIZER_DIR;
  app::LmSession s;
  CHECK_THROWS_AS(s.tokenize("Hello", false), attn::Error);
  s.set_tokenizer(slurp(dir + "/encoder.json"), slurp(dir + "/vocab.bpe"));
  // OpenAI's encoder: "Hello" 15496, " world" 995, "<|endoftext|>" 50256 (as special)
  const Json t = s.run(Json{{"op", "tokenize"}, {"text", "Hello world<|endoftext|>"}, {"special", true}});
  CHECK(t["tokens"] == Json({15496, 995, 50256}));
  CHECK(t["pieces"][1] == "\u0120world");
  CHECK(s.info()["end_of_text"] == 50256);
  // a bad vocabulary is refused and the tokenizer held stays
  CHECK_THROWS_AS(s.set_tokenizer("[1, 2]", "a b"), attn::Error);
  CHECK(s.tokenize("Hello", false)["tokens"] == Json({15496}));
}
#endif
