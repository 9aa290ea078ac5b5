#include "lessons/translate/scores_study.hpp"

#include <string>

#include "attn/error.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

TranslateScoresStudy::TranslateScoresStudy(const TranslateModel& none, const TranslateModel& additive,
                                           std::vector<TranslationPair> pairs, std::vector<LengthBucket> buckets)
    : none_(none), additive_(additive), pairs_(std::move(pairs)), buckets_(std::move(buckets)) {
  if (none_.config.attention) bad("the scores' first model is the fixed summary (attention \"none\")");
  if (!additive_.config.attention) bad("the scores' second model is the attention model (attention \"additive\")");
  none_eval_ = by_sentence::eval_start(buckets_);
  additive_eval_ = by_sentence::eval_start(buckets_);
  agreement_ = by_sentence::agreement_start(buckets_);
  if (pairs_.empty()) by_sentence::removal_finish(removal_, &additive_eval_);  // nothing to measure: the figures are final
}

const char* TranslateScoresStudy::phase() const {
  static const char* names[] = {"fixed summary", "attention", "agreement", "most-read removal"};
  return done() ? "done" : names[unit_ / static_cast<int>(pairs_.size())];
}

int TranslateScoresStudy::advance(int max_units) {
  const int n = static_cast<int>(pairs_.size()), total = units_total();
  int ran = 0;
  for (; ran < max_units && unit_ < total; ++ran) {
    const int phase = unit_ / n;
    const TranslationPair& p = pairs_[static_cast<size_t>(unit_ % n)];
    switch (phase) {
      case 0: by_sentence::eval_add(none_eval_, buckets_, none_, p); break;
      case 1: by_sentence::eval_add(additive_eval_, buckets_, additive_, p); break;
      case 2: by_sentence::agreement_add(agreement_, buckets_, additive_, p); break;
      default: by_sentence::removal_add(removal_, additive_, p, false); break;
    }
    ++unit_;
    if (unit_ == total) {
      by_sentence::eval_finish(none_eval_);
      by_sentence::eval_finish(additive_eval_);
      by_sentence::agreement_finish(agreement_);
      by_sentence::removal_finish(removal_, &additive_eval_);
    }
  }
  return ran;
}

}  // namespace attn::lessons
