// tests/json/test_json_fields.cpp — the one JSON field reader (json/fields.hpp) and the op table
// (json/ops.hpp): null means absent, one unknown-field rule, unknown_op lists the table.
#include <json/fields.hpp>
#include <json/json_case.hpp>
#include <json/ops.hpp>

#include "support/support.hpp"

using attn::Json;

namespace {
std::string error_code(const std::string& text) {
  const Json out = attn::run_case_text(text);
  INFO("input: " << text << "\noutput: " << out.dump());
  REQUIRE(out.contains("error"));
  return out.at("error").at("code").get<std::string>();
}
}  // namespace

TEST_CASE("json fields: null in a field means absent", "[json]") {
  const Json j = Json::parse(R"({"a": null, "b": 3, "c": [1, 2]})");
  const attn::Fields f(j, "test case");
  CHECK_FALSE(f.has("a"));
  CHECK(f.optional("a") == nullptr);
  CHECK(f.integer("a", 7, 0, 10) == 7);
  CHECK(f.integer("b", 7, 0, 10) == 3);
  CHECK(f.number("a", 0.5) == 0.5);
  CHECK(f.text("a", "x") == "x");
  CHECK(f.boolean("a", true));
  CHECK(f.seed("a", 17) == 17u);
  CHECK(f.integers("c", {}, 0, 5) == std::vector<long long>{1, 2});
  CHECK_ATTN_ERROR(f.required("a"), attn::ErrorCode::missing_field);
  CHECK_ATTN_ERROR(f.integer("b", 0, 4, 10), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(f.integers("c", {}, 2, 5), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(f.check_known({"a", "b"}), attn::ErrorCode::invalid_field);
  f.check_known({"a", "b", "c"});
}

TEST_CASE("json fields: a nested object prefixes its field names", "[json]") {
  const Json j = Json::parse(R"({"mask": {"w": "x"}})");
  const attn::Fields f(j, "test case");
  const attn::Fields m = f.object("mask", "mask");
  CHECK(m.name("w") == "mask.w");
  try {
    m.integer("w", 0, 0, 1);
    FAIL("no error");
  } catch (const attn::Error& e) {
    CHECK(std::string(e.what()) == "mask.w must be an integer");
  }
}

TEST_CASE("json fields: token_ids reads one sequence of token ids, naming the field", "[json]") {
  const Json j = Json::parse(R"({"tokens": [0, 50256, 1073741824], "empty": [], "nested": [[1]], "negative": [3, -1],
                                 "fraction": [1.5], "huge": [1073741825], "wrapped": [18446744073709551615],
                                 "none": null})");
  const attn::Fields f(j, "test case");
  CHECK(f.token_ids("tokens") == std::vector<int>{0, 50256, 1 << 30});
  CHECK_ATTN_ERROR(f.token_ids("none"), attn::ErrorCode::missing_field);
  const auto message = [&](const char* field) {
    try {
      f.token_ids(field);
    } catch (const attn::Error& e) {
      CHECK(e.code() == attn::ErrorCode::invalid_field);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("empty") == "empty must be one sequence: a list of 1 to n_positions token ids");
  CHECK(message("nested") == "nested[0] must be a token id (an integer >= 0)");
  CHECK(message("negative") == "negative[1] must be a token id (an integer >= 0)");
  CHECK(message("fraction") == "fraction[0] must be a token id (an integer >= 0)");
  CHECK(message("huge") == "huge[0] must be a token id (an integer >= 0)");
  CHECK(message("wrapped") == "wrapped[0] must be a token id (an integer >= 0)");
  Json long_list = Json::object();
  long_list["tokens"] = std::vector<int>(4097, 1);
  CHECK_ATTN_ERROR(attn::Fields(long_list, "test case").token_ids("tokens"), attn::ErrorCode::invalid_field);
  long_list["tokens"] = std::vector<int>(4096, 1);
  CHECK(attn::Fields(long_list, "test case").token_ids("tokens").size() == 4096);
}

TEST_CASE("json ops: a null required field is missing in every op", "[json]") {
  CHECK(error_code(R"({"op":"attention","query":null,"key":[[1]],"value":[[1]]})") == "missing_field");
  CHECK(error_code(R"({"op":"self_attention","x":null,"w_q":[[1]],"w_k":[[1]],"w_v":[[1]]})") == "missing_field");
  CHECK(error_code(R"({"op":"multi_head","heads":null,"x":[[1]],"w_q":[[1]],"w_k":[[1]],"w_v":[[1]]})") ==
        "missing_field");
  CHECK(error_code(R"({"op":null})") == "missing_field");
  CHECK(error_code(R"({"op":"attribution","weights":null,"value":[[1]]})") == "missing_field");
}

TEST_CASE("json ops: unknown_op lists every op of the table", "[json]") {
  const Json out = attn::run_case_text(R"({"op":"no_such_op"})");
  const std::string msg = out.at("error").at("message").get<std::string>();
  for (const attn::OpSpec& op : attn::op_table()) CHECK(msg.find(op.name) != std::string::npos);
  CHECK(attn::op_table().size() == attn::core_ops().size() + attn::lesson_ops().size() + attn::learn_ops().size() +
                                           attn::model_file_ops().size() + attn::tokenize_ops().size());
}

TEST_CASE("json: mask.half_width and its former spelling mask.window give the same result", "[json]") {
  const std::string qkv = R"("query":[[1,0],[0,1],[1,1],[0,0]],"key":[[1,0],[0,1],[1,1],[0,0]],"value":[[1],[2],[3],[4]])";
  const Json a = attn::run_case_text(R"({"op":"attention",)" + qkv + R"(,"mask":{"half_width":1}})");
  const Json b = attn::run_case_text(R"({"op":"attention",)" + qkv + R"(,"mask":{"window":1}})");
  REQUIRE_FALSE(a.contains("error"));
  CHECK(a.dump() == b.dump());
  CHECK(a.at("scores")[0][3].is_null());  // |0 − 3| > 1
  CHECK(error_code(R"({"op":"attention",)" + qkv + R"(,"mask":{"half_width":1,"window":1}})") == "invalid_field");
  CHECK(error_code(R"({"op":"attention",)" + qkv + R"(,"mask":{"window":-1}})") == "invalid_mask");
  CHECK(error_code(R"({"op":"attention",)" + qkv + R"(,"mask":{"half_width":-1}})") == "invalid_mask");
}

TEST_CASE("json: cost's causal_width and its former spelling window give the same result", "[json]") {
  const Json a = attn::run_case_text(R"({"op":"cost","t":64,"causal_width":16})");
  const Json b = attn::run_case_text(R"({"op":"cost","t":64,"window":16})");
  REQUIRE_FALSE(a.contains("error"));
  CHECK(a.dump() == b.dump());
  CHECK(a.dump() != attn::run_case_text(R"({"op":"cost","t":64,"causal_width":8})").dump());
  CHECK(error_code(R"({"op":"cost","t":64,"causal_width":16,"window":16})") == "invalid_field");
}
