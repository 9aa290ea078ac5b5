// lessons/translate/captions.hpp — the Translate panel's sentences, worded from its measurements.
//
// Each function turns the core's figures (test-set accuracy by length bucket, a learned alignment,
// the precomputed width table, a reproduction check) into the sentence the page shows, so that a
// sentence that states a result changes when the result does and is tested natively.
#pragma once

#include <string>
#include <vector>

#include "lessons/translate/data.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/interventions.hpp"
#include "lessons/translate/token_analysis.hpp"
#include "lessons/translate/widths.hpp"

namespace attn::lessons {

/// A length bucket as the page writes it: "LO-HI" (source words, both ends included).
std::string range_of(const LengthBucket& b);

/// The accuracy table's caption at `step`: both models' exact match on the shortest and the
/// longest bucket, whether attention's lead grows with length (by more than 5 points), and the
/// fixed summary's width `summary_size` (C: H, or 2H from a bidirectional encoder, which
/// `bidirectional` says). "" when the buckets do not match.
std::string scores_caption(const TranslateEval& none, const TranslateEval& additive, int step, int summary_size,
                           bool bidirectional);

/// The learned alignment's caption: one source column holding every row's largest weight (each
/// above 0.5), or the number of distinct source words the rows' peaks fall on. "" for an empty map.
std::string alignment_caption(const TranslateAlignment& result, int step);

/// The alignment agreement's caption at `step`: the share of target words whose largest weight
/// falls on the word they translate, overall and per bucket, and the mean weight there. "" for no
/// target word.
std::string agreement_caption(const AlignmentAgreement& agreement, int step);

/// The interventions' caption: which removals changed the sentence's greedy output (and the
/// largest loss change), the forced lesson weights' output and loss change when they apply, and
/// and, when `test` is given, the test set's exact match intact and with the most-read word
/// removed. "" for no removal.
std::string intervention_caption(const AttentionInterventions& r, const MostReadRemoval* test, int step);

/// A token sequence as the page writes it: the ids separated by spaces ("(nothing)" when empty).
std::string ids_text(const std::vector<int>& ids);

/// The token analysis's caption (a model over other vocabularies): what greedy decoding emitted
/// and whether it chose EOS, the teacher-forced loss of the analysed target, which position
/// removals changed the output and the largest loss change (attention models), or that a fixed
/// summary has no alignment to read.
std::string token_caption(const TokenAnalysis& r, bool attention);

/// What the width table measured: each model's exact match per bucket from the narrowest to the
/// widest H, the longest bucket's move for the fixed summary (with its token accuracy), and the
/// first width at which attention beats the fixed summary at every width there. "" for < 2 rows.
std::string widths_caption(const std::vector<TranslateWidthResult>& rows);

/// The rows of one encoder (config.bidirectional == bidirectional), in the table's order.
std::vector<TranslateWidthResult> width_rows_of(const std::vector<TranslateWidthResult>& rows, bool bidirectional);

/// The two encoders at width `hidden`, both from the table: the attention model's exact match per
/// bucket and its alignment agreement (share of target words whose largest weight is on their
/// source word) for the bidirectional and the forward encoder, which is ahead on the longest
/// bucket and on agreement (or that they are level), and that each is one seed's run. "" when the
/// table lacks either encoder at that width.
std::string encoders_caption(const std::vector<TranslateWidthResult>& rows, int hidden);

/// Whether a finished run's parameters are those of the precomputed native run at width `hidden`
/// (FNV-1a of each model's float64 bits, ours then the table's), as one sentence.
std::string reproduction_sentence(bool same, bool from_checkpoint, int hidden, bool bidirectional,
                                  const std::string& none_fnv1a,
                                  const std::string& additive_fnv1a, const std::string& want_none_fnv1a,
                                  const std::string& want_additive_fnv1a);

}  // namespace attn::lessons
