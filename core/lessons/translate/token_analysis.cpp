#include "lessons/translate/token_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/interventions.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

bool lesson_vocabularies(const learn::Seq2SeqConfig& cfg) {
  return cfg.src_vocab == english_vocab().size() && cfg.tgt_vocab == french_vocab().size();
}

std::vector<std::string> lesson_word_analyses() {
  return {"accuracy by sentence length: the test set's English sentences and their French references",
          "alignment agreement: the grammar's word-for-word correspondence",
          "the most-read word removed over the test set: the test set's sentences",
          "the lesson's constructed weights forced into the decoder: \"the black cat\", three English words",
          "training: the lesson's sentence pairs are the data",
          "the width table and the reproduction check: the lab's own pair"};
}

std::vector<int> default_token_source(const learn::Seq2SeqConfig& cfg) {
  std::vector<int> ids;
  for (int k = 0; cfg.src_vocab > 3 && k < 4; ++k) ids.push_back(3 + k % (cfg.src_vocab - 3));
  return ids;
}

TokenAnalysis token_analysis(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target,
                             int beam_width, double alpha) {
  if (m.config.tgt_vocab <= kTranslateEos)
    bad("decoding needs BOS (id 1) and EOS (id 2) in the target vocabulary; this one has " +
        std::to_string(m.config.tgt_vocab) + " ids");
  if (target.size() > 511) bad("the target is limited to 511 tokens (512 rows with EOS)");
  if (m.config.src_vocab <= 3) bad("the source vocabulary has no word ids: ids 0-2 are PAD, BOS and EOS, this one has " +
                                   std::to_string(m.config.src_vocab) + " ids");
  TokenAnalysis r;
  r.source = source;
  const int S = static_cast<int>(source.size()), steps = std::min(512, S + 10);
  r.greedy = greedy_decode(m, source, steps);
  r.target_given = !target.empty();
  r.target = r.target_given ? target : r.greedy.tokens;
  if (r.target.size() > 511) r.target.resize(511);
  r.forced = teacher_forced(m, source, r.target);
  r.beam = beam_search(m, source, beam_width, alpha, steps);
  r.beam_prefix = beam_prefix_check(m, source, r.beam);
  if (!m.config.attention) {
    r.checks = beam_prefix_checks(r.beam_prefix, "tokens");
    return r;
  }
  const AlignmentClaims claims = alignment_claims(m, source, r.target, r.forced);
  r.max_row_sum_error = claims.max_row_sum_error;
  r.max_padded_weight = claims.max_padded_weight;
  r.checks = claims.checks();
  const TeacherForced path = teacher_forced_under(m, source, r.target, AttentionIntervention{});
  for (size_t i = 0; i < r.forced.probs.size() && i < path.probs.size(); ++i)
    r.path_max_diff = std::max(r.path_max_diff, std::fabs(r.forced.probs[i] - path.probs[i]));
  for (int j = 0; S >= 2 && j < S; ++j) {
    AttentionIntervention iv;
    iv.removed = j;
    TokenRemoval w;
    w.position = j;
    w.token = source[static_cast<size_t>(j)];
    w.loss = teacher_forced_under(m, source, r.target, iv).loss;
    w.delta_loss = w.loss - path.loss;
    const GreedyDecode d = greedy_decode_under(m, source, steps, iv);
    w.output = d.tokens;
    w.ended = d.ended;
    w.same_output = d.tokens == r.greedy.tokens && d.ended == r.greedy.ended;
    r.removals.push_back(std::move(w));
  }
  r.checks.push_back(intervention_path_check(r.path_max_diff));
  for (Check& c : beam_prefix_checks(r.beam_prefix, "tokens")) r.checks.push_back(std::move(c));
  return r;
}

}  // namespace attn::lessons
