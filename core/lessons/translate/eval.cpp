#include "lessons/translate/eval.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "learn/seq2seq.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

namespace by_sentence {

namespace {
// Empty scores per bucket and overall (the buckets' whole range); `what` names them in the error.
template <class Scores>
Scores scores_start(const std::vector<LengthBucket>& buckets, const char* what) {
  if (buckets.empty()) bad(std::string(what) + " needs at least one length bucket");
  Scores s;
  for (const LengthBucket& b : buckets) s.buckets.push_back({b});
  s.overall.bucket = {buckets.front().lo, buckets.back().hi};
  return s;
}
}  // namespace

TranslateEval eval_start(const std::vector<LengthBucket>& buckets) {
  return scores_start<TranslateEval>(buckets, "evaluation");
}

AlignmentAgreement agreement_start(const std::vector<LengthBucket>& buckets) {
  return scores_start<AlignmentAgreement>(buckets, "the agreement");
}

void eval_add(TranslateEval& ev, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
              const TranslationPair& p) {
  const int k = bucket_of(buckets, static_cast<int>(p.source.size()));
  if (k < 0) return;
  const GreedyDecode g = greedy_decode(m, p.source, static_cast<int>(p.source.size()) + 10);
  int correct = 0;
  for (size_t i = 0; i < p.target.size() && i < g.tokens.size(); ++i) correct += g.tokens[i] == p.target[i];
  const bool exact = g.ended && g.tokens == p.target;
  for (BucketAccuracy* a : {&ev.buckets[static_cast<size_t>(k)], &ev.overall}) {
    ++a->sentences;
    a->exact += exact;
    a->tokens += static_cast<int>(p.target.size());
    a->correct += correct;
  }
}

void eval_finish(TranslateEval& ev) {
  auto finish = [](BucketAccuracy& a) {
    a.exact_match = a.sentences ? static_cast<double>(a.exact) / a.sentences : 0.0;
    a.token_accuracy = a.tokens ? static_cast<double>(a.correct) / a.tokens : 0.0;
  };
  for (BucketAccuracy& a : ev.buckets) finish(a);
  finish(ev.overall);
}

void agreement_add(AlignmentAgreement& ag, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
                   const TranslationPair& p) {
  const int k = bucket_of(buckets, static_cast<int>(p.source.size()));
  if (k < 0) return;
  const std::vector<int> from = reference_alignment(p.source);
  if (from.size() != p.target.size()) bad("a pair's target is not the grammar's translation of its source");
  const TeacherForced f = teacher_forced(m, p.source, p.target);
  const int S = f.src_len;
  int on = 0;
  double weight = 0.0;
  for (size_t t = 0; t < from.size(); ++t) {  // the target words; the EOS row translates no word
    const double* row = f.attention.data() + t * static_cast<size_t>(S);
    int best = 0;
    for (int j = 1; j < S; ++j)
      if (row[j] > row[best]) best = j;
    on += best == from[t];
    weight += row[from[t]];
  }
  for (BucketAgreement* a : {&ag.buckets[static_cast<size_t>(k)], &ag.overall}) {
    ++a->sentences;
    a->targets += static_cast<int>(from.size());
    a->on_source += on;
    a->weight_sum += weight;
  }
}

void agreement_finish(AlignmentAgreement& ag) {
  auto finish = [](BucketAgreement& a) {
    a.share = a.targets ? static_cast<double>(a.on_source) / a.targets : 0.0;
    a.mean_weight = a.targets ? a.weight_sum / a.targets : 0.0;
  };
  for (BucketAgreement& a : ag.buckets) finish(a);
  finish(ag.overall);
}

}  // namespace by_sentence

TranslateEval evaluate_translation(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                   const std::vector<LengthBucket>& buckets) {
  TranslateEval ev = by_sentence::eval_start(buckets);
  for (const TranslationPair& p : pairs) by_sentence::eval_add(ev, buckets, m, p);
  by_sentence::eval_finish(ev);
  return ev;
}

AlignmentAgreement alignment_agreement(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                       const std::vector<LengthBucket>& buckets) {
  if (!m.config.attention) bad("the fixed-summary model has no alignment (attention \"none\")");
  AlignmentAgreement ag = by_sentence::agreement_start(buckets);
  for (const TranslationPair& p : pairs) by_sentence::agreement_add(ag, buckets, m, p);
  by_sentence::agreement_finish(ag);
  return ag;
}

std::vector<Check> AlignmentClaims::checks() const {
  return {check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error, 1e-9),
          check_at_most("padding gets 0: max weight on 2 appended PAD positions", max_padded_weight, 0.0)};
}

AlignmentClaims alignment_claims(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target,
                                 const TeacherForced& forced) {
  AlignmentClaims c;
  const int S = forced.src_len;
  for (int t = 0; t < forced.rows; ++t) {
    double sum = 0.0;
    for (int j = 0; j < S; ++j) sum += forced.attention[static_cast<size_t>(t) * S + j];
    c.max_row_sum_error = std::max(c.max_row_sum_error, std::fabs(sum - 1.0));
  }
  const std::vector<TranslationPair> one{{source, target}};
  learn::Seq2SeqBatch b = translation_batch(one, {0});
  std::vector<int> padded(static_cast<size_t>(S + 2), kTranslatePad);
  std::copy(source.begin(), source.end(), padded.begin());
  b.source = padded;
  b.src_len = S + 2;
  learn::Seq2SeqActivations acts;
  learn::seq2seq_forward(m.config, m.layout, m.params.data(), b, acts);
  for (int t = 0; t < b.tgt_len; ++t)
    for (int j = S; j < S + 2; ++j)
      c.max_padded_weight = std::max(c.max_padded_weight, std::fabs(acts.weights[t][static_cast<size_t>(j)]));
  return c;
}

TranslateAlignment translate_alignment(const TranslateModel& m, const std::string& sentence) {
  if (!m.config.attention) bad("the fixed-summary model has no alignment (attention \"none\")");
  TranslateAlignment a;
  a.source = english_ids(sentence);
  a.reference = reference_translation(a.source);
  a.bidirectional = m.config.bidirectional;
  for (int id : a.source) a.source_words.push_back(english_vocab().words[static_cast<size_t>(id)]);
  for (int id : a.reference) a.target_words.push_back(french_vocab().words[static_cast<size_t>(id)]);
  a.target_words.push_back("<eos>");
  a.forced = teacher_forced(m, a.source, a.reference);
  a.greedy = greedy_decode(m, a.source, static_cast<int>(a.source.size()) + 10);
  const AlignmentClaims claims = alignment_claims(m, a.source, a.reference, a.forced);
  a.max_row_sum_error = claims.max_row_sum_error;
  a.max_padded_weight = claims.max_padded_weight;
  a.checks = claims.checks();
  return a;
}

}  // namespace attn::lessons
