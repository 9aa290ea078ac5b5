// tests/attn/test_errors.cpp — every attn::ErrorCode the core raises, with the exact code.
#include <attn/attention.hpp>
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/random_heads.hpp>
#include <json/json_case.hpp>
#include <attn/linalg.hpp>
#include <attn/positions.hpp>

#include "support/support.hpp"

using namespace attn_test;
using attn::ErrorCode;

namespace {
const Matrix q2 = (Matrix(1, 2) << 1, 0).finished();
const Matrix k2 = (Matrix(2, 2) << 1, 0, 0, 1).finished();
const Matrix v2 = (Matrix(2, 1) << 1, 2).finished();

attn::AttentionResult run(const Matrix& q, const Matrix& k, const Matrix& v, double scale) {
  attn::AttentionOptions o;
  o.scale = scale;
  return attn::attention(q, k, v, {}, o);
}

// run_case_text must not throw; it returns {"error":{code,message}} and ok=false.
void check_json_error(const std::string& text, const char* code) {
  INFO("input: " << text);
  bool ok = true;
  attn::Json out;
  REQUIRE_NOTHROW(out = attn::run_case_text(text, &ok));
  INFO("output: " << out.dump());
  CHECK_FALSE(ok);
  REQUIRE(out.contains("error"));
  REQUIRE(out["error"].is_object());
  CHECK(out["error"].value("code", std::string()) == code);
  REQUIRE(out["error"].contains("message"));
  CHECK(out["error"]["message"].is_string());
  CHECK_FALSE(out["error"]["message"].get<std::string>().empty());
  CHECK(out.size() == 1);
}

const std::string Q = R"("query":[[1,0]],"key":[[1,0],[0,1]],"value":[[1],[2]])";
}  // namespace

TEST_CASE("errors: code names are stable strings", "[errors]") {
  // The contract's names, in the order error.hpp declares the codes.
  const char* const names[] = {"invalid_json",   "unknown_op",     "missing_field",
                               "invalid_field",  "empty_sequence", "shape_mismatch",
                               "non_finite",     "no_allowed_key", "causal_alignment_required",
                               "invalid_scale",  "invalid_mask",   "too_large"};
  static_assert(sizeof names / sizeof names[0] == static_cast<std::size_t>(ErrorCode::too_large) + 1,
                "one name per code");
  for (std::size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const ErrorCode code = static_cast<ErrorCode>(i);
    CHECK(std::string(attn::code_name(code)) == names[i]);
    const attn::Error e(code, "msg");
    CHECK(e.code() == code);
    CHECK(std::string(e.what()) == "msg");
  }
  const attn::Json j = attn::error_json(attn::Error(ErrorCode::shape_mismatch, "key is 1x3"));
  CHECK(j == attn::Json::parse(R"({"error":{"code":"shape_mismatch","message":"key is 1x3"}})"));
}

TEST_CASE("errors: attention shape_mismatch", "[errors]") {
  CHECK_ATTN_ERROR(attn::attention(M({{1, 0}}), M({{1, 0, 0}}), M({{1}})), ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::attention(q2, k2, M({{1}, {2}, {3}})), ErrorCode::shape_mismatch);
  attn::MaskSpec kv;
  kv.key_valid = std::vector<bool>{true, true, true};  // key_valid wrong length (Tk = 2)
  CHECK_ATTN_ERROR(attn::attention(q2, k2, v2, kv), ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::attention_with_allowed(q2, k2, v2, attn::BoolMatrix::Constant(2, 2, true)),
                   ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::matmul(M({{1, 2}}), M({{1, 2}})), ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::max_abs_diff(M({{1, 2}}), M({{1}, {2}})), ErrorCode::shape_mismatch);
}

TEST_CASE("errors: attention non_finite", "[errors]") {
  CHECK_ATTN_ERROR(attn::attention(M({{std::nan(""), 0}}), k2, v2), ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::attention(q2, M({{1, 0}, {INFINITY, 1}}), v2), ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::attention(q2, k2, M({{1}, {-INFINITY}})), ErrorCode::non_finite);
  // NaN in a masked key is still bad input (masks exclude keys from the math, not from validation).
  attn::MaskSpec kv;
  kv.key_valid = std::vector<bool>{true, false};
  CHECK_ATTN_ERROR(attn::attention(q2, M({{1, 0}, {std::nan(""), 0}}), v2, kv), ErrorCode::non_finite);
  // A finite score overflowing: 1e200 · 1e200 -> inf.
  CHECK_ATTN_ERROR(attn::attention(M({{1e200}}), M({{1e200}}), M({{1}})), ErrorCode::non_finite);
}

TEST_CASE("errors: attention empty_sequence", "[errors]") {
  CHECK_ATTN_ERROR(attn::attention(Matrix(0, 2), k2, v2), ErrorCode::empty_sequence);   // Tq = 0
  CHECK_ATTN_ERROR(attn::attention(q2, Matrix(0, 2), Matrix(0, 1)), ErrorCode::empty_sequence);  // Tk = 0
  CHECK_ATTN_ERROR(attn::attention(Matrix(1, 0), Matrix(2, 0), v2), ErrorCode::empty_sequence);  // d_k = 0
  CHECK_ATTN_ERROR(attn::attention(q2, k2, Matrix(2, 0)), ErrorCode::empty_sequence);   // d_v = 0
  CHECK_ATTN_ERROR(attn::sinusoidal_positions(0, 4), ErrorCode::empty_sequence);
  CHECK_ATTN_ERROR(attn::sinusoidal_positions(4, 0), ErrorCode::empty_sequence);
}

TEST_CASE("errors: attention invalid_scale", "[errors]") {
  CHECK_ATTN_ERROR(run(q2, k2, v2, 0.0), ErrorCode::invalid_scale);
  CHECK_ATTN_ERROR(run(q2, k2, v2, -1.0), ErrorCode::invalid_scale);
  CHECK_ATTN_ERROR(run(q2, k2, v2, std::nan("")), ErrorCode::invalid_scale);
  CHECK_ATTN_ERROR(run(q2, k2, v2, INFINITY), ErrorCode::invalid_scale);
  CHECK_ATTN_ERROR(run(q2, k2, v2, -0.0), ErrorCode::invalid_scale);
  CHECK_NOTHROW(run(q2, k2, v2, 1e-300));
}

TEST_CASE("errors: masks no_allowed_key invalid_mask causal_alignment_required", "[errors]") {
  attn::MaskSpec none;
  none.key_valid = std::vector<bool>{false, false};
  CHECK_ATTN_ERROR(attn::attention(q2, k2, v2, none), ErrorCode::no_allowed_key);
  attn::MaskSpec win;
  win.half_width = -1;
  CHECK_ATTN_ERROR(attn::attention(q2, k2, v2, win), ErrorCode::invalid_mask);
  attn::MaskSpec causal;
  causal.causal = attn::Causal::square;
  CHECK_ATTN_ERROR(attn::attention(q2, k2, v2, causal), ErrorCode::causal_alignment_required);  // 1x2
}

TEST_CASE("errors: too_large", "[errors]") {
  // Limits from linalg.hpp: Tq, Tk <= 4096, widths <= 4096, Tq·Tk <= 4096·1024.
  REQUIRE(attn::kMaxTokens == 4096);
  REQUIRE(attn::kMaxPairs == 4096 * 1024);
  CHECK_ATTN_ERROR(attn::attention(Matrix::Zero(4097, 1), Matrix::Zero(1, 1), Matrix::Zero(1, 1)),
                   ErrorCode::too_large);
  CHECK_ATTN_ERROR(attn::attention(Matrix::Zero(1, 4097), Matrix::Zero(1, 4097), Matrix::Zero(1, 1)),
                   ErrorCode::too_large);
  // Tq = 2048, Tk = 2049: each within the token limit, but 4,196,352 pairs > 4,194,304.
  CHECK_ATTN_ERROR(attn::attention(Matrix::Zero(2048, 1), Matrix::Zero(2049, 1), Matrix::Zero(2049, 1)),
                   ErrorCode::too_large);
  CHECK_ATTN_ERROR(attn::sinusoidal_positions(4097, 2), ErrorCode::too_large);
  attn::RandomHeadsInput in;
  in.sentence.clear();
  for (int i = 0; i < attn::kMaxHeadsTokens + 1; ++i) in.sentence += "w ";
  CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::too_large);
}

TEST_CASE("errors: JSON level codes through run_case_text", "[errors][json]") {
  SECTION("invalid_json") {
    check_json_error("{", "invalid_json");
    check_json_error("", "invalid_json");
    check_json_error("not json", "invalid_json");
    check_json_error("[1, 2]", "invalid_json");  // not an object
    check_json_error("{\"op\":\"attention\"} trailing", "invalid_json");
  }
  SECTION("unknown_op") {
    check_json_error(R"({"op":"softmax_everything"})", "unknown_op");
  }
  SECTION("missing_field") {
    check_json_error(R"({"query":[[1]],"key":[[1]],"value":[[1]]})", "missing_field");  // no op
    check_json_error(R"({"op":"attention","query":[[1]],"key":[[1]]})", "missing_field");  // no value
    check_json_error(R"({"op":"self_attention","x":[[1]],"w_q":[[1]],"w_k":[[1]]})", "missing_field");
    check_json_error(R"({"op":"multi_head","x":[[1,2]],"w_q":[[1,0],[0,1]],"w_k":[[1,0],[0,1]],"w_v":[[1,0],[0,1]]})",
                     "missing_field");  // no heads
  }
  SECTION("invalid_field") {
    check_json_error(R"({"op":"attention","query":"abc","key":[[1]],"value":[[1]]})", "invalid_field");
    check_json_error(R"({"op":"attention","query":[[1,"x"]],"key":[[1,0]],"value":[[1]]})", "invalid_field");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"empty_rows\":\"maybe\"}", "invalid_field");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"scale\":\"big\"}", "invalid_field");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"key_valid\":[1,0]}}", "invalid_field");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"causal\":\"diagonal\"}}", "invalid_field");
    check_json_error(R"({"op":"multi_head","heads":3,"x":[[1,2]],"w_q":[[1,0],[0,1]],"w_k":[[1,0],[0,1]],"w_v":[[1,0],[0,1]]})",
                     "invalid_field");  // heads not dividing 2
    check_json_error(R"({"op":"multi_head","heads":0,"x":[[1,2]],"w_q":[[1,0],[0,1]],"w_k":[[1,0],[0,1]],"w_v":[[1,0],[0,1]]})",
                     "invalid_field");
    check_json_error(R"({"op":42})", "invalid_field");
  }
  SECTION("attention-level codes come back through JSON too") {
    check_json_error(R"({"op":"attention","query":[[1,0]],"key":[[1,0,0]],"value":[[1]]})", "shape_mismatch");
    check_json_error(R"({"op":"attention","query":[[1],[2]],"key":[[1],[2],[3]],"value":[[1],[2]]})", "shape_mismatch");
    check_json_error(R"({"op":"attention","query":[[1,0],[1]],"key":[[1,0]],"value":[[1]]})", "shape_mismatch");  // ragged
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"key_valid\":[true]}}", "shape_mismatch");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"allowed\":[[true],[true]]}}", "shape_mismatch");
    check_json_error(R"({"op":"attention","query":[],"key":[[1]],"value":[[1]]})", "empty_sequence");
    check_json_error(R"({"op":"attention","query":[[]],"key":[[1]],"value":[[1]]})", "empty_sequence");
    check_json_error(R"({"op":"attention","query":[[1e200]],"key":[[1e200]],"value":[[1]]})", "non_finite");
    // A literal beyond the double range is not silently made infinite or clipped.
    check_json_error(R"({"op":"attention","query":[[1e400]],"key":[[1]],"value":[[1]]})", "non_finite");
    check_json_error(R"({"op":"attention","query":[[1]],"key":[[1]],"value":[[-1e400]]})", "non_finite");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"scale\":0}", "invalid_scale");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"scale\":-2}", "invalid_scale");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"window\":-1}}", "invalid_mask");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"causal\":true}}", "causal_alignment_required");
    check_json_error("{\"op\":\"attention\"," + Q + ",\"mask\":{\"key_valid\":[false,false]}}", "no_allowed_key");
  }
  SECTION("too_large through JSON") {
    std::string rows = "[";
    for (int i = 0; i < 4097; ++i) rows += (i ? ",[0]" : "[0]");
    rows += "]";
    check_json_error("{\"op\":\"attention\",\"query\":" + rows + ",\"key\":[[1]],\"value\":[[1]]}", "too_large");
  }
}

TEST_CASE("errors: deeply nested JSON is an error not a crash", "[errors][json]") {
  // "Bad input never crashes the page": a 100000-deep array overflowed the stack natively (and
  // "Maximum call stack size exceeded" under node) while the error message serialised it. The
  // contract now refuses nesting deeper than 16 levels before parsing: invalid_json.
  const int depth = 100000;
  const std::string nested = std::string(depth, '[') + std::string(depth, ']');
  check_json_error(R"({"op":"attention","query":[[)" + nested + R"(]],"key":[[1]],"value":[[1]]})", "invalid_json");
  check_json_error(R"({"op":"attention","query":)" + nested + R"(,"key":[[1]],"value":[[1]]})", "invalid_json");
  // A shallow wrong-typed entry is still invalid_field.
  check_json_error(R"({"op":"attention","query":[[[[1]]]],"key":[[1]],"value":[[1]]})", "invalid_field");
  check_json_error(nested, "invalid_json");  // not an object
}

TEST_CASE("errors: a huge but non-negative window is not reported as negative", "[errors][json][masks]") {
  // 18446744073709551615 (2^64 - 1) is a non-negative integer; |i - j| <= w holds for every pair,
  // so the answer is the unmasked one. (It came back as invalid_mask "got -1": the unsigned JSON
  // integer was converted to long long and wrapped.)
  const std::string base = R"("op":"attention","query":[[1],[2]],"key":[[1],[2]],"value":[[1],[2]])";
  bool ok = false;
  const attn::Json plain = attn::run_case_text("{" + base + "}", &ok);
  REQUIRE(ok);
  const attn::Json wide = attn::run_case_text("{" + base + R"(,"mask":{"window":18446744073709551615}})", &ok);
  INFO("output: " << wide.dump());
  CHECK(ok);
  CHECK(wide.value("output", attn::Json()) == plain.at("output"));
}

TEST_CASE("errors: experiment inputs", "[errors][experiments]") {
  attn::RandomHeadsInput in;
  SECTION("random_heads") {
    in.heads = 9;
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::invalid_field);
    in.heads = 0;
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::invalid_field);
    in.heads = 2;
    in.valid_length = 7;  // 6 tokens
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::invalid_field);
    in.valid_length = 0;  // documented range 1..T (-1 = no padding)
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::invalid_field);
    in.valid_length = -2;  // neither -1 nor 1..T
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::invalid_field);
    in.valid_length = -1;
    in.d_model = 0;
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::invalid_field);
    in.d_model = 8;
    in.sentence = "  \t ";
    CHECK_ATTN_ERROR(attn::random_heads(in), ErrorCode::empty_sequence);
  }
  SECTION("permutation_experiment") {
    attn::PermutationInput p;
    p.permutation = {0, 1, 2, 3, 4};  // 6 tokens
    CHECK_ATTN_ERROR(attn::permutation_experiment(p), ErrorCode::invalid_field);
    p.permutation = {0, 1, 2, 3, 4, 4};
    CHECK_ATTN_ERROR(attn::permutation_experiment(p), ErrorCode::invalid_field);
    p.permutation = {0, 1, 2, 3, 4, 6};
    CHECK_ATTN_ERROR(attn::permutation_experiment(p), ErrorCode::invalid_field);
    p.permutation = {0, 1, 2, 3, 4, -1};
    CHECK_ATTN_ERROR(attn::permutation_experiment(p), ErrorCode::invalid_field);
    p.permutation = {2, 0, 5, 1, 4, 3};
    p.query = 6;
    CHECK_ATTN_ERROR(attn::permutation_experiment(p), ErrorCode::invalid_field);
    p.query = 0;
    p.sentence = "";
    p.permutation = {};
    CHECK_ATTN_ERROR(attn::permutation_experiment(p), ErrorCode::empty_sequence);
  }
  SECTION("alignment_read") {
    const Matrix values = M({{1, 0}, {0, 1}});
    CHECK_ATTN_ERROR(attn::alignment_read({"a"}, {"x", "y"}, M({{1.2, -0.2}}), values), ErrorCode::invalid_field);
    CHECK_ATTN_ERROR(attn::alignment_read({"a"}, {"x", "y"}, M({{0.5, 0.6}}), values), ErrorCode::invalid_field);
    CHECK_ATTN_ERROR(attn::alignment_read({"a"}, {"x", "y"}, M({{0.5, 0.5}}), M({{1, 0}})), ErrorCode::shape_mismatch);
    CHECK_ATTN_ERROR(attn::alignment_read({"a", "b"}, {"x", "y"}, M({{0.5, 0.5}}), values), ErrorCode::shape_mismatch);
    CHECK_ATTN_ERROR(attn::alignment_read({"a"}, {"x", "y"}, M({{0.5, 0.5}}), M({{1, 0}, {NAN, 1}})), ErrorCode::non_finite);
  }
}
