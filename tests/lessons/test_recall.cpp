// tests/lessons/test_recall.cpp — recall: "check yourself" tasks and their checker.
#include <lessons/recall.hpp>

#include <set>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("recall: tasks cover every panel with unique ids", "[lesson][recall]") {
  const std::vector<attn::RecallTask> tasks = attn::recall_tasks();
  std::set<std::string> ids, panels;
  for (const attn::RecallTask& t : tasks) {
    CHECK(ids.insert(t.id).second);
    panels.insert(t.panel);
    if (t.kind == attn::RecallKind::predict) CHECK(t.choices.size() >= 2);
    else CHECK_FALSE(t.reads.empty());
  }
  CHECK(panels == std::set<std::string>{"alignment", "heads", "masking", "attribution", "scaling", "additive",
                                        "positions", "temperature", "dropout", "timing", "cost", "learned_heads",
                                        "translate"});
}

TEST_CASE("recall: predict tasks accept the answer the core computes", "[lesson][recall]") {
  // Expected answers from the lesson (each verified live by the checker):
  const std::vector<std::pair<std::string, int>> right = {
      {"masking.future_leak", 0}, {"scaling.variance", 2},  {"scaling.row_max", 0},     {"additive.padding", 0},
      {"positions.causal", 1},    {"positions.pooling", 0}, {"temperature.hull", 0},    {"temperature.gradient", 0},
      {"dropout.row_sums", 1},    {"timing.parallelism", 1}, {"learned_heads.generation_steps", 1},
      {"alignment.soft_lookup", 1}, {"heads.self_attention", 0}, {"cost.quadratic", 1}, {"cost.kv_cache_100k", 1}};
  for (const auto& [id, answer] : right) {
    attn::RecallAttempt a;
    a.choice = answer;
    const attn::RecallVerdict v = attn::check_recall(id, a);
    INFO(id << ": " << v.feedback);
    CHECK(v.pass);
    CHECK(v.task_id == id);
    a.choice = answer == 0 ? 1 : 0;
    CHECK_FALSE(attn::check_recall(id, a).pass);
  }
}

TEST_CASE("recall: make a row whose top weight contributes nothing", "[lesson][recall]") {
  attn::RecallAttempt a;
  a.weights = V({0.99, 0.01});
  a.values = M({{0, 0}, {10, 20}});
  attn::RecallVerdict v = attn::check_recall("attribution.zero_top", a);
  CHECK(v.pass);
  a.values = M({{1, 0}, {10, 20}});  // the top key contributes 0.99
  v = attn::check_recall("attribution.zero_top", a);
  CHECK_FALSE(v.pass);
  a.values = M({{0, 0}, {0, 0}});  // nothing contributes: the output is 0, not the point
  CHECK_FALSE(attn::check_recall("attribution.zero_top", a).pass);
  // Malformed attempts are failed verdicts with the core's message, not exceptions.
  a.weights = V({0.5, 0.2});
  v = attn::check_recall("attribution.zero_top", a);
  CHECK_FALSE(v.pass);
  CHECK(v.feedback.find("invalid_field") != std::string::npos);
}

TEST_CASE("recall: small weight with the biggest effect - and an all-masked row", "[lesson][recall]") {
  attn::RecallAttempt a;
  a.weights = V({0.95, 0.05});
  a.values = M({{0.1, 0}, {0, 100}});
  CHECK(attn::check_recall("attribution.small_weight_big_effect", a).pass);
  a.values = M({{10, 0}, {0, 1}});
  CHECK_FALSE(attn::check_recall("attribution.small_weight_big_effect", a).pass);
  attn::RecallAttempt m;
  m.query = M({{1, 0}, {0, 1}});
  m.key = M({{1, 0}, {0, 1}});
  m.value = M({{1, 2}, {3, 4}});
  CHECK_FALSE(attn::check_recall("masking.all_masked", m).pass);
  m.mask.key_valid = std::vector<bool>{false, false};
  const attn::RecallVerdict v = attn::check_recall("masking.all_masked", m);
  CHECK(v.pass);
  CHECK(v.feedback.find("no allowed key") != std::string::npos);
}

TEST_CASE("recall: unknown tasks - missing choices and fields are refused", "[lesson][recall][errors]") {
  attn::RecallAttempt a;
  CHECK_ATTN_ERROR(attn::check_recall("no.such.task", a), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::check_recall("scaling.variance", a), attn::ErrorCode::invalid_field);
  a.choice = 7;
  CHECK_ATTN_ERROR(attn::check_recall("scaling.variance", a), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::check_recall("attribution.zero_top", attn::RecallAttempt{}), attn::ErrorCode::missing_field);
}
