// The Translate lesson's core: the mini-language and its split, decoding (greedy, teacher-forced,
// beam search) and the shipped checkpoint of the fixed-summary / additive-attention pair.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "attn/error.hpp"
#include "lessons/translate/translate.hpp"
#include "lessons/recall.hpp"
#include "support/support.hpp"

using namespace attn;
using namespace attn::lessons;
using attn_test::same_bits;

namespace {

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> w;
  std::istringstream in(s);
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

std::vector<std::string> fr_words(const std::vector<int>& ids) { return split_words(words_of(french_vocab(), ids)); }
std::vector<std::string> en_words(const std::vector<int>& ids) { return split_words(words_of(english_vocab(), ids)); }

// Written out here, apart from the grammar's tables: French words by class and gender.
const std::set<std::string> kFrNounsM{"chat", "chien", "cheval", "livre"}, kFrNounsF{"souris", "voiture", "maison", "balle"};
const std::set<std::string> kFrMasc{"le", "un", "noir", "blanc", "vert", "gris", "bleu", "grand", "petit"};
const std::set<std::string> kFrFem{"la", "une", "noire", "blanche", "verte", "grise", "bleue", "grande", "petite"};
const std::set<std::string> kFrColours{"noir", "blanc", "vert", "gris", "bleu", "noire", "blanche", "verte", "grise", "bleue"};
const std::set<std::string> kEnColours{"black", "white", "green", "grey", "blue"};
const std::set<std::string> kEnNouns{"cat", "dog", "horse", "book", "mouse", "car", "house", "ball"};

// A small, fast configuration for the decoding and slicing tests.
TranslateConfig small_config() {
  TranslateConfig c;
  c.data.train = 64;
  c.data.validation_per_bucket = 2;
  c.data.test_per_bucket = 3;
  c.embed = 8;
  c.hidden = 8;
  c.attn_dim = 8;
  c.batch = 8;
  c.steps = 6;
  c.eval_every = 2;
  return c;
}

const char* const kShipped = "../checkpoints/translate.ckpt";  // relative to tests/

TranslateRun shipped_run() { return translate_run_from_checkpoint(attn_test::read_checkpoint(kShipped)); }

}  // namespace

TEST_CASE("translate: the reference sentence, agreement and word order", "[lesson][translate]") {
  CHECK(words_of(french_vocab(), reference_translation(english_ids("the black cat"))) == "le chat noir");
  CHECK(words_of(french_vocab(), reference_translation(english_ids("  a big white mouse "))) == "une grande souris blanche");
  CHECK(words_of(french_vocab(), reference_translation(english_ids("the small car sees a black dog with the ball"))) ==
        "la petite voiture voit un chien noir avec la balle");
  CHECK(english_vocab().words[0] == "<pad>");
  CHECK(english_vocab().words[kTranslateBos] == "<bos>");
  CHECK(french_vocab().words[kTranslateEos] == "<eos>");

  const TranslationDataset d = make_translation_dataset(TranslationDataConfig{});
  int nps = 0;
  for (const auto* split : {&d.train, &d.validation, &d.test})
    for (const TranslationPair& p : *split) {
      REQUIRE(p.source.size() == p.target.size());  // one French word per English word
      const std::vector<std::string> en = en_words(p.source), fr = fr_words(p.target);
      // every French noun phrase agrees: det [size] noun [colour] share the noun's gender
      for (size_t i = 0; i < fr.size(); ++i) {
        const bool m = kFrNounsM.count(fr[i]) > 0, f = kFrNounsF.count(fr[i]) > 0;
        if (!m && !f) continue;
        ++nps;
        const std::set<std::string>& same = m ? kFrMasc : kFrFem;
        REQUIRE(i >= 1);
        CHECK(same.count(fr[i - 1]) == 1);  // the determiner or the size adjective
        if (i >= 2 && (kFrMasc.count(fr[i - 2]) || kFrFem.count(fr[i - 2]))) CHECK(same.count(fr[i - 2]) == 1);
        if (i + 1 < fr.size() && kFrColours.count(fr[i + 1])) CHECK(same.count(fr[i + 1]) == 1);
      }
      // colour adjectives precede the noun in English and follow it in French
      for (size_t i = 0; i < en.size(); ++i)
        if (kEnColours.count(en[i])) {
          REQUIRE(i + 1 < en.size());
          CHECK(kEnNouns.count(en[i + 1]) == 1);
          CHECK(kFrColours.count(fr[i + 1]) == 1);
          CHECK((kFrNounsM.count(fr[i]) + kFrNounsF.count(fr[i])) == 1);
        }
      CHECK(reference_translation(p.source) == p.target);
    }
  CHECK(nps > 10000);
}

TEST_CASE("translate: the split is disjoint up to permutation, with quotas per bucket", "[lesson][translate]") {
  const TranslationDataConfig cfg;
  const TranslationDataset d = make_translation_dataset(cfg);
  CHECK(static_cast<int>(d.train.size()) == cfg.train);
  CHECK(static_cast<int>(d.test.size()) == cfg.test_per_bucket * static_cast<int>(cfg.buckets.size()));
  CHECK(static_cast<int>(d.validation.size()) == cfg.validation_per_bucket * static_cast<int>(cfg.buckets.size()));
  std::map<std::vector<int>, int> owner;  // sorted source → split
  int shortest = 99, longest = 0;
  std::vector<int> per_bucket(cfg.buckets.size(), 0);
  const std::vector<const std::vector<TranslationPair>*> splits{&d.train, &d.validation, &d.test};
  for (int s = 0; s < 3; ++s)
    for (const TranslationPair& p : *splits[s]) {
      std::vector<int> key = p.source;
      std::sort(key.begin(), key.end());
      CHECK(owner.emplace(key, s).second);  // no source is a permutation (or copy) of another
      const int n = static_cast<int>(p.source.size());
      shortest = std::min(shortest, n);
      longest = std::max(longest, n);
      if (s == 0) {
        for (size_t b = 0; b < cfg.buckets.size(); ++b)
          if (n >= cfg.buckets[b].lo && n <= cfg.buckets[b].hi) ++per_bucket[b];
      }
    }
  CHECK(shortest == 3);
  CHECK(longest == cfg.max_length);
  CHECK(per_bucket == d.train_per_bucket);
  for (int n : d.test_per_bucket_count) CHECK(n == cfg.test_per_bucket);
  for (int n : d.train_per_bucket) CHECK(n > 100);
  // "the black cat" is a test sentence and nothing else
  const std::vector<int> ref = english_ids("the black cat");
  CHECK(d.test[0].source == ref);
  for (const TranslationPair& p : d.train) CHECK(p.source != ref);
  for (const TranslationPair& p : d.validation) CHECK(p.source != ref);
  // seeded: the same seed gives the same data, another seed other data
  const TranslationDataset again = make_translation_dataset(cfg);
  CHECK(again.train.back().source == d.train.back().source);
  TranslationDataConfig other = cfg;
  other.seed += 1;
  CHECK(make_translation_dataset(other).train.front().source != d.train.front().source);
}

TEST_CASE("translate: clear errors for empty sentences, unknown words and bad sizes", "[lesson][translate]") {
  try {
    english_ids("   ");
    FAIL("an empty sentence was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::empty_sequence);
  }
  try {
    english_ids("the purple cat");
    FAIL("an unknown word was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_field);
    CHECK_THAT(std::string(e.what()), Catch::Contains("\"purple\"") && Catch::Contains("black"));
  }
  CHECK_THROWS_WITH(english_ids("The cat"), Catch::Contains("\"The\""));  // lowercase only
  CHECK_THROWS_WITH(reference_translation(english_ids("black the cat")), Catch::Contains("word 1"));
  CHECK_THROWS_WITH(reference_translation(english_ids("the cat")), Catch::Contains("adjective"));
  CHECK_THROWS_WITH(reference_translation(english_ids("the cat sees")), Catch::Contains("determiner"));
  TranslateConfig c = small_config();
  c.hidden = 0;
  CHECK_THROWS_WITH(TranslateTrainer(c), Catch::Contains("hidden"));
  c = small_config();
  c.steps = 20001;
  CHECK_THROWS_WITH(TranslateTrainer(c), Catch::Contains("steps"));
  c = small_config();
  c.data.buckets = {{3, 8}, {8, 12}};
  CHECK_THROWS_WITH(TranslateTrainer(c), Catch::Contains("buckets"));
  const TranslateTrainer tr(small_config());
  CHECK_THROWS_AS(greedy_decode(tr.model(true), {}, 10), Error);
  CHECK_THROWS_WITH(greedy_decode(tr.model(true), {3, 4}, 0), Catch::Contains("max_steps"));
  CHECK_THROWS_WITH(greedy_decode(tr.model(true), {3, 99}, 5), Catch::Contains("source[1]"));
  CHECK_THROWS_WITH(beam_search(tr.model(true), {3, 4}, 0, 0.6, 5), Catch::Contains("width"));
  CHECK_THROWS_WITH(translate_alignment(tr.model(false), "the black cat"), Catch::Contains("no alignment"));
}

TEST_CASE("translate: a run in parts (steps, then each validation pass apart) gives advance's bits", "[lesson][translate]") {
  TranslateConfig c = small_config();
  c.data.validation_per_bucket = 22;  // 66 validation pairs: two passes of 64 per model
  TranslateTrainer whole(c), parts(c), paused(c);
  REQUIRE(whole.data().validation.size() == 66);
  CHECK(whole.advance(100) == c.steps);
  int n = 0;
  while (parts.advance_part() != 0) ++n;
  CHECK(n == c.steps + 3 * 2 * 2);  // 6 steps; validations after steps 2, 4, 6 of 2 models × 2 passes
  CHECK(parts.done());
  CHECK(parts.advance_part() == 0);
  // a validation left pending: the step counted, the run not done until its last pass, advance(0) finishes it
  for (int i = 0; i < 3; ++i) CHECK(paused.advance_part() == 1);  // steps 1 and 2, the first pass of step 2's validation
  CHECK(paused.step() == 2);
  CHECK(paused.validation_steps() == std::vector<int>{0});
  CHECK(paused.advance(0) == 0);
  CHECK(paused.validation_steps() == std::vector<int>{0, 2});
  while (paused.advance_part() != 0) {
    if (paused.step() == c.steps) CHECK(paused.done() == (paused.validation_steps().size() == 4));
  }
  // the step-0 validation left pending: measured by the run's first parts (or by advance(0)), same bits
  TranslateTrainer later(c, TranslateTrainer::StartValidation::pending), later0(c, TranslateTrainer::StartValidation::pending);
  CHECK(later.validation_steps().empty());
  CHECK_FALSE(later.done());
  n = 0;
  while (later.advance_part() != 0) {
    if (++n == 2 * 2) {  // step 0's two passes per model before the first step
      CHECK(later.step() == 0);
      CHECK(later.validation_steps() == std::vector<int>{0});
    }
  }
  CHECK(n == c.steps + 4 * 2 * 2);
  CHECK(later0.advance(0) == 0);
  CHECK(later0.validation_steps() == std::vector<int>{0});
  CHECK(later0.advance(100) == c.steps);
  for (const TranslateTrainer* t : {&parts, &paused, &later, &later0}) {
    CHECK(t->validation_steps() == whole.validation_steps());
    for (bool att : {false, true}) {
      CHECK(same_bits(whole.model(att).params, t->model(att).params));
      CHECK(same_bits(whole.losses(att), t->losses(att)));
      CHECK(same_bits(whole.validation_losses(att), t->validation_losses(att)));
    }
  }
  // and each recorded validation loss is teacher_forced_loss of the model at that step
  TranslateTrainer at2(c);
  at2.advance(2);
  for (bool att : {false, true})
    CHECK(same_bits(std::vector<double>{teacher_forced_loss(at2.model(att), at2.data().validation)},
                    std::vector<double>{parts.validation_losses(att)[1]}));
}

TEST_CASE("translate: a run moved through its state bytes after every part continues with the same bits", "[lesson][translate]") {
  // What a Web Worker does with the pair: restore it from bytes, run parts, hand the bytes back —
  // here after every part, so states inside a validation pass and across epochs are among them.
  TranslateConfig c = small_config();
  c.data.validation_per_bucket = 22;  // two passes of 64 per model
  c.steps = 20;                       // 64 pairs in batches of 8: the order is drawn again at steps 9 and 17
  TranslateTrainer whole(c);
  whole.advance(100);
  TranslateTrainer moved = attn_test::through_bytes(TranslateTrainer(c, TranslateTrainer::StartValidation::pending));
  int parts = 0;
  while (moved.advance_part() != 0) {
    moved = attn_test::through_bytes(moved);
    ++parts;
  }
  CHECK(parts == c.steps + 11 * 2 * 2);  // validations at 0, 2, ..., 20: 2 models × 2 passes each
  CHECK(moved.validation_steps() == whole.validation_steps());
  for (bool att : {false, true}) {
    CHECK(same_bits(whole.model(att).params, moved.model(att).params));
    CHECK(same_bits(whole.losses(att), moved.losses(att)));
    CHECK(same_bits(whole.validation_losses(att), moved.validation_losses(att)));
  }
  // load_state in place: the page's pair takes the Worker's state.
  learn::Checkpoint st;
  TranslateTrainer page = attn_test::taken_over<TranslateTrainer>(c, 11, &st);
  page.advance(100);
  CHECK(same_bits(whole.model(true).params, page.model(true).params));

  // Refused with what is wrong, the trainer unchanged.
  attn_test::check_refuses_other_run<TranslateTrainer>(c, st);
  learn::Checkpoint bad = st;
  for (auto& [name, values] : bad.arrays)
    if (name == "batches") values[0] = 1e6;
  CHECK_THROWS_WITH(TranslateTrainer::from_state(bad), Catch::Contains("outside the training set"));
  bad = st;
  bad.meta["cursor"] = 999;
  CHECK_THROWS_WITH(TranslateTrainer::from_state(bad), Catch::Contains("cursor"));
  bad = st;
  for (auto& [name, values] : bad.arrays)
    if (name == "none_losses") values.pop_back();
  CHECK_THROWS_WITH(TranslateTrainer::from_state(bad), Catch::Contains("one loss per step"));
  CHECK_THROWS_WITH(TranslateTrainer::from_state(translate_run_checkpoint(record_translate_run(small_config()))),
                    Catch::Contains("not the state"));

  // A pair whose attention model was read from a file (its own width) keeps it through the state.
  learn::Seq2SeqConfig file = translate_model_config(c, true);
  file.hidden = 6;
  const std::vector<double> start = learn::init_params(learn::seq2seq_layout(file), 99);
  TranslateTrainer a(c, file, start), b(c, file, start);
  a.advance(100);
  b.advance(7);
  TranslateTrainer b2 = attn_test::through_bytes(b);
  CHECK(b2.model(true).config.hidden == 6);
  b2.advance(100);
  CHECK(same_bits(a.model(true).params, b2.model(true).params));
  CHECK(same_bits(a.model(false).params, b2.model(false).params));
  CHECK(same_bits(a.validation_losses(true), b2.validation_losses(true)));
}

TEST_CASE("translate: training in slices gives the same bits, and both models see the same batches", "[lesson][translate]") {
  const TranslateConfig c = small_config();
  TranslateTrainer whole(c), sliced(c);
  CHECK(whole.advance(100) == c.steps);
  CHECK(sliced.advance(1) == 1);
  CHECK(sliced.advance(3) == 3);
  CHECK(sliced.advance(5) == 2);
  CHECK(sliced.done());
  for (bool att : {false, true}) {
    CHECK(same_bits(whole.model(att).params, sliced.model(att).params));
    CHECK(same_bits(whole.losses(att), sliced.losses(att)));
    CHECK(same_bits(whole.validation_losses(att), sliced.validation_losses(att)));
  }
  CHECK(whole.validation_steps() == std::vector<int>{0, 2, 4, 6});
  // the shared tensors start from the same bits: the models differ only by the attention
  const TranslateTrainer fresh(c);
  const TranslateModel& n = fresh.model(false);
  const TranslateModel& a = fresh.model(true);
  for (const char* name : {"src_embed.weight", "encoder.weight_hh_l0", "decoder.weight_ih"}) {
    const long in = n.layout.find(name), ia = a.layout.find(name);
    REQUIRE(in >= 0);
    REQUIRE(ia >= 0);
    const learn::ParamInfo& pn = n.layout.at(static_cast<size_t>(in));
    const learn::ParamInfo& pa = a.layout.at(static_cast<size_t>(ia));
    CHECK(std::memcmp(n.params.data() + pn.offset, a.params.data() + pa.offset, pn.size() * sizeof(double)) == 0);
  }
}

TEST_CASE("translate: greedy is the argmax per step and the teacher-forced pass gives the same distributions", "[lesson][translate]") {
  TranslateTrainer tr(small_config());
  tr.advance(6);
  const std::vector<int> src = english_ids("the big cat chases a grey mouse");
  for (bool att : {false, true}) {
    const TranslateModel& m = tr.model(att);
    const GreedyDecode g = greedy_decode(m, src, 12);
    REQUIRE(!g.steps.empty());
    for (size_t t = 0; t < g.steps.size(); ++t) {
      const DecodeStep& st = g.steps[t];
      const double mx = *std::max_element(st.probs.begin(), st.probs.end());
      CHECK(st.probability == mx);
      CHECK(st.probs[static_cast<size_t>(st.token)] == mx);
      CHECK(std::find(st.probs.begin(), st.probs.end(), mx) - st.probs.begin() == st.token);  // lowest id among ties
      CHECK(st.attention.size() == (att ? src.size() : 0u));
    }
    // the teacher-forced pass on greedy's own output: each row is that step's distribution, to the bit
    const TeacherForced tf = teacher_forced(m, src, g.tokens);
    const int V = m.config.tgt_vocab;
    REQUIRE(tf.rows == static_cast<int>(g.tokens.size()) + 1);
    for (size_t t = 0; t < g.steps.size(); ++t) {
      const std::vector<double> row(tf.probs.begin() + static_cast<long>(t) * V, tf.probs.begin() + static_cast<long>(t + 1) * V);
      CHECK(same_bits(row, g.steps[t].probs));
      if (att) {
        const std::vector<double> w(tf.attention.begin() + static_cast<long>(t) * tf.src_len,
                                    tf.attention.begin() + static_cast<long>(t + 1) * tf.src_len);
        CHECK(same_bits(w, g.steps[t].attention));
      }
    }
  }
}

TEST_CASE("translate: beam search changes the search, not the model's distributions", "[lesson][translate]") {
  TranslateTrainer tr(small_config());
  tr.advance(6);
  const std::vector<int> src = english_ids("a small dog finds the house");
  const TranslateModel& m = tr.model(true);
  const GreedyDecode g = greedy_decode(m, src, 10);
  // width 1 is greedy decoding, tokens and distributions
  const BeamResult one = beam_search(m, src, 1, 0.0, 10);
  REQUIRE(one.finished.size() == 1u);
  CHECK(one.finished[0].tokens == g.tokens);
  CHECK(one.finished[0].ended == g.ended);
  REQUIRE(one.finished[0].distributions.size() == g.steps.size());
  for (size_t t = 0; t < g.steps.size(); ++t) CHECK(same_bits(one.finished[0].distributions[t], g.steps[t].probs));
  // width 4: every hypothesis's distribution at each step is the one any decode gets for that prefix
  const BeamResult four = beam_search(m, src, 4, 0.6, 10);
  REQUIRE(!four.finished.empty());
  for (const BeamHypothesis& h : four.finished) {
    for (size_t t = 0; t < h.distributions.size(); ++t) {
      const std::vector<int> prefix(h.tokens.begin(), h.tokens.begin() + static_cast<long>(std::min(t, h.tokens.size())));
      CHECK(same_bits(h.distributions[t], next_distribution(m, src, prefix)));
    }
    CHECK(same_bits(h.distributions[0], g.steps[0].probs));  // the shared empty prefix
    // the score is GNMT's normalisation of the summed log-probabilities
    const int emitted = static_cast<int>(h.tokens.size()) + (h.ended ? 1 : 0);
    CHECK(h.score == Approx(h.log_prob / std::pow((5.0 + emitted) / 6.0, 0.6)).epsilon(1e-12));
  }
  CHECK(gnmt_length_penalty(1, 0.0) == 1.0);
  CHECK(gnmt_length_penalty(7, 1.0) == Approx(2.0).epsilon(1e-15));
  CHECK(gnmt_length_penalty(13, 0.5) == Approx(std::sqrt(3.0)).epsilon(1e-14));
  CHECK(four.best >= 0);
  for (const BeamHypothesis& h : four.finished) CHECK(h.score <= four.finished[static_cast<size_t>(four.best)].score);
}

TEST_CASE("translate: the panel's beam measurement sees equal bits, and a tampered distribution", "[lesson][translate][checkpoint]") {
  // On the shipped attention model, where a width-4 search finishes several hypotheses
  const TranslateTrainer tr(shipped_run());
  const TranslateModel& m = tr.model(true);
  const std::vector<int> src = english_ids("a small grey horse chases the black cat");
  const BeamResult four = beam_search(m, src, 4, 0.6, 18);
  REQUIRE(four.finished.size() >= 2u);
  const BeamPrefixCheck pc = beam_prefix_check(m, src, four);
  CHECK(pc.forced_rows == static_cast<int>(four.finished[static_cast<size_t>(four.best)].distributions.size()));
  CHECK(pc.forced_same_bits == pc.forced_rows);
  CHECK(pc.forced_max_diff == 0.0);
  // step 0 (the empty prefix) is shared by every pair
  CHECK(pc.shared_rows >= static_cast<int>(four.finished.size() * (four.finished.size() - 1) / 2));
  CHECK(pc.shared_same_bits == pc.shared_rows);
  CHECK(pc.shared_max_diff == 0.0);
  BeamResult tampered = four;
  tampered.finished[static_cast<size_t>(tampered.best)].distributions[0][3] += 1e-12;
  const BeamPrefixCheck bad = beam_prefix_check(m, src, tampered);
  CHECK(bad.forced_same_bits == bad.forced_rows - 1);
  CHECK(bad.forced_max_diff > 0.0);
  CHECK(bad.shared_same_bits < bad.shared_rows);
  CHECK(bad.shared_max_diff > 0.0);
}

TEST_CASE("translate: decoding stops at EOS or at the step limit", "[lesson][translate]") {
  const TranslateTrainer tr(small_config());
  TranslateModel m = tr.model(true);
  const std::vector<int> src = english_ids("the black cat");
  // EOS made certain by its output bias: one step, nothing emitted
  double* bias = learn::tensor_in(m.layout, m.params.data(), "out.bias");
  bias[kTranslateEos] = 1e3;
  const GreedyDecode eos = greedy_decode(m, src, 7);
  CHECK(eos.ended);
  CHECK(eos.tokens.empty());
  CHECK(eos.steps.size() == 1u);
  CHECK(eos.steps[0].token == kTranslateEos);
  // EOS made impossible: the limit stops it
  bias[kTranslateEos] = -1e3;
  const GreedyDecode cut = greedy_decode(m, src, 7);
  CHECK_FALSE(cut.ended);
  CHECK(cut.tokens.size() == 7u);
  CHECK(cut.steps.size() == 7u);
  const BeamResult b = beam_search(m, src, 3, 0.6, 5);
  for (const BeamHypothesis& h : b.finished) {
    CHECK_FALSE(h.ended);
    CHECK(h.tokens.size() == 5u);
  }
}

TEST_CASE("translate: a run record survives its checkpoint and damaged records are refused", "[lesson][translate][checkpoint]") {
  const TranslateRun run = record_translate_run(small_config());
  const std::string bytes = learn::encode_checkpoint(translate_run_checkpoint(run));
  const TranslateRun back =
      translate_run_from_checkpoint(attn_test::decode_bytes(bytes));
  CHECK(translate_config_json(back.config) == translate_config_json(run.config));
  CHECK(same_bits(back.additive_params, run.additive_params));
  CHECK(same_bits(back.none_losses, run.none_losses));
  CHECK(back.validation_steps == run.validation_steps);
  const TranslateTrainer restored(back);
  CHECK(restored.done());
  CHECK(same_bits(restored.model(true).params, run.additive_params));
  TranslateRun unfinished = run;
  unfinished.config.steps += 1;
  CHECK_THROWS_WITH(TranslateTrainer(unfinished), Catch::Contains("must be finished"));
  learn::Checkpoint tampered = translate_run_checkpoint(run);
  tampered.arrays[0].second[0] += 1.0;
  CHECK_THROWS_WITH(translate_run_from_checkpoint(tampered), Catch::Contains("hash differs"));
}

TEST_CASE("translate: the shipped checkpoint is what training the default pair from its seed gives", "[lesson][translate][checkpoint]") {
  const TranslateRun shipped = shipped_run();
  const TranslateConfig cfg;  // the panel's default inputs
  REQUIRE(translate_config_json(shipped.config) == translate_config_json(cfg));
  REQUIRE(shipped.step == cfg.steps);
  CHECK(shipped.validation_steps.front() == 0);
  CHECK(shipped.validation_steps.back() == cfg.steps);
  {  // restored from its record: finished, with the record's validation losses (none measured again)
    const TranslateTrainer restored(shipped);
    CHECK(restored.done());
    CHECK(restored.validation_steps() == shipped.validation_steps);
    CHECK(same_bits(restored.validation_losses(true), shipped.additive_validation));
    CHECK(same_bits(restored.validation_losses(false), shipped.none_validation));
  }
  // The whole run natively (about 5 s), loss for loss and parameter for parameter; under the
  // sanitizers (a slow build) its first 2 steps (each step's loss depends only on the steps before it).
  const int k = attn_test::kSanitized ? 2 : cfg.steps;
  TranslateTrainer tr(cfg);
  tr.advance(k);
  for (bool att : {false, true}) {
    const std::vector<double>& all = att ? shipped.additive_losses : shipped.none_losses;
    CHECK(same_bits(tr.losses(att), std::vector<double>(all.begin(), all.begin() + k)));
  }
  CHECK(tr.validation_losses(true)[0] == shipped.additive_validation[0]);
  CHECK(tr.validation_losses(false)[0] == shipped.none_validation[0]);
  if (k == cfg.steps) {
    CHECK(same_bits(tr.model(false).params, shipped.none_params));
    CHECK(same_bits(tr.model(true).params, shipped.additive_params));
    CHECK(same_bits(tr.validation_losses(true), shipped.additive_validation));
    CHECK(same_bits(tr.validation_losses(false), shipped.none_validation));
  }
  // raw bytes (gzip only shrinks them): the bidirectional pair is 535,528 B, fetched when the panel opens
  CHECK(attn_test::read_text(kShipped).size() <= 560u * 1024u);
}

TEST_CASE("translate: the shipped attention model reaches 90 percent exact match and 80 in the longest bucket", "[lesson][translate][checkpoint]") {
  const TranslateTrainer tr(shipped_run());
  const TranslationDataset& d = tr.data();
  const TranslateEval att = evaluate_translation(tr.model(true), d.test, d.config.buckets);
  for (const BucketAccuracy& b : att.buckets)
    INFO("attention " << b.bucket.lo << "-" << b.bucket.hi << ": exact " << b.exact_match << " of " << b.sentences);
  CHECK(att.overall.sentences == static_cast<int>(d.test.size()));
  CHECK(att.overall.exact_match >= 0.9);
  CHECK(att.buckets.back().exact_match >= 0.8);
  CHECK(att.buckets.back().sentences >= 50);
  // the learned alignment of the held-out reference sentence: a distribution per row, nothing on padding
  const TranslateAlignment al = translate_alignment(tr.model(true), "the black cat");
  CHECK(al.target_words == std::vector<std::string>{"le", "chat", "noir", "<eos>"});
  CHECK(al.forced.rows == 4);
  CHECK(al.max_row_sum_error <= 1e-12);
  CHECK(al.max_padded_weight == 0.0);
  // the untrained pair is far from it: the accuracy is learned (a third of the test set under the
  // sanitizers, a slow build)
  const TranslateTrainer init(TranslateConfig{});
  const std::vector<TranslationPair> some(d.test.begin(), d.test.begin() + static_cast<long>(attn_test::kSanitized ? d.test.size() / 3 : d.test.size()));
  CHECK(evaluate_translation(init.model(true), some, d.config.buckets).overall.exact_match < 0.05);
}

TEST_CASE("translate: the grammar's word alignment, and the learned one scored against it", "[lesson][translate][checkpoint]") {
  // By hand: le<-the, chat<-cat, noir<-black; une<-a, grande<-big, souris<-mouse, blanche<-white.
  CHECK(reference_alignment(english_ids("the black cat")) == std::vector<int>{0, 2, 1});
  CHECK(reference_alignment(english_ids("a big white mouse")) == std::vector<int>{0, 1, 3, 2});
  CHECK(reference_alignment(english_ids("the small car sees a black dog with the ball")) ==
        std::vector<int>{0, 1, 2, 3, 4, 6, 5, 7, 8, 9});
  CHECK_ATTN_ERROR(reference_alignment(english_ids("cat the")), ErrorCode::invalid_field);

  const TranslateTrainer tr(shipped_run());
  const TranslationDataset& d = tr.data();
  // One sentence, counted from its teacher-forced map row by row.
  const TranslateAlignment al = translate_alignment(tr.model(true), "the black cat");
  const std::vector<int> from = {0, 2, 1};
  int on = 0;
  double weight = 0.0;
  for (int t = 0; t < 3; ++t) {
    const double* row = al.forced.attention.data() + t * 3;
    on += std::max_element(row, row + 3) - row == from[static_cast<size_t>(t)];
    weight += row[from[static_cast<size_t>(t)]];
  }
  const AlignmentAgreement one = alignment_agreement(tr.model(true), {d.test[0]}, d.config.buckets);
  CHECK(one.overall.targets == 3);
  CHECK(one.overall.on_source == on);
  CHECK(one.overall.mean_weight == Approx(weight / 3).epsilon(1e-15));
  // The test set: every target word counted once, per bucket and overall.
  const AlignmentAgreement all = alignment_agreement(tr.model(true), d.test, d.config.buckets);
  int words = 0;
  for (const TranslationPair& p : d.test) words += static_cast<int>(p.target.size());
  CHECK(all.overall.targets == words);
  CHECK(all.overall.sentences == static_cast<int>(d.test.size()));
  int sum = 0;
  for (const BucketAgreement& b : all.buckets) sum += b.on_source;
  CHECK(sum == all.overall.on_source);
  INFO("shipped attention model: " << all.overall.share << " of target words peak on their source word");
  CHECK(all.overall.share > 0.0);
  CHECK(all.overall.share <= 1.0);
  CHECK_ATTN_ERROR(alignment_agreement(tr.model(false), d.test, d.config.buckets), ErrorCode::invalid_field);
}

TEST_CASE("translate: interventions on the attention change the weights as stated, nothing else", "[lesson][translate][checkpoint]") {
  const TranslateTrainer tr(shipped_run());
  const TranslateModel& m = tr.model(true);
  const std::vector<int> src = english_ids("the black cat"), ref = reference_translation(src);
  // No intervention: the step path is the model's teacher-forced pass.
  const TeacherForced base = teacher_forced(m, src, ref);
  const TeacherForced path = teacher_forced_under(m, src, ref, AttentionIntervention{});
  REQUIRE(path.probs.size() == base.probs.size());
  double diff = 0.0;
  for (size_t i = 0; i < base.probs.size(); ++i) diff = std::max(diff, std::fabs(base.probs[i] - path.probs[i]));
  CHECK(diff <= 1e-12);
  // Forcing the model's own weights changes no bit (the context is summed in the same order).
  AttentionIntervention own;
  for (int t = 0; t < path.rows; ++t)
    own.forced.emplace_back(path.attention.begin() + t * 3, path.attention.begin() + (t + 1) * 3);
  const TeacherForced same = teacher_forced_under(m, src, ref, own);
  CHECK(attn_test::same_bits(same.probs, path.probs));
  // Removing "black" (position 1): its weight is 0 and the others sum to 1; at the first step
  // (the same decoder state) they keep the model's ratio. Later states differ, as they should.
  AttentionIntervention rm;
  rm.removed = 1;
  const TeacherForced without = teacher_forced_under(m, src, ref, rm);
  for (int t = 0; t < without.rows; ++t) {
    const double* w = without.attention.data() + t * 3;
    CHECK(w[1] == 0.0);
    CHECK(w[0] + w[2] == Approx(1.0).epsilon(1e-14));
  }
  CHECK(without.attention[0] / without.attention[2] == Approx(path.attention[0] / path.attention[2]).epsilon(1e-12));
  // ...which is the same as forcing those renormalised weights.
  AttentionIntervention as_forced;
  for (int t = 0; t < without.rows; ++t)
    as_forced.forced.emplace_back(without.attention.begin() + t * 3, without.attention.begin() + (t + 1) * 3);
  CHECK(attn_test::same_bits(teacher_forced_under(m, src, ref, as_forced).probs, without.probs));

  const AttentionInterventions r = attention_interventions(m, "the black cat");
  CHECK(r.path_max_diff <= 1e-12);
  CHECK(words_of(french_vocab(), r.output) == "le chat noir");
  REQUIRE(r.removals.size() == 3);
  CHECK(r.removals[1].loss == without.loss);
  CHECK(r.forced_applies);
  for (const WordRemoval& w : r.removals) INFO(w.word << ": " << words_of(french_vocab(), w.output) << ", dloss " << w.delta_loss);
  CHECK_FALSE(attention_interventions(m, "the big dog sees a white mouse").forced_applies);

  // The test set's intact exact match by this path is evaluate_translation's (greedy_decode).
  const TranslationDataset& d = tr.data();
  const std::vector<TranslationPair> some(d.test.begin(), d.test.begin() + (attn_test::kSanitized ? 30 : 300));
  const MostReadRemoval mr = most_read_removal(m, some);
  CHECK(mr.sentences == static_cast<int>(some.size()));
  CHECK(mr.exact_intact == evaluate_translation(m, some, d.config.buckets).overall.exact);
  INFO("exact match intact " << mr.exact_match_intact << ", most-read word removed " << mr.exact_match_removed);
  CHECK(mr.exact_removed <= mr.sentences);

  // Refusals name what is wrong.
  AttentionIntervention bad_pos;
  bad_pos.removed = 3;
  CHECK_ATTN_ERROR(teacher_forced_under(m, src, ref, bad_pos), ErrorCode::invalid_field);
  AttentionIntervention bad_row;
  bad_row.forced = {{0.5, 0.6, 0.0}};
  CHECK_ATTN_ERROR(teacher_forced_under(m, src, ref, bad_row), ErrorCode::invalid_field);
  bad_row.forced = {{0.5, 0.5}};
  CHECK_ATTN_ERROR(teacher_forced_under(m, src, ref, bad_row), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(teacher_forced_under(tr.model(false), src, ref, rm), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(most_read_removal(tr.model(false), some), ErrorCode::invalid_field);
}

namespace {

bool same_counts(const BucketAccuracy& a, const BucketAccuracy& b) {
  return a.bucket.lo == b.bucket.lo && a.bucket.hi == b.bucket.hi && a.sentences == b.sentences && a.exact == b.exact &&
         a.tokens == b.tokens && a.correct == b.correct;
}

bool same_eval(const TranslateEval& a, const TranslateEval& b) {
  if (a.buckets.size() != b.buckets.size() || !same_counts(a.overall, b.overall)) return false;
  for (size_t i = 0; i < a.buckets.size(); ++i)
    if (!same_counts(a.buckets[i], b.buckets[i])) return false;
  return true;
}

// Two rows of the H table hold the same trained pair: its parameters' hashes, both models' scores
// and the attention model's agreement count.
void check_same_models(const TranslateWidthResult& a, const TranslateWidthResult& b) {
  CHECK(a.none_fnv1a == b.none_fnv1a);
  CHECK(a.additive_fnv1a == b.additive_fnv1a);
  CHECK(same_eval(a.none, b.none));
  CHECK(same_eval(a.additive, b.additive));
  CHECK(a.agreement.overall.on_source == b.agreement.overall.on_source);
}

std::vector<TranslateWidthResult> shipped_widths() {
  return translate_widths_from_json(attn_test::load_json("../checkpoints/translate_widths.json"));
}

}  // namespace

TEST_CASE("translate: the H table's width 32 is the shipped checkpoint, scored again", "[lesson][translate][checkpoint]") {
  const std::vector<TranslateWidthResult> rows = shipped_widths();
  REQUIRE(rows.size() == 8);
  const TranslateConfig base;
  REQUIRE(base.bidirectional);  // the default encoder's rows come first, then the forward encoder's
  for (size_t i = 0; i < rows.size(); ++i) {
    const int h = std::vector<int>{8, 16, 32, 64}[i % 4];
    CHECK(rows[i].hidden == h);
    // each row is the panel's defaults at its own width and encoder: Train with those gives it
    TranslateConfig cfg = translate_width_config(base, h);
    cfg.bidirectional = i < 4;
    CHECK(translate_config_json(rows[i].config) == translate_config_json(cfg));
    CHECK(rows[i].none.overall.sentences == 300);
    CHECK(rows[i].agreement.overall.sentences == 300);
  }
  const TranslateRun shipped = shipped_run();
  const TranslateWidthResult again = translate_width_result_of(shipped);
  const TranslateWidthResult& row = rows[2];
  check_same_models(row, again);
  CHECK(row.additive_final_loss == shipped.additive_losses.back());
  CHECK(row.none_final_loss == shipped.none_losses.back());
  CHECK(row.agreement.overall.weight_sum == again.agreement.overall.weight_sum);
}

TEST_CASE("translate: the H table's width 8 is what training it from its seed gives", "[lesson][translate][checkpoint]") {
  if (attn_test::kSanitized) {
    WARN("skipped under the sanitizers (a full training run); the native build runs it");
    return;
  }
  const std::vector<TranslateWidthResult> rows = shipped_widths();
  REQUIRE(rows.size() == 8);
  for (const size_t i : {size_t{0}, size_t{4}}) {  // H 8, bidirectional then forward
    const TranslateWidthResult& row = rows[i];
    REQUIRE(row.hidden == 8);
    TranslateConfig cfg;
    cfg.bidirectional = i == 0;
    INFO("encoder " << (cfg.bidirectional ? "bidirectional" : "forward"));
    const TranslateWidthResult fresh = translate_width_result(cfg, 8);
    check_same_models(fresh, row);
    CHECK(fresh.none_final_loss == row.none_final_loss);
    CHECK(fresh.additive_final_loss == row.additive_final_loss);
  }
}

TEST_CASE("translate: a damaged H table is refused with the field named", "[lesson][translate]") {
  Json j = attn_test::load_json("../checkpoints/translate_widths.json");
  CHECK(translate_widths_from_json(j).size() == 8);
  Json agree = j;
  agree["widths"][2]["agreement"]["overall"]["on_source"] = 100000;
  CHECK_THROWS_WITH(translate_widths_from_json(agree), Catch::Contains("widths[2].agreement.overall"));
  Json enc = j;
  enc["widths"][0]["config"]["encoder"] = "sideways";
  CHECK_THROWS_WITH(translate_widths_from_json(enc), Catch::Contains("encoder"));
  Json more = j;
  more["widths"][1]["additive"]["buckets"][0]["exact"] = 1000;
  CHECK_THROWS_WITH(translate_widths_from_json(more), Catch::Contains("widths[1].additive.buckets[0]"));
  Json wrong = j;
  wrong["widths"][0]["hidden"] = 9;
  CHECK_THROWS_WITH(translate_widths_from_json(wrong), Catch::Contains("hidden differs"));
  CHECK_THROWS_WITH(translate_widths_from_json(Json::object()), Catch::Contains("translate_widths"));
}

TEST_CASE("translate: the recall tasks are measured on the panel's pair as it stands", "[lesson][translate][recall]") {
  const TranslateTrainer shipped(shipped_run());
  TranslateConfig untrained_cfg = shipped.config();
  untrained_cfg.steps = 1;
  const TranslateTrainer untrained(untrained_cfg);  // step 0: both models guess
  attn::RecallAttempt a;
  a.translate_model = &shipped;
  // The shipped pair: attention ahead on the longest bucket; whether every sentence is right is measured.
  int answer = -1;
  for (int c = 0; c < 4; ++c) {
    a.choice = c;
    const attn::RecallVerdict v = attn::check_recall("translate.bottleneck", a);
    INFO(v.feedback);
    if (v.pass) answer = c;
  }
  CHECK((answer == 0 || answer == 1));
  a.translate_model = &untrained;
  a.choice = answer;
  const attn::RecallVerdict before = attn::check_recall("translate.bottleneck", a);
  CHECK_FALSE(before.pass);  // the same answer is wrong on an untrained pair: it reads the model
  CHECK_THAT(before.feedback, Catch::Contains("at step 0"));
  a.choice = 0;
  a.translate_model = &shipped;
  const attn::RecallVerdict cross = attn::check_recall("translate.cross_attention", a);
  CHECK(cross.pass);
  CHECK_THAT(cross.feedback, Catch::Contains("8×7"));  // 7 English words; 7 French words and <eos>
  a.translate_model = nullptr;
  CHECK_ATTN_ERROR(attn::check_recall("translate.cross_attention", a), attn::ErrorCode::missing_field);
}

TEST_CASE("translate: the test-set scores measured one sentence per slice are the functions' at once, to the bit",
          "[lesson][translate]") {
  const TranslateTrainer tr(shipped_run());
  const std::vector<TranslationPair>& test = tr.data().test;
  const std::vector<LengthBucket>& buckets = tr.data().config.buckets;
  const TranslateEval none = evaluate_translation(tr.model(false), test, buckets);
  const TranslateEval additive = evaluate_translation(tr.model(true), test, buckets);
  const AlignmentAgreement agreement = alignment_agreement(tr.model(true), test, buckets);
  const MostReadRemoval removal = most_read_removal(tr.model(true), test);  // decodes the intact outputs itself

  TranslateScoresStudy st(tr.model(false), tr.model(true), test, buckets);
  REQUIRE(st.units_total() == 4 * static_cast<int>(test.size()));
  std::vector<std::string> phases;
  while (!st.done()) {
    if (phases.empty() || phases.back() != st.phase()) phases.push_back(st.phase());
    REQUIRE(st.advance(1) == 1);
  }
  CHECK(st.advance(5) == 0);
  CHECK(std::string(st.phase()) == "done");
  CHECK(phases == std::vector<std::string>{"fixed summary", "attention", "agreement", "most-read removal"});
  const auto same_eval = [](const TranslateEval& a, const TranslateEval& b) {
    REQUIRE(a.buckets.size() == b.buckets.size());
    for (size_t i = 0; i <= a.buckets.size(); ++i) {
      const BucketAccuracy& x = i < a.buckets.size() ? a.buckets[i] : a.overall;
      const BucketAccuracy& y = i < b.buckets.size() ? b.buckets[i] : b.overall;
      CHECK(x.sentences == y.sentences);
      CHECK(x.exact == y.exact);
      CHECK(x.correct == y.correct);
      CHECK(x.tokens == y.tokens);
      CHECK(x.exact_match == y.exact_match);
      CHECK(x.token_accuracy == y.token_accuracy);
    }
  };
  same_eval(st.none_eval(), none);
  same_eval(st.additive_eval(), additive);
  for (size_t i = 0; i <= agreement.buckets.size(); ++i) {
    const BucketAgreement& x = i < agreement.buckets.size() ? st.agreement().buckets[i] : st.agreement().overall;
    const BucketAgreement& y = i < agreement.buckets.size() ? agreement.buckets[i] : agreement.overall;
    CHECK(x.on_source == y.on_source);
    CHECK(x.targets == y.targets);
    CHECK(x.weight_sum == y.weight_sum);  // the same sum in the same order: the same bits
    CHECK(x.mean_weight == y.mean_weight);
  }
  CHECK(st.removal().sentences == removal.sentences);
  CHECK(st.removal().exact_intact == removal.exact_intact);  // from the attention model's evaluation
  CHECK(st.removal().exact_removed == removal.exact_removed);
  CHECK(st.removal().exact_match_removed == removal.exact_match_removed);
  // Slicing does not matter: uneven slices give the same figures.
  TranslateScoresStudy uneven(tr.model(false), tr.model(true), test, buckets);
  for (int k = 1; !uneven.done(); k = k % 7 + 1) uneven.advance(k);
  same_eval(uneven.additive_eval(), additive);
  CHECK(uneven.agreement().overall.weight_sum == agreement.overall.weight_sum);
  CHECK(uneven.removal().exact_removed == removal.exact_removed);
  // The models must be the pair's kinds; no pairs give empty, finished figures.
  CHECK_ATTN_ERROR(TranslateScoresStudy(tr.model(true), tr.model(true), test, buckets), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(TranslateScoresStudy(tr.model(false), tr.model(false), test, buckets), ErrorCode::invalid_field);
  CHECK_ATTN_ERROR(TranslateScoresStudy(tr.model(false), tr.model(true), test, {}), ErrorCode::invalid_field);
  const TranslateScoresStudy empty(tr.model(false), tr.model(true), {}, buckets);
  CHECK(empty.done());
  CHECK(empty.additive_eval().overall.sentences == 0);
}
