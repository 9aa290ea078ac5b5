// tests/attn/test_masks.cpp — allowed masks (true = may attend), built by hand and compared.
#include <attn/attention.hpp>
#include <attn/masks.hpp>

#include "support/support.hpp"

using namespace attn_test;

namespace {
void check_mask(const attn::BoolMatrix& actual, const Mask& expected, const char* what) {
  INFO(what);
  REQUIRE(actual.rows() == static_cast<Index>(expected.size()));
  REQUIRE(actual.cols() == static_cast<Index>(expected[0].size()));
  for (Index i = 0; i < actual.rows(); ++i)
    for (Index j = 0; j < actual.cols(); ++j) {
      INFO("entry (" << i << "," << j << ")");
      CHECK(actual(i, j) == expected[static_cast<size_t>(i)][static_cast<size_t>(j)]);
    }
}
}  // namespace

TEST_CASE("masks: causal kinds", "[masks][causal]") {
  const bool T = true, F = false;
  check_mask(attn::causal_mask(3, 3, attn::Causal::square), {{T, F, F}, {T, T, F}, {T, T, T}}, "square 3x3");
  check_mask(attn::causal_mask(3, 3, attn::Causal::top_left), {{T, F, F}, {T, T, F}, {T, T, T}}, "top_left 3x3");
  check_mask(attn::causal_mask(3, 3, attn::Causal::bottom_right), {{T, F, F}, {T, T, F}, {T, T, T}},
             "bottom_right 3x3 (same as square)");
  check_mask(attn::causal_mask(2, 3, attn::Causal::top_left), {{T, F, F}, {T, T, F}}, "top_left 2x3");
  check_mask(attn::causal_mask(2, 3, attn::Causal::bottom_right), {{T, T, F}, {T, T, T}}, "bottom_right 2x3");
  // Decoding one new token with a cache of 3: the last query sees everything.
  check_mask(attn::causal_mask(1, 4, attn::Causal::bottom_right), {{T, T, T, T}}, "bottom_right 1x4");
  check_mask(attn::causal_mask(1, 4, attn::Causal::top_left), {{T, F, F, F}}, "top_left 1x4");
  // Tq > Tk bottom_right: the first Tq−Tk queries see no key (FlashAttention leaves them empty).
  check_mask(attn::causal_mask(3, 2, attn::Causal::bottom_right), {{F, F}, {T, F}, {T, T}}, "bottom_right 3x2");
  check_mask(attn::causal_mask(3, 2, attn::Causal::top_left), {{T, F}, {T, T}, {T, T}}, "top_left 3x2");
  check_mask(attn::causal_mask(2, 2, attn::Causal::none), {{T, T}, {T, T}}, "none");
  CHECK_ATTN_ERROR(attn::causal_mask(2, 3, attn::Causal::square), attn::ErrorCode::causal_alignment_required);
}

TEST_CASE("masks: window key padding and explicit", "[masks]") {
  const bool T = true, F = false;
  check_mask(attn::half_width_mask(4, 4, 1),
             {{T, T, F, F}, {T, T, T, F}, {F, T, T, T}, {F, F, T, T}}, "window 1 on 4x4");
  check_mask(attn::half_width_mask(3, 3, 0), {{T, F, F}, {F, T, F}, {F, F, T}}, "window 0 = diagonal");
  check_mask(attn::half_width_mask(2, 4, 2), {{T, T, T, F}, {T, T, T, T}}, "window 2 on 2x4");
  check_mask(attn::half_width_mask(2, 2, 100), {{T, T}, {T, T}}, "wide window");
  CHECK_ATTN_ERROR(attn::half_width_mask(2, 2, -1), attn::ErrorCode::invalid_mask);

  check_mask(attn::key_padding_mask(2, {true, false, true}), {{T, F, T}, {T, F, T}}, "key padding");

  attn::MaskSpec spec;
  CHECK(spec.empty());
  check_mask(attn::build_allowed(spec, 2, 3), {{T, T, T}, {T, T, T}}, "empty spec allows all");
  spec.allowed = to_bool_matrix({{F, T, T}, {T, F, T}});
  CHECK_FALSE(spec.empty());
  check_mask(attn::build_allowed(spec, 2, 3), {{F, T, T}, {T, F, T}}, "explicit");
}

TEST_CASE("masks: parts combine with AND", "[masks]") {
  // 4x4: causal AND key_valid (key 3 padding) AND window 1 AND explicit (blocks (2,1)).
  attn::MaskSpec spec;
  spec.causal = attn::Causal::square;
  spec.key_valid = std::vector<bool>{true, true, true, false};
  spec.half_width = 1;
  Mask explicit_allowed(4, std::vector<bool>(4, true));
  explicit_allowed[2][1] = false;
  spec.allowed = to_bool_matrix(explicit_allowed);
  Mask expected(4, std::vector<bool>(4));
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j)
      expected[i][j] = (j <= i) && (j != 3) && ((i > j ? i - j : j - i) <= 1) && explicit_allowed[i][j];
  // By hand: row0 {0}; row1 {0,1}; row2 {2} ((2,1) blocked explicitly); row3 {2} (3 is padding).
  const bool T = true, F = false;
  CHECK(expected == Mask{{T, F, F, F}, {T, T, F, F}, {F, F, T, F}, {F, F, T, F}});
  check_mask(attn::build_allowed(spec, 4, 4), expected, "AND of four parts");

  // Attention with that spec equals the reference with the same mask.
  Matrix q(4, 2), k(4, 2), v(4, 3);
  for (Index i = 0; i < 4; ++i) {
    q.row(i) << 0.5 * static_cast<double>(i), 1.0 - 0.25 * static_cast<double>(i);
    k.row(i) << 1.0 - 0.5 * static_cast<double>(i), 0.3 * static_cast<double>(i);
    v.row(i) << static_cast<double>(i), static_cast<double>(i * i), -1.0;
  }
  const auto r = attn::attention(q, k, v, spec);
  const Ref ref = ref_attention(q, k, v, expected);
  CHECK_MATRIX_NEAR(r.weights, ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(r.output, ref.output, 1e-12);
  check_mask(r.allowed, expected, "mask reported by attention()");
}

TEST_CASE("masks: size errors", "[masks][errors]") {
  attn::MaskSpec spec;
  spec.key_valid = std::vector<bool>{true, true};
  CHECK_ATTN_ERROR(attn::build_allowed(spec, 3, 3), attn::ErrorCode::shape_mismatch);
  attn::MaskSpec spec2;
  spec2.allowed = attn::BoolMatrix::Constant(2, 2, true);
  CHECK_ATTN_ERROR(attn::build_allowed(spec2, 2, 3), attn::ErrorCode::shape_mismatch);
  attn::MaskSpec spec3;
  spec3.half_width = -2;
  CHECK_ATTN_ERROR(attn::build_allowed(spec3, 2, 2), attn::ErrorCode::invalid_mask);
  attn::MaskSpec spec4;
  spec4.causal = attn::Causal::square;
  CHECK_ATTN_ERROR(attn::build_allowed(spec4, 3, 2), attn::ErrorCode::causal_alignment_required);
}
