// tests/lessons/test_heads_options.cpp — the random heads' options on the page: RoPE as a position
// option of random_heads and permutation_experiment, and the PyTorch-replica init of random_heads.
//
// Derivations (independent of lessons/random_heads.cpp):
//   - RoPE rotates Q and K by slot position (Su et al. 2021, eq. 34); rope.cpp's position_symmetry
//     implements its own head (run_head), drawing from Rng(seed) in the same order, so one head of
//     d_k = d_model must give the same numbers bit for bit, and f(PX) must match there too.
//   - Multi-head RoPE: each head rotates its own d_k features. Rebuilt here with a naive rotation
//     (cos/sin of m·10000^(−2i/d_k)) and naive_attention (std::exp), so within 1e-12.
//   - torch_replica: torch_init(sentence, 17, 8, 8) is the lesson's model, so one head of d_k 8 must
//     print the fixture's matrix (torch 1.13's own numbers) within 1e-6, and equal lesson_replica().
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/random_heads.hpp>
#include <attn/random.hpp>
#include <attn/rope.hpp>
#include <lessons/position_symmetry.hpp>
#include <lessons/position_symmetry.hpp>
#include <lessons/torch_replica.hpp>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("heads options: RoPE in permutation_experiment equals position_symmetry's RoPE head", "[lesson][positions]") {
  for (bool causal : {false, true}) {
    attn::PermutationInput p;
    p.positions = attn::PositionKind::rope;
    p.causal = causal;
    const attn::PermutationResult r = attn::permutation_experiment(p);
    attn::PositionSymmetryInput s;
    s.positions = attn::PositionKind::rope;
    s.causal = causal;
    const attn::PositionSymmetryResult ref = attn::position_symmetry(s);
    INFO((causal ? "causal" : "no mask"));
    CHECK(max_diff(r.f_px, ref.f_px) == 0.0);
    CHECK(max_diff(r.p_f_x, ref.p_f_x) == 0.0);
    CHECK(max_diff(r.weights_x, ref.weights_x) == 0.0);
    CHECK(r.max_diff > 1e-3);  // RoPE breaks equivariance
    CHECK(r.kv_diff < 1e-12);  // a fixed query still ignores the order of its (key, value) pairs
    CHECK_ALL_PASS(r.checks);
  }
  // The check names the signal.
  attn::PermutationInput p;
  p.positions = attn::PositionKind::rope;
  CHECK(attn::permutation_experiment(p).checks[0].claim.find("RoPE") != std::string::npos);
}

TEST_CASE("heads options: RoPE in random_heads rotates each head's own features", "[lesson][positions]") {
  attn::RandomHeadsInput in;  // 2 heads of d_k 4 on d_model 8
  in.positions = attn::PositionKind::rope;
  const attn::RandomHeadsResult r = attn::random_heads(in);
  REQUIRE(r.heads.size() == 2);
  // Rebuild: Rng(17): embedding table, W_q, W_k, W_v (8×8), as random_heads documents.
  const SeededHead head = seeded_head(in.sentence);
  const Matrix q = naive_matmul(head.x, head.wq), k = naive_matmul(head.x, head.wk), v = naive_matmul(head.x, head.wv);
  for (Index h = 0; h < 2; ++h) {
    const Naive n = naive_attention(naive_rope(q.middleCols(h * 4, 4)), naive_rope(k.middleCols(h * 4, 4)),
                                    v.middleCols(h * 4, 4));
    INFO("head " << h);
    CHECK(max_diff(r.heads[static_cast<size_t>(h)].weights, n.weights) < 1e-12);
    CHECK(max_diff(r.heads[static_cast<size_t>(h)].output, n.output) < 1e-12);
  }
  // One head of d_k = d_model: exactly position_symmetry's RoPE head (same draws, same code path order).
  in.heads = 1;
  in.d_k = 8;
  attn::PositionSymmetryInput s;
  s.positions = attn::PositionKind::rope;
  s.permutation = {0, 1, 2, 3, 4, 5};
  CHECK(max_diff(attn::random_heads(in).heads[0].weights, attn::position_symmetry(s).weights_x) == 0.0);
  // Without positions the heads differ from the RoPE ones (position 0 is not rotated, the rest are).
  in.positions = attn::PositionKind::none;
  CHECK(max_diff(attn::random_heads(in).heads[0].weights, attn::position_symmetry(s).weights_x) > 1e-3);
}

TEST_CASE("heads options: the PyTorch-replica init prints the lesson's matrix", "[lesson][replica]") {
  const nlohmann::json f = read_json_file(ATTN_LESSON_FIXTURE);
  attn::RandomHeadsInput in;
  in.init = attn::HeadsInit::torch_replica;
  in.heads = 1;
  in.d_k = 8;
  const attn::RandomHeadsResult r = attn::random_heads(in);
  REQUIRE(r.heads.size() == 1);
  const double w = max_diff(r.heads[0].weights, from_json_rows(f["weights"]));
  INFO("max |weights - torch's| = " << w);
  CHECK(w < 1e-6);  // the tolerance; in fact the same bits up to summation order
  CHECK(max_diff(r.heads[0].weights, attn::lesson_replica().attention.attention.weights) == 0.0);
  CHECK(max_diff(r.x, attn::lesson_replica().x) == 0.0);  // the script's embedded sentence
  CHECK_ALL_PASS(r.checks);

  // Two heads of d_k 4 read the same 8×8 torch weights in column blocks (nn.Linear(8, 8) again).
  in.heads = 2;
  in.d_k = 4;
  const attn::RandomHeadsResult two = attn::random_heads(in);
  const attn::LessonReplica m = attn::lesson_replica();
  for (Index h = 0; h < 2; ++h) {
    const Naive n = naive_attention(m.attention.query.middleCols(h * 4, 4), m.attention.key.middleCols(h * 4, 4),
                                    m.attention.value.middleCols(h * 4, 4));
    CHECK(max_diff(two.heads[static_cast<size_t>(h)].weights, n.weights) < 1e-12);
  }
  // Another seed re-rolls torch's generator.
  in.seed = 18;
  CHECK(max_diff(attn::random_heads(in).heads[0].weights, two.heads[0].weights) > 1e-3);
}

TEST_CASE("heads options: the PyTorch-replica init refuses what torch_init refuses", "[lesson][replica][errors]") {
  attn::RandomHeadsInput in;
  in.init = attn::HeadsInit::torch_replica;
  in.heads = 8;
  in.d_k = 512;  // width 4096 > 512
  CHECK_ATTN_ERROR(attn::random_heads(in), attn::ErrorCode::invalid_field);
  in = attn::RandomHeadsInput{};
  in.init = attn::HeadsInit::torch_replica;
  in.sentence = "  ";
  CHECK_ATTN_ERROR(attn::random_heads(in), attn::ErrorCode::empty_sequence);
  in.sentence = "a";
  in.d_model = 8;  // vocab 1 × 8 = 8 < 16 values: torch's small normal_ path is not replicated
  CHECK_ATTN_ERROR(attn::random_heads(in), attn::ErrorCode::invalid_field);
}
