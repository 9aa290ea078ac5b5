// tests/attn/test_attention.cpp — scaled dot-product attention on hand-derived cases.
// Tolerances: 1e-12 absolute unless stated; exact (0.0) where the claim is "exactly".
#include <attn/attention.hpp>
#include <attn/masks.hpp>

#include "support/support.hpp"

using namespace attn_test;
using attn::Matrix;

namespace {
attn::AttentionOptions scale(double s) {
  attn::AttentionOptions o;
  o.scale = s;
  return o;
}
}  // namespace

TEST_CASE("attention: causal top_left vs bottom_right on 2x3 by hand", "[attention][causal]") {
  // q = (1), (2); k = (1), (0), (-1); v = 1, 2, 3; d_k = 1 so the default scale is 1.
  // scores: row 0 = (1, 0, -1), row 1 = (2, 0, -2).
  const Matrix q = M({{1}, {2}}), k = M({{1}, {0}, {-1}}), v = M({{1}, {2}, {3}});
  attn::MaskSpec mask;
  SECTION("top_left: query i sees keys 0..i") {
    mask.causal = attn::Causal::top_left;
    const auto r = attn::attention(q, k, v, mask);
    // row 0: only key 0 -> (1, 0, 0), output 1.
    // row 1: keys 0, 1 -> softmax(2, 0) = (1/(1+e^-2), e^-2/(1+e^-2)), output w0 + 2 w1.
    const double e2 = std::exp(-2.0);
    const double w10 = 1.0 / (1.0 + e2), w11 = e2 / (1.0 + e2);
    CHECK_MATRIX_NEAR(r.weights, M({{1, 0, 0}, {w10, w11, 0}}), 1e-12);
    CHECK_MATRIX_NEAR(r.output, M({{1}, {w10 + 2 * w11}}), 1e-12);
    CHECK(r.weights(0, 1) == 0.0);
    CHECK(r.weights(0, 2) == 0.0);
    CHECK(r.weights(1, 2) == 0.0);
  }
  SECTION("bottom_right: query i sees keys 0..i+1") {
    mask.causal = attn::Causal::bottom_right;
    const auto r = attn::attention(q, k, v, mask);
    // row 0: keys 0, 1 -> softmax(1, 0); row 1: all keys -> softmax(2, 0, -2).
    const double e1 = std::exp(-1.0), e2 = std::exp(-2.0), e4 = std::exp(-4.0);
    const double z0 = 1.0 + e1, z1 = 1.0 + e2 + e4;
    CHECK_MATRIX_NEAR(r.weights, M({{1 / z0, e1 / z0, 0}, {1 / z1, e2 / z1, e4 / z1}}), 1e-12);
    CHECK_MATRIX_NEAR(r.output, M({{(1 + 2 * e1) / z0}, {(1 + 2 * e2 + 3 * e4) / z1}}), 1e-12);
    CHECK(r.weights(0, 2) == 0.0);
  }
  SECTION("plain causal is refused when Tq != Tk") {
    mask.causal = attn::Causal::square;
    CHECK_ATTN_ERROR(attn::attention(q, k, v, mask), attn::ErrorCode::causal_alignment_required);
  }
}

TEST_CASE("attention: bottom_right with Tq greater than Tk leaves early rows empty", "[attention][causal]") {
  // Tq = 3, Tk = 2, offset Tk - Tq = -1: query 0 sees no key, query 1 sees key 0, query 2 both.
  const Matrix q = M({{1}, {1}, {1}}), k = M({{0}, {0}}), v = M({{2}, {4}});
  attn::MaskSpec mask;
  mask.causal = attn::Causal::bottom_right;
  CHECK_ATTN_ERROR(attn::attention(q, k, v, mask), attn::ErrorCode::no_allowed_key);
  attn::AttentionOptions opt;
  opt.empty_rows = attn::EmptyRows::zero;
  const auto r = attn::attention(q, k, v, mask, opt);
  CHECK_MATRIX_NEAR(r.weights, M({{0, 0}, {1, 0}, {0.5, 0.5}}), 0.0);
  CHECK_MATRIX_NEAR(r.output, M({{0}, {2}, {3}}), 0.0);
  CHECK(r.empty_row == std::vector<bool>{true, false, false});
}

TEST_CASE("attention: causal equal scores give running means", "[attention][causal]") {
  // All scores 0: row i averages values 0..i -> 1, 1.5, 2 (an inverted mask gives 2.5, 3, error).
  attn::MaskSpec mask;
  mask.causal = attn::Causal::square;
  const auto r = attn::attention(M({{0}, {0}, {0}}), M({{0}, {0}, {0}}), M({{1}, {2}, {3}}), mask);
  CHECK_MATRIX_NEAR(r.output, M({{1}, {1.5}, {2}}), 1e-12);
  CHECK_MATRIX_NEAR(r.weights, M({{1, 0, 0}, {0.5, 0.5, 0}, {1. / 3, 1. / 3, 1. / 3}}), 1e-12);
}

TEST_CASE("attention: logits near 1000 do not overflow", "[attention][stability]") {
  // scale 1, scores 1000·(1, 0.999, 0.998) ≈ (1000, 999, 998): a naive exp(1000) is inf.
  // weights = (1, e^-1, e^-2) / (1 + e^-1 + e^-2) (differences of the scores, by hand).
  const Matrix q = M({{1000}}), k = M({{1}, {0.999}, {0.998}}), v = M({{1}, {2}, {3}});
  const auto r = attn::attention(q, k, v, {}, scale(1.0));
  const double d1 = 1000.0 - 1000.0 * 0.999, d2 = 1000.0 - 1000.0 * 0.998;  // ≈ 1, 2
  const double e1 = std::exp(-d1), e2 = std::exp(-d2), z = 1 + e1 + e2;
  CHECK_MATRIX_NEAR(r.weights, M({{1 / z, e1 / z, e2 / z}}), 1e-12);
  CHECK_MATRIX_NEAR(r.output, M({{(1 + 2 * e1 + 3 * e2) / z}}), 1e-12);
  // Case-file numbers (independently computed in float64).
  CHECK_MATRIX_NEAR(r.weights, M({{0.6652409557748218, 0.24472847105479764, 0.09003057317038046}}), 1e-12);

  SECTION("scores of 1e5 and 1e5-1 still give a clean two-way split") {
    const auto big = attn::attention(M({{1e5}}), M({{1}, {1 - 1e-5}}), M({{0}, {1}}), {}, scale(1.0));
    const double diff = 1e5 - 1e5 * (1 - 1e-5);  // ≈ 1
    const double w1 = std::exp(-diff) / (1 + std::exp(-diff));
    CHECK_MATRIX_NEAR(big.output, M({{w1}}), 1e-9);  // the score difference itself carries ~1e-11 rounding
    CHECK(std::isfinite(big.output(0, 0)));
  }
  SECTION("a row of very negative scores is fine too") {
    const auto neg = attn::attention(M({{-1000}}), M({{1}, {0.999}}), M({{1}, {2}}), {}, scale(1.0));
    const double d = -1000.0 * 0.999 - -1000.0;  // key 1 is ahead by ≈ 1
    const double z = 1 + std::exp(-d);
    CHECK_MATRIX_NEAR(neg.weights, M({{std::exp(-d) / z, 1 / z}}), 1e-12);
  }
}

TEST_CASE("attention: a masked key or value holding 1e300 changes nothing", "[attention][masks]") {
  // Keys 0, 1 valid, key 2 masked by padding. The reference is attention over keys 0, 1 only.
  const Matrix q = M({{1, 0}, {0, 1}, {1e10, 1e10}});
  const Matrix k2 = M({{1, 0}, {0, 1}}), v2 = M({{1, 2}, {3, 4}});
  const Matrix k3 = M({{1, 0}, {0, 1}, {1e300, 1e300}});
  const Matrix v3 = M({{1, 2}, {3, 4}, {1e300, -1e300}});
  attn::MaskSpec pad;
  pad.key_valid = std::vector<bool>{true, true, false};
  // Query 2 is 1e10 so q·k for the masked key would be 1e310 -> inf if it were computed;
  // for the two valid keys q·k = 1e10/sqrt(2) each, equal -> uniform weights.
  const auto with = attn::attention(q, k3, v3, pad);
  const auto without = attn::attention(q, k2, v2);
  CHECK_MATRIX_NEAR(with.output, without.output, 1e-15);
  CHECK_MATRIX_NEAR(with.weights.leftCols(2), without.weights, 1e-15);
  CHECK(with.weights(0, 2) == 0.0);
  CHECK(with.weights(1, 2) == 0.0);
  CHECK(with.weights(2, 2) == 0.0);
  const Ref ref = ref_attention(q.topRows(2), k2, v2);
  CHECK_MATRIX_NEAR(with.output.topRows(2), ref.output, 1e-12);
  CHECK_MATRIX_NEAR(with.output.row(2), M({{2, 3}}), 1e-12);

  SECTION("masked through an explicit allowed matrix as well") {
    attn::MaskSpec explicit_mask;
    explicit_mask.allowed = to_bool_matrix({{true, true, false}, {true, true, false}, {true, true, false}});
    const auto r = attn::attention(q, k3, v3, explicit_mask);
    CHECK_MATRIX_NEAR(r.output, without.output, 1e-15);
  }
  SECTION("unmasked, the huge key would overflow the score: non_finite") {
    CHECK_ATTN_ERROR(attn::attention(q, k3, v3), attn::ErrorCode::non_finite);
  }
}

TEST_CASE("attention: d_v differs from d_k", "[attention]") {
  // d_k = 2, d_v = 3: output 1x3, default scale 1/sqrt(2) (d_k, not d_v).
  const Matrix q = M({{1, 0}}), k = M({{1, 0}, {0, 1}}), v = M({{1, 0, 2}, {0, 1, 4}});
  const auto r = attn::attention(q, k, v);
  REQUIRE(r.output.rows() == 1);
  REQUIRE(r.output.cols() == 3);
  CHECK(r.scale == 1.0 / std::sqrt(2.0));
  const double a = std::exp(1 / std::sqrt(2.0)), w0 = a / (a + 1), w1 = 1 / (a + 1);
  CHECK_MATRIX_NEAR(r.weights, M({{w0, w1}}), 1e-12);
  CHECK_MATRIX_NEAR(r.output, M({{w0, w1, 2 * w0 + 4 * w1}}), 1e-12);

  SECTION("bigger cross-attention shapes against the naive reference") {
    // Tq=3, Tk=5, d_k=4, d_v=2, with a fixed pattern of values.
    Matrix Q(3, 4), K(5, 4), V(5, 2);
    for (Index i = 0; i < 3; ++i)
      for (Index c = 0; c < 4; ++c) Q(i, c) = 0.3 * static_cast<double>((i * 7 + c * 3) % 5) - 0.6;
    for (Index j = 0; j < 5; ++j)
      for (Index c = 0; c < 4; ++c) K(j, c) = 0.25 * static_cast<double>((j * 5 + c * 2) % 7) - 0.7;
    for (Index j = 0; j < 5; ++j)
      for (Index c = 0; c < 2; ++c) V(j, c) = static_cast<double>(j) - 2.0 * static_cast<double>(c);
    const auto rr = attn::attention(Q, K, V);
    const Ref ref = ref_attention(Q, K, V);
    CHECK_MATRIX_NEAR(rr.weights, ref.weights, 1e-12);
    CHECK_MATRIX_NEAR(rr.output, ref.output, 1e-12);
  }
}

TEST_CASE("attention: explicit scale and scores", "[attention]") {
  // scores = scale·q·k; masked entries are marked in `allowed`, not filled with a number.
  const Matrix q = M({{1, 2}}), k = M({{3, 4}, {-1, 1}}), v = M({{1}, {0}});
  attn::MaskSpec mask;
  mask.key_valid = std::vector<bool>{true, false};
  const auto r = attn::attention(q, k, v, mask, scale(0.5));
  CHECK(r.scale == 0.5);
  CHECK(r.scores(0, 0) == 0.5 * 11.0);
  CHECK(r.allowed(0, 0));
  CHECK_FALSE(r.allowed(0, 1));
  CHECK(r.weights(0, 0) == 1.0);
  CHECK(r.output(0, 0) == 1.0);

  const auto full = attn::attention(q, k, v, {}, scale(0.5));
  CHECK(full.scores(0, 1) == 0.5 * 1.0);
  const double z = std::exp(5.5) + std::exp(0.5);
  CHECK_MATRIX_NEAR(full.weights, M({{std::exp(5.5) / z, std::exp(0.5) / z}}), 1e-12);
}

TEST_CASE("attention: empty-row zero policy keeps other rows", "[attention][masks]") {
  const Matrix q = M({{1, 0}, {0, 1}}), k = M({{1, 0}, {0, 1}}), v = M({{1, 2}, {3, 4}});
  attn::MaskSpec mask;
  mask.allowed = to_bool_matrix({{true, true}, {false, false}});
  CHECK_ATTN_ERROR(attn::attention(q, k, v, mask), attn::ErrorCode::no_allowed_key);
  attn::AttentionOptions opt;
  opt.empty_rows = attn::EmptyRows::zero;
  const auto r = attn::attention(q, k, v, mask, opt);
  const double a = std::exp(1 / std::sqrt(2.0)), w0 = a / (a + 1), w1 = 1 / (a + 1);
  CHECK_MATRIX_NEAR(r.weights, M({{w0, w1}, {0, 0}}), 1e-12);
  CHECK_MATRIX_NEAR(r.output, M({{w0 + 3 * w1, 2 * w0 + 4 * w1}, {0, 0}}), 1e-12);
  REQUIRE(r.empty_row.size() == 2);
  CHECK_FALSE(r.empty_row[0]);
  CHECK(r.empty_row[1]);
  CHECK(attn::max_row_sum_error(r.weights, r.empty_row) <= 1e-15);
}

TEST_CASE("attention: masked_softmax and max_row_sum_error", "[attention]") {
  const Matrix s = M({{0, std::log(3.0), 1e300}, {5, 5, 5}, {1, 2, 3}});
  const attn::BoolMatrix allowed = to_bool_matrix({{true, true, false}, {true, true, true}, {false, false, false}});
  std::vector<bool> empty;
  const Matrix w = attn::masked_softmax(s, allowed, &empty);
  CHECK_MATRIX_NEAR(w, M({{0.25, 0.75, 0}, {1. / 3, 1. / 3, 1. / 3}, {0, 0, 0}}), 1e-15);
  REQUIRE(empty.size() == 3);
  CHECK_FALSE(empty[0]);
  CHECK_FALSE(empty[1]);
  CHECK(empty[2]);
  // 0.1 + 0.2 + 0.7 summed in order is 1 - 1.1e-16 or so: error tiny; a row of (0.5, 0.6) is off by 0.1.
  CHECK(attn::max_row_sum_error(M({{0.5, 0.6}, {1, 0}})) == Approx(0.1).margin(1e-15));
  CHECK(attn::max_row_sum_error(M({{0, 0}, {0.5, 0.5}}), {true, false}) == 0.0);
}

TEST_CASE("attention: rows sum to one across growing random sizes", "[attention][invariants]") {
  // Fixed pseudo-random inputs (a small LCG written here), sizes T = 1, 2, 4, ..., 64.
  std::uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53 * 4.0 - 2.0;  // [-2, 2)
  };
  for (Index t = 1; t <= 64; t *= 2) {
    const Index d = 3 + t % 5;
    Matrix q(t, d), k(t + 1, d), v(t + 1, 2);
    for (Index i = 0; i < q.size(); ++i) q.data()[i] = next();
    for (Index i = 0; i < k.size(); ++i) k.data()[i] = next();
    for (Index i = 0; i < v.size(); ++i) v.data()[i] = next();
    attn::MaskSpec mask;
    mask.causal = attn::Causal::bottom_right;
    const auto r = attn::attention(q, k, v, mask);
    INFO("T = " << t << ", d = " << d);
    const Ref ref = ref_attention(q, k, v, ref_causal(static_cast<size_t>(t), static_cast<size_t>(t + 1), 1));
    CHECK_MATRIX_NEAR(r.weights, ref.weights, 1e-12);
    CHECK_MATRIX_NEAR(r.output, ref.output, 1e-12);
    double worst = 0;
    for (Index i = 0; i < t; ++i) worst = std::max(worst, std::fabs(r.weights.row(i).sum() - 1.0));
    CHECK(worst <= 1e-12);
    // Each output lies inside the values' per-coordinate range (convex combination).
    for (Index i = 0; i < t; ++i)
      for (Index c = 0; c < 2; ++c) {
        CHECK(r.output(i, c) >= v.col(c).minCoeff() - 1e-12);
        CHECK(r.output(i, c) <= v.col(c).maxCoeff() + 1e-12);
      }
  }
}
