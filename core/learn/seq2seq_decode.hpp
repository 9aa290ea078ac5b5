// learn/seq2seq_decode.hpp — decoding a seq2seq model (learn/seq2seq.hpp) one token at a time.
//
// Every decode here runs one function, seq2seq_decoder_step: the additive attention over the
// encoded source (seq2seq_attend), the decoder's GRU cell (seq2seq_cell) and the output layer
// (seq2seq_output) for one row, then a softmax. Greedy decoding feeds each step's argmax back from
// a begin token until an end token or a step limit; the step path of teacher forcing feeds a given
// target; beam search (width k) keeps the k best prefixes by summed log-probability and ranks
// finished ones by GNMT's length-normalised score log P(Y) / lp(Y), lp(Y) = ((5 + |Y|)/6)^α
// (Wu et al. 2016, eq. 14; |Y| counts the emitted tokens, the end token included). Search changes
// which sequence is found, never the model's conditional distributions: a shared prefix gets the
// same distribution bits on every path. The begin and end ids are the caller's (the model does not
// know its vocabulary's conventions).
#pragma once

#include <utility>
#include <vector>

#include "learn/params.hpp"
#include "learn/seq2seq.hpp"

namespace attn::learn {

/// One seq2seq model: configuration, layout (seq2seq_layout) and parameters.
struct Seq2SeqModel {
  Seq2SeqConfig config;
  ParamLayout layout;
  std::vector<double> params;
};

/// A source encoded once, as the training forward encodes it (seq2seq_encode: annotations S×C, s₀,
/// the fixed summary, W_h h_j + b S×A with attention), and its ids.
struct Seq2SeqEncoded : Seq2SeqActivations::Encoded {
  std::vector<int> source;
};

/// Encodes `source` (seq2seq_encode). Throws Error(empty_sequence) for an empty source,
/// Error(invalid_field) for more than 512 tokens or an id outside [0, src_vocab).
Seq2SeqEncoded seq2seq_encode_source(const Seq2SeqModel& m, const std::vector<int>& source);

/// An intervention on an attention model's weights while it decodes (an ablation of what it
/// reads): `removed` a source position whose weight is set to 0 at every step, the others
/// renormalised to sum to 1; `forced[t]` the S weights used at step t instead of the model's
/// (steps past its rows keep the model's). The context is Σ_j w_j h_j of the weights used.
struct AttentionIntervention {
  int removed = -1;
  std::vector<std::vector<double>> forced;
};

/// One decoder step: state s (H, replaced by s_t), previous token → probs (Vt, softmax of the
/// logits) and attention (S weights as used; left empty for the fixed summary). The same
/// arithmetic as seq2seq_forward's step for one row. With `intervention` (attention model only)
/// at decoding step `step`, the weights are changed as AttentionIntervention says. Throws
/// Error(invalid_field) for a previous token outside the vocabulary, a removed position outside
/// the source or a source of one token (nothing to renormalise), a forced row that is not S
/// weights >= 0 summing to 1 (within 1e-9), or an intervention on the fixed summary.
void seq2seq_decoder_step(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, std::vector<double>& s, int previous,
                          std::vector<double>& probs, std::vector<double>& attention,
                          const AttentionIntervention* intervention = nullptr, int step = 0);

struct DecodeStep {
  int token = 0;             ///< the chosen token
  double probability = 0.0;  ///< its probability
  std::vector<double> probs;      ///< the whole distribution (Vt)
  std::vector<double> attention;  ///< source weights S (empty for the fixed summary)
};

struct GreedyDecode {
  std::vector<int> tokens;  ///< the output without the end token
  bool ended = false;       ///< the end token was chosen (false: the step limit stopped it)
  std::vector<DecodeStep> steps;  ///< one per step, the end token's included
};

/// max_steps must be 1..512: throws Error(invalid_field) otherwise.
void require_decode_steps(int max_steps);

/// Greedy decoding: from `bos`, each step's argmax (the lowest id among equal maxima) is fed back,
/// until `eos` or max_steps steps (require_decode_steps), each step under `intervention` when
/// given (step t uses its forced[t]). Errors as seq2seq_decoder_step.
GreedyDecode seq2seq_greedy_decode(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, int bos, int eos, int max_steps,
                                   const AttentionIntervention* intervention = nullptr);

/// The teacher-forced pass of one pair: target_in = bos target, target_out = target eos. probs
/// (L+1)×Vt, attention (L+1)×S (empty for the fixed summary), argmax per position (the lowest id
/// among equal maxima), the loss (mean cross-entropy over L+1 tokens).
struct TeacherForced {
  int rows = 0, src_len = 0;
  std::vector<double> probs, attention;
  std::vector<int> argmax;
  double loss = 0.0;
};

/// Throws Error(invalid_field) naming a target id outside [0, tgt_vocab).
void require_target_ids(const std::vector<int>& target, int tgt_vocab);

/// teacher_forced's rows in one seq2seq_forward (all positions of a one-pair batch together).
/// Errors as seq2seq_encode_source, then require_target_ids.
TeacherForced seq2seq_teacher_forced(const Seq2SeqModel& m, const std::vector<int>& source,
                                     const std::vector<int>& target, int bos, int eos);

/// The same rows step by step (seq2seq_decoder_step, bos then the target), each step under
/// `intervention` when given: another code path to the same distributions (up to rounding of the
/// context, which the step recomputes only under an intervention). The loss sums −det::log p in
/// step order. Errors: require_target_ids, then seq2seq_decoder_step's.
TeacherForced seq2seq_teacher_forced_steps(const Seq2SeqModel& m, const Seq2SeqEncoded& enc,
                                           const std::vector<int>& target, int bos, int eos,
                                           const AttentionIntervention* intervention);

/// GNMT's length penalty ((5 + length)/6)^alpha (det::pow; Wu et al. 2016, eq. 14).
double gnmt_length_penalty(int length, double alpha);

struct BeamHypothesis {
  std::vector<int> tokens;          ///< without the end token
  bool ended = false;               ///< finished with the end token
  double log_prob = 0.0;            ///< Σ log p of the emitted tokens (the end token included)
  double score = 0.0;               ///< log_prob / gnmt_length_penalty(emitted, alpha)
  std::vector<std::vector<double>> distributions;  ///< the distribution at each of its steps
};

struct BeamResult {
  int width = 0;
  double alpha = 0.0;
  std::vector<BeamHypothesis> finished;  ///< in the order they finished (then unfinished ones at the limit)
  int best = 0;                          ///< index in finished of the highest score
  /// Per step, the live prefixes kept after pruning (tokens without bos, and their log P).
  std::vector<std::vector<std::pair<std::vector<int>, double>>> beams;
};

/// width 1..16, alpha 0..2, max_steps 1..512: throws Error(invalid_field) naming the first outside.
void require_beam_arguments(int width, double alpha, int max_steps);

/// Beam search (rules in the header comment): candidates ranked by log P (det::log), ties by beam
/// then token id; the top `width` are kept, those ending in `eos` leave as finished; stops when
/// `width` have finished, none is live, or after max_steps. Width 1 is greedy decoding. Errors:
/// require_beam_arguments.
BeamResult seq2seq_beam_search(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, int bos, int eos, int width,
                               double alpha, int max_steps);

}  // namespace attn::learn
