// tests/attn/test_heads.cpp — projected heads: self-attention, multi-head layout, cross-attention.
// References: plain loops (support.hpp) on the column slices the issue names
// (head i uses columns i·d_k … (i+1)·d_k − 1). Tolerance 1e-12.
#include <attn/heads.hpp>
#include <attn/linalg.hpp>

#include "support/support.hpp"

using namespace attn_test;

namespace {
// Deterministic filler with a pattern that is not symmetric across heads.
Matrix pattern(Index r, Index c, double a, double b) {
  Matrix m(r, c);
  for (Index i = 0; i < r; ++i)
    for (Index j = 0; j < c; ++j)
      m(i, j) = std::sin(a * static_cast<double>(i + 1) + b * static_cast<double>(j * j + 1));
  return m;
}
Matrix cols(const Matrix& m, Index first, Index count) { return m.middleCols(first, count); }
Matrix mm(const Matrix& a, const Matrix& b) { return from_rows(ref_matmul(to_rows(a), to_rows(b))); }
}  // namespace

TEST_CASE("heads: single-head self-attention projects with in x out weights", "[heads]") {
  // d_model = 3, d_k = 2, d_v = 4: Q = X·W_q etc.
  const Matrix x = pattern(4, 3, 0.7, 0.3);
  attn::HeadWeights w{pattern(3, 2, 0.2, 1.1), pattern(3, 2, -0.4, 0.5), pattern(3, 4, 0.9, -0.2)};
  const auto r = attn::self_attention(x, w);
  CHECK_MATRIX_NEAR(r.query, mm(x, w.w_q), 1e-12);
  CHECK_MATRIX_NEAR(r.key, mm(x, w.w_k), 1e-12);
  CHECK_MATRIX_NEAR(r.value, mm(x, w.w_v), 1e-12);
  const Ref ref = ref_attention(mm(x, w.w_q), mm(x, w.w_k), mm(x, w.w_v));
  CHECK_MATRIX_NEAR(r.attention.weights, ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(r.attention.output, ref.output, 1e-12);
  REQUIRE(r.attention.output.cols() == 4);
  CHECK(r.attention.scale == 1.0 / std::sqrt(2.0));
}

TEST_CASE("heads: 2-head layout uses column blocks in head order", "[heads][multi_head]") {
  // d_model = 4, h = 2, d_k = 3, d_v = 2 (so W_q, W_k are 4x6, W_v 4x4, W_o 4x5).
  const Matrix x = pattern(5, 4, 0.31, 0.17);
  attn::MultiHeadWeights w;
  w.heads = 2;
  w.w_q = pattern(4, 6, 0.5, 0.9);
  w.w_k = pattern(4, 6, -0.3, 0.7);
  w.w_v = pattern(4, 4, 0.8, -0.6);
  w.w_o = pattern(4, 5, 0.45, 0.25);
  const auto r = attn::multi_head_attention(x, x, w);
  REQUIRE(r.heads.size() == 2);
  const Matrix q = mm(x, w.w_q), k = mm(x, w.w_k), v = mm(x, w.w_v);
  Matrix concat(5, 4);
  for (Index h = 0; h < 2; ++h) {
    INFO("head " << h);
    // Head h: columns h·3 .. h·3+2 of Q and K, h·2 .. h·2+1 of V; scale 1/sqrt(3) (head d_k).
    const Ref ref = ref_attention(cols(q, 3 * h, 3), cols(k, 3 * h, 3), cols(v, 2 * h, 2));
    CHECK(r.heads[static_cast<size_t>(h)].scale == 1.0 / std::sqrt(3.0));
    CHECK_MATRIX_NEAR(r.heads[static_cast<size_t>(h)].weights, ref.weights, 1e-12);
    CHECK_MATRIX_NEAR(r.heads[static_cast<size_t>(h)].output, ref.output, 1e-12);
    concat.middleCols(2 * h, 2) = ref.output;
  }
  CHECK_MATRIX_NEAR(r.concat, concat, 1e-12);
  CHECK_MATRIX_NEAR(r.output, mm(concat, *w.w_o), 1e-12);
  // The two heads really differ (a layout bug that fed both heads the same slice would not).
  CHECK(attn::max_abs_diff(r.heads[0].weights, r.heads[1].weights) > 1e-3);

  SECTION("without W_o the output is the concatenation") {
    w.w_o.reset();
    const auto r2 = attn::multi_head_attention(x, x, w);
    CHECK_MATRIX_NEAR(r2.output, concat, 1e-12);
  }
}

TEST_CASE("heads: multi-head layout case with identity projections", "[heads][multi_head]") {
  // The multi-head-layout case: zero queries give uniform weights; tokens (1,2,3,4), (5,6,7,8);
  // head 0 reads columns 0-1 -> mean (3,4), head 1 columns 2-3 -> mean (5,6); merged (3,4,5,6).
  attn::MultiHeadWeights w;
  w.heads = 2;
  w.w_q = w.w_k = w.w_v = Matrix::Identity(4, 4);
  w.w_o = Matrix::Identity(4, 4);
  const auto r = attn::multi_head_attention(Matrix::Zero(2, 4), M({{1, 2, 3, 4}, {5, 6, 7, 8}}), w);
  CHECK_MATRIX_NEAR(r.output, M({{3, 4, 5, 6}, {3, 4, 5, 6}}), 1e-12);
  for (const auto& h : r.heads) CHECK_MATRIX_NEAR(h.weights, M({{0.5, 0.5}, {0.5, 0.5}}), 1e-15);
}

TEST_CASE("heads: cross-attention with Tq != Tk in multi_head", "[heads][multi_head]") {
  // Queries from a 2-token sequence with d_model 3, keys/values from 5 tokens with d_model 4.
  const Matrix xq = pattern(2, 3, 0.6, 0.2), xkv = pattern(5, 4, 0.35, 0.8);
  attn::MultiHeadWeights w;
  w.heads = 2;
  w.w_q = pattern(3, 4, 0.25, 0.5);  // h·d_k = 4 -> d_k = 2
  w.w_k = pattern(4, 4, -0.7, 0.15);
  w.w_v = pattern(4, 6, 0.55, -0.35);  // h·d_v = 6 -> d_v = 3
  const Matrix q = mm(xq, w.w_q), k = mm(xkv, w.w_k), v = mm(xkv, w.w_v);
  attn::MaskSpec mask;
  mask.causal = attn::Causal::bottom_right;  // query i sees keys 0 .. i+3
  const auto r = attn::multi_head_attention(xq, xkv, w, mask);
  REQUIRE(r.output.rows() == 2);
  REQUIRE(r.output.cols() == 6);
  for (Index h = 0; h < 2; ++h) {
    INFO("head " << h);
    const Ref ref = ref_attention(cols(q, 2 * h, 2), cols(k, 2 * h, 2), cols(v, 3 * h, 3), ref_causal(2, 5, 3));
    CHECK_MATRIX_NEAR(r.heads[static_cast<size_t>(h)].weights, ref.weights, 1e-12);
    CHECK_MATRIX_NEAR(r.concat.middleCols(3 * h, 3), ref.output, 1e-12);
    CHECK(r.heads[static_cast<size_t>(h)].weights(0, 4) == 0.0);
  }
  mask.causal = attn::Causal::square;
  CHECK_ATTN_ERROR(attn::multi_head_attention(xq, xkv, w, mask), attn::ErrorCode::causal_alignment_required);
}

TEST_CASE("heads: weight shape errors", "[heads][errors]") {
  const Matrix x = pattern(3, 4, 0.1, 0.2);
  attn::HeadWeights w{pattern(4, 2, 1, 1), pattern(4, 2, 1, 2), pattern(4, 2, 1, 3)};
  SECTION("W_q with the wrong number of rows (PyTorch layout passed untransposed)") {
    w.w_q = pattern(2, 4, 1, 1);
    CHECK_ATTN_ERROR(attn::self_attention(x, w), attn::ErrorCode::shape_mismatch);
  }
  SECTION("W_q and W_k of different widths") {
    w.w_k = pattern(4, 3, 1, 1);
    CHECK_ATTN_ERROR(attn::self_attention(x, w), attn::ErrorCode::shape_mismatch);
  }
  SECTION("NaN in a weight") {
    w.w_v(1, 1) = std::nan("");
    CHECK_ATTN_ERROR(attn::self_attention(x, w), attn::ErrorCode::non_finite);
  }
  SECTION("infinite input") {
    Matrix bad = x;
    bad(2, 0) = INFINITY;
    CHECK_ATTN_ERROR(attn::self_attention(bad, w), attn::ErrorCode::non_finite);
  }
  SECTION("empty X") {
    CHECK_ATTN_ERROR(attn::self_attention(Matrix(0, 4), w), attn::ErrorCode::empty_sequence);
  }
  attn::MultiHeadWeights mw;
  mw.heads = 3;
  mw.w_q = pattern(4, 4, 1, 1);
  mw.w_k = pattern(4, 4, 1, 2);
  mw.w_v = pattern(4, 6, 1, 3);
  SECTION("heads not dividing the projection width") {
    CHECK_ATTN_ERROR(attn::multi_head_attention(x, x, mw), attn::ErrorCode::invalid_field);
  }
  SECTION("zero heads") {
    mw.heads = 0;
    CHECK_ATTN_ERROR(attn::multi_head_attention(x, x, mw), attn::ErrorCode::invalid_field);
  }
  SECTION("W_o with the wrong number of rows") {
    mw.heads = 2;
    mw.w_o = pattern(5, 2, 1, 1);  // needs h·d_v = 6 rows
    CHECK_ATTN_ERROR(attn::multi_head_attention(x, x, mw), attn::ErrorCode::shape_mismatch);
  }
  SECTION("x_key_value width not matching W_k") {
    mw.heads = 2;
    CHECK_ATTN_ERROR(attn::multi_head_attention(x, pattern(3, 5, 1, 1), mw), attn::ErrorCode::shape_mismatch);
  }
}
