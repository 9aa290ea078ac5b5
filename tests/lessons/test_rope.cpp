// tests/lessons/test_rope.cpp — RoPE (Su et al. 2021) and permutation symmetry.
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/random_heads.hpp>
#include <attn/random.hpp>
#include <attn/rope.hpp>
#include <lessons/position_symmetry.hpp>
#include <lessons/position_symmetry.hpp>
#include <attn/tokenizer.hpp>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("rope: rotations by hand - position 0 is the identity - norms kept", "[lesson][positions]") {
  // d = 4: θ_0 = 1, θ_1 = 10000^(−1/2) = 0.01. Row m = 3 of (1, 0, 0, 1):
  // pair 0 → (cos 3, sin 3); pair 1 → (−sin 0.03, cos 0.03).
  Matrix x = M({{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}});
  const Matrix r = attn::apply_rope(x);
  CHECK(max_diff(Matrix(r.row(0)), Matrix(x.row(0))) == 0.0);
  CHECK(std::fabs(r(3, 0) - std::cos(3.0)) < 1e-15);
  CHECK(std::fabs(r(3, 1) - std::sin(3.0)) < 1e-15);
  CHECK(std::fabs(r(3, 2) + std::sin(0.03)) < 1e-15);
  CHECK(std::fabs(r(3, 3) - std::cos(0.03)) < 1e-15);
  // Explicit positions, and an odd last feature left alone.
  const Matrix odd = attn::apply_rope(M({{1, 2, 3}}), {5});
  CHECK(odd(0, 2) == 3.0);
  CHECK(std::fabs(odd(0, 0) - (std::cos(5.0) - 2 * std::sin(5.0))) < 1e-14);
  CHECK(std::fabs(odd.row(0).head(2).norm() - std::sqrt(5.0)) < 1e-15);
  // Against the naive implementation on a random 6×8 matrix.
  attn::Rng rng(3);
  Matrix y(6, 8);
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 8; ++j) y(i, j) = rng.normal();
  CHECK(max_diff(attn::apply_rope(y), naive_rope(y)) < 1e-14);
}

TEST_CASE("rope: scores depend only on the relative position m - n", "[lesson][positions]") {
  attn::Rng rng(5);
  Matrix q(1, 8), k(1, 8);
  for (Index j = 0; j < 8; ++j) q(0, j) = rng.normal();
  for (Index j = 0; j < 8; ++j) k(0, j) = rng.normal();
  auto score = [&](long long m, long long n) {
    return attn::apply_rope(q, {m}).row(0).dot(attn::apply_rope(k, {n}).row(0));
  };
  for (long long shift : {1LL, 7LL, 100LL})
    CHECK(std::fabs(score(3, 1) - score(3 + shift, 1 + shift)) < 1e-12);
  CHECK(std::fabs(score(3, 1) - score(1, 3)) > 1e-6);  // not symmetric in m − n
}

TEST_CASE("rope: bad positions and bases are refused with their codes", "[lesson][positions][errors]") {
  CHECK_ATTN_ERROR(attn::apply_rope(M({{1, 2}, {3, 4}}), {0}), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(attn::apply_rope(M({{1, 2}}), {2000000}), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::apply_rope(M({{1, 2}}), {}, 1.0), attn::ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(attn::apply_rope(M({{NAN, 2}})), attn::ErrorCode::non_finite);
  CHECK_ATTN_ERROR(attn::apply_rope(Matrix(0, 2)), attn::ErrorCode::empty_sequence);
}

TEST_CASE("position symmetry: no positions and no mask is equivariant - and pooling invariant", "[lesson][positions]") {
  const attn::PositionSymmetryResult r = attn::position_symmetry(attn::PositionSymmetryInput{});
  CHECK(r.max_diff < 1e-12);
  CHECK(r.pooled_diff < 1e-12);
  // Same draws as the core's permutation_experiment: identical outputs, bit for bit.
  const attn::PermutationResult p = attn::permutation_experiment(attn::PermutationInput{});
  CHECK(max_diff(r.f_px, p.f_px) == 0.0);
  CHECK(max_diff(r.p_f_x, p.p_f_x) == 0.0);
  CHECK_ALL_PASS(r.checks);
}

TEST_CASE("position symmetry: sinusoidal positions - RoPE and a causal mask each break equivariance", "[lesson][positions]") {
  for (const auto& [kind, causal] : {std::pair{attn::PositionKind::sinusoidal, false}, std::pair{attn::PositionKind::rope, false},
                                     std::pair{attn::PositionKind::none, true}, std::pair{attn::PositionKind::rope, true}}) {
    attn::PositionSymmetryInput in;
    in.positions = kind;
    in.causal = causal;
    const attn::PositionSymmetryResult r = attn::position_symmetry(in);
    INFO(attn::position_kind_name(kind) << (causal ? " causal" : ""));
    CHECK(r.max_diff > 1e-3);
    CHECK_ALL_PASS(r.checks);
    if (kind == attn::PositionKind::sinusoidal) {
      attn::PermutationInput pin;
      pin.positions = attn::PositionKind::sinusoidal;
      CHECK(max_diff(r.f_px, attn::permutation_experiment(pin).f_px) == 0.0);
    }
  }
}

TEST_CASE("position symmetry: RoPE outputs match a naive RoPE head", "[lesson][positions]") {
  attn::PositionSymmetryInput in;
  in.positions = attn::PositionKind::rope;
  const attn::PositionSymmetryResult r = attn::position_symmetry(in);
  // Rebuild the head as documented: Rng(17): embedding (vocab×8, N(0,1)), W_q, W_k, W_v.
  const SeededHead s = seeded_head(in.sentence);
  const Naive ref =
      naive_attention(naive_rope(naive_matmul(s.x, s.wq)), naive_rope(naive_matmul(s.x, s.wk)), naive_matmul(s.x, s.wv));
  CHECK(max_diff(r.f_x, ref.output) < 1e-12);
  CHECK(r.rope_relative_diff < 1e-12);
}

TEST_CASE("position symmetry: a bad permutation is refused", "[lesson][positions][errors]") {
  attn::PositionSymmetryInput in;
  in.permutation = {0, 0, 1, 2, 3, 4};
  CHECK_ATTN_ERROR(attn::position_symmetry(in), attn::ErrorCode::invalid_field);
  in.permutation = {0, 1};
  CHECK_ATTN_ERROR(attn::position_symmetry(in), attn::ErrorCode::invalid_field);
  in = attn::PositionSymmetryInput{};
  in.sentence = "";
  CHECK_ATTN_ERROR(attn::position_symmetry(in), attn::ErrorCode::empty_sequence);
  in = attn::PositionSymmetryInput{};
  in.d_model = 0;
  CHECK_ATTN_ERROR(attn::position_symmetry(in), attn::ErrorCode::invalid_field);
}
