// tests/lessons/test_attribution.cpp — attribution: weight vs contribution, interventions.
#include <lessons/attribution.hpp>
#include <json/lesson_json.hpp>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("attribution: the lesson's counterexample 0.99 on a zero value gives (0.1 - 0.2)", "[lesson][attribution]") {
  const attn::AttributionResult r = attn::attribution_counterexample();
  // By hand: 0.99·(0,0) + 0.01·(10,20) = (0.1, 0.2).
  CHECK(std::fabs(r.output(0) - 0.1) < 1e-15);
  CHECK(std::fabs(r.output(1) - 0.2) < 1e-15);
  CHECK(r.contributions.row(0).cwiseAbs().maxCoeff() == 0.0);
  CHECK(r.contribution_norms(0) == 0.0);
  // ||0.01·(10,20)|| = ||(0.1,0.2)|| = sqrt(0.05).
  CHECK(std::fabs(r.contribution_norms(1) - std::sqrt(0.05)) < 1e-15);
  CHECK(r.top_weight_key == 0);
  CHECK(r.top_contribution_key == 1);
  // Zero value 0: nothing changes; zero value 1: the output drops to (0,0), change sqrt(0.05).
  CHECK(r.zero_value_change(0) == 0.0);
  CHECK(std::fabs(r.zero_value_change(1) - std::sqrt(0.05)) < 1e-15);
  // Remove key 0: the rest renormalises to weight 1 on (10,20): change ||(9.9, 19.8)|| = 9.9·sqrt(5).
  CHECK(std::fabs(r.remove_key_change(0) - 9.9 * std::sqrt(5.0)) < 1e-12);
  // Remove key 1: weight 1 on (0,0): change sqrt(0.05).
  CHECK(std::fabs(r.remove_key_change(1) - std::sqrt(0.05)) < 1e-15);
  CHECK_ALL_PASS(r.checks);
  CHECK(r.checks.size() == 4);
}

TEST_CASE("attribution: three keys by hand - interventions next to the weights", "[lesson][attribution]") {
  // a = (0.5, 0.3, 0.2), v = (2,0), (0,10), (1,1): o = (1 + 0.2, 3 + 0.2) = (1.2, 3.2).
  const attn::AttributionResult r = attn::attribution(V({0.5, 0.3, 0.2}), M({{2, 0}, {0, 10}, {1, 1}}));
  CHECK(max_diff(r.output, V({1.2, 3.2})) < 1e-15);
  CHECK(std::fabs(r.contribution_norms(0) - 1.0) < 1e-15);                 // ||(1, 0)||
  CHECK(std::fabs(r.contribution_norms(1) - 3.0) < 1e-15);                 // ||(0, 3)||
  CHECK(std::fabs(r.contribution_norms(2) - 0.2 * std::sqrt(2.0)) < 1e-15);// ||(0.2, 0.2)||
  CHECK(r.top_weight_key == 0);
  CHECK(r.top_contribution_key == 1);  // a smaller weight, the larger contribution
  // Remove key 1: (0.5·(2,0) + 0.2·(1,1)) / 0.7 = (1.2, 0.2)/0.7; change from (1.2, 3.2).
  const double rx = 1.2 / 0.7 - 1.2, ry = 0.2 / 0.7 - 3.2;
  CHECK(std::fabs(r.remove_key_change(1) - std::sqrt(rx * rx + ry * ry)) < 1e-14);
  CHECK(r.remove_key_possible == std::vector<bool>{true, true, true});
}

TEST_CASE("attribution: a single key cannot be removed and serialises as null", "[lesson][attribution]") {
  const attn::AttributionResult r = attn::attribution(V({1.0}), M({{3, 4}}));
  CHECK(std::fabs(r.contribution_norms(0) - 5.0) < 1e-15);
  CHECK_FALSE(r.remove_key_possible[0]);
  CHECK(std::isnan(r.remove_key_change(0)));
  const attn::Json j = attn::to_json(r);
  CHECK(j["remove_key_change"][0].is_null());
  CHECK(j["zero_value_change"][0].get<double>() == 5.0);
}

TEST_CASE("attribution: rows that are not distributions are refused with their codes", "[lesson][attribution][errors]") {
  const Matrix v = M({{0, 0}, {10, 20}});
  CHECK_ATTN_ERROR(attn::attribution(V({1.1, -0.1}), v), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::attribution(V({0.5, 0.4}), v), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::attribution(V({1.0}), v), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::attribution(V({NAN, 1.0}), v), attn::ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::attribution(V({0.5, 0.5}), M({{0, 0}, {INFINITY, 1}})), attn::ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::attribution(Vector(0), Matrix(0, 2)), attn::ErrorCode::empty_sequence);
}
