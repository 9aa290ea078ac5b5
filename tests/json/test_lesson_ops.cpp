// tests/json/test_lesson_ops.cpp — the lesson's JSON ops (json/json_lesson_ops.hpp), in-process.
// Values are checked in the struct tests; here: dispatch, field handling and error codes.
#include <json/case_files.hpp>
#include <json/json_lesson_ops.hpp>
#include <lessons/recall.hpp>

#include "support/support.hpp"

using namespace attn_test;
using attn::Json;

namespace {
Json op(const Json& req) {
  const auto r = attn::run_lesson_op(req.at("op").get<std::string>(), req);
  REQUIRE(r.has_value());
  return *r;
}
}  // namespace

TEST_CASE("lesson ops: unknown and core ops are left to run_case", "[lesson][json]") {
  CHECK_FALSE(attn::run_lesson_op("attention", Json{{"op", "attention"}}).has_value());
  CHECK_FALSE(attn::run_lesson_op("no_such_op", Json{{"op", "no_such_op"}}).has_value());
  CHECK(std::string(attn::lesson_op_names()).find("additive") != std::string::npos);
}

TEST_CASE("lesson ops: additive as specified in the issue", "[lesson][json]") {
  // The 1-D case of test_additive: e_j = 2 tanh(0.5 + h_j); position 1 invalid.
  const Json out = op(Json::parse(R"({"op":"additive","decoder_state":[1],"encoder_states":[[1],[0],[2]],
    "w_s":[[0.5]],"w_h":[[1]],"bias":[0],"v":[2],"key_valid":[true,false,true]})"));
  CHECK(out["scores"][1].is_null());
  CHECK(std::fabs(out["scores"][0].get<double>() - 2 * std::tanh(1.5)) < 1e-15);
  const double a0 = std::exp(2 * std::tanh(1.5)), a2 = std::exp(2 * std::tanh(2.5));
  CHECK(std::fabs(out["weights"][0].get<double>() - a0 / (a0 + a2)) < 1e-15);
  CHECK(out["weights"][1].get<double>() == 0.0);
  CHECK(std::fabs(out["context"][0].get<double>() - (a0 + 2 * a2) / (a0 + a2)) < 1e-15);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"additive","decoder_state":[1],"encoder_states":[[1]],"w_s":[[0.5]],"w_h":[[1]],"bias":[0]})")),
             attn::ErrorCode::missing_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"additive","decoder_state":[1,2],"encoder_states":[[1]],"w_s":[[0.5]],"w_h":[[1]],"bias":[0],"v":[1]})")),
             attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"additive","decoder_state":[1],"encoder_states":[[1]],"w_s":[[0.5]],"w_h":[[1]],"bias":[0],"v":[1],"key_valid":[false]})")),
             attn::ErrorCode::no_allowed_key);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"additive","decoder_state":[],"encoder_states":[[1]],"w_s":[[0.5]],"w_h":[[1]],"bias":[0],"v":[1]})")),
             attn::ErrorCode::empty_sequence);
}

TEST_CASE("lesson ops: every op answers its default or minimal case with passing checks", "[lesson][json]") {
  const char* cases[] = {
      R"({"op":"causal_alignments","tq":2,"tk":3})",
      R"({"op":"attribution","weights":[0.99,0.01],"value":[[0,0],[10,20]]})",
      R"({"op":"softmax_stability","logits":[1000,1001]})",
      R"({"op":"scaling","d_k":[1,4],"samples":200,"rows":20})",
      R"({"op":"additive_decoder"})",
      R"({"op":"position_symmetry","positions":"rope"})",
      R"({"op":"position_symmetry","sentence":"a b c","causal":true})",
      R"({"op":"temperature","query":[[1,0]],"key":[[1,0],[1,0],[0,1]],"value":[[0,0],[2,0],[0,2]],"hard":true})",
      R"({"op":"empty_rows","query":[[1,0],[0,1]],"key":[[1,0],[0,1]],"value":[[1,2],[3,4]],"mask":{"key_valid":[false,false]}})",
      R"({"op":"lesson_replica"})",
      R"({"op":"timing","repeats":1,"warmups":0})",
      R"({"op":"recall","task":"scaling.row_max","choice":0})",
  };
  for (const char* c : cases) {
    INFO(c);
    const Json out = op(Json::parse(c));
    REQUIRE(out.contains("checks"));
    for (const Json& k : out["checks"]) {
      INFO(k.dump());
      CHECK(k["pass"].get<bool>());
    }
  }
  CHECK(op(Json{{"op", "recall_tasks"}})["tasks"].size() == attn::recall_tasks().size());
  CHECK(op(Json::parse(R"({"op":"rope","x":[[1,0]],"positions":[0]})"))["output"] == Json::parse("[[1.0,0.0]]"));
}

TEST_CASE("lesson ops: unknown fields - bad types and ranges get their codes", "[lesson][json][errors]") {
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"attribution","weights":[1],"value":[[1]],"extra":1})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"causal_alignments","tq":2})")), attn::ErrorCode::missing_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"causal_alignments","tq":0,"tk":2})")), attn::ErrorCode::empty_sequence);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"scaling","d_k":[0]})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"scaling","seed":-1})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"position_symmetry","positions":"alibi"})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"position_symmetry","permutation":[0,1]})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"temperature","query":[[1]],"key":[[1]],"value":[[1]],"temperature":0})")),
             attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"temperature","query":[[1]],"key":[[1]],"value":[[1]],"scale":-1})")),
             attn::ErrorCode::invalid_scale);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"temperature","query":[[1]],"key":[[1]],"value":[[1]],"mask":{"window":-1}})")),
             attn::ErrorCode::invalid_mask);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"lstm","x":[[1]],"w_ih":[[1]],"w_hh":[[1]],"b_ih":[0],"b_hh":[0]})")),
             attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"lesson_replica","sentence":"one"})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"recall","choice":0})")), attn::ErrorCode::missing_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"softmax_stability","logits":["a"]})")), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"prefix_isolation","x":[[1],[2]],"w_q":[[1]],"w_k":[[1]],"w_v":[[1]],"from":5})")),
             attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json::parse(R"({"op":"key_padding","x":[[1],[2]],"w_q":[[1]],"w_k":[[1]],"w_v":[[1]],"key_valid":[true]})")),
             attn::ErrorCode::shape_mismatch);
}

TEST_CASE("lesson ops: translation_data gives the split and a sentence's reference", "[lesson][json][translate]") {
  const Json out = op(Json::parse(R"({"op":"translation_data","sentence":"the big black dog"})"));
  CHECK(out["english"][0] == "<pad>");
  CHECK(out["held_out"] == "the black cat");
  CHECK(out["sentence"]["reference_words"] == "le grand chien noir");
  CHECK(out["sentence"]["bucket"] == 0);
  int train = 0;
  for (const Json& b : out["buckets"]) train += b["train"].get<int>();
  CHECK(train == out["train"].get<int>());
  for (const char* bad : {R"({"op":"translation_data","sentence":""})", R"({"op":"translation_data","sentence":"the red cat"})",
                          R"({"op":"translation_data","sentence":"cat the black"})", R"({"op":"translation_data","sentences":"x"})"}) {
    const Json req = Json::parse(bad);
    CHECK_THROWS_AS(attn::run_lesson_op("translation_data", req), attn::Error);
  }
}

TEST_CASE("lesson ops: additive_decoder_trained reads the shipped translator - additive_decoder stays untrained",
          "[lesson][json]") {
  const std::string ckpt = std::string(ATTN_TESTS_DIR) + "/../checkpoints/translate.ckpt";
  // Without a file reader (the page's build) the op says it has no file access.
  attn::set_case_file_reader({});
  CHECK_THROWS_WITH(op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt}}),
                    Catch::Contains("no file access"));
  attn::set_case_file_reader(attn::read_case_file);
  const Json out = op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt}, {"step", 2}});
  CHECK(out["source_words"] == Json::array({"the", "black", "cat"}));
  CHECK(out["target_word"] == "noir");
  CHECK(out["feed"] == "teacher_forced");
  CHECK(out["encoder_states"].size() == 3);
  double sum = 0.0;
  for (const Json& w : out["attention"]["weights"]) sum += w.get<double>();
  CHECK(std::fabs(sum - 1.0) <= 1e-12);
  for (const Json& k : out["checks"]) {
    INFO(k.dump());
    CHECK(k["pass"].get<bool>());
  }
  const Json greedy = op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt}, {"feed", "greedy"},
                              {"sentence", "a big white mouse"}});
  CHECK(greedy["model_word"] == greedy["target_word"]);
  CHECK(op(Json{{"op", "additive_decoder"}})["note"].get<std::string>().find("untrained") != std::string::npos);
  CHECK_ATTN_ERROR(op(Json{{"op", "additive_decoder_trained"}}), attn::ErrorCode::missing_field);
  CHECK_ATTN_ERROR(op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt + ".missing"}}),
                   attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt}, {"sentence", "the zebra"}}),
                   attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt}, {"step", 9}}),
                   attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(op(Json{{"op", "additive_decoder_trained"}, {"checkpoint", ckpt}, {"feed", "beam"}}),
                   attn::ErrorCode::invalid_field);
}
