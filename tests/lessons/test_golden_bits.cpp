// tests/lessons/test_golden_bits.cpp — the lesson's seeded numbers, bit for bit, native and wasm.
//
// These are not independent derivations (the other files hold those): they are the core's own
// results for fixed seeds, recorded as exact hexadecimal doubles from a native run and confirmed
// identical under node (em++ 3.1.6). Any change of summation order, libm use or sampling shows up
// here first, on whichever platform drifts.
#include <attn/additive.hpp>
#include <lessons/additive_decoder.hpp>
#include <lessons/additive_decoder.hpp>
#include <attn/det_tanh.hpp>
#include <lessons/dropout.hpp>
#include <attn/rope.hpp>
#include <lessons/position_symmetry.hpp>
#include <lessons/position_symmetry.hpp>
#include <lessons/scaling.hpp>
#include <lessons/timing.hpp>
#include <lessons/torch_replica.hpp>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("golden bits: seeded issue-4 results are identical native and wasm", "[lesson][golden]") {
  CHECK(attn::det::tanh(0.3) == 0x1.2a4dda7d914fap-2);
  CHECK(attn::det::sigmoid(-1.7) == 0x1.3c5848ef36c9fp-3);
  attn::ScalingInput in;
  in.d_ks = {4};
  in.samples = 50;
  in.rows = 5;
  const attn::ScalingResult s = attn::scaling_study(in);
  CHECK(s.dot[0].variance == 0x1.33d2c205c06c6p+2);
  CHECK(s.saturation[0].entropy == 0x1.306d3427c9f5bp+0);
  CHECK(attn::additive_decoder_demo().alignment(2, 1) == 0x1.9bf4519326a26p-2);
  attn::PositionSymmetryInput p;
  p.positions = attn::PositionKind::rope;
  CHECK(attn::position_symmetry(p).f_x(3, 2) == 0x1.c2ff994bdb5fap-1);
  attn::Rng rng(11);
  const attn::LstmWeights w = attn::lstm_init(rng, 3, 4);
  Matrix x(5, 3);
  for (Index i = 0; i < 5; ++i)
    for (Index j = 0; j < 3; ++j) x(i, j) = rng.normal();
  CHECK(attn::lstm_forward(x, w).h(4, 3) == -0x1.67f866149dbdcp-5);
  const attn::LessonReplica m = attn::lesson_replica();
  const attn::AttentionDropout d = attn::apply_attention_dropout(m.attention.attention, m.attention.value, 0.3, 9);
  CHECK(d.keep.count() == 25);
  CHECK(d.output_dropped(1, 2) == 0x1.edaac2115ea62p-6);
}
