// lessons/translate/widths.hpp — the Translate panel's H control: the pair trained at each width and scored,
// and the table of those runs as JSON (checkpoints/translate_widths.json).
#pragma once

#include <string>
#include <vector>

#include "learn/checkpoint.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/format.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

/// The pair trained at one width: what Train gives with E = H = A = hidden and the other fields
/// of the base configuration, scored on the test set; the parameters' FNV-1a hashes identify the run.
struct TranslateWidthResult {
  int hidden = 0;
  TranslateConfig config;  ///< the configuration that was trained (its encoder included)
  TranslateEval none, additive;
  AlignmentAgreement agreement;  ///< the attention model's alignment_agreement on the test set
  double none_final_loss = 0.0, additive_final_loss = 0.0;  ///< the last step's training losses
  std::string none_fnv1a, additive_fnv1a;
};

/// base with E = H = A = hidden (the panel's H control).
TranslateConfig translate_width_config(const TranslateConfig& base, int hidden);
/// Trains translate_width_config(base, hidden) from its seed to its last step and evaluates both
/// models (evaluate_translation on the dataset's test pairs). Errors as validate_translate_config.
TranslateWidthResult translate_width_result(const TranslateConfig& base, int hidden);
/// The scores of an already trained pair (e.g. a checkpoint's) at its own width.
TranslateWidthResult translate_width_result_of(const TranslateRun& run);

/// {"table": "translate_widths", "base": translate_config_json(base at its own width), "widths":
/// [{hidden, config, none, additive: {buckets: [{lo, hi, sentences, exact, tokens, correct}], overall},
/// agreement: {buckets: [{lo, hi, sentences, targets, on_source, weight_sum}], overall},
/// none_final_loss, additive_final_loss, none_fnv1a, additive_fnv1a}]} (counts, so fractions are exact).
Json translate_widths_json(const TranslateConfig& base, const std::vector<TranslateWidthResult>& rows);
/// Reads translate_widths_json back (fractions recomputed from the counts). Throws
/// Error(invalid_field) naming what is missing or inconsistent (a bucket with more exact than sentences).
std::vector<TranslateWidthResult> translate_widths_from_json(const Json& j);

}  // namespace attn::lessons
