// tests/lessons/test_dropout.cpp — inverted attention dropout.
#include <lessons/dropout.hpp>
#include <json/json_lesson_ops.hpp>
#include <attn/random.hpp>
#include <lessons/torch_replica.hpp>

#include "support/support.hpp"

using namespace attn_test;

namespace {
struct Case {
  attn::AttentionResult r;
  Matrix v;
};
Case lesson_case() {
  const attn::LessonReplica m = attn::lesson_replica();
  return {m.attention.attention, m.attention.value};
}
}  // namespace

TEST_CASE("dropout: p = 0 is bit-identical to no dropout", "[lesson][dropout]") {
  const Case c = lesson_case();
  const attn::AttentionDropout d = attn::apply_attention_dropout(c.r, c.v, 0.0, 17);
  CHECK(d.keep.all());
  CHECK(max_diff(d.dropped_weights, c.r.weights) == 0.0);
  CHECK(max_diff(d.output_dropped, c.r.output) == 0.0);
  CHECK_ALL_PASS(d.checks);
}

TEST_CASE("dropout: p = 1 gives zeros without dividing by zero", "[lesson][dropout]") {
  const Case c = lesson_case();
  const attn::AttentionDropout d = attn::apply_attention_dropout(c.r, c.v, 1.0, 17);
  CHECK_FALSE(d.keep.any());
  CHECK(d.dropped_weights.allFinite());
  CHECK(d.dropped_weights.cwiseAbs().maxCoeff() == 0.0);
  CHECK(d.output_dropped.cwiseAbs().maxCoeff() == 0.0);
  for (double s : d.row_sums) CHECK(s == 0.0);
  CHECK_ALL_PASS(d.checks);
}

TEST_CASE("dropout: p = 0.5 keep mask replayed from Rng - scaled by 2 - rows no longer sum to 1", "[lesson][dropout]") {
  const Case c = lesson_case();
  const attn::AttentionDropout d = attn::apply_attention_dropout(c.r, c.v, 0.5, 17);
  // Independent replay: one uniform01 per entry, row-major, keep iff u >= p.
  attn::Rng rng(17);
  Matrix expect_dropped = Matrix::Zero(6, 6);
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 6; ++j) {
      const bool keep = rng.uniform01() >= 0.5;
      CHECK(d.keep(i, j) == keep);
      if (keep) expect_dropped(i, j) = c.r.weights(i, j) * 2.0;
    }
  CHECK(max_diff(d.dropped_weights, expect_dropped) == 0.0);
  CHECK(max_diff(d.output_dropped, naive_matmul(expect_dropped, c.v)) < 1e-14);
  // Returned (pre-dropout) weights still sum to 1; the sampled rows do not.
  for (Index i = 0; i < 6; ++i) CHECK(std::fabs(c.r.weights.row(i).sum() - 1.0) < 1e-15);
  double worst = 0.0;
  for (double s : d.row_sums) worst = std::max(worst, std::fabs(s - 1.0));
  CHECK(worst > 1e-3);
  CHECK_ALL_PASS(d.checks);
  // Same seed, same mask; another seed, another mask.
  CHECK(attn::apply_attention_dropout(c.r, c.v, 0.5, 17).keep == d.keep);
  CHECK_FALSE(attn::apply_attention_dropout(c.r, c.v, 0.5, 18).keep == d.keep);
}

TEST_CASE("dropout: inverted scaling keeps the expected weights - E of dropped = weights", "[lesson][dropout]") {
  // E[keep/(1−p)] = 1; the mean over N seeds has standard error w·sqrt(p/((1−p)N)). 5 SE margin.
  const Case c = lesson_case();
  const double p = 0.3;
  const int n = 2000;
  Matrix sum = Matrix::Zero(6, 6);
  for (int s = 0; s < n; ++s) sum += attn::apply_attention_dropout(c.r, c.v, p, static_cast<std::uint64_t>(s)).dropped_weights;
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 6; ++j) {
      const double w = c.r.weights(i, j), se = w * std::sqrt(p / ((1 - p) * n));
      CHECK(std::fabs(sum(i, j) / n - w) <= 5 * se);
    }
}

TEST_CASE("dropout: bad p and shapes are refused with their codes", "[lesson][dropout][errors]") {
  const Case c = lesson_case();
  CHECK_ATTN_ERROR(attn::apply_attention_dropout(c.r, c.v, -0.1, 1), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::apply_attention_dropout(c.r, c.v, 1.5, 1), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::apply_attention_dropout(c.r, c.v, NAN, 1), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::apply_attention_dropout(c.r, c.v.topRows(5), 0.5, 1), attn::ErrorCode::shape_mismatch);
}

TEST_CASE("dropout: the attention-op wiring adds dropout_keep and dropped_weights", "[lesson][dropout][json]") {
  const Case c = lesson_case();
  attn::Json out = {{"output", 0}};
  attn::add_attention_dropout(attn::Json{{"op", "attention"}}, c.r, c.v, out);
  CHECK(out.size() == 1);  // no "dropout": untouched
  attn::add_attention_dropout(attn::Json{{"op", "attention"}, {"dropout", {{"p", 0.5}, {"seed", 17}}}}, c.r, c.v, out);
  const attn::AttentionDropout d = attn::apply_attention_dropout(c.r, c.v, 0.5, 17);
  REQUIRE(out.contains("dropout_keep"));
  CHECK(out["dropout_keep"][0][0].get<bool>() == d.keep(0, 0));
  CHECK(out["dropped_weights"][2][3].get<double>() == d.dropped_weights(2, 3));
  CHECK(out.contains("output_dropped"));
  CHECK(out.contains("dropout_row_sums"));
  attn::Json bad;
  CHECK_ATTN_ERROR(attn::add_attention_dropout(attn::Json{{"dropout", 0.5}}, c.r, c.v, bad), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::add_attention_dropout(attn::Json{{"dropout", {{"seed", 1}}}}, c.r, c.v, bad), attn::ErrorCode::missing_field);
  CHECK_ATTN_ERROR(attn::add_attention_dropout(attn::Json{{"dropout", {{"p", 2}}}}, c.r, c.v, bad), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::add_attention_dropout(attn::Json{{"dropout", {{"p", 0.1}, {"seed", -1}}}}, c.r, c.v, bad),
             attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::add_attention_dropout(attn::Json{{"dropout", {{"p", 0.1}, {"rate", 1}}}}, c.r, c.v, bad),
             attn::ErrorCode::invalid_field);
}
