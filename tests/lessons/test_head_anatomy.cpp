// The anatomy of one head (lessons/random_heads.hpp, head_anatomy): each step checked against an
// independent computation — softmax by hand over the allowed keys, the weighted sum of values by
// hand, the core's attention() on the same q, k, v, and dot products by Eigen — and the mask's row
// against the causal rule j <= i.
#include <lessons/random_heads.hpp>

#include <catch2/catch.hpp>

#include <cmath>

#include "attn/attention.hpp"
#include "attn/error.hpp"

TEST_CASE("head anatomy: each step of one head's row, checked independently", "[lesson][anatomy]") {
  attn::RandomHeadsInput in;  // "The cat sat on the mat", 2 heads of d_k 4
  in.causal = true;
  for (attn::PositionKind pos : {attn::PositionKind::none, attn::PositionKind::rope}) {
    in.positions = pos;
    const attn::RandomHeadsResult r = attn::random_heads(in);
    const int t = static_cast<int>(r.tokens.size());
    for (int head = 0; head < in.heads; ++head)
      for (int row : {0, 3, t - 1}) {
        const attn::HeadAnatomy a = attn::head_anatomy(r, head, row);
        INFO("head " << head << ", row " << row);
        REQUIRE(a.q.rows() == t);
        CHECK(a.d_k == in.d_k);
        CHECK(a.scale == 1.0 / std::sqrt(4.0));
        // the mask: causal, keys j <= i
        for (int j = 0; j < t; ++j) CHECK(a.allowed[static_cast<size_t>(j)] == (j <= row));
        // raw scores: q_row · k_j by Eigen's dot (another summation), scaled by 1/sqrt(d_k)
        double total = 0.0, mx = -1e300;
        for (int j = 0; j < t; ++j) {
          CHECK(a.raw_scores[static_cast<size_t>(j)] == Approx(a.q.row(row).dot(a.k.row(j))).margin(1e-12));
          CHECK(a.scaled[static_cast<size_t>(j)] == a.raw_scores[static_cast<size_t>(j)] * a.scale);
          if (j <= row) mx = std::max(mx, a.scaled[static_cast<size_t>(j)]);
        }
        // softmax over the allowed keys by hand; masked keys get 0
        for (int j = 0; j <= row; ++j) total += std::exp(a.scaled[static_cast<size_t>(j)] - mx);
        for (int j = 0; j < t; ++j) {
          const double want = j <= row ? std::exp(a.scaled[static_cast<size_t>(j)] - mx) / total : 0.0;
          CHECK(a.weights[static_cast<size_t>(j)] == Approx(want).margin(1e-15));
        }
        // the output: Σ_j w_j v_j by hand
        for (int c = 0; c < a.d_v; ++c) {
          double o = 0.0;
          for (int j = 0; j < t; ++j) o += a.weights[static_cast<size_t>(j)] * a.v(j, c);
          CHECK(a.output[static_cast<size_t>(c)] == Approx(o).margin(1e-15));
        }
        // display ranges: the largest magnitudes, found here by Eigen's own reductions
        const Eigen::Map<const Eigen::VectorXd> raw(a.raw_scores.data(), t), scaled(a.scaled.data(), t);
        CHECK(a.raw_abs_max == raw.cwiseAbs().maxCoeff());
        CHECK(a.scaled_abs_max == scaled.cwiseAbs().maxCoeff());
        CHECK(a.qkv_abs_max == std::max(std::max(a.q.lpNorm<Eigen::Infinity>(), a.k.lpNorm<Eigen::Infinity>()),
                                        a.v.lpNorm<Eigen::Infinity>()));
        // the core's attention on the same q, k, v gives the same row, bit for bit
        attn::MaskSpec mask;
        mask.causal = attn::Causal::square;
        const attn::AttentionResult core = attn::attention(a.q, a.k, a.v, mask);
        for (int j = 0; j < t; ++j) {
          CHECK(core.weights(row, j) == a.weights[static_cast<size_t>(j)]);
          if (j <= row) CHECK(core.scores(row, j) == a.scaled[static_cast<size_t>(j)]);
        }
      }
  }
}

TEST_CASE("head anatomy: a head or row out of range is refused, naming it", "[lesson][anatomy]") {
  const attn::RandomHeadsResult r = attn::random_heads({});
  try {
    attn::head_anatomy(r, 2, 0);
    FAIL("head 2 of 2 was taken");
  } catch (const attn::Error& e) {
    CHECK(e.code() == attn::ErrorCode::invalid_field);
    CHECK(std::string(e.what()).find("head") != std::string::npos);
  }
  CHECK_THROWS_AS(attn::head_anatomy(r, 0, static_cast<int>(r.tokens.size())), attn::Error);
  CHECK_THROWS_AS(attn::head_anatomy(r, -1, 0), attn::Error);
}
