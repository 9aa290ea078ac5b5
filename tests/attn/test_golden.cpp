// tests/attn/test_golden.cpp — golden values for seed 17, bit-exact on every platform.
//
// The core promises "same seed, same numbers, natively and in the browser": its sampling sits on
// std::mt19937_64 (sequence fixed by the C++ standard), its loops sum in a fixed order, its
// transcendentals are attn::det (no libm), and it is compiled with -ffp-contract=off.
// These constants were recorded ONCE from the native build (g++ 12, x86-64, RelWithDebInfo,
// printed with %.17g) and are cross-checked by the wasm build (em++ 3.1.6 under node), which
// runs this same file: both must reproduce every constant with ==, not within a tolerance.
// If a deliberate change to the core's arithmetic moves them, re-record from the native build
// and confirm the wasm build agrees before committing.
#include <attn/detmath.hpp>
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/random_heads.hpp>
#include <attn/positions.hpp>
#include <attn/random.hpp>

#include "support/support.hpp"

using namespace attn_test;

namespace {
void check_bits(double actual, double golden, const char* what) {
  INFO(what << ": actual " << fmt17(actual) << ", golden " << fmt17(golden)
            << ", difference " << fmt17(actual - golden));
  CHECK(actual == golden);
}
}  // namespace

TEST_CASE("golden: random_heads seed 17 is bit-exact", "[golden][random_heads]") {
  const attn::RandomHeadsResult r = attn::random_heads(attn::RandomHeadsInput{});
  REQUIRE(r.heads.size() == 2);
  check_bits(r.x(0, 0), 1.2196756913052544, "x(0,0)");
  check_bits(r.x(5, 3), -1.3689629852382281, "x(5,3)");
  const double head0_row0[6] = {0.16845883920820404, 0.12738119389563288, 0.16498349909062479,
                                0.22193223095822387, 0.12317166861136841, 0.19407256823594607};
  const double head1_row5[6] = {0.18028477181980845, 0.1314971876564639, 0.32584818049207148,
                                0.038474563587452236, 0.16783512013369062, 0.15606017631051333};
  for (Index j = 0; j < 6; ++j) {
    INFO("key " << j);
    check_bits(r.heads[0].weights(0, j), head0_row0[j], "head 0 weight(0,j)");
    check_bits(r.heads[1].weights(5, j), head1_row5[j], "head 1 weight(5,j)");
  }
  check_bits(r.heads[1].output(2, 3), 0.83194301612269894, "head 1 output(2,3)");
}

TEST_CASE("golden: random_heads causal with positions is bit-exact", "[golden][random_heads]") {
  attn::RandomHeadsInput in;
  in.causal = true;
  in.positions = attn::PositionKind::sinusoidal;
  const attn::RandomHeadsResult r = attn::random_heads(in);
  check_bits(r.heads[0].weights(3, 2), 0.22689973900415883, "head 0 weight(3,2)");
  check_bits(r.heads[1].output(4, 1), 0.037641075858193124, "head 1 output(4,1)");
}

TEST_CASE("golden: Rng permutation and elementary functions are bit-exact", "[golden][random]") {
  attn::Rng g(17);
  check_bits(g.uniform01(), 0.69707718429472409, "Rng(17).uniform01()");
  check_bits(g.normal(), 1.6386652167995479, "then normal()");
  check_bits(g.normal(), -0.99434585935247821, "then normal() (the spare)");
  CHECK(attn::random_permutation(6, 17) == std::vector<int>{3, 4, 2, 1, 0, 5});

  const attn::PermutationResult p = attn::permutation_experiment(attn::PermutationInput{});
  check_bits(p.f_px(0, 0), 0.084638147535351621, "permutation f(PX)(0,0)");
  check_bits(p.max_diff, 2.2204460492503131e-16, "permutation max_diff");
  attn::PermutationInput with_positions;
  with_positions.positions = attn::PositionKind::sinusoidal;
  check_bits(attn::permutation_experiment(with_positions).max_diff, 0.23705349332336434,
             "permutation max_diff with positions");

  const Matrix pe = attn::sinusoidal_positions(8, 8);
  check_bits(pe(5, 1), 0.2836621854632263, "PE(5,1)");
  check_bits(pe(7, 3), 0.76484218728448861, "PE(7,3)");
  check_bits(attn::det::exp(0.5), 1.6487212707001282, "det::exp(0.5)");
  check_bits(attn::det::log(3.0), 1.0986122886681098, "det::log(3)");
  check_bits(attn::det::sin(2.5), 0.59847214410395644, "det::sin(2.5)");
  check_bits(attn::det::cos(100.0), 0.862318872287684, "det::cos(100)");
}
