// lessons/translate/token_analysis.hpp — the Translate analyses that run on any seq2seq model, tokens as
// numbers (a model read from a file over other vocabularies), and which of the lesson's need its words.
#pragma once

#include <string>
#include <vector>

#include "learn/seq2seq.hpp"
#include "lessons/check.hpp"
#include "lessons/translate/decode.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

/// True when cfg's vocabularies are the lesson's (english_vocab() source, french_vocab() target
/// sizes): the analyses that need the lesson's words (lesson_word_analyses) can run on it.
bool lesson_vocabularies(const learn::Seq2SeqConfig& cfg);

/// The Translate panel's analyses that need the lesson's words, each with what it needs, in the
/// order the panel shows them. They do not run on a model over other vocabularies.
std::vector<std::string> lesson_word_analyses();

/// A source of 4 word ids for a model over other vocabularies: 3, 4, 5, 6 (ids 0-2 are PAD, BOS
/// and EOS by the lesson's convention), wrapping within 3..src_vocab−1; empty when src_vocab <= 3.
std::vector<int> default_token_source(const learn::Seq2SeqConfig& cfg);

/// One source position removed from the attention (AttentionIntervention::removed) while the
/// analysed target is teacher forced and while greedy decoding runs.
struct TokenRemoval {
  int position = 0, token = 0;       ///< the source position and its id
  double loss = 0.0, delta_loss = 0.0;  ///< teacher forced under the removal, and minus the intact loss
  std::vector<int> output;           ///< greedy under the removal, without EOS
  bool ended = false;                ///< it chose EOS within the step limit
  bool same_output = false;          ///< output and ending equal the intact greedy decode's
};

/// The analyses that run on any seq2seq model, tokens as numbers: greedy decoding from BOS (id 1)
/// until EOS (id 2) or source length + 10 steps; the target teacher forced (the typed one, or the
/// greedy output when none is typed) with its alignment rows (attention models), the claims rows
/// sum to 1 and appended PAD positions get 0; beam search and its prefix check; and per source
/// position its removal from the attention (2 positions or more).
struct TokenAnalysis {
  std::vector<int> source, target;
  bool target_given = false;  ///< false: target is the greedy output
  GreedyDecode greedy;
  TeacherForced forced;       ///< rows target then EOS
  double max_row_sum_error = 0.0, max_padded_weight = 0.0;
  /// max |p − q| between the intervention path with nothing changed and the teacher-forced pass
  double path_max_diff = 0.0;
  BeamResult beam;
  BeamPrefixCheck beam_prefix;
  std::vector<TokenRemoval> removals;  ///< attention models with S >= 2 only
  /// Attention models: rows sum to 1, PAD gets 0, the intervention path; then beam_prefix_checks.
  std::vector<Check> checks;
};

/// Source ids are words, 3 and up, as in the lesson's; target ids any of the vocabulary. Errors: Error(invalid_field) for
/// a target vocabulary under 3 (decoding needs BOS 1 and EOS 2), a source vocabulary of no word
/// id (3 or fewer), a target longer than 511 ids; encode_source's and teacher_forced's errors on the ids;
/// beam_search's on width and alpha.
TokenAnalysis token_analysis(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target,
                             int beam_width, double alpha);

}  // namespace attn::lessons
