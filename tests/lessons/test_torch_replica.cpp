// tests/lessons/test_torch_replica.cpp — the torch replica: torch's CPU generator replayed for the
// lesson's script, against torch's own numbers (tests/fixtures/lesson-replica-seed17.json, torch 1.13).
#include <lessons/torch_replica.hpp>

#include <limits>

#include "support/support.hpp"

#ifndef ATTN_LESSON_FIXTURE
#error "ATTN_LESSON_FIXTURE must name tests/fixtures/lesson-replica-seed17.json"
#endif

using namespace attn_test;

TEST_CASE("torch replica: the generator is the standard mt19937", "[lesson][replica]") {
  // C++ standard [rand.predef]: the 10000th output of a default-constructed mt19937 (seed 5489)
  // is 4123659995.
  attn::TorchCpuGenerator g(5489);
  std::uint32_t x = 0;
  for (int i = 0; i < 10000; ++i) x = g.random();
  CHECK(x == 4123659995u);
  // manual_seed keeps the low 32 bits.
  attn::TorchCpuGenerator a(17), b(17 + (std::uint64_t{1} << 32));
  CHECK(a.random() == b.random());
}

TEST_CASE("torch replica: embedding and weights equal torch's - attention within 1e-12", "[lesson][replica]") {
  const nlohmann::json f = read_json_file(ATTN_LESSON_FIXTURE);
  const attn::LessonReplica r = attn::lesson_replica("The cat sat on the mat", 17, 8);
  CHECK(r.vocab.tokens == std::vector<std::string>{"The", "cat", "mat", "on", "sat", "the"});
  // The issue asks for 1e-6; replaying torch's float arithmetic gives the same bits.
  const double emb = max_diff(r.embedding_table, from_json_rows(f["embedding"]));
  const double wq = max_diff(r.torch_w_q, from_json_rows(f["W_q"]));
  const double wk = max_diff(r.torch_w_k, from_json_rows(f["W_k"]));
  const double wv = max_diff(r.torch_w_v, from_json_rows(f["W_v"]));
  INFO("max |diff| embedding " << emb << ", W_q " << wq << ", W_k " << wk << ", W_v " << wv);
  CHECK(emb == 0.0);
  CHECK(wq == 0.0);
  CHECK(wk == 0.0);
  CHECK(wv == 0.0);
  // In the core's in×out layout W_q is torch's transpose.
  CHECK(max_diff(r.weights.w_q, Matrix(r.torch_w_q.transpose())) == 0.0);
  const double w = max_diff(r.attention.attention.weights, from_json_rows(f["weights"]));
  const double o = max_diff(r.attention.attention.output, from_json_rows(f["output"]));
  INFO("max |diff| weights " << w << ", output " << o);
  CHECK(w < 1e-12);
  CHECK(o < 1e-12);
  CHECK_ALL_PASS(r.checks);
}

TEST_CASE("torch replica: normal_ refills the last 16 values when n is not a multiple of 16", "[lesson][replica]") {
  // Replay with std float functions (libm, not torch's Cephes polynomials, so within 1e-6):
  // n = 20 draws u[0..19]; chunk 0 transforms (u[j], u[j+8]); then 16 fresh uniforms f[0..15]
  // replace entries 4..19 and are transformed as one chunk.
  attn::TorchCpuGenerator g(123), replay(123);
  const std::vector<float> x = attn::torch_normal_fill(g, 20);
  std::vector<float> u(20), fresh(16);
  auto uniform = [&]() { return static_cast<float>(replay.random() & 0xFFFFFFu) / 16777216.0f; };
  for (float& v : u) v = uniform();
  for (float& v : fresh) v = uniform();
  auto box_muller = [](float a, float b, bool first) {
    const double r = std::sqrt(-2.0 * std::log(1.0 - a)), th = 2.0 * 3.14159265358979323846 * b;
    return first ? r * std::cos(th) : r * std::sin(th);
  };
  for (int j = 0; j < 4; ++j) CHECK(std::fabs(x[j] - box_muller(u[j], u[j + 8], true)) < 1e-6);
  for (int j = 0; j < 8; ++j) {
    CHECK(std::fabs(x[4 + j] - box_muller(fresh[j], fresh[j + 8], true)) < 1e-6);
    CHECK(std::fabs(x[12 + j] - box_muller(fresh[j], fresh[j + 8], false)) < 1e-6);
  }
  // Both generators consumed 36 draws.
  CHECK(g.random() == replay.random());
  CHECK_ATTN_ERROR(attn::torch_normal_fill(g, 15), attn::ErrorCode::invalid_field);
}

TEST_CASE("torch replica: a narrower projection draws the first rows of torch's W_q", "[lesson][replica]") {
  // nn.Linear(8, 4).weight is 4×8 drawn row-major right after the embedding: the same 32 draws
  // that make rows 0..3 of the script's nn.Linear(8, 8) W_q.
  const nlohmann::json f = read_json_file(ATTN_LESSON_FIXTURE);
  const attn::TorchInit init = attn::torch_init("The cat sat on the mat", 17, 8, 4);
  REQUIRE(init.torch_w_q.rows() == 4);
  REQUIRE(init.weights.w_q.rows() == 8);
  REQUIRE(init.weights.w_q.cols() == 4);
  CHECK(max_diff(init.torch_w_q, Matrix(from_json_rows(f["W_q"]).topRows(4))) == 0.0);
  CHECK(max_diff(init.embedding_table, from_json_rows(f["embedding"])) == 0.0);
  CHECK_ATTN_ERROR(attn::torch_init("a b", 17, 8, 0), attn::ErrorCode::invalid_field);
}

TEST_CASE("torch replica: kaiming_uniform bound and other sentences", "[lesson][replica]") {
  attn::TorchCpuGenerator g(17);
  const Matrix w = attn::torch_linear_weight(g, 4, 8);
  CHECK(w.cwiseAbs().maxCoeff() <= static_cast<double>(static_cast<float>(1.0 / std::sqrt(8.0))));
  // 3 words × 8 = 24 values: the tail path; every row still a distribution.
  const attn::LessonReplica r = attn::lesson_replica("a b c", 5, 8);
  CHECK(r.x.rows() == 3);
  CHECK_ALL_PASS(r.checks);
  CHECK_ATTN_ERROR(attn::lesson_replica("one", 17, 8), attn::ErrorCode::invalid_field);  // 1 × 8 < 16
  CHECK_ATTN_ERROR(attn::lesson_replica("", 17, 8), attn::ErrorCode::empty_sequence);
  CHECK_ATTN_ERROR(attn::lesson_replica("a b", 17, 0), attn::ErrorCode::invalid_field);
}
