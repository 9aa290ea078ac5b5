// The default language model (core/lessons/language_model): the corpus reader, the trainer's
// pieces (GPT-2's init, the schedule, the batches), the card's baselines and held-out loss on
// small hand-checked inputs, and the shipped files in checkpoints/: their vocabulary map, their
// card's held-out loss recomputed on a slice, and the first 3 steps of the shipped run reproduced
// to the bit. The last two need the setup cache (the King James Bible and GPT-2's tokenizer);
// without it they say so and pass.
#include <lessons/language_model/card.hpp>
#include <lessons/language_model/corpus.hpp>
#include <lessons/language_model/ship.hpp>
#include <lessons/language_model/trainer.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <json/tokenize_json.hpp>
#include <learn/checkpoint.hpp>
#include <learn/decoder_analysis.hpp>

#include "support/support.hpp"

namespace {

using attn::ErrorCode;
namespace L = attn::lessons;
namespace learn = attn::learn;

[[maybe_unused]] std::string read_path(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// GPT-2's tokenizer and the King James Bible from the setup cache, or null when either is absent.
struct Cache {
  std::unique_ptr<attn::BpeTokenizer> tokenizer;
  std::string kjv;
};
const Cache& cache() {
  static const Cache c = [] {
    Cache out;
#if defined(ATTN_GPT2_TOKENIZER_DIR) && defined(ATTN_KJV_TEXT)
    const std::string enc = read_path(std::string(ATTN_GPT2_TOKENIZER_DIR) + "/encoder.json");
    const std::string bpe = read_path(std::string(ATTN_GPT2_TOKENIZER_DIR) + "/vocab.bpe");
    out.kjv = read_path(ATTN_KJV_TEXT);
    if (!enc.empty() && !bpe.empty() && !out.kjv.empty())
      out.tokenizer = std::make_unique<attn::BpeTokenizer>(attn::load_bpe_tokenizer(enc, bpe));
#endif
    return out;
  }();
  return c;
}

const L::LmCorpus* kjv_corpus() {
  static const std::unique_ptr<L::LmCorpus> c = []() -> std::unique_ptr<L::LmCorpus> {
    if (!cache().tokenizer) return nullptr;
    return std::make_unique<L::LmCorpus>(L::build_lm_corpus(L::parse_kjv(cache().kjv), *cache().tokenizer));
  }();
  return c.get();
}

const char* kModel = "../checkpoints/kjv-lm.safetensors";
const char* kConfig = "../checkpoints/kjv-lm.config.json";
const char* kCard = "../checkpoints/kjv-lm.card.json";

// The lesson's model shape (GPT-2's layout) at a test's small sizes.
learn::DecoderConfig small_model(int vocab, int context, int d_model, int heads, int mlp, int layers) {
  learn::DecoderConfig c = L::lm_model_config(vocab);
  c.context = context;
  c.d_model = d_model;
  c.heads = heads;
  c.mlp = mlp;
  c.layers = layers;
  return c;
}

}  // namespace

TEST_CASE("language model: bible's output is read verse by verse, labels checked", "[lesson][lm]") {
  const auto v = L::parse_kjv("Ge1:1 In the beginning God created the heaven and the earth.\n"
                              "\n"
                              "1Sm17:49 And David put his hand in his bag.\r\n"
                              "Rev22:21 The grace of our Lord Jesus Christ be with you all. Amen.");
  REQUIRE(v.size() == 3);
  CHECK(v[0].book == "Ge");
  CHECK(v[0].chapter == 1);
  CHECK(v[0].verse == 1);
  CHECK(v[0].text == "In the beginning God created the heaven and the earth.");
  CHECK(v[1].book == "1Sm");
  CHECK(v[1].chapter == 17);
  CHECK(v[1].verse == 49);
  CHECK(v[1].text == "And David put his hand in his bag.");
  CHECK(v[2].book == "Rev");
  CHECK_THROWS_WITH(L::parse_kjv("Ge1:1 ok\nno label here\n"), Catch::Contains("line 2"));
  CHECK_ATTN_ERROR(L::parse_kjv("Ge1 text\n"), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(L::parse_kjv("1:1 text\n"), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(L::parse_kjv("Ge1:x text\n"), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(L::parse_kjv("\n\n"), ErrorCode::empty_sequence);
}

TEST_CASE("language model: the schedule warms up, then decays by a cosine to its floor", "[lesson][lm]") {
  L::LmTrainingConfig c;
  c.steps = 111;
  c.warmup = 10;
  c.lr = 1e-3;
  c.min_lr = 1e-4;
  CHECK(L::lm_learning_rate(c, 0) == Approx(1e-4).epsilon(1e-12));
  CHECK(L::lm_learning_rate(c, 9) == Approx(1e-3).epsilon(1e-12));
  CHECK(L::lm_learning_rate(c, 10) == Approx(1e-3).epsilon(1e-12));
  CHECK(L::lm_learning_rate(c, 60) == Approx(5.5e-4).epsilon(1e-9));  // the cosine's midpoint
  CHECK(L::lm_learning_rate(c, 110) == Approx(1e-4).epsilon(1e-12));
}

TEST_CASE("language model: GPT-2's initialisation has GPT-2's laws", "[lesson][lm]") {
  learn::DecoderConfig cfg = L::lm_model_config(500);
  const learn::ParamLayout layout = learn::decoder_layout(cfg);
  const std::vector<double> p = L::gpt2_init_params(cfg, layout, 7);
  CHECK(attn_test::same_bits(p, L::gpt2_init_params(cfg, layout, 7)));
  const auto std_of = [&](const std::string& name) {
    const learn::ParamInfo& t = layout.at(static_cast<std::size_t>(layout.find(name)));
    double s = 0.0;
    for (std::size_t i = 0; i < t.size(); ++i) s += p[t.offset + i] * p[t.offset + i];
    return std::sqrt(s / static_cast<double>(t.size()));
  };
  CHECK(std_of("embed.weight") == Approx(0.02).epsilon(0.02));
  CHECK(std_of("layers.0.attn.in_proj_weight") == Approx(0.02).epsilon(0.02));
  CHECK(std_of("layers.1.mlp.2.weight") == Approx(0.02 / std::sqrt(8.0)).epsilon(0.03));
  CHECK(std_of("layers.3.attn.out_proj.weight") == Approx(0.02 / std::sqrt(8.0)).epsilon(0.05));
  CHECK(std_of("layers.0.mlp.0.bias") == 0.0);
  CHECK(std_of("layers.2.ln1.weight") == 1.0);
  CHECK(std_of("ln_f.bias") == 0.0);
  CHECK(layout.find("unembed.weight") < 0);  // tied to wte
}

TEST_CASE("language model: batches are windows of the stream, targets shifted by one", "[lesson][lm]") {
  std::vector<int> stream(40);
  for (int i = 0; i < 40; ++i) stream[static_cast<std::size_t>(i)] = i;
  attn::Rng rng(3);
  const learn::DecoderBatch b = L::lm_batch(stream, 5, 8, rng);
  REQUIRE(b.tokens.size() == 40u);
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 8; ++i) {
      CHECK(b.tokens[static_cast<std::size_t>(r * 8 + i)] == b.tokens[static_cast<std::size_t>(r * 8)] + i);
      CHECK(b.targets[static_cast<std::size_t>(r * 8 + i)] == b.tokens[static_cast<std::size_t>(r * 8 + i)] + 1);
    }
  CHECK_ATTN_ERROR(L::lm_batch(std::vector<int>(8, 0), 1, 8, rng), ErrorCode::invalid_field);
}

TEST_CASE("language model: training in slices gives the bits of one go", "[lesson][lm]") {
  std::vector<int> stream;
  attn::Rng rng(5);
  for (int i = 0; i < 400; ++i) stream.push_back(static_cast<int>(rng.below(30)));
  L::LmTrainingConfig cfg;
  cfg.model = small_model(30, 16, 16, 4, 32, 2);
  cfg.batch = 2;
  cfg.steps = 5;
  cfg.warmup = 2;
  L::LmTrainer one(cfg, stream), sliced(cfg, stream);
  one.advance(5);
  sliced.advance(2);
  sliced.advance(1);
  sliced.advance(7);
  CHECK(sliced.done());
  CHECK(attn_test::same_bits(one.params(), sliced.params()));
  CHECK(attn_test::same_bits(one.losses(), sliced.losses()));
  CHECK(one.tokens_seen() == 5 * 2 * 16);
  CHECK(one.losses().front() == Approx(std::log(30.0)).epsilon(0.01));  // GPT-2's init starts near uniform
  std::vector<int> bad = stream;
  bad[7] = 30;
  CHECK_THROWS_WITH(L::LmTrainer(cfg, bad), Catch::Contains("train[7] = 30"));
}

TEST_CASE("language model: the baselines match counts worked out by hand", "[lesson][lm]") {
  // train: 0 1 0 1 2 (V = 3). Unigram counts 2, 2, 1 of N = 5; pairs 0→1 twice, 1→0, 1→2.
  // Held-out 0 1 2: targets 1 (after 0) and 2 (after 1).
  const L::LmBaselines b = L::lm_baselines({0, 1, 0, 1, 2}, {0, 1, 2}, 3);
  CHECK(b.targets == 2);
  CHECK(b.unigram == Approx(-(std::log(3.0 / 8) + std::log(2.0 / 8)) / 2).epsilon(1e-12));
  // add-one: P(1|0) = (2 + 1)/(2 + 3), P(2|1) = (1 + 1)/(2 + 3)
  CHECK(b.bigram == Approx(-(std::log(3.0 / 5) + std::log(2.0 / 5)) / 2).epsilon(1e-12));
  // Witten–Bell: a = 0 has c = 2, one follower: λ = 2/3, P = 2/3·1 + 1/3·3/8;
  // a = 1 has c = 2, two followers: λ = 1/2, P = 1/2·1/2 + 1/2·2/8.
  CHECK(b.bigram_interpolated ==
        Approx(-(std::log(2.0 / 3 + 1.0 / 8) + std::log(1.0 / 4 + 1.0 / 8)) / 2).epsilon(1e-12));
  CHECK_ATTN_ERROR(L::lm_baselines({0, 1}, {0, 3}, 3), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(L::lm_baselines({0, 1}, {0}, 3), ErrorCode::empty_sequence);
}

TEST_CASE("language model: the held-out loss scores every token after the first once", "[lesson][lm]") {
  const learn::DecoderConfig cfg = small_model(20, 8, 8, 2, 16, 1);
  const learn::ParamLayout layout = learn::decoder_layout(cfg);
  const std::vector<double> p = L::gpt2_init_params(cfg, layout, 1);
  std::vector<int> text;
  for (int i = 0; i < 30; ++i) text.push_back((i * 7) % 20);
  const L::LmEval all = L::lm_heldout_loss(cfg, layout, p, text);
  CHECK(all.targets == 29);
  CHECK(all.windows == 4);  // starts 0, 8, 16, 24 (the last one 5 targets)
  // The same sum window by window with the decoder directly.
  double sum = 0.0;
  for (std::size_t s = 0; s + 1 < text.size(); s += 8) {
    const std::size_t n = std::min<std::size_t>(8, text.size() - 1 - s);
    learn::DecoderBatch b;
    b.batch = 1;
    b.t = static_cast<int>(n);
    b.tokens.assign(text.begin() + static_cast<long>(s), text.begin() + static_cast<long>(s + n));
    b.targets.assign(text.begin() + static_cast<long>(s + 1), text.begin() + static_cast<long>(s + n + 1));
    learn::DecoderActivations a;
    sum += learn::decoder_forward(cfg, layout, p.data(), b, a) * static_cast<double>(n);
  }
  CHECK(all.loss == Approx(sum / 29).epsilon(1e-12));
  const L::LmEval two = L::lm_heldout_loss(cfg, layout, p, text, 2);
  CHECK(two.windows == 2);
  CHECK(two.targets == 16);
  // An untrained model is close to uniform.
  CHECK(all.loss == Approx(std::log(20.0)).epsilon(0.05));
}

TEST_CASE("language model: the shipped file reads as a GPT-2 with its vocabulary map", "[lesson][lm]") {
  const L::LmShippedModel m = L::read_shipped_lm(attn_test::read_text(kModel), attn_test::read_text(kConfig));
  const attn::Json card = attn::Json::parse(attn_test::read_text(kCard));
  CHECK(m.cfg.vocab == card["vocab"].get<int>());
  CHECK(m.vocab.size() == m.cfg.vocab);
  CHECK(m.cfg.tied_head);
  CHECK(m.cfg.activation == learn::Activation::gelu_new);
  CHECK(m.vocab.local_of(learn::kGpt2EndOfTextId) == m.cfg.vocab - 1);  // the largest GPT-2 id, the last row
  CHECK(m.vocab.local_of(198) >= 0);                                    // "\n" ends every verse
  CHECK(learn::params_fnv1a(m.params) == card["params_fnv1a"].get<std::string>());
  const attn::Json config = attn::Json::parse(attn_test::read_text(kConfig));
  CHECK(config["eos_token_id"].get<int>() == m.vocab.local_of(learn::kGpt2EndOfTextId));
  // A file whose map does not fit its embedding is refused.
  std::string bytes = attn_test::read_text(kModel);
  const std::size_t at = bytes.find("[0,");
  REQUIRE(at != std::string::npos);
  bytes[at + 1] = '1';  // "[1,6,..." – still increasing: the same length, so only the ids change
  CHECK_NOTHROW(L::read_shipped_lm(bytes, attn_test::read_text(kConfig)));
  bytes[at + 1] = '7';  // "[7,6,...": not increasing
  CHECK_THROWS_WITH(L::read_shipped_lm(bytes, attn_test::read_text(kConfig)), Catch::Contains("gpt2_ids[1] = 6 does not exceed"));
}

TEST_CASE("language model: the card's held-out loss and heads are those of the shipped file", "[lesson][lm]") {
  const L::LmCorpus* corpus = kjv_corpus();
  if (!corpus) {
    WARN("skipped: the setup cache has no King James Bible or GPT-2 tokenizer (scripts/setup.sh)");
    return;
  }
  const L::LmShippedModel m = L::read_shipped_lm(attn_test::read_text(kModel), attn_test::read_text(kConfig));
  const attn::Json card = attn::Json::parse(attn_test::read_text(kCard));
  CHECK(m.vocab.to_gpt2 == corpus->vocab.to_gpt2);
  CHECK(card["heldout_tokens"].get<long long>() == static_cast<long long>(corpus->heldout.size()));
  CHECK(card["train_tokens"].get<long long>() == static_cast<long long>(corpus->train.size()));
  const L::LmEval slice = L::lm_heldout_loss(m.cfg, m.layout, m.params, corpus->heldout, L::kLmCardSliceWindows);
  CHECK(slice.targets == card["slice_loss"]["targets"].get<long long>());
  CHECK(slice.loss == Approx(card["slice_loss"]["loss"].get<double>()).margin(1e-9));
  // The model beats the add-one baselines on the whole held-out text (the card's figures).
  CHECK(card["heldout_loss"]["loss"].get<double>() < card["baselines"]["bigram"].get<double>());
  CHECK(card["heldout_loss"]["loss"].get<double>() < card["baselines"]["unigram"].get<double>());
  // Every head's previous-token score, recomputed.
  const auto heads = L::lm_head_scores(m.cfg, m.layout, m.params, corpus->heldout, 1611);
  REQUIRE(heads.size() == card["heads"].size());
  for (std::size_t i = 0; i < heads.size(); ++i) {
    CHECK(heads[i].previous_token == Approx(card["heads"][i]["previous_token"].get<double>()).margin(1e-12));
    CHECK(heads[i].induction == Approx(card["heads"][i]["induction"].get<double>()).margin(1e-12));
  }
}

TEST_CASE("language model: the shipped run's first 3 steps are reproduced to the bit", "[lesson][lm]") {
  const L::LmCorpus* corpus = kjv_corpus();
  if (!corpus) {
    WARN("skipped: the setup cache has no King James Bible or GPT-2 tokenizer (scripts/setup.sh)");
    return;
  }
  const attn::Json card = attn::Json::parse(attn_test::read_text(kCard));
  const L::LmTrainingConfig cfg = L::lm_default_training(corpus->vocab.size());
  CHECK(card["steps"].get<int>() == cfg.steps);
  L::LmTrainer t(cfg, corpus->train);
  t.advance(L::kLmReproducedSteps);
  CHECK(learn::params_fnv1a(t.params()) == card["reproduce"]["params_fnv1a"].get<std::string>());
  CHECK(attn_test::same_bits(t.losses(), card["reproduce"]["losses"].get<std::vector<double>>()));
}
