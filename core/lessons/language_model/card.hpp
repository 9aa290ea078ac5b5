// lessons/language_model/card.hpp — the default language model's card: what it was trained on,
// how well it predicts the held-out books beside count-based baselines fitted on the training
// books, and which heads formed, measured with the shared decoder analyses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "learn/decoder.hpp"
#include "learn/checkpoint.hpp"  // attn::Json

namespace attn::lessons {

/// Held-out cross-entropy (nats per token) of count models fitted on `train`, on the targets
/// heldout[1..] each given heldout[i − 1] (the targets lm_heldout_loss scores):
///   unigram              add-one: (c(b) + 1) / (N + V);
///   bigram               add-one (Laplace): (c(a b) + 1) / (c(a ·) + V);
///   bigram_interpolated  Witten–Bell: λ_a P_ML(b | a) + (1 − λ_a) P_unigram(b), λ_a = c(a ·) /
///                        (c(a ·) + n(a)), n(a) the distinct followers of a (Witten & Bell 1991; Chen
///                        & Goodman 1998, §2.4), P_unigram the add-one unigram; a never seen: P_unigram.
/// c(a ·) counts a followed by any token in train. Throws Error(invalid_field) for a token
/// outside [0, vocab), Error(empty_sequence) for a held-out text under 2 tokens or a train under 2.
struct LmBaselines {
  double unigram = 0.0, bigram = 0.0, bigram_interpolated = 0.0;
  long long targets = 0;
};
LmBaselines lm_baselines(const std::vector<int>& train, const std::vector<int>& heldout, int vocab);

/// The model's held-out loss: windows of context + 1 tokens starting at 0, context, 2·context, ...
/// (the last one shorter), inputs its first tokens and targets the next ones, so that each token
/// from heldout[1] on is a target once, with up to `context` tokens before it (fewer at a window's
/// start). `max_windows` > 0 scores the first windows only. Forwards of up to 8 windows at a time;
/// the loss is the sum of −log p over targets in order ÷ their count. Throws Error(empty_sequence)
/// for fewer than 2 tokens, Error(invalid_field) for a token outside the vocabulary.
struct LmEval {
  double loss = 0.0;
  long long targets = 0;
  int windows = 0;
};
LmEval lm_heldout_loss(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                       const std::vector<double>& params, const std::vector<int>& heldout, int max_windows = 0);

/// One head's scores (learn/decoder_analysis.hpp), each in [0, 1]:
///   previous_token, first_token  on the first 8 held-out windows of `context` tokens;
///   induction  on 8 sequences of `context`/2 tokens drawn uniformly from the vocabulary with
///              Rng(seed) and repeated once (Olsson et al. 2022).
struct LmHeadScore {
  int layer = 0, head = 0;
  double previous_token = 0.0, induction = 0.0, first_token = 0.0;
};
std::vector<LmHeadScore> lm_head_scores(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                        const std::vector<double>& params, const std::vector<int>& heldout,
                                        std::uint64_t seed);

/// A head has formed as a kind when its score reaches the threshold: previous-token 0.5,
/// induction 0.3, first-token 0.5 (a head spread evenly over 128 keys scores about 0.04 on each).
inline constexpr double kPreviousTokenFormed = 0.5, kInductionFormed = 0.3, kFirstTokenFormed = 0.5;

/// Everything the card shows.
struct LmCard {
  std::string corpus, heldout_books;   ///< e.g. "Heb–Rev"
  int books = 0, heldout_book_count = 0, verses = 0, vocab = 0, steps = 0, batch = 0, context = 0;
  long long train_tokens = 0, heldout_tokens = 0, tokens_seen = 0;
  double final_train_loss = 0.0;       ///< mean training loss of the last 100 steps (or fewer)
  LmEval heldout, slice;               ///< every held-out window; the first kLmCardSliceWindows
  LmBaselines baselines;
  std::vector<LmHeadScore> heads;      ///< layer-major
  std::string params_fnv1a;            ///< of the parameters scored (the shipped ones)
  std::string first_steps_fnv1a;       ///< the parameters after the first 3 training steps
  std::vector<double> first_losses;    ///< the losses of those steps
  double seconds = 0.0;                ///< the training's wall time (not part of any check)
};
inline constexpr int kLmCardSliceWindows = 4;
inline constexpr int kLmReproducedSteps = 3;

/// The heads that reach a kind's threshold, as "layer.head" names in layer-major order.
std::vector<std::string> lm_formed_heads(const std::vector<LmHeadScore>& heads, double LmHeadScore::*score,
                                         double threshold);

/// The card as JSON: {corpus, books, heldout_books, verses, vocab, steps, batch, context,
/// train_tokens, heldout_tokens, tokens_seen, final_train_loss, heldout_loss {loss, targets,
/// windows}, slice_loss {...}, baselines {unigram, bigram, bigram_interpolated, targets, smoothing},
/// heads [{layer, head, previous_token, induction, first_token}], formed {previous_token,
/// induction, first_token: ["l.h", ...]}, thresholds, params_fnv1a, reproduce {steps,
/// params_fnv1a, losses}, training_seconds}. Numbers with 17 significant digits.
Json lm_card_json(const LmCard& card);

}  // namespace attn::lessons
