// lessons/translate/interventions.hpp — interventions on the Translate attention model's weights (learn::
// AttentionIntervention): one sentence's words removed in turn, the lesson's constructed weights
// forced, and the most-read word removed over a test set.
#pragma once

#include <string>
#include <vector>

#include "lessons/check.hpp"
#include "lessons/translate/data.hpp"
#include "lessons/translate/decode.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

/// The claim that the intervention path with nothing changed is the model's teacher-forced pass:
/// max |p − q| (path_max_diff) at most 1e-12. Never throws.
Check intervention_path_check(double path_max_diff);

/// The lesson's constructed alignment ("the black cat" → "le chat noir": rows le, chat, noir;
/// lessons/alignment.hpp) as forced weights.
std::vector<std::vector<double>> lesson_constructed_weights();

/// Interventions on the attention model's weights, measured on one sentence (its grammar
/// reference): the loss (teacher forced) and the greedy output intact, with each source word
/// removed from the attention in turn, and — for a 3-word sentence — with the lesson's
/// constructed weights forced at the three word steps (EOS keeps the model's).
struct WordRemoval {
  int position = 0;
  std::string word;
  double loss = 0.0, delta_loss = 0.0;
  std::vector<int> output;  ///< greedy, without EOS
  bool exact = false;       ///< output equals the reference
};
struct AttentionInterventions {
  std::vector<int> source, reference;
  std::vector<std::string> source_words;
  double loss = 0.0;  ///< teacher forced, no intervention
  /// max |p − q| between the step path without intervention and teacher_forced (seq2seq_forward):
  /// the interventions change the model's own computation, nothing else (0 up to rounding)
  double path_max_diff = 0.0;
  std::vector<int> output;
  bool exact = false;
  std::vector<WordRemoval> removals;  ///< one per source word
  bool forced_applies = false;        ///< the sentence has 3 words
  double forced_loss = 0.0, forced_delta_loss = 0.0;
  std::vector<int> forced_output;
  bool forced_exact = false;
};

/// Errors: translate_alignment's (a sentence outside the grammar, a model without attention).
AttentionInterventions attention_interventions(const TranslateModel& m, const std::string& sentence);

/// Over `pairs` (sources of 2 words or more): the greedy exact match intact and with, in each
/// sentence, the source word with the largest total teacher-forced weight removed from the
/// attention. Errors: Error(invalid_field) for a model without attention; decoding's errors.
struct MostReadRemoval {
  int sentences = 0, exact_intact = 0, exact_removed = 0;
  double exact_match_intact = 0.0, exact_match_removed = 0.0;
};
/// `intact`: evaluate_translation of the same model and pairs when the caller has it (its exact
/// count is the intact one, so the pairs are not decoded twice); null decodes them here.
MostReadRemoval most_read_removal(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                  const TranslateEval* intact = nullptr);

namespace by_sentence {
/// most_read_removal one sentence at a time (eval.hpp's by_sentence): add one pair (sources of one
/// word are skipped; the intact greedy decode only when decode_intact), then the fractions, the
/// intact count taken from `intact_eval` when given.
void removal_add(MostReadRemoval& r, const TranslateModel& m, const TranslationPair& p, bool decode_intact);
void removal_finish(MostReadRemoval& r, const TranslateEval* intact_eval);
}  // namespace by_sentence

}  // namespace attn::lessons
