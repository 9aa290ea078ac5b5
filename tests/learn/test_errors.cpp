// Bad input to the learning ops: the documented code, and a message naming what is wrong.
#include <attn/error.hpp>
#include <json/json_case.hpp>
#include <learn/decoder.hpp>
#include <catch2/catch.hpp>

using attn::Json;

namespace {

Json decoder_case() {
  Json init = attn::run_case(Json::parse(
      R"({"op":"init_params","seed":3,"model":{"kind":"decoder","vocab":5,"context":4,"d_model":4,"heads":2,"layers":1}})"));
  Json c = Json::parse(R"({"op":"model_gradients","model":{"kind":"decoder","vocab":5,"context":4,"d_model":4,
                         "heads":2,"layers":1},"tokens":[[1,2,3]],"targets":[[2,3,4]]})");
  c["params"] = init["params"];
  return c;
}

void expect_error(const Json& c, const char* code, const char* fragment) {
  INFO(c.dump().substr(0, 300));
  try {
    attn::run_case(c);
    FAIL("no error, expected " << code);
  } catch (const attn::Error& e) {
    INFO("message: " << e.what());
    CHECK(std::string(e.code_name()) == code);
    CHECK(std::string(e.what()).find(fragment) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("learn errors: parameters - tokens - lengths - ignored batches - optimiser", "[learn][errors]") {
  const Json good = decoder_case();
  CHECK(attn::run_case(good).contains("grads"));

  Json c = good;
  c["params"]["layers.0.attn.bogus"] = Json::array({1});
  expect_error(c, "invalid_field", "unknown parameter \"layers.0.attn.bogus\"");
  c = good;
  c["params"].erase("unembed.weight");
  expect_error(c, "missing_field", "unembed.weight");
  c = good;
  c["params"]["embed.weight"].erase(0);
  expect_error(c, "shape_mismatch", "embed.weight");
  c = good;
  c["params"]["unembed.weight"][1][2] = "x";
  expect_error(c, "invalid_field", "unembed.weight\"][1][2]");
  c = good;
  c["tokens"][0][1] = 5;
  expect_error(c, "invalid_field", "tokens[0][1] = 5 is outside the vocabulary");
  c = good;
  c["tokens"] = Json::parse("[[1,2,3,4,0]]");
  c["targets"] = Json::parse("[[1,2,3,4,0]]");
  expect_error(c, "invalid_field", "beyond model.context");
  c = good;
  c["targets"] = Json::parse("[[-100,-100,-100]]");
  expect_error(c, "invalid_field", "every target");
  c = good;
  c["tokens"] = Json::parse("[[]]");
  expect_error(c, "empty_sequence", "tokens");
  c = good;
  c["model"]["heads"] = 3;
  expect_error(c, "invalid_field", "must divide model.d_model");
  c = good;
  c["model"]["positions"] = "alibi";
  expect_error(c, "invalid_field", "model.positions");

  Json t = good;
  t["op"] = "train_steps";
  t["batches"] = Json::array({Json{{"tokens", good["tokens"]}, {"targets", good["targets"]}}});
  t.erase("tokens");
  t.erase("targets");
  t["optimizer"] = Json{{"name", "adam"}, {"lr", 0}};
  expect_error(t, "invalid_field", "optimizer.lr must be > 0");
  t["optimizer"] = Json{{"name", "sgd"}};
  expect_error(t, "invalid_field", "optimizer.name");
  t["optimizer"] = nullptr;  // null means absent: torch's defaults
  t["clip"] = nullptr;
  CHECK(attn::run_case(t)["losses"].size() == 1);
  t["optimizer"] = Json{{"name", "adam"}, {"lr", 1e300}};
  t["batches"].push_back(t["batches"][0]);
  expect_error(t, "non_finite", "training diverged at step 2");
  t["optimizer"] = nullptr;
  t["batches"][0]["tokens"][0][0] = -1;
  expect_error(t, "invalid_field", "batches[0].");

  const Json s = Json::parse(R"({"op":"init_params","model":{"kind":"seq2seq","src_vocab":4,"tgt_vocab":4,"embed":2,
                                "hidden":3,"attention":"none","attn_dim":2}})");
  expect_error(s, "invalid_field", "attn_dim");
  Json s2 = s;
  s2["model"]["attention"] = "additive";
  s2["model"].erase("attn_dim");
  expect_error(s2, "missing_field", "model.attn_dim");

  Json big = Json::parse(R"({"op":"init_params","model":{"kind":"decoder","vocab":4096,"context":1024,"d_model":512,
                            "heads":8,"layers":8,"mlp":2048}})");
  expect_error(big, "too_large", "parameters");
}

TEST_CASE("learn errors: attention_backward refuses the tiled kernel - dropout and a bad grad_output", "[learn][errors]") {
  const Json base = Json::parse(R"({"op":"attention_backward","query":[[1,0]],"key":[[1,0],[0,1]],
                                    "value":[[1,2],[3,4]],"grad_output":[[1,1]]})");
  CHECK(attn::run_case(base).contains("grad_key"));
  Json c = base;
  c["kernel"] = "tiled";
  expect_error(c, "invalid_field", "dense");
  c = base;
  c["dropout"] = Json{{"p", 0.1}};
  expect_error(c, "invalid_field", "dropout");
  c = base;
  c["grad_output"] = Json::parse("[[1,1,1]]");
  expect_error(c, "shape_mismatch", "grad_output");
  c = base;
  c["grad_output"] = Json::parse(R"([[1,"a"]])");
  expect_error(c, "invalid_field", "grad_output[0][1]");
  c = base;
  c["mask"] = Json::parse(R"({"allowed":[[false,false]]})");
  expect_error(c, "no_allowed_key", "row 0");
  c["empty_rows"] = "zero";
  const Json r = attn::run_case(c);
  CHECK(r["grad_query"][0][0] == 0.0);
  CHECK(r["weights"][0][1] == 0.0);
}

TEST_CASE("learn errors: one sequence is checked as its flat list names it, once", "[learn][errors]") {
  attn::learn::DecoderConfig c;
  c.vocab = 5;
  c.context = 4;
  c.d_model = 4;
  c.heads = 2;
  c.layers = 1;
  const auto message = [&](const std::vector<int>& tokens, attn::ErrorCode code, const attn::learn::DecoderLimits& lim) {
    try {
      attn::learn::validate_decoder_sequence(c, tokens, lim);
    } catch (const attn::Error& e) {
      CHECK(e.code() == code);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const attn::learn::DecoderLimits lim;
  CHECK(message({}, attn::ErrorCode::empty_sequence, lim) == "tokens: the sequence needs at least one token");
  CHECK(message({1, 2, 3, 4, 0}, attn::ErrorCode::invalid_field, lim) ==
        "tokens has 5 ids, beyond the model's context (n_positions) of 4");
  CHECK(message({1, 5}, attn::ErrorCode::invalid_field, lim) == "tokens[1] = 5 is outside the vocabulary 0..4");
  CHECK(message({-1}, attn::ErrorCode::invalid_field, lim) == "tokens[0] = -1 is outside the vocabulary 0..4");
  attn::learn::DecoderLimits tight;
  tight.batch_numbers = 2 * 4 * 4 - 1;  // heads·T'² for four tokens is one past it
  CHECK(message({1, 2, 3, 4}, attn::ErrorCode::too_large, tight).find("batch too large") == 0);
  // what passes passes the batch check as a batch of one, so a caller checks once
  for (const std::vector<int>& ok : {std::vector<int>{0}, std::vector<int>{4, 3, 2, 1}}) {
    CHECK(message(ok, attn::ErrorCode::invalid_field, lim) == "no error");
    attn::learn::DecoderBatch b;
    b.batch = 1;
    b.t = static_cast<int>(ok.size());
    b.tokens = b.targets = ok;
    CHECK_NOTHROW(attn::learn::validate_decoder_batch(c, b, lim));
  }
}
