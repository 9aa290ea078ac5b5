#include "lessons/translate/interventions.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

Check intervention_path_check(double path_max_diff) {
  return check_at_most("the intervention path with nothing changed is the model's teacher-forced pass: max |p - q|",
                       path_max_diff, 1e-12);
}

std::vector<std::vector<double>> lesson_constructed_weights() {
  return {{0.8, 0.1, 0.1}, {0.1, 0.1, 0.8}, {0.1, 0.8, 0.1}};
}

AttentionInterventions attention_interventions(const TranslateModel& m, const std::string& sentence) {
  if (!m.config.attention) bad("the fixed-summary model has no attention to intervene on");
  AttentionInterventions r;
  r.source = english_ids(sentence);
  r.reference = reference_translation(r.source);
  for (int id : r.source) r.source_words.push_back(english_vocab().words[static_cast<size_t>(id)]);
  const int S = static_cast<int>(r.source.size()), steps = S + 10;
  const TeacherForced base = teacher_forced(m, r.source, r.reference);
  const TeacherForced path = teacher_forced_under(m, r.source, r.reference, AttentionIntervention{});
  for (size_t i = 0; i < base.probs.size() && i < path.probs.size(); ++i)
    r.path_max_diff = std::max(r.path_max_diff, std::fabs(base.probs[i] - path.probs[i]));
  r.loss = path.loss;
  const GreedyDecode g = greedy_decode_under(m, r.source, steps, AttentionIntervention{});
  r.output = g.tokens;
  r.exact = g.ended && g.tokens == r.reference;
  for (int j = 0; S >= 2 && j < S; ++j) {
    AttentionIntervention iv;
    iv.removed = j;
    WordRemoval w;
    w.position = j;
    w.word = r.source_words[static_cast<size_t>(j)];
    w.loss = teacher_forced_under(m, r.source, r.reference, iv).loss;
    w.delta_loss = w.loss - r.loss;
    const GreedyDecode d = greedy_decode_under(m, r.source, steps, iv);
    w.output = d.tokens;
    w.exact = d.ended && d.tokens == r.reference;
    r.removals.push_back(std::move(w));
  }
  r.forced_applies = S == 3 && r.reference.size() == 3;
  if (r.forced_applies) {
    AttentionIntervention iv;
    iv.forced = lesson_constructed_weights();
    r.forced_loss = teacher_forced_under(m, r.source, r.reference, iv).loss;
    r.forced_delta_loss = r.forced_loss - r.loss;
    const GreedyDecode d = greedy_decode_under(m, r.source, steps, iv);
    r.forced_output = d.tokens;
    r.forced_exact = d.ended && d.tokens == r.reference;
  }
  return r;
}

namespace by_sentence {
void removal_add(MostReadRemoval& r, const TranslateModel& m, const TranslationPair& p, bool decode_intact) {
  const int n = static_cast<int>(p.source.size());
  if (n < 2) return;
  // the source word the decoder reads most over the reference (teacher forced)
  const TeacherForced f = teacher_forced(m, p.source, p.target);
  std::vector<double> column(static_cast<size_t>(n), 0.0);
  for (int t = 0; t < f.rows; ++t)
    for (int j = 0; j < n; ++j) column[static_cast<size_t>(j)] += f.attention[static_cast<size_t>(t) * n + j];
  AttentionIntervention iv;
  iv.removed = static_cast<int>(std::max_element(column.begin(), column.end()) - column.begin());
  const GreedyDecode removed = greedy_decode_under(m, p.source, n + 10, iv);
  ++r.sentences;
  if (decode_intact) {
    const GreedyDecode intact = greedy_decode(m, p.source, n + 10);
    r.exact_intact += intact.ended && intact.tokens == p.target;
  }
  r.exact_removed += removed.ended && removed.tokens == p.target;
}

void removal_finish(MostReadRemoval& r, const TranslateEval* intact_eval) {
  if (intact_eval) r.exact_intact = intact_eval->overall.exact;
  if (r.sentences) {
    r.exact_match_intact = static_cast<double>(r.exact_intact) / r.sentences;
    r.exact_match_removed = static_cast<double>(r.exact_removed) / r.sentences;
  }
}

}  // namespace by_sentence

MostReadRemoval most_read_removal(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                  const TranslateEval* intact_eval) {
  if (!m.config.attention) bad("the fixed-summary model has no attention to intervene on");
  MostReadRemoval r;
  for (const TranslationPair& p : pairs) by_sentence::removal_add(r, m, p, intact_eval == nullptr);
  by_sentence::removal_finish(r, intact_eval);
  return r;
}

}  // namespace attn::lessons
