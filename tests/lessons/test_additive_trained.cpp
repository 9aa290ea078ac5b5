// The additive step of the trained attention translator (lessons/additive_trained.hpp), read from
// the shipped checkpoint: its weights against the translator's own teacher-forced pass (the batch
// path of seq2seq_forward, which translate_alignment reports), its scores against Bahdanau's
// formula written out here on the raw parameter buffer, and its refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include "attn/error.hpp"
#include "lessons/additive_trained.hpp"

using namespace attn;
using namespace attn::lessons;

namespace {

const TranslateModel& shipped_attention_model() {
  static const TranslateModel m = [] {
    std::ifstream in(std::string(ATTN_TESTS_DIR) + "/../checkpoints/translate.ckpt", std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string b = ss.str();
    return translate_attention_model(
        translate_run_from_checkpoint(learn::decode_checkpoint(reinterpret_cast<const std::uint8_t*>(b.data()), b.size())));
  }();
  return m;
}

// The attn::Error that f() throws; the test fails when f() returns.
Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no attn::Error thrown");
  return Error(ErrorCode::invalid_field, "");
}

ErrorCode code_of(const std::function<void()>& f) { return error_of(f).code(); }

}  // namespace

TEST_CASE("additive trained: every teacher-forced step's weights are the translator's alignment row",
          "[lesson][additive][translate]") {
  const TranslateModel& m = shipped_attention_model();
  for (const std::string sentence : {"the black cat", "a big white mouse", "the small car sees a black dog with the ball"}) {
    const TranslateAlignment al = translate_alignment(m, sentence);
    const int S = al.forced.src_len;
    TrainedAdditiveInput in;
    in.sentence = sentence;
    const TrainedAdditiveStep first = trained_additive_step(m, in);
    REQUIRE(first.steps == al.forced.rows);  // the reference's words and <eos>
    REQUIRE(first.target_words == al.target_words);
    REQUIRE(first.source_words == al.source_words);
    for (int t = 0; t < al.forced.rows; ++t) {
      in.step = t;
      const TrainedAdditiveStep r = trained_additive_step(m, in);
      INFO(sentence << " step " << t);
      REQUIRE(r.attention.weights.size() == S);
      double gap = 0.0;
      for (int j = 0; j < S; ++j)
        gap = std::max(gap, std::fabs(r.attention.weights(j) - al.forced.attention[static_cast<size_t>(t) * S + j]));
      CHECK(gap <= 1e-12);
      for (const Check& c : r.checks) {
        INFO(c.claim << " measured " << c.measured);
        CHECK(c.pass);
      }
      CHECK(r.previous_word == (t == 0 ? "<bos>" : al.target_words[static_cast<size_t>(t - 1)]));
      CHECK(r.target_word == al.target_words[static_cast<size_t>(t)]);
    }
  }
}

TEST_CASE("additive trained: the scores are v.tanh(W_s s + W_h h_j + b) on the model's own buffers",
          "[lesson][additive][translate]") {
  const TranslateModel& m = shipped_attention_model();
  const int H = m.config.hidden, A = m.config.attn_dim, C = m.config.context_dim();
  REQUIRE(C == 2 * H);  // the shipped translator's encoder is bidirectional
  TrainedAdditiveInput in;
  in.step = 1;  // "chat", read with the state after <bos> and "le"
  const TrainedAdditiveStep r = trained_additive_step(m, in);
  REQUIRE(r.source_words == std::vector<std::string>{"the", "black", "cat"});
  REQUIRE(r.target_word == "chat");
  // The encoder states are the batch pass's, bit for bit.
  const std::vector<TranslationPair> one{{english_ids("the black cat"), reference_translation(english_ids("the black cat"))}};
  learn::Seq2SeqActivations acts;
  learn::seq2seq_forward(m.config, m.layout, m.params.data(), translation_batch(one, {0}), acts);
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < C; ++k) REQUIRE(r.encoder_states(j, k) == acts.enc[0].states[static_cast<size_t>(j) * C + k]);
  for (int k = 0; k < H; ++k) REQUIRE(r.state(k) == acts.s_prev[1][static_cast<size_t>(k)]);
  // Bahdanau's eq. 6, written out on the flat state_dict tensors (out×in, row-major), std::tanh/std::exp.
  const double* ws = learn::tensor_in(m.layout, m.params.data(), "attn.w_s.weight");
  const double* wh = learn::tensor_in(m.layout, m.params.data(), "attn.w_h.weight");
  const double* b = learn::tensor_in(m.layout, m.params.data(), "attn.w_h.bias");
  const double* v = learn::tensor_in(m.layout, m.params.data(), "attn.v.weight");
  std::vector<double> e(3);
  for (int j = 0; j < 3; ++j) {
    double sum = 0.0;
    for (int a = 0; a < A; ++a) {
      double pre = b[a];
      for (int k = 0; k < H; ++k) pre += ws[a * H + k] * r.state(k);
      for (int k = 0; k < C; ++k) pre += wh[a * C + k] * r.encoder_states(j, k);
      sum += v[a] * std::tanh(pre);
    }
    e[static_cast<size_t>(j)] = sum;
    CHECK(std::fabs(sum - r.attention.scores(j)) <= 1e-12);
  }
  const double mx = std::max({e[0], e[1], e[2]});
  const double z = std::exp(e[0] - mx) + std::exp(e[1] - mx) + std::exp(e[2] - mx);
  for (int j = 0; j < 3; ++j) CHECK(std::fabs(std::exp(e[static_cast<size_t>(j)] - mx) / z - r.attention.weights(j)) <= 1e-12);
  for (int k = 0; k < C; ++k) {
    double c = 0.0;
    for (int j = 0; j < 3; ++j) c += r.attention.weights(j) * r.encoder_states(j, k);
    CHECK(std::fabs(c - r.attention.context(k)) <= 1e-12);
  }
  // Trained: at "chat" the translator reads "cat" most (an observation of this checkpoint).
  CHECK(r.attention.weights(2) > 0.5);
  CHECK(r.model_word == "chat");
}

TEST_CASE("additive trained: greedy steps follow greedy_decode's attention", "[lesson][additive][translate]") {
  const TranslateModel& m = shipped_attention_model();
  TrainedAdditiveInput in;
  in.sentence = "a big white mouse";
  in.feed = DecoderFeed::greedy;
  const GreedyDecode g = greedy_decode(m, english_ids(in.sentence), 14);
  const TrainedAdditiveStep first = trained_additive_step(m, in);
  REQUIRE(first.steps == static_cast<int>(g.steps.size()));
  for (int t = 0; t < first.steps; ++t) {
    in.step = t;
    const TrainedAdditiveStep r = trained_additive_step(m, in);
    for (int j = 0; j < 4; ++j) CHECK(r.model_weights(j) == g.steps[static_cast<size_t>(t)].attention[static_cast<size_t>(j)]);
    CHECK(r.model_word == r.target_word);  // greedy: the walked word is the model's argmax
  }
}

TEST_CASE("additive trained: refusals name what is wrong", "[lesson][additive][translate][errors]") {
  const TranslateModel& m = shipped_attention_model();
  TrainedAdditiveInput in;
  in.sentence = "the black zebra";
  CHECK(code_of([&] { trained_additive_step(m, in); }) == ErrorCode::invalid_field);
  in.sentence = "   ";
  CHECK(code_of([&] { trained_additive_step(m, in); }) == ErrorCode::empty_sequence);
  in.sentence = "the black cat";
  in.step = 4;  // le chat noir <eos>: steps 0..3
  {
    INFO("step 4 must be refused");
    const Error e = error_of([&] { trained_additive_step(m, in); });
    CHECK(e.code() == ErrorCode::invalid_field);
    CHECK(std::string(e.what()).find("step 4 is outside 0..3") != std::string::npos);
  }
  in.step = -1;
  CHECK(code_of([&] { trained_additive_step(m, in); }) == ErrorCode::invalid_field);
  in.step = 0;
  TranslateModel none;
  none.config = translate_model_config(TranslateConfig{}, false);
  none.layout = learn::seq2seq_layout(none.config);
  none.params.assign(none.layout.total(), 0.0);
  {
    INFO("a model without attention must be refused");
    const Error e = error_of([&] { trained_additive_step(none, in); });
    CHECK(e.code() == ErrorCode::invalid_field);
    CHECK(std::string(e.what()).find("no attention") != std::string::npos);
  }
}
