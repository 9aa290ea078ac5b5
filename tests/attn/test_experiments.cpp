// tests/attn/test_experiments.cpp — the lesson's experiments as pure functions.
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/random_heads.hpp>
#include <attn/heads.hpp>
#include <attn/linalg.hpp>
#include <attn/positions.hpp>
#include <attn/random.hpp>
#include <attn/tokenizer.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "support/support.hpp"

using namespace attn_test;

namespace {
// Every claim passes, and each pass flag agrees with its measured figure and limit.
void check_all_pass(const std::vector<attn::Check>& checks) {
  CHECK_ALL_PASS(checks);
  for (const auto& c : checks) {
    INFO(c.claim << ": measured " << fmt17(c.measured) << (c.expect_at_most ? " <= " : " > ") << fmt17(c.limit));
    CHECK(c.pass == (c.expect_at_most ? c.measured <= c.limit : c.measured > c.limit));
  }
}
using attn::permute_rows;  // new row i = old row p[i]
Matrix mm(const Matrix& a, const Matrix& b) { return from_rows(ref_matmul(to_rows(a), to_rows(b))); }
}  // namespace

TEST_CASE("experiments: check helpers", "[experiments]") {
  CHECK(attn::check_at_most("c", 1.0, 1.0).pass);
  CHECK_FALSE(attn::check_at_most("c", 1.5, 1.0).pass);
  CHECK(attn::check_above("c", 1.5, 1.0).pass);
  CHECK_FALSE(attn::check_above("c", 1.0, 1.0).pass);
  CHECK_FALSE(attn::check_above("c", 1.0, 1.0).expect_at_most);
}

TEST_CASE("experiments: checks held and measured figures as a learner reads them", "[experiments]") {
  const std::vector<attn::Check> checks = {attn::check_at_most("a", 0.5, 1.0), attn::check_at_most("b", 2.0, 1.0),
                                           attn::check_above("c", 2.0, 1.0)};
  CHECK(attn::checks_held(checks) == 2);
  CHECK(attn::checks_held({}) == 0);
  // a rounding-size error held to a tiny tolerance: zero, with the rounding named
  CHECK(attn::measured_text(attn::check_at_most("sum", 1.1102230246251565e-16, 1e-12)) == "0 (rounding: 1.1e-16)");
  CHECK(attn::measured_text(attn::check_at_most("sum", -2.2e-16, 1e-12)) == "0 (rounding: 2.2e-16)");
  CHECK(attn::measured_text(attn::check_at_most("sum", 0.0, 1e-12)) == "0");
  // a failed tolerance, a loose tolerance and an effect keep their figure
  CHECK(attn::measured_text(attn::check_at_most("sum", 3e-12, 1e-12)) == "3e-12");
  CHECK(attn::measured_text(attn::check_at_most("gap", 0.0123, 0.05)) == "0.012");
  CHECK(attn::measured_text(attn::check_above("effect", 2.5e-7, 1e-9)) == "2.5e-07");
}

TEST_CASE("experiments: set_weight_keep_distribution keeps rows distributions", "[experiments][alignment]") {
  Matrix w = M({{0.5, 0.3, 0.2}, {0.1, 0.1, 0.8}});
  SECTION("others keep their proportions") {
    attn::set_weight_keep_distribution(w, 0, 0, 0.8);
    // rest 0.2 split 0.3:0.2 -> 0.12, 0.08 (by hand).
    CHECK_MATRIX_NEAR(w, M({{0.8, 0.12, 0.08}, {0.1, 0.1, 0.8}}), 1e-15);
  }
  SECTION("value above 1 is clamped and the others become 0") {
    attn::set_weight_keep_distribution(w, 1, 2, 1.7);
    CHECK_MATRIX_NEAR(w, M({{0.5, 0.3, 0.2}, {0, 0, 1}}), 0.0);
  }
  SECTION("negative value is clamped to 0") {
    attn::set_weight_keep_distribution(w, 0, 1, -3);
    CHECK_MATRIX_NEAR(w, M({{0.5 / 0.7, 0, 0.2 / 0.7}, {0.1, 0.1, 0.8}}), 1e-15);
  }
  SECTION("others all zero: spread evenly") {
    Matrix one = M({{0, 1, 0}});
    attn::set_weight_keep_distribution(one, 0, 1, 0.4);
    CHECK_MATRIX_NEAR(one, M({{0.3, 0.4, 0.3}}), 1e-15);
  }
  SECTION("a sequence of edits keeps every row a distribution") {
    const double targets[] = {0.9, 0.05, 0.33, 1.0, 0.0, 0.61};
    int n = 0;
    for (double t : targets) {
      attn::set_weight_keep_distribution(w, n % 2, n % 3, t);
      ++n;
      for (Index i = 0; i < 2; ++i) {
        INFO("after edit " << n << " row " << i);
        CHECK(std::fabs(w.row(i).sum() - 1.0) <= 1e-12);
        CHECK(w.row(i).minCoeff() >= 0.0);
      }
    }
  }
  SECTION("bad index or value") {
    CHECK_ATTN_ERROR(attn::set_weight_keep_distribution(w, 2, 0, 0.5), attn::ErrorCode::invalid_field);
    CHECK_ATTN_ERROR(attn::set_weight_keep_distribution(w, 0, 3, 0.5), attn::ErrorCode::invalid_field);
    CHECK_ATTN_ERROR(attn::set_weight_keep_distribution(w, -1, 0, 0.5), attn::ErrorCode::invalid_field);
    // lessons/alignment.hpp documents Error(non_finite) for NaN/inf.
    CHECK_ATTN_ERROR(attn::set_weight_keep_distribution(w, 0, 0, std::nan("")), attn::ErrorCode::non_finite);
  }
}

TEST_CASE("experiments: random_heads rebuilt from the documented draw order", "[experiments][random_heads]") {
  // Documented: one Rng(seed); embedding (vocab×d_model, N(0,1)), then W_q, W_k, W_v
  // (d_model×(h·d_k), U(±1/sqrt(d_model))); multi-head self-attention. Rebuild it here and compare.
  const attn::RandomHeadsInput in;  // "The cat sat on the mat", seed 17, d_model 8, 2 heads, d_k 4
  const attn::RandomHeadsResult r = attn::random_heads(in);
  REQUIRE(r.tokens == std::vector<std::string>{"The", "cat", "sat", "on", "the", "mat"});
  REQUIRE(r.heads.size() == 2);
  attn::Rng rng(17);
  const Matrix table = attn::embedding_init(rng, 6, 8);
  const Matrix wq = attn::linear_init(rng, 8, 8), wk = attn::linear_init(rng, 8, 8), wv = attn::linear_init(rng, 8, 8);
  // ids in the sorted vocabulary The, cat, mat, on, sat, the
  const std::vector<int> ids = {0, 1, 4, 3, 5, 2};
  Matrix x(6, 8);
  for (size_t i = 0; i < ids.size(); ++i) x.row(static_cast<Index>(i)) = table.row(ids[i]);
  CHECK_MATRIX_NEAR(r.x, x, 0.0);
  const Matrix q = mm(x, wq), k = mm(x, wk), v = mm(x, wv);
  for (Index h = 0; h < 2; ++h) {
    INFO("head " << h);
    const Ref ref = ref_attention(q.middleCols(4 * h, 4), k.middleCols(4 * h, 4), v.middleCols(4 * h, 4));
    CHECK_MATRIX_NEAR(r.heads[static_cast<size_t>(h)].weights, ref.weights, 1e-12);
    CHECK_MATRIX_NEAR(r.heads[static_cast<size_t>(h)].output, ref.output, 1e-12);
    CHECK(r.heads[static_cast<size_t>(h)].scale == 0.5);  // 1/sqrt(d_k = 4)
  }
  check_all_pass(r.checks);
  // "A random head can produce a nonuniform matrix": not every weight is 1/6.
  CHECK((r.heads[0].weights.array() - 1.0 / 6.0).abs().maxCoeff() > 1e-3);
}

TEST_CASE("experiments: random_heads masks positions and determinism", "[experiments][random_heads]") {
  attn::RandomHeadsInput in;
  const auto base = attn::random_heads(in);
  SECTION("same input twice gives the same bits; another seed differs") {
    const auto again = attn::random_heads(in);
    CHECK_MATRIX_NEAR(again.heads[1].weights, base.heads[1].weights, 0.0);
    in.seed = 18;
    const auto other = attn::random_heads(in);
    CHECK(attn::max_abs_diff(other.x, base.x) > 1e-3);
  }
  SECTION("causal: zero upper triangle, row 0 one-hot") {
    in.causal = true;
    const auto r = attn::random_heads(in);
    for (const auto& h : r.heads) {
      for (Index i = 0; i < 6; ++i)
        for (Index j = i + 1; j < 6; ++j) CHECK(h.weights(i, j) == 0.0);
      CHECK(h.weights(0, 0) == 1.0);
    }
    check_all_pass(r.checks);
    CHECK(r.checks.size() >= 2);  // rows sum + masked weights are 0
  }
  SECTION("valid_length 4: keys 4 and 5 get exactly 0") {
    in.valid_length = 4;
    const auto r = attn::random_heads(in);
    for (const auto& h : r.heads)
      for (Index i = 0; i < 6; ++i) {
        CHECK(h.weights(i, 4) == 0.0);
        CHECK(h.weights(i, 5) == 0.0);
      }
    check_all_pass(r.checks);
  }
  SECTION("sinusoidal positions are added to the embeddings") {
    in.positions = attn::PositionKind::sinusoidal;
    const auto r = attn::random_heads(in);
    CHECK_MATRIX_NEAR(r.x, Matrix(base.x + attn::sinusoidal_positions(6, 8)), 0.0);
    // Hand values: row 0 gets (0, 1, 0, 1, ...), row 1 column 0 gets sin(1).
    CHECK(r.x(0, 1) - base.x(0, 1) == Approx(1.0).margin(1e-15));
    CHECK(r.x(1, 0) - base.x(1, 0) == Approx(std::sin(1.0)).margin(1e-15));
  }
  SECTION("heads and d_k change the layout") {
    in.heads = 3;
    in.d_k = 5;
    const auto r = attn::random_heads(in);
    REQUIRE(r.heads.size() == 3);
    CHECK(r.heads[2].output.cols() == 5);
    CHECK(r.heads[2].scale == 1.0 / std::sqrt(5.0));
    check_all_pass(r.checks);
  }
}

TEST_CASE("experiments: permutation equivariance and its breakers", "[experiments][permutation]") {
  attn::PermutationInput in;  // order (2,0,5,1,4,3), seed 17
  SECTION("no mask and no positions: f(PX) = P f(X) to 1e-12") {
    const auto r = attn::permutation_experiment(in);
    CHECK(r.permuted_tokens == std::vector<std::string>{"sat", "The", "mat", "cat", "the", "on"});
    CHECK_MATRIX_NEAR(r.px, permute_rows(r.x, in.permutation), 0.0);
    CHECK_MATRIX_NEAR(r.f_px, r.p_f_x, 1e-12);
    INFO("max_diff " << fmt17(r.max_diff));
    CHECK(r.max_diff < 1e-12);
    CHECK(r.max_diff == attn::max_abs_diff(r.f_px, r.p_f_x));
    check_all_pass(r.checks);
    // Weights permute on both axes: weights_px(i, j) = weights_x(p[i], p[j]).
    for (Index i = 0; i < 6; ++i)
      for (Index j = 0; j < 6; ++j)
        CHECK(std::fabs(r.weights_px(i, j) - r.weights_x(in.permutation[static_cast<size_t>(i)],
                                                         in.permutation[static_cast<size_t>(j)])) <= 1e-12);
  }
  SECTION("rebuilt independently from the same seed") {
    // Single head, d_k = d_v = d_model = 8; draws: embedding, W_q, W_k, W_v.
    const auto r = attn::permutation_experiment(in);
    attn::Rng rng(17);
    const Matrix table = attn::embedding_init(rng, 6, 8);
    const Matrix wq = attn::linear_init(rng, 8, 8), wk = attn::linear_init(rng, 8, 8), wv = attn::linear_init(rng, 8, 8);
    const Matrix px = permute_rows(r.x, in.permutation);
    const Ref ref = ref_attention(mm(px, wq), mm(px, wk), mm(px, wv));
    CHECK_MATRIX_NEAR(r.f_px, ref.output, 1e-12);
    CHECK_MATRIX_NEAR(r.x.row(0), table.row(0), 0.0);  // "The" is vocab id 0
  }
  SECTION("causal mask breaks equivariance: > 1e-3") {
    in.causal = true;
    const auto r = attn::permutation_experiment(in);
    INFO("max_diff " << fmt17(r.max_diff));
    CHECK(r.max_diff > 1e-3);
    check_all_pass(r.checks);
    // The difference map, entry by entry, and its largest entry is the headline number.
    REQUIRE(r.difference.rows() == r.f_px.rows());
    REQUIRE(r.difference.cols() == r.f_px.cols());
    double largest = 0.0;
    for (Index i = 0; i < r.f_px.rows(); ++i)
      for (Index j = 0; j < r.f_px.cols(); ++j) {
        CHECK(r.difference(i, j) == r.f_px(i, j) - r.p_f_x(i, j));
        largest = std::max(largest, std::fabs(r.f_px(i, j) - r.p_f_x(i, j)));
      }
    CHECK(r.difference.cwiseAbs().maxCoeff() == largest);
    CHECK(largest == r.max_diff);
  }
  SECTION("positions break equivariance: > 1e-3") {
    in.positions = attn::PositionKind::sinusoidal;
    const auto r = attn::permutation_experiment(in);
    INFO("max_diff " << fmt17(r.max_diff));
    CHECK(r.max_diff > 1e-3);
    check_all_pass(r.checks);
  }
  SECTION("permuting K and V together leaves a query's output: < 1e-12") {
    for (int query = 0; query < 6; ++query) {
      in.query = query;
      const auto r = attn::permutation_experiment(in);
      INFO("query " << query << " kv_diff " << fmt17(r.kv_diff));
      CHECK(r.kv_diff < 1e-12);
      REQUIRE(r.query_output.size() == 8);
      for (Index c = 0; c < 8; ++c) CHECK(std::fabs(r.query_output(c) - r.query_output_kv_permuted(c)) <= 1e-12);
    }
  }
  SECTION("identity permutation: exactly equal") {
    in.permutation = {0, 1, 2, 3, 4, 5};
    in.causal = true;
    const auto r = attn::permutation_experiment(in);
    CHECK(r.max_diff == 0.0);
  }
}

TEST_CASE("experiments: random_permutation is a deterministic permutation", "[experiments][permutation]") {
  for (int n : {1, 2, 6, 50}) {
    const auto p = attn::random_permutation(n, 17);
    INFO("n = " << n);
    REQUIRE(static_cast<int>(p.size()) == n);
    std::vector<int> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) CHECK(sorted[static_cast<size_t>(i)] == i);
    CHECK(attn::random_permutation(n, 17) == p);
  }
  CHECK(attn::random_permutation(0, 1).empty());
  CHECK(attn::random_permutation(50, 17) != attn::random_permutation(50, 18));
  // Every one of the 6 permutations of 3 appears over 600 seeds (each expected 100 times;
  // a count below 50 would be > 5 standard deviations off).
  std::map<std::vector<int>, int> counts;
  for (std::uint64_t s = 0; s < 600; ++s) counts[attn::random_permutation(3, s)]++;
  CHECK(counts.size() == 6);
  for (const auto& kv : counts) CHECK(kv.second > 50);
}
