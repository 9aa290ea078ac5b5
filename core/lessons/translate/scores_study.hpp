// lessons/translate/scores_study.hpp — the Translate panel's test-set scores measured across frames.
#pragma once

#include <vector>

#include "lessons/translate/data.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/interventions.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

/// The Translate panel's test-set scores measured one sentence per unit, so that a model too big
/// for one frame (one loaded from a file) is measured across frames with its progress: the
/// fixed summary's evaluate_translation, then the attention model's, its alignment_agreement and
/// its most_read_removal (intact exact count from its evaluation), each over `pairs` in order.
/// The sums run in the same order as those functions, so the results are theirs to the bit
/// however the units are sliced. 4·pairs units; advance() throws as those functions do.
/// Errors (constructor): Error(invalid_field) when `none` has attention or `additive` has none.
class TranslateScoresStudy {
 public:
  TranslateScoresStudy(const TranslateModel& none, const TranslateModel& additive, std::vector<TranslationPair> pairs,
                       std::vector<LengthBucket> buckets);
  int advance(int max_units);  ///< runs up to max_units units; returns those run (0 once done)
  bool done() const { return unit_ >= units_total(); }
  int units_done() const { return unit_; }
  int units_total() const { return 4 * static_cast<int>(pairs_.size()); }
  /// What the next unit measures: "fixed summary", "attention", "agreement", "most-read removal" or "done".
  const char* phase() const;
  // The results, complete once done().
  const TranslateEval& none_eval() const { return none_eval_; }
  const TranslateEval& additive_eval() const { return additive_eval_; }
  const AlignmentAgreement& agreement() const { return agreement_; }
  const MostReadRemoval& removal() const { return removal_; }

 private:
  TranslateModel none_, additive_;  ///< copies: the panel may train or replace its models meanwhile
  std::vector<TranslationPair> pairs_;
  std::vector<LengthBucket> buckets_;
  TranslateEval none_eval_, additive_eval_;
  AlignmentAgreement agreement_;
  MostReadRemoval removal_;
  int unit_ = 0;
};

}  // namespace attn::lessons
