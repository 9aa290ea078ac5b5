// tests/attn/test_lesson.cpp — every check of the lesson's hands-on script, ported.
//
// Reference data: tests/fixtures/lesson-replica-seed17.json, torch's own numbers for the
// script (torch.manual_seed(17); nn.Embedding(6,8); three nn.Linear(8,8,bias=False); float64).
// Its Linear weights are out×in (PyTorch layout); the core takes in×out, so we transpose.
// Every claim is also held against the naive loop reference of support.hpp.
// Tolerance: 1e-12 absolute, as the script's allclose(atol=1e-12).
#include <attn/attention.hpp>
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/random_heads.hpp>
#include <attn/heads.hpp>
#include <attn/tokenizer.hpp>

#include <attn/linalg.hpp>

#include "support/support.hpp"

using namespace attn_test;
using attn::Matrix;

namespace {

struct Lesson {
  nlohmann::json replica;
  std::vector<std::string> words;
  Matrix table;  // vocab×8, rows in vocabulary order
  Matrix x;      // 6×8, the sentence's embeddings
  attn::HeadWeights w;
  Matrix torch_weights, torch_output;
};

const Lesson& lesson() {
  static const Lesson L = [] {
    Lesson l;
    l.replica = load_json("fixtures/lesson-replica-seed17.json");
    l.words = l.replica.at("words").get<std::vector<std::string>>();
    l.table = from_json_rows(l.replica.at("embedding"));
    l.x = Matrix(static_cast<Index>(l.words.size()), l.table.cols());
    for (size_t i = 0; i < l.words.size(); ++i)
      l.x.row(static_cast<Index>(i)) = l.table.row(l.replica.at("vocab").at(l.words[i]).get<int>());
    l.w.w_q = transpose(from_json_rows(l.replica.at("W_q")));
    l.w.w_k = transpose(from_json_rows(l.replica.at("W_k")));
    l.w.w_v = transpose(from_json_rows(l.replica.at("W_v")));
    l.torch_weights = from_json_rows(l.replica.at("weights"));
    l.torch_output = from_json_rows(l.replica.at("output"));
    return l;
  }();
  return L;
}

// The script's forward(x, causal, valid).
attn::SelfAttentionResult forward(const Matrix& x, bool causal = false,
                                  const std::vector<bool>* valid = nullptr) {
  attn::MaskSpec mask;
  if (causal) mask.causal = attn::Causal::square;
  if (valid) mask.key_valid = *valid;
  return attn::self_attention(x, lesson().w, mask);
}

Matrix rows_of(const Matrix& m, Index first, Index count) { return m.middleRows(first, count); }

using attn::permute_rows;  // new row i = old row p[i]
}  // namespace

TEST_CASE("lesson: replica fixture has the expected layout", "[lesson]") {
  const Lesson& l = lesson();
  INFO(l.replica.at("about").get<std::string>());
  REQUIRE(l.words == std::vector<std::string>{"The", "cat", "sat", "on", "the", "mat"});
  REQUIRE(l.table.rows() == 6);
  REQUIRE(l.table.cols() == 8);
  REQUIRE(l.w.w_q.rows() == 8);
  REQUIRE(l.w.w_q.cols() == 8);
  REQUIRE(l.torch_weights.rows() == 6);
  REQUIRE(l.torch_weights.cols() == 6);
  REQUIRE(l.torch_output.rows() == 6);
  REQUIRE(l.torch_output.cols() == 8);
}

TEST_CASE("lesson: vocabulary and embedding lookup match the script", "[lesson][tokenizer]") {
  // vocab = {w: i for i, w in enumerate(sorted(set(words)))}
  const Lesson& l = lesson();
  const auto tokens = attn::tokenize("The cat sat on the mat");
  REQUIRE(tokens == l.words);
  const attn::Vocabulary v = attn::build_vocabulary(tokens);
  REQUIRE(v.tokens.size() == l.replica.at("vocab").size());
  for (const auto& kv : l.replica.at("vocab").items()) {
    INFO("token " << kv.key());
    REQUIRE(v.ids.count(kv.key()) == 1);
    CHECK(v.ids.at(kv.key()) == kv.value().get<int>());
  }
  const Matrix x = attn::embed(l.table, attn::token_ids(v, tokens));
  CHECK_MATRIX_NEAR(x, l.x, 0.0);
}

TEST_CASE("lesson: self-attention equals torch SDPA and the naive reference", "[lesson][replica]") {
  const Lesson& l = lesson();
  const auto r = forward(l.x);
  // assert out.shape == x.shape and a.shape == (1,6,6)
  CHECK(r.attention.output.rows() == l.x.rows());
  CHECK(r.attention.output.cols() == l.x.cols());
  CHECK(r.attention.weights.rows() == 6);
  CHECK(r.attention.weights.cols() == 6);
  // Projections: q = x @ W_q.T (torch) = x · w_q (ours), against plain loops.
  CHECK_MATRIX_NEAR(r.query, from_rows(ref_matmul(to_rows(l.x), to_rows(l.w.w_q))), 1e-12);
  CHECK_MATRIX_NEAR(r.key, from_rows(ref_matmul(to_rows(l.x), to_rows(l.w.w_k))), 1e-12);
  CHECK_MATRIX_NEAR(r.value, from_rows(ref_matmul(to_rows(l.x), to_rows(l.w.w_v))), 1e-12);
  // torch's weights and output (the script's allclose(out, SDPA, atol=1e-12)).
  CHECK_MATRIX_NEAR(r.attention.weights, l.torch_weights, 1e-12);
  CHECK_MATRIX_NEAR(r.attention.output, l.torch_output, 1e-12);
  // And the textbook loops on our projections, default scale 1/sqrt(8).
  const Ref ref = ref_attention(r.query, r.key, r.value);
  CHECK_MATRIX_NEAR(r.attention.weights, ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(r.attention.output, ref.output, 1e-12);
  CHECK(r.attention.scale == 1.0 / std::sqrt(8.0));
}

TEST_CASE("lesson: every attention row sums to one", "[lesson]") {
  const Lesson& l = lesson();
  const auto r = forward(l.x);
  double worst = 0.0;
  for (Index i = 0; i < 6; ++i) {
    double s = 0.0;
    for (Index j = 0; j < 6; ++j) s += r.attention.weights(i, j);
    worst = std::max(worst, std::fabs(s - 1.0));
  }
  INFO("max |row sum - 1| = " << fmt17(worst));
  CHECK(worst <= 1e-12);
  CHECK(attn::max_row_sum_error(r.attention.weights) <= 1e-12);
}

TEST_CASE("lesson: causal weights have a zero upper triangle and row 0 is one-hot", "[lesson][causal]") {
  const Lesson& l = lesson();
  const auto r = forward(l.x, /*causal=*/true);
  const Matrix& a = r.attention.weights;
  int nonzero_above = 0;
  for (Index i = 0; i < 6; ++i)
    for (Index j = i + 1; j < 6; ++j)
      if (a(i, j) != 0.0) {
        ++nonzero_above;
        INFO("weight(" << i << "," << j << ") = " << fmt17(a(i, j)));
        CHECK(a(i, j) == 0.0);
      }
  CHECK(nonzero_above == 0);  // torch.count_nonzero(ac.triu(1)) == 0
  CHECK(a(0, 0) == 1.0);      // ac[0,0,0] == 1, exactly
  const Ref ref = ref_attention(r.query, r.key, r.value, ref_causal(6, 6));
  CHECK_MATRIX_NEAR(a, ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(r.attention.output, ref.output, 1e-12);
}

TEST_CASE("lesson: causal prefix is isolated from future inputs", "[lesson][causal]") {
  const Lesson& l = lesson();
  Matrix changed = l.x;
  changed.bottomRows(3).array() += 100.0;  // changed[:, 3:] += 100
  const Matrix causal = forward(l.x, true).attention.output;
  const Matrix future = forward(changed, true).attention.output;
  CHECK_MATRIX_NEAR(rows_of(future, 0, 3), rows_of(causal, 0, 3), 1e-12);

  // Negative control: unmasked attention is affected by future inputs (the script asserts
  // "not allclose"; we require a clear margin: some entry of rows 0..2 moves by more than 1e-3).
  const Matrix out = forward(l.x).attention.output;
  const Matrix leaky = forward(changed).attention.output;
  const auto cmp = compare(rows_of(leaky, 0, 3), rows_of(out, 0, 3), 1e-3, "unmasked rows 0..2");
  INFO(cmp.report);
  CHECK(cmp.max_diff > 1e-3);
}

TEST_CASE("lesson: permutation equivariance with order 2 0 5 1 4 3", "[lesson][permutation]") {
  const Lesson& l = lesson();
  const std::vector<int> perm = {2, 0, 5, 1, 4, 3};
  const Matrix out = forward(l.x).attention.output;
  const Matrix permuted = forward(permute_rows(l.x, perm)).attention.output;  // m(x[:, perm])
  CHECK_MATRIX_NEAR(permuted, permute_rows(out, perm), 1e-12);                // out[:, perm]
  // And against the torch output permuted.
  CHECK_MATRIX_NEAR(permuted, permute_rows(l.torch_output, perm), 1e-12);
}

TEST_CASE("lesson: key padding gives padded keys zero weight and hides their content", "[lesson][padding]") {
  const Lesson& l = lesson();
  const std::vector<bool> valid = {true, true, true, true, false, false};
  const auto padded = forward(l.x, false, &valid);
  for (Index i = 0; i < 6; ++i)
    for (Index j = 4; j < 6; ++j) {
      INFO("weight(" << i << "," << j << ")");
      CHECK(padded.attention.weights(i, j) == 0.0);  // count_nonzero(ap[:,:,4:]) == 0
    }
  const Ref ref = ref_attention(padded.query, padded.key, padded.value, ref_key_valid(6, valid));
  CHECK_MATRIX_NEAR(padded.attention.weights, ref.weights, 1e-12);
  CHECK_MATRIX_NEAR(padded.attention.output, ref.output, 1e-12);

  Matrix changed = l.x;
  changed.bottomRows(2).array() += 100.0;  // changed[:, 4:] += 100
  const auto moved = forward(changed, false, &valid);
  CHECK_MATRIX_NEAR(rows_of(moved.attention.output, 0, 4), rows_of(padded.attention.output, 0, 4), 1e-12);
}

TEST_CASE("lesson: an all-masked row is rejected with no_allowed_key", "[lesson][errors]") {
  const Lesson& l = lesson();
  const std::vector<bool> none(6, false);
  CHECK_ATTN_ERROR(forward(l.x, false, &none), attn::ErrorCode::no_allowed_key);

  // The alternative policy: zero output and zero weights, every row flagged.
  attn::MaskSpec mask;
  mask.key_valid = none;
  attn::AttentionOptions opt;
  opt.empty_rows = attn::EmptyRows::zero;
  const auto r = attn::self_attention(l.x, l.w, mask, opt);
  CHECK_MATRIX_NEAR(r.attention.weights, Matrix::Zero(6, 6), 0.0);
  CHECK_MATRIX_NEAR(r.attention.output, Matrix::Zero(6, 8), 0.0);
  REQUIRE(r.attention.empty_row.size() == 6);
  for (bool flagged : r.attention.empty_row) CHECK(flagged);
}

TEST_CASE("lesson: le chat noir alignment gives the chat context 1.7 0.1", "[lesson][alignment]") {
  // Rows le/chat/noir, columns the/black/cat; values (1,0), (0,1), (2,0).
  // chat row: 0.1·(1,0) + 0.1·(0,1) + 0.8·(2,0) = (1.7, 0.1).
  const Matrix A = M({{.8, .1, .1}, {.1, .1, .8}, {.1, .8, .1}});
  const Matrix values = M({{1, 0}, {0, 1}, {2, 0}});
  const Matrix expected_contexts = M({{1.0, 0.1}, {1.7, 0.1}, {0.3, 0.8}});

  SECTION("through attention() with scores log(A)") {
    // query = identity, key row j = column j of log(A), scale 1: score(i,j) = log A(i,j),
    // and softmax of log A over a row summing to 1 returns A.
    Matrix key(3, 3);
    for (Index j = 0; j < 3; ++j)
      for (Index c = 0; c < 3; ++c) key(j, c) = std::log(A(c, j));
    attn::AttentionOptions opt;
    opt.scale = 1.0;
    const auto r = attn::attention(Matrix::Identity(3, 3), key, values, {}, opt);
    CHECK_MATRIX_NEAR(r.weights, A, 1e-12);
    CHECK_MATRIX_NEAR(r.output, expected_contexts, 1e-12);
    CHECK(std::fabs(r.output(1, 0) - 1.7) <= 1e-12);
    CHECK(std::fabs(r.output(1, 1) - 0.1) <= 1e-12);
  }
  SECTION("through lesson_alignment()") {
    const attn::AlignmentRead a = attn::lesson_alignment();
    CHECK(a.queries == std::vector<std::string>{"le", "chat", "noir"});
    CHECK(a.keys == std::vector<std::string>{"the", "black", "cat"});
    CHECK_MATRIX_NEAR(a.weights, A, 0.0);
    CHECK_MATRIX_NEAR(a.values, values, 0.0);
    CHECK_MATRIX_NEAR(a.contexts, expected_contexts, 1e-12);
    REQUIRE(a.contributions.size() == 3);
    // chat's terms: 0.1·(1,0), 0.1·(0,1), 0.8·(2,0)
    CHECK_MATRIX_NEAR(a.contributions[1], M({{0.1, 0}, {0, 0.1}, {1.6, 0}}), 1e-15);
    CHECK_ALL_PASS(a.checks);
  }
  SECTION("through alignment_read() with the same numbers") {
    const attn::AlignmentRead a =
        attn::alignment_read({"le", "chat", "noir"}, {"the", "black", "cat"}, A, values);
    CHECK_MATRIX_NEAR(a.contexts, expected_contexts, 1e-12);
  }
}

TEST_CASE("lesson: 0.99 weight on a zero value contributes nothing", "[lesson][alignment]") {
  // weights (0.99, 0.01) on values (0,0), (10,20): output (0.1, 0.2).
  const Matrix values = M({{0, 0}, {10, 20}});
  SECTION("as a weighted read") {
    const auto a = attn::alignment_read({"q"}, {"zero", "big"}, M({{0.99, 0.01}}), values);
    CHECK_MATRIX_NEAR(a.contexts, M({{0.1, 0.2}}), 1e-12);
    REQUIRE(a.contributions.size() == 1);
    CHECK_MATRIX_NEAR(a.contributions[0], M({{0, 0}, {0.1, 0.2}}), 1e-15);
  }
  SECTION("through attention() with scores log(0.99), log(0.01)") {
    attn::AttentionOptions opt;
    opt.scale = 1.0;
    const auto r =
        attn::attention(M({{1}}), M({{std::log(0.99)}, {std::log(0.01)}}), values, {}, opt);
    CHECK_MATRIX_NEAR(r.weights, M({{0.99, 0.01}}), 1e-12);
    CHECK_MATRIX_NEAR(r.output, M({{0.1, 0.2}}), 1e-12);
  }
}
