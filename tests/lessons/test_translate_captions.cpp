// tests/lessons/test_translate_captions.cpp — the Translate panel's sentences follow their numbers:
// hand-made figures in, the words a reader would derive from them out (percentages rounded by
// hand, the branch each figure selects), and a changed figure changes the sentence.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "lessons/translate/captions.hpp"

using namespace attn::lessons;

namespace {

BucketAccuracy bucket(int lo, int hi, double exact, double tokens) {
  BucketAccuracy b;
  b.bucket = {lo, hi};
  b.sentences = 100;
  b.exact_match = exact;
  b.token_accuracy = tokens;
  return b;
}

TranslateEval eval(double short_exact, double long_exact, double long_tokens) {
  TranslateEval e;
  e.buckets = {bucket(3, 8, short_exact, 0.9), bucket(9, 15, 0.5, 0.6), bucket(16, 20, long_exact, long_tokens)};
  return e;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// One CHECK per part: `text` contains it.
void check_parts(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) {
    INFO("part: " << part);
    CHECK(contains(text, part));
  }
}

}  // namespace

TEST_CASE("scores caption: the figures it quotes and whether the gap grows", "[lessons][translate][captions]") {
  // Fixed summary 64% / 0% (21% of words), attention 98% / 90%: gap 34 points short, 90 long.
  const std::string c = scores_caption(eval(0.64, 0.0, 0.21), eval(0.98, 0.90, 0.96), 1000, 32, false);
  check_parts(c, {"At step 1000, on the test set: sentences of 3-8 words, fixed summary 64% exact, attention 98%",
                  "16-20 words, fixed summary 0% exact, attention 90%. ",
                  "The gap grows with the source's length.",
                  "one vector of 32 numbers",
                  "the fixed summary puts 21% of the words in the right place",
                  "fed to every decoder step"});
  CHECK_FALSE(contains(c, "read only at the start"));
  // A gap that shrinks: 40 points short (0.5 vs 0.9), 30 long (0.3 vs 0.6) is not "grows".
  const std::string d = scores_caption(eval(0.5, 0.3, 0.4), eval(0.9, 0.6, 0.7), 400, 32, true);
  check_parts(d, {"Here the gap does not grow with length.",
                  "one vector of 32 numbers (the encoder's final state in each reading direction"});
  CHECK(contains(c, "(the encoder's last state, fed to every decoder step)"));
  CHECK_FALSE(contains(d, "The gap grows"));
  CHECK(scores_caption(eval(0.1, 0.0, 0.1), eval(0.1, 0.0, 0.1), 0, 32, false).find("Untrained: both guess.") != std::string::npos);
  TranslateEval empty;
  CHECK(scores_caption(empty, eval(0.1, 0.0, 0.1), 10, 32, false).empty());
}

TEST_CASE("alignment caption: one column read by every row, or peaks that move", "[lessons][translate][captions]") {
  TranslateAlignment a;
  a.source_words = {"the", "black", "cat"};
  a.forced.rows = 4;
  a.forced.src_len = 3;
  // Every row's largest weight on "cat", the smallest of those 0.72.
  a.forced.attention = {0.1, 0.1, 0.8, 0.14, 0.14, 0.72, 0.0, 0.1, 0.9, 0.05, 0.05, 0.9};
  const std::string one = alignment_caption(a, 1000);
  check_parts(one, {"every row puts its largest weight (at least 0.72) on \"cat\"",
                  "the encoder reads left to right"});
  a.bidirectional = true;  // what one annotation can hold follows the encoder
  CHECK(contains(alignment_caption(a, 1000), "the one at \"cat\" can already hold words on either side of it"));
  a.bidirectional = false;
  // Peaks on "the", "black" and "cat": three of the three source words.
  a.forced.attention = {0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8, 0.2, 0.2, 0.6};
  CHECK(contains(alignment_caption(a, 1000), "the rows' peaks fall on 3 of the 3 source words"));
  CHECK(contains(alignment_caption(a, 0), "Untrained (step 0)"));
  // One column, but a row whose peak is only 0.5 is not "at least" above one half.
  a.forced.attention = {0.2, 0.3, 0.5, 0.1, 0.1, 0.8, 0.1, 0.1, 0.8, 0.1, 0.1, 0.8};
  CHECK(contains(alignment_caption(a, 1000), "the rows' peaks fall on 1 of the 3 source words"));
}

TEST_CASE("widths caption: moves from the narrowest to the widest width", "[lessons][translate][captions]") {
  TranslateWidthResult lo, hi;
  lo.hidden = 8, hi.hidden = 64;
  lo.config.steps = hi.config.steps = 1000;
  lo.config.adam.lr = hi.config.adam.lr = 5e-3;
  lo.none = eval(0.07, 0.0, 0.07), hi.none = eval(0.84, 0.0, 0.40);
  lo.additive = eval(0.27, 0.0, 0.2), hi.additive = eval(1.0, 0.95, 0.98);
  const std::string c = widths_caption({lo, hi});
  check_parts(c, {"What the H control measured with the bidirectional encoder",  // the rows' own encoder
                  "for 1000 steps at learning rate 0.005",
                  "From H 8 to H 64, the fixed summary's exact match went from 7% to 84% on 3-8 words",
                  "0% to 0% on 16-20 words",
                  "a state 8 times wider moved the fixed summary's exact match by 0 points",
                  "went from 7% to 40%",
                  "Attention at H 64 (95% there) already beats the fixed summary at every width (0% at each).",
                  "Attention needs width too: at H 8 its exact match by length is 27% / 50% / 0%."});
  CHECK_FALSE(contains(widths_caption({hi, hi}), "needs width too"));
  CHECK(widths_caption({lo}).empty());
}

TEST_CASE("encoders caption: both encoders at one width, worded from the table", "[lessons][translate][captions]") {
  const auto row = [](bool bidirectional, int hidden, double long_exact, int long_count, int on_source) {
    TranslateWidthResult r;
    r.hidden = hidden;
    r.config.bidirectional = bidirectional;
    r.additive = eval(1.0, long_exact, 0.99);
    r.additive.buckets[2].exact = long_count;
    r.agreement.overall.targets = 1000;
    r.agreement.overall.on_source = on_source;
    r.agreement.overall.share = on_source / 1000.0;
    return r;
  };
  // Bidirectional 95 of 100 long sentences and 902 of 1000 words on their source; forward 90 and 690.
  const std::vector<TranslateWidthResult> rows = {row(true, 8, 0.1, 10, 600), row(true, 32, 0.95, 95, 902),
                                                  row(false, 8, 0.0, 0, 680), row(false, 32, 0.90, 90, 690)};
  const std::string c = encoders_caption(rows, 32);
  check_parts(c, {"Encoders at H 32",
                  "attention's exact match by length is 100% / 50% / 95% with Bahdanau's bidirectional encoder and "
                  "100% / 50% / 90% with a forward one",
                  "for 90% and 69% of target words",
                  "On 16-20 words the bidirectional encoder gets 5 more of 100 sentences exactly right.",
                  "more often with the bidirectional encoder (+21 points)",
                  "one seed's run"});
  // The other way round, and level: the words follow the counts.
  const std::string d = encoders_caption({row(true, 32, 0.90, 90, 600), row(false, 32, 0.90, 90, 690)}, 32);
  check_parts(d, {"they are level (90 of 100)",
                  "more often with the forward encoder"});
  CHECK(encoders_caption(rows, 16).empty());  // no row at that width
  CHECK(width_rows_of(rows, false).size() == 2);
  CHECK(width_rows_of(rows, false)[1].hidden == 32);
}

TEST_CASE("reproduction sentence: same bits or the hashes that differ", "[lessons][translate][captions]") {
  CHECK(reproduction_sentence(true, true, 32, true, "aa", "bb", "aa", "bb") ==
        "The shipped checkpoint's parameters are bit for bit those of the precomputed native run at H 32 with the "
        "bidirectional encoder (FNV-1a of the float64 bits: aa, bb).");
  const std::string d = reproduction_sentence(false, false, 16, false, "aa", "bc", "aa", "bb");
  check_parts(d, {"This run's parameters differ from the precomputed native run at H 16 with the forward encoder",
                  "the table's aa, bb"});
}

TEST_CASE("agreement caption: worded from the counts", "[lessons][translate][captions]") {
  AlignmentAgreement ag;
  BucketAgreement a, b;
  a.bucket = {3, 8}, b.bucket = {9, 15};
  a.targets = 40, a.on_source = 30, a.share = 0.75, a.mean_weight = 0.6;
  b.targets = 60, b.on_source = 30, b.share = 0.5, b.mean_weight = 0.4;
  ag.buckets = {a, b};
  ag.overall.bucket = {3, 15};
  ag.overall.targets = 100, ag.overall.on_source = 60, ag.overall.share = 0.6, ag.overall.mean_weight = 0.48;
  const std::string c = agreement_caption(ag, 1000);
  check_parts(c, {"Measured at step 1000: over the 100 target words",
                  "60% put their largest weight on the English word they translate (75% on 3-8 words, 50% on 9-15 words)",
                  "mean weight of 0.48"});
  CHECK(contains(agreement_caption(ag, 0), "Untrained (step 0)"));
  CHECK(agreement_caption(AlignmentAgreement{}, 5).empty());
}

TEST_CASE("intervention caption: worded from the outputs and losses", "[lessons][translate][captions]") {
  AttentionInterventions r;
  r.output = reference_translation(english_ids("the black cat"));
  const std::vector<int> other = reference_translation(english_ids("the white cat"));
  WordRemoval a, b, c;
  a.word = "the", a.output = r.output, a.delta_loss = 0.1;
  b.word = "black", b.output = other, b.delta_loss = 2.5;
  c.word = "cat", c.output = other, c.delta_loss = 1.0;
  r.removals = {a, b, c};
  r.forced_applies = true;
  r.forced_output = r.output;
  r.forced_delta_loss = 0.25;
  MostReadRemoval t;
  t.sentences = 300, t.exact_intact = 294, t.exact_removed = 120;
  t.exact_match_intact = 0.98, t.exact_match_removed = 0.4;
  const std::string cap = intervention_caption(r, &t, 1000);
  check_parts(cap, {"intact, the decoder writes \"le chat noir\"",
                  "Removing \"black\", \"cat\" from the attention changes the output (removing \"the\" does not)",
                  "the loss moves most when \"black\" is removed (+2.5 nats per word)",
                  "Forcing the lesson's constructed weights gives \"le chat noir\" (loss +0.25)",
                  "Over the 300 test sentences, hiding the source word read most drops exact match from 98% to 40%."});
  r.removals = {a};
  CHECK(contains(intervention_caption(r, nullptr, 5), "leaves that output unchanged"));
  CHECK_FALSE(contains(intervention_caption(r, nullptr, 5), "test sentences"));
  CHECK(intervention_caption(AttentionInterventions{}, nullptr, 5).empty());
}
