// tests/lessons/test_masking.cpp — masking: causal prefix isolation, key padding, empty rows,
// top-left vs bottom-right causal masks.
//
// Model: the lesson's own (torch replica, seed 17, "The cat sat on the mat"); the expected outputs
// come from the naive std::exp reference of tests/support/support.hpp with the mask written as j <= i.
#include <lessons/masking_claims.hpp>
#include <lessons/torch_replica.hpp>

#include "support/support.hpp"

using namespace attn_test;

namespace {
std::vector<std::vector<bool>> lower_triangle(size_t t) {
  std::vector<std::vector<bool>> m(t, std::vector<bool>(t));
  for (size_t i = 0; i < t; ++i)
    for (size_t j = 0; j < t; ++j) m[i][j] = j <= i;
  return m;
}
}  // namespace

TEST_CASE("prefix isolation: causal outputs 0..2 exactly unchanged after +100 on positions 3..", "[lesson][masking]") {
  const attn::LessonReplica m = attn::lesson_replica();
  const attn::PrefixIsolationResult r = attn::prefix_isolation(m.x, m.weights, 3, 100.0);
  // The perturbation itself: rows >= 3 are x + 100, rows < 3 untouched.
  Matrix expect_x = m.x;
  for (Index i = 3; i < 6; ++i) expect_x.row(i).array() += 100.0;
  CHECK(max_diff(r.x_changed, expect_x) == 0.0);
  // Claim: bit-identical prefix under the causal mask (the script uses atol 1e-12; we measure 0).
  CHECK(r.causal_prefix_change == 0.0);
  for (size_t i = 0; i < 3; ++i) CHECK(r.causal_row_change[i] == 0.0);
  // Negative control: unmasked outputs of the prefix move (the script's `leaky`).
  CHECK(r.unmasked_prefix_change > 1e-3);
  // The future rows themselves do change under the mask.
  CHECK(r.causal_row_change[3] > 0.0);
  // Outputs against the naive causal reference.
  const Matrix q = naive_matmul(m.x, m.weights.w_q), k = naive_matmul(m.x, m.weights.w_k),
               v = naive_matmul(m.x, m.weights.w_v);
  CHECK(max_diff(r.causal_output, naive_attention(q, k, v, lower_triangle(6)).output) < 1e-12);
  CHECK(max_diff(r.unmasked_output, naive_attention(q, k, v).output) < 1e-12);
  CHECK_ALL_PASS(r.checks);
}

TEST_CASE("prefix isolation: bad from and amount are refused with their codes", "[lesson][masking][errors]") {
  const attn::LessonReplica m = attn::lesson_replica();
  CHECK_ATTN_ERROR(attn::prefix_isolation(m.x, m.weights, 0, 100.0), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::prefix_isolation(m.x, m.weights, 6, 100.0), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::prefix_isolation(m.x, m.weights, 3, NAN), attn::ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::prefix_isolation(Matrix(0, 8), m.weights, 3, 1.0), attn::ErrorCode::empty_sequence);
  // amount 0: the control cannot move, and the check says so (data, not an error).
  const attn::PrefixIsolationResult still = attn::prefix_isolation(m.x, m.weights, 3, 0.0);
  CHECK(still.unmasked_prefix_change == 0.0);
  CHECK_FALSE(still.checks[1].pass);
}

TEST_CASE("key padding: padded keys get weight exactly 0 and padded query rows still have outputs", "[lesson][masking]") {
  const attn::LessonReplica m = attn::lesson_replica();
  const std::vector<bool> valid = {true, true, true, true, false, false};
  const attn::KeyPaddingResult r = attn::key_padding_experiment(m.x, m.weights, valid, 100.0);
  for (Index i = 0; i < 6; ++i) {
    CHECK(r.attention.weights(i, 4) == 0.0);
    CHECK(r.attention.weights(i, 5) == 0.0);
  }
  CHECK(r.max_padded_weight == 0.0);
  // Changing the padded inputs by +100 leaves valid rows bit-identical (the script: atol 1e-12).
  CHECK(r.valid_rows_change == 0.0);
  // Padded query rows: outputs exist (a distribution over the valid keys), flagged for the loss.
  CHECK(r.ignored_by_loss == std::vector<bool>{false, false, false, false, true, true});
  CHECK(r.attention.output.row(4).cwiseAbs().maxCoeff() > 0.0);
  CHECK(r.padded_rows_change > 0.0);
  // Reference: every query sees keys 0..3.
  std::vector<std::vector<bool>> allowed(6, std::vector<bool>{true, true, true, true, false, false});
  const Matrix q = naive_matmul(m.x, m.weights.w_q), k = naive_matmul(m.x, m.weights.w_k),
               v = naive_matmul(m.x, m.weights.w_v);
  const Naive ref = naive_attention(q, k, v, allowed);
  CHECK(max_diff(r.attention.weights, ref.weights) < 1e-12);
  CHECK(max_diff(r.attention.output, ref.output) < 1e-12);
  CHECK_ALL_PASS(r.checks);
}

TEST_CASE("key padding: wrong flag count and no valid key are refused", "[lesson][masking][errors]") {
  const attn::LessonReplica m = attn::lesson_replica();
  CHECK_ATTN_ERROR(attn::key_padding_experiment(m.x, m.weights, {true, true}, 1.0), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::key_padding_experiment(m.x, m.weights, std::vector<bool>(6, false), 1.0),
             attn::ErrorCode::no_allowed_key);
}

TEST_CASE("all-masked row: refused with no_allowed_key by default and zero under the zero policy", "[lesson][masking]") {
  // The shared case empty-row-zero-policy: row 0 scores (1, 0)·(1/sqrt 2), so by hand
  // w00 = e^(1/sqrt2) / (e^(1/sqrt2) + 1), w01 = 1 − w00; output row 0 = w00·(1,2) + w01·(3,4).
  const Matrix q = M({{1, 0}, {0, 1}}), k = M({{1, 0}, {0, 1}}), v = M({{1, 2}, {3, 4}});
  attn::MaskSpec mask;
  attn::BoolMatrix allowed(2, 2);
  allowed << true, true, false, false;
  mask.allowed = allowed;
  const attn::EmptyRowDemo d = attn::empty_row_demo(q, k, v, mask);
  CHECK(d.rejected);
  CHECK(d.error_code == "no_allowed_key");
  CHECK(d.error_message.find("row 1") != std::string::npos);
  CHECK(d.empty_row == std::vector<bool>{false, true});
  const double e = std::exp(1.0 / std::sqrt(2.0)), w00 = e / (e + 1.0);
  CHECK(std::fabs(d.zero_policy.weights(0, 0) - w00) < 1e-15);
  CHECK(std::fabs(d.zero_policy.weights(0, 1) - (1.0 - w00)) < 1e-15);
  CHECK(std::fabs(d.zero_policy.output(0, 0) - (w00 * 1 + (1 - w00) * 3)) < 1e-14);
  CHECK(d.zero_policy.weights.row(1).cwiseAbs().maxCoeff() == 0.0);
  CHECK(d.zero_policy.output.row(1).cwiseAbs().maxCoeff() == 0.0);
  CHECK_ALL_PASS(d.checks);
  // No empty row: nothing refused.
  const attn::EmptyRowDemo ok = attn::empty_row_demo(q, k, v, {});
  CHECK_FALSE(ok.rejected);
  CHECK(ok.error_code.empty());
  CHECK_ALL_PASS(ok.checks);
  // Other errors are still thrown.
  CHECK_ATTN_ERROR(attn::empty_row_demo(q, M({{1, 0, 0}}), v, {}), attn::ErrorCode::shape_mismatch);
}

TEST_CASE("causal alignments: top-left vs bottom-right for Tq != Tk as data", "[lesson][masking]") {
  // By the definitions of the two causal alignments: top-left j <= i; bottom-right j <= i + Tk − Tq.
  const attn::CausalAlignmentTable a = attn::causal_alignments(2, 3);
  attn::BoolMatrix tl(2, 3), br(2, 3);
  tl << true, false, false, true, true, false;
  br << true, true, false, true, true, true;
  CHECK(a.top_left == tl);
  CHECK(a.bottom_right == br);
  CHECK(a.top_left_last_key == std::vector<long long>{0, 1});
  CHECK(a.bottom_right_last_key == std::vector<long long>{1, 2});
  CHECK(a.square_refused);
  CHECK(a.square_message.find("top_left") != std::string::npos);
  CHECK_ALL_PASS(a.checks);
  // Tq > Tk: bottom-right leaves the first Tq − Tk queries with no key (last key −1).
  const attn::CausalAlignmentTable b = attn::causal_alignments(3, 2);
  CHECK(b.bottom_right_last_key == std::vector<long long>{-1, 0, 1});
  CHECK(b.top_left_last_key == std::vector<long long>{0, 1, 1});
  // Tq = Tk: identical, and plain causal is accepted.
  const attn::CausalAlignmentTable c = attn::causal_alignments(4, 4);
  CHECK(c.top_left == c.bottom_right);
  CHECK_FALSE(c.square_refused);
  CHECK_ALL_PASS(c.checks);
  CHECK_ATTN_ERROR(attn::causal_alignments(0, 3), attn::ErrorCode::empty_sequence);
  CHECK_ATTN_ERROR(attn::causal_alignments(5000, 3), attn::ErrorCode::too_large);
}
