// lessons/translate/eval.hpp — the Translate pair scored: accuracy by source length, the learned alignment
// against the grammar's, one sentence's alignment and its claims.
#pragma once

#include <string>
#include <vector>

#include "lessons/check.hpp"
#include "lessons/translate/data.hpp"
#include "lessons/translate/decode.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

struct BucketAccuracy {
  LengthBucket bucket;
  int sentences = 0, exact = 0;  ///< exact: the greedy output equals the reference
  int tokens = 0, correct = 0;   ///< reference words, and those the output has at the same position
  double exact_match = 0.0, token_accuracy = 0.0;  ///< fractions (0 for an empty bucket)
};

struct TranslateEval {
  std::vector<BucketAccuracy> buckets;
  BucketAccuracy overall;  ///< bucket = {shortest, longest} of the buckets
};

/// Greedy decoding (limit: source length + 10 steps) of every pair, scored per source-length bucket.
/// EOS is not a word: the output ends at EOS and must equal the reference exactly.
TranslateEval evaluate_translation(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                   const std::vector<LengthBucket>& buckets);

/// The learned alignment scored against the grammar's (reference_alignment), teacher forced over
/// `pairs`, per source-length bucket: of the target words (EOS not counted), how many put their
/// largest weight on the English word they translate (share = on_source / targets), and the mean
/// weight on that word.
struct BucketAgreement {
  LengthBucket bucket;
  int sentences = 0, targets = 0, on_source = 0;
  double weight_sum = 0.0;
  double share = 0.0, mean_weight = 0.0;  ///< fractions (0 for an empty bucket)
};
struct AlignmentAgreement {
  std::vector<BucketAgreement> buckets;
  BucketAgreement overall;
};

/// Errors: Error(invalid_field) when m has no attention, no bucket is given, or a pair's target is
/// not the grammar's translation of its source; teacher_forced's errors.
AlignmentAgreement alignment_agreement(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                       const std::vector<LengthBucket>& buckets);

/// The attention model's alignment of one sentence: the grammar's reference translation
/// teacher-forced (rows: the target words then EOS, columns: the source words), the greedy decode,
/// and the claims rows sum to 1 and padded source positions get weight 0 (measured on the same
/// pass with two PAD columns appended).
struct TranslateAlignment {
  std::vector<int> source, reference;
  std::vector<std::string> source_words, target_words;  ///< target_words: the reference's, then "<eos>"
  TeacherForced forced;
  GreedyDecode greedy;
  double max_row_sum_error = 0.0, max_padded_weight = 0.0;
  std::vector<Check> checks;  ///< rows sum to 1 (within 1e-9); the 2 appended PAD positions get 0
  bool bidirectional = false;  ///< the model's encoder (its captions word what an annotation holds)
};

/// Errors: english_ids' (empty sentence, unknown word), reference_translation's (not a sentence of
/// the grammar), Error(invalid_field) when m has no attention.
TranslateAlignment translate_alignment(const TranslateModel& m, const std::string& sentence);

// ---------------------------------------------------------------- one sentence at a time

/// The test-set scores are sums over sentences in the pairs' order: each function here adds one
/// sentence, so TranslateScoresStudy, run one sentence per slice, gives the bits of the functions
/// above, which loop over these. start: empty sums over `buckets` (Error(invalid_field) for none);
/// add: one pair (skipped when its length is in no bucket; errors as greedy_decode, or
/// alignment_agreement's); finish: the fractions.
namespace by_sentence {
TranslateEval eval_start(const std::vector<LengthBucket>& buckets);
void eval_add(TranslateEval& ev, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
              const TranslationPair& p);
void eval_finish(TranslateEval& ev);
AlignmentAgreement agreement_start(const std::vector<LengthBucket>& buckets);
void agreement_add(AlignmentAgreement& ag, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
                   const TranslationPair& p);
void agreement_finish(AlignmentAgreement& ag);
}  // namespace by_sentence

/// Two claims about a teacher-forced alignment `forced` of source → target (attention models):
/// each row sums to 1 (largest error), and the same pass with two PAD columns after the source
/// gives them weight 0 (largest weight found there). Errors as seq2seq_forward's batch checks.
struct AlignmentClaims {
  double max_row_sum_error = 0.0, max_padded_weight = 0.0;
  std::vector<Check> checks() const;  ///< rows sum to 1 (within 1e-9); PAD gets 0
};
AlignmentClaims alignment_claims(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target,
                                 const TeacherForced& forced);

}  // namespace attn::lessons
