// tests/json/test_json_case.cpp — the JSON case contract in process (the CLI is tested by run_cases.mjs).
#include <json/json_case.hpp>

#include <cstring>
#include <limits>

#include "support/support.hpp"

using namespace attn_test;
using attn::Json;

namespace {
Json ok_case(const std::string& text) {
  bool ok = false;
  const Json out = attn::run_case_text(text, &ok);
  INFO("input: " << text << "\noutput: " << out.dump());
  REQUIRE(ok);
  REQUIRE_FALSE(out.contains("error"));
  return out;
}
Matrix mat(const Json& j) { return from_json_rows(j); }
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST_CASE("json: attention case returns output weights and scores with nulls", "[json]") {
  const Json out = ok_case(
      R"({"op":"attention","query":[[1],[2]],"key":[[1],[0],[-1]],"value":[[1],[2],[3]],)"
      R"("mask":{"causal":"top_left"}})");
  // Same hand values as the 2x3 top_left case: row 1 = softmax(2, 0) over keys 0, 1.
  const double e2 = std::exp(-2.0), w10 = 1 / (1 + e2), w11 = e2 / (1 + e2);
  CHECK_MATRIX_NEAR(mat(out.at("weights")), M({{1, 0, 0}, {w10, w11, 0}}), 1e-12);
  CHECK_MATRIX_NEAR(mat(out.at("output")), M({{1}, {w10 + 2 * w11}}), 1e-12);
  const Json& s = out.at("scores");
  REQUIRE(s.size() == 2);
  CHECK(s[0][0] == 1.0);
  CHECK(s[0][1].is_null());
  CHECK(s[0][2].is_null());
  CHECK(s[1][0] == 2.0);
  CHECK(s[1][1] == 0.0);
  CHECK(s[1][2].is_null());
}

TEST_CASE("json: mask parts scale and empty_rows are read", "[json]") {
  const Json out = ok_case(
      R"({"op":"attention","query":[[1,0],[0,1],[1,1]],"key":[[1,0],[0,1],[1,1]],"value":[[1],[2],[4]],)"
      R"("mask":{"causal":false,"key_valid":[true,true,false],"allowed":[[true,true,true],[false,false,true],[true,true,true]],"window":1},)"
      R"("scale":0.5,"empty_rows":"zero"})");
  // AND: row 0 keys {0,1}; row 1 {} (explicit blocks 0,1; padding blocks 2); row 2 keys {1} (window 1).
  const Matrix q = M({{1, 0}, {0, 1}, {1, 1}}), v = M({{1}, {2}, {4}});
  const Ref ref = ref_attention(q, q, v, {{true, true, false}, {false, false, false}, {false, true, false}}, 0.5);
  CHECK_MATRIX_NEAR(mat(out.at("weights")), ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(mat(out.at("output")), ref.output, 1e-12);
  CHECK(out.at("weights")[2][1] == 1.0);
}

TEST_CASE("json: self_attention returns the projections", "[json]") {
  const Json out = ok_case(
      R"({"op":"self_attention","x":[[1,2],[3,4],[5,6]],"w_q":[[1,0],[0,1]],"w_k":[[0.5,0],[0,0.5]],)"
      R"("w_v":[[1,1,0],[0,1,1]],"mask":{"causal":true}})");
  const Matrix x = M({{1, 2}, {3, 4}, {5, 6}});
  CHECK_MATRIX_NEAR(mat(out.at("query")), x, 0.0);
  CHECK_MATRIX_NEAR(mat(out.at("key")), 0.5 * x, 0.0);
  CHECK_MATRIX_NEAR(mat(out.at("value")), M({{1, 3, 2}, {3, 7, 4}, {5, 11, 6}}), 0.0);
  const Ref ref = ref_attention(x, 0.5 * x, M({{1, 3, 2}, {3, 7, 4}, {5, 11, 6}}), ref_causal(3, 3));
  CHECK_MATRIX_NEAR(mat(out.at("weights")), ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(mat(out.at("output")), ref.output, 1e-12);
}

TEST_CASE("json: multi_head returns concat and per-head weights", "[json][multi_head]") {
  const std::string text = attn_test::read_text("cases/multi-head-layout.json");
  const Json c = Json::parse(text);
  const Json out = ok_case(c.at("case").dump());
  CHECK_MATRIX_NEAR(mat(out.at("output")), M({{3, 4, 5, 6}, {3, 4, 5, 6}}), 1e-12);
  CHECK_MATRIX_NEAR(mat(out.at("concat")), M({{3, 4, 5, 6}, {3, 4, 5, 6}}), 1e-12);
  REQUIRE(out.at("weights").size() == 2);  // h × Tq × Tk
  for (const Json& h : out.at("weights")) CHECK_MATRIX_NEAR(mat(h), M({{0.5, 0.5}, {0.5, 0.5}}), 1e-15);

  SECTION("self-attention form with x") {
    const Json o2 = ok_case(
        R"({"op":"multi_head","heads":2,"x":[[1,2,3,4],[5,6,7,8]],"w_q":[[0,0,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,0]],)"
        R"("w_k":[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]],"w_v":[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]})");
    CHECK_MATRIX_NEAR(mat(o2.at("output")), M({{3, 4, 5, 6}, {3, 4, 5, 6}}), 1e-12);
  }
}

TEST_CASE("json: every shared case file passes in process", "[json][cases]") {
  // The same files run through the `attn` tool in CTest (run_cases.mjs); here through run_case_text.
  const char* names[] = {"causal-bottom-right-2x3", "causal-equal-scores", "causal-top-left-2x3",
                         "causal-true-needs-alignment", "dv-differs-from-dk", "empty-row-zero-policy",
                         "large-logits-no-overflow", "lesson-alignment-le-chat-noir",
                         "lesson-all-masked-rejected", "lesson-attribution-counterexample",
                         "multi-head-layout", "shape-mismatch"};
  for (const char* name : names) {
    INFO("case " << name);
    const Json c = load_json(std::string("cases/") + name + ".json");
    bool ok = false;
    const Json out = attn::run_case_text(c.at("case").dump(), &ok);
    INFO("output: " << out.dump());
    if (c.contains("expect_error")) {
      CHECK_FALSE(ok);
      CHECK(out.at("error").at("code") == c.at("expect_error"));
      continue;
    }
    REQUIRE(ok);
    const double tol = c.at("tolerance").get<double>();
    for (const auto& field : c.at("expect").items()) {
      INFO("field " << field.key());
      REQUIRE(out.contains(field.key()));
      CHECK_JSON_NEAR(out[field.key()], field.value(), tol);  // Tq×d or h×Tq×Tk
    }
  }
}

TEST_CASE("json: numbers round-trip exactly through dump", "[json]") {
  const double values[] = {0.1, 1.0 / 3.0, 0.1 + 0.2, 2.0 / 3.0, 1e-300, 5e-324, 2.2250738585072014e-308,
                           1.7976931348623157e308, -123456.78901234567, 0.6652409557748218,
                           std::exp(1.0), 9007199254740993.0, -1e-17};
  for (double x : values) {
    INFO("value " << fmt17(x));
    const std::string text = attn::dump(Json::array({x}));
    INFO("dumped as " << text);
    const Json back = Json::parse(text);
    CHECK(same_bits(back[0].get<double>(), x));
    // And strtod on the printed text (what node's JSON.parse does) agrees too.
    CHECK(same_bits(std::strtod(text.c_str() + 1, nullptr), x));
  }

  SECTION("a whole attention result survives dump and parse bit for bit") {
    const std::string text =
        R"({"op":"attention","query":[[0.1,0.7],[0.3,-0.2]],"key":[[0.5,0.25],[1e-3,3.5],[2,-1]],)"
        R"("value":[[0.1,0.2],[0.3,0.4],[0.5,0.6]]})";
    const Json direct = attn::run_case(Json::parse(text));
    const Json reparsed = Json::parse(attn::dump(direct));
    const Matrix a = mat(direct.at("output")), b = mat(reparsed.at("output"));
    for (Index i = 0; i < a.rows(); ++i)
      for (Index j = 0; j < a.cols(); ++j) CHECK(same_bits(a(i, j), b(i, j)));
    const Matrix wa = mat(direct.at("weights")), wb = mat(reparsed.at("weights"));
    for (Index i = 0; i < wa.rows(); ++i)
      for (Index j = 0; j < wa.cols(); ++j) CHECK(same_bits(wa(i, j), wb(i, j)));
  }
}

TEST_CASE("json: matrix_from_json and to_json", "[json]") {
  const Matrix m = attn::matrix_from_json(Json::parse("[[1,2.5],[3,-4]]"), "m");
  CHECK_MATRIX_NEAR(m, M({{1, 2.5}, {3, -4}}), 0.0);
  CHECK(attn::to_json(m) == Json::parse("[[1.0,2.5],[3.0,-4.0]]"));
  CHECK_ATTN_ERROR(attn::matrix_from_json(Json::parse("[[1,2],[3]]"), "m"), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::matrix_from_json(Json::parse("[[1,null]]"), "m"), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::matrix_from_json(Json::parse("{\"a\":1}"), "m"), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::matrix_from_json(Json::parse("[1,2]"), "m"), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::matrix_from_json(Json::parse("[]"), "m"), attn::ErrorCode::empty_sequence);
  attn::BoolMatrix allowed(1, 2);
  allowed << true, false;
  CHECK(attn::scores_to_json(M({{0.5, 99}}), allowed) == Json::parse("[[0.5,null]]"));
}
