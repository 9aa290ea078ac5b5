// tests/lessons/test_language_model_captions.cpp — the Language model panel's sentences follow their
// numbers: hand-made head scores in, the head a reader would pick and the counts derived by hand
// out; a changed score changes the sentence; unmeasured scores (NaN) never win.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lessons/language_model/captions.hpp"
#include "support/support.hpp"

using namespace attn::lessons::lm;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

HeadScore head(int l, int h, double prev, double first, double ind) { return HeadScore{l, h, prev, first, ind}; }
}  // namespace

TEST_CASE("language model captions: the strongest head by each score, NaN never winning") {
  const std::vector<HeadScore> s = {head(0, 0, 0.10, 0.90, kNaN), head(0, 1, 0.85, 0.05, 0.02),
                                    head(1, 0, 0.30, 0.55, 0.61), head(1, 1, 0.85, 0.20, kNaN)};
  CHECK(strongest_head(s, &HeadScore::previous_token) == 1);  // tie 0.85: the first in layer-major order
  CHECK(strongest_head(s, &HeadScore::induction) == 2);
  CHECK(strongest_head(s, &HeadScore::first_token) == 0);
  CHECK(strongest_head({head(0, 0, kNaN, 0, kNaN)}, &HeadScore::induction) == -1);
  CHECK(head_label(1, 0) == "1.0");

  const std::string c = heads_caption(s, 12);
  CHECK(c.find("On these 12 tokens, head 0.1 reads the previous token most: 0.85 of its weight") == 0);
  CHECK(c.find("head 1.0 has the highest induction score (0.61)") != std::string::npos);
  // first_token >= 0.5: heads 0.0 (0.90) and 1.0 (0.55).
  CHECK(c.find("2 of 4 heads put half or more of their weight on the first token") != std::string::npos);
  CHECK(c.find("not what it adds") != std::string::npos);  // the lesson's caution: weight is not contribution

  std::vector<HeadScore> t = s;
  t[3].previous_token = 0.95;
  t[2].first_token = 0.45;
  const std::string d = heads_caption(t, 12);
  CHECK(d.find("head 1.1 reads the previous token most: 0.95") != std::string::npos);
  CHECK(d.find("1 of 4 heads put half") != std::string::npos);
}

TEST_CASE("language model captions: without an induction probe no induction sentence and without scores no caption") {
  const std::vector<HeadScore> s = {head(0, 0, 0.4, 0.2, kNaN)};
  const std::string c = heads_caption(s, 3);
  CHECK(c.find("induction") == std::string::npos);
  CHECK(c.find("0 of 1 heads") != std::string::npos);
  CHECK(heads_caption({}, 3).empty());
}

TEST_CASE("language model captions: the next token's probability and the shown mass, in percent") {
  const std::string c = next_token_caption(" the", 0.4231, 0.9012, 10);
  CHECK(c == "Most probable next token: \" the\" at 42.3%. The 10 shown hold 90.1% of the distribution; the rest "
             "is spread over the other tokens.");
}

TEST_CASE("language model captions: the card against the better count baseline, heads formed by kind") {
  CardFigures c;
  c.corpus = "the King James Bible";
  c.tokens_seen = 768000;
  c.heldout_loss = 4.8712;
  c.unigram = 6.9;
  c.bigram = 5.3049;
  c.previous_token = {"0.1", "1.3"};
  const std::string s = card_caption(c);
  // 5.3049 - 4.8712 = 0.4337: 0.43 lower than the bigram (the better baseline).
  CHECK(s == "Trained here on the King James Bible (768000 tokens seen). On held-out books it scores 4.87 nats per "
             "token: 0.43 lower than an add-one bigram count model (5.30). Heads formed \xE2\x80\x94 previous-token: "
             "0.1, 1.3; induction: none; first-token: none.");
  c.heldout_loss = 7.0;
  c.bigram = 7.5;  // the unigram is now the best baseline, and the model is worse than it
  CHECK(card_caption(c).find("0.10 higher than an add-one unigram count model (6.90), 0.50 lower than an add-one "
                             "bigram count model (7.50)") != std::string::npos);
  // The first shipped run's case (n_embd 128, 750 steps): the interpolated bigram (4.667) beats the model (4.678) by 0.011.
  c.heldout_loss = 4.678;
  c.unigram = 6.198;
  c.bigram = 6.07;
  c.bigram_interpolated = 4.667;
  CHECK(card_caption(c).find("4.68 nats per token: 0.01 higher than an interpolated bigram count model (4.67), 1.39 "
                             "lower than an add-one bigram count model (6.07)") != std::string::npos);
}

TEST_CASE("language model captions: a query row read by its largest weights, ties to the earlier key") {
  const std::vector<std::string> labels = {"In", " the", " beginning", " was"};
  // Sorted by hand: 0.5 (In), 0.2 and 0.2 (the earlier, " the", first), 0.1.
  CHECK(row_reading({0.5, 0.2, 0.1, 0.2}, 3, labels) == "Query \" was\" (3) reads \"In\" 0.5, \" the\" 0.2, \" was\" 0.2.");
  CHECK(row_reading({1.0}, 0, labels) == "Query \"In\" (0) reads \"In\" 1.");
  CHECK(row_reading({0.25, 0.75}, 1, {}, 1) == "Query \"#1\" (1) reads \"#1\" 0.75.");
}

TEST_CASE("language model captions: weight against contribution names both keys, or one when they agree") {
  const std::vector<std::string> labels = {"In", " the", " beginning"};
  // By hand: the largest weight 0.6 is on "In" (norm 0.1); the largest norm 1.5 on " beginning" (weight 0.1).
  CHECK(contribution_reading({0.6, 0.3, 0.1}, {0.1, 0.4, 1.5}, labels) ==
        "The largest weight, 0.6 on \"In\", adds 0.1 to the head's output; the largest contribution, 1.5, comes from "
        "\" beginning\" at weight 0.1.");
  CHECK(contribution_reading({0.2, 0.8}, {0.3, 2.0}, labels) == "The largest weight, 0.8 on \" the\", also contributes most (2).");
  // Ties go to the earlier key in both lists, so they agree here.
  CHECK(contribution_reading({0.5, 0.5}, {1.0, 1.0}, {}) == "The largest weight, 0.5 on \"#0\", also contributes most (1).");
  CHECK_ATTN_ERROR(contribution_reading({0.5, 0.5}, {1.0}, labels), attn::ErrorCode::shape_mismatch);
  CHECK_ATTN_ERROR(contribution_reading({}, {}, labels), attn::ErrorCode::empty_sequence);
}

TEST_CASE("language model captions: ablation names the head that matters most and the one that hurt") {
  std::vector<HeadScore> s = {head(0, 0, 0.1, 0.1, 0.1), head(0, 1, 0.1, 0.1, 0.1), head(1, 0, 0.1, 0.1, 0.1)};
  CHECK(ablation_caption(s, 4.0, 7).empty());  // nothing measured yet
  // By hand: 0.0 raises the loss most (+0.86), 0.1 lowers it (−0.74), 1.0 moves it by 0.005 (< 0.01).
  s[0].zero_ablation = 0.86, s[0].mean_ablation = 0.2;
  s[1].zero_ablation = -0.74, s[1].mean_ablation = -0.1;
  s[2].zero_ablation = 0.005;
  CHECK(ablation_caption(s, 11.66, 7) ==
        "Each head ablated alone, on these 7 next tokens (clean loss 11.66 nats per token): zeroing head 0.0 raises the "
        "loss most, +0.86 (mean ablation +0.20). Zeroing head 0.1 lowers it by 0.74: on this prompt that head hurt the "
        "prediction. 1 of 3 heads move it by less than 0.01. One prompt is one measurement: a head's role needs more text.");
  // Every zeroing lowers the loss: no head is said to raise it.
  for (HeadScore& h : s) h.zero_ablation = -std::fabs(h.zero_ablation) - 0.1, h.mean_ablation = kNaN;
  const std::string down = ablation_caption(s, 3.0, 2);
  CHECK(down.find("no head's zeroing raises the loss by 0.01 or more; the largest change up is head 1.0's, \xE2\x88\x92" "0.11.") !=
        std::string::npos);
  CHECK(down.find("Zeroing head 0.0 lowers it by 0.96") != std::string::npos);
  CHECK(down.find("0 of 3 heads") != std::string::npos);
  // Changes under 0.01 either way are not called a rise or harm: +0.004 and -0.003 move nothing.
  s[0].zero_ablation = 0.004, s[1].zero_ablation = -0.003, s[2].zero_ablation = 0.001;
  const std::string flat = ablation_caption(s, 3.0, 2);
  CHECK(flat.find("no head's zeroing raises the loss by 0.01 or more; the largest change up is head 0.0's, +0.00") != std::string::npos);
  CHECK(flat.find("hurt") == std::string::npos);
  CHECK(flat.find("3 of 3 heads move it by less than 0.01") != std::string::npos);
}
