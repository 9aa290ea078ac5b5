// lessons/translate/decode.hpp — the Translate pair decoding the lesson's sentences: the
// model-level decoding (learn/seq2seq_decode.hpp) with the lesson's BOS, EOS and word ids, and the
// beam's prefix check.
#pragma once

#include <string>
#include <vector>

#include "learn/seq2seq_decode.hpp"
#include "lessons/check.hpp"
#include "lessons/translate/task.hpp"

namespace attn::lessons {

// The model-level decoding (learn/seq2seq_decode.hpp) with the lesson's ids: BOS and EOS
// (data.hpp) begin and end every decode, and source ids are words (3 and up).
using learn::AttentionIntervention;
using learn::BeamHypothesis;
using learn::BeamResult;
using learn::DecodeStep;
using learn::GreedyDecode;
using learn::TeacherForced;
using learn::gnmt_length_penalty;

/// A source encoded once (learn::seq2seq_encode_source), and its ids.
using EncodedSource = learn::Seq2SeqEncoded;

/// Throws Error(empty_sequence) for an empty source, Error(invalid_field) for more than 512
/// tokens or an id that is not a word of the source vocabulary (3..Vs−1).
EncodedSource encode_source(const TranslateModel& m, const std::vector<int>& source);

/// learn::seq2seq_decoder_step: one step of the decoder on the encoded source (errors there).
void decoder_step(const TranslateModel& m, const EncodedSource& enc, std::vector<double>& s, int previous,
                  std::vector<double>& probs, std::vector<double>& attention,
                  const AttentionIntervention* intervention = nullptr, int step = 0);

/// The next-token distribution after BOS + prefix (prefix without BOS).
std::vector<double> next_distribution(const TranslateModel& m, const std::vector<int>& source,
                                      const std::vector<int>& prefix);

/// Greedy decoding from BOS until EOS or max_steps steps (1..512; learn::seq2seq_greedy_decode).
/// Errors: Error(invalid_field) for max_steps, then encode_source's.
GreedyDecode greedy_decode(const TranslateModel& m, const std::vector<int>& source, int max_steps);

/// The teacher-forced pass of one pair: target_in = BOS target, target_out = target EOS, all
/// positions in one seq2seq_forward (learn::seq2seq_teacher_forced). Errors as encode_source;
/// target ids must be in the target vocabulary (Error(invalid_field)).
TeacherForced teacher_forced(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target);

/// Beam search from BOS to EOS (learn::seq2seq_beam_search: the rules in the header comment).
/// width 1..16, alpha 0..2, max_steps 1..512 (Error(invalid_field)); errors as encode_source.
/// Width 1 is greedy decoding.
BeamResult beam_search(const TranslateModel& m, const std::vector<int>& source, int width, double alpha,
                       int max_steps);

/// What a beam search did to the model's conditional distributions, measured: the best
/// hypothesis's distribution at each step against the teacher-forced pass of its own words (one
/// parallel pass, a different code path), and every pair of hypotheses at each step of the prefix
/// they share. Differences are max |p - q| over the vocabulary (0: the same bits, as the header
/// comment says they must be); `same_bits` counts the rows whose bits are equal.
struct BeamPrefixCheck {
  int forced_rows = 0, forced_same_bits = 0;  ///< best hypothesis vs the teacher-forced pass
  double forced_max_diff = 0.0;
  int shared_rows = 0, shared_same_bits = 0;  ///< hypothesis pairs over their shared prefixes
  double shared_max_diff = 0.0;
};

/// Errors as teacher_forced; an empty beam gives zeros.
BeamPrefixCheck beam_prefix_check(const TranslateModel& m, const std::vector<int>& source, const BeamResult& beam);

/// The prefix check's two claims, each held to 0 (the same distribution bits): the best hypothesis
/// against the teacher-forced pass of its `unit` ("words" or "tokens"), and hypotheses sharing a
/// prefix. Never throws.
std::vector<Check> beam_prefix_checks(const BeamPrefixCheck& pc, const std::string& unit);

/// Teacher forcing step by step (decoder_step, BOS then the target) under an intervention: rows
/// L+1 (the target's words then EOS), probs, the attention as used, argmax, and the loss (mean
/// cross-entropy of target then EOS). With an empty intervention it is teacher_forced's pass by
/// another code path. Errors as teacher_forced and decoder_step.
TeacherForced teacher_forced_under(const TranslateModel& m, const std::vector<int>& source,
                                   const std::vector<int>& target, const AttentionIntervention& intervention);
/// greedy_decode under an intervention (step t of the decoding uses forced[t]). Errors as greedy_decode.
GreedyDecode greedy_decode_under(const TranslateModel& m, const std::vector<int>& source, int max_steps,
                                 const AttentionIntervention& intervention);

}  // namespace attn::lessons
