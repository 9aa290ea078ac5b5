// lessons/translate.hpp — two GRU translators of the mini-language (translation_data.hpp),
// identical except for the attention: a fixed summary (Cho et al. 2014, attention "none") and
// Bahdanau additive attention, over the same kind of encoder (bidirectional by default, or
// forward). Both start from the same seed (their shared tensors get the same initial bits), see the
// same batches in the same order and take the same number of Adam steps.
//
// Sequences as the model sees them: source = the English ids (padded with PAD to the batch's
// longest); teacher forcing feeds target_in = BOS y_1..y_L and trains on target_out = y_1..y_L EOS
// (padding PAD in target_in, −100 in target_out), so every position is computed in one pass.
// Generation is sequential: greedy decoding feeds each step's argmax back from BOS until EOS or a
// step limit; beam search (width k) keeps the k best prefixes by summed log-probability and ranks
// finished ones by GNMT's length-normalised score log P(Y) / lp(Y), lp(Y) = ((5 + |Y|)/6)^α
// (Wu et al. 2016, eq. 14; |Y| counts the emitted tokens, EOS included). Search changes which
// sequence is found, never the model's conditional distributions: every step of every decode calls
// the same decoder step on the same state, so a shared prefix gets the same distribution bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/random.hpp"
#include "learn/checkpoint.hpp"
#include "learn/optim.hpp"
#include "learn/params.hpp"
#include "learn/run_record.hpp"
#include "learn/seq2seq.hpp"
#include "learn/seq2seq_decode.hpp"
#include "lessons/check.hpp"
#include "lessons/translation_data.hpp"

namespace attn::lessons {

/// Defaults: the shipped pair (checkpoints/translate.ckpt; `attn checkpoint translate`), chosen so
/// that the attention model passes 90% exact match on the test set and 80% on its longest bucket;
/// with Bahdanau's bidirectional encoder both train in about 13 s of CPU natively
/// (bench/translate_bench; 10 s with a forward encoder).
struct TranslateConfig {
  TranslationDataConfig data;
  int embed = 32, hidden = 32, attn_dim = 32;  ///< E, H, A (A: the attention model only)
  /// Both models' encoder: "bidirectional" (true, Bahdanau et al. 2015's) or "forward".
  bool bidirectional = true;
  int batch = 16;
  learn::AdamConfig adam{5e-3, 0.9, 0.999, 1e-8, 0.0};
  double clip = 1.0;          ///< clip_grad_norm max norm (0 = none)
  std::uint64_t seed = 17;    ///< parameters and data order (the data have their own seed)
  int steps = 1000;
  int eval_every = 50;        ///< validation loss every this many steps (and at step 0 and the end)
};

/// embed, hidden, attn_dim 1..256, batch 1..256, steps 0..20000, eval_every 1..10000, lr in (0, 1],
/// clip >= 0, and the data's own checks. Throws Error(invalid_field) naming the field.
void validate_translate_config(const TranslateConfig& cfg);

/// One trained (or training) translator: its seq2seq configuration, layout and parameters.
using TranslateModel = learn::Seq2SeqModel;

/// The seq2seq configuration of one of the pair (vocabularies from translation_data.hpp).
learn::Seq2SeqConfig translate_model_config(const TranslateConfig& cfg, bool attention);

/// Teacher-forced batch of pairs[indices[i]] (layout above). Throws Error(invalid_field) for an
/// index out of range, Error(empty_sequence) for no indices.
learn::Seq2SeqBatch translation_batch(const std::vector<TranslationPair>& pairs, const std::vector<int>& indices);

/// Mean teacher-forced cross-entropy per target token (EOS included) over all pairs.
double teacher_forced_loss(const TranslateModel& m, const std::vector<TranslationPair>& pairs);

struct TranslateRun;

/// The pair trained in slices: advance(n) runs up to n steps of both models; the weights after k
/// steps are the same bits however the k steps were sliced. Data order: an epoch is a permutation
/// of the training pairs drawn with the trainer's Rng (seed); each run of kChunk·batch pairs is
/// sorted by source length and cut into batches (less padding), and the epoch's batches are
/// shuffled; the pairs beyond the last whole batch are skipped that epoch.
class TranslateTrainer {
 public:
  /// When the step-0 validation is measured: in the constructor (`now`: validation_steps() is {0}
  /// at once), or left pending (`pending`) for the run's first parts, so that building the
  /// trainer runs no forward pass in a frame that also trains (advance() measures it first).
  enum class StartValidation { now, pending };
  /// Validates (Error(invalid_field)), builds the dataset and draws both models' initial parameters.
  explicit TranslateTrainer(const TranslateConfig& cfg, StartValidation start = StartValidation::now);
  /// A finished run restored from its record; it cannot continue (Adam's moments are not stored).
  /// Throws Error(invalid_field) when the record does not fit its configuration.
  explicit TranslateTrainer(const TranslateRun& run);
  /// A run whose model of `model`'s kind (model.attention: the attention model, else the fixed
  /// summary) starts from `start` (a model read from a file, learn/model_file.hpp) with its own
  /// dimensions; the other model is cfg's seeded one. Adam starts afresh for both. Throws
  /// Error(invalid_field) when the model's vocabularies are not the lesson's (English source,
  /// French target, translation_data.hpp) or its configuration is refused, and when start is not
  /// its layout's size.
  TranslateTrainer(const TranslateConfig& cfg, const learn::Seq2SeqConfig& model, const std::vector<double>& start,
                   StartValidation validation = StartValidation::now);
  /// Runs at most max_steps more steps (never beyond cfg.steps), each with its validation when due,
  /// after finishing a validation advance_part() left pending (advance(0) does only that). Returns
  /// the steps run.
  int advance(int max_steps);
  /// One part of the run, for a frame's slice: the next forward pass of a pending validation
  /// measurement (one model over 64 validation pairs; a measurement is 2 × ⌈pairs / 64⌉ parts),
  /// else one training step, whose validation, when one is due, is left pending. Returns 1 when a
  /// part ran, 0 when the run is done. Parts give the same bits as advance(): after the same
  /// steps, the same parameters, losses and validation losses.
  int advance_part();
  int step() const { return step_; }
  /// Every step run and the last validation measured.
  bool done() const { return step_ >= cfg_.steps && !pending_; }
  const TranslateConfig& config() const { return cfg_; }
  const TranslationDataset& data() const { return data_; }
  /// attention = false: the fixed summary; true: additive attention.
  const TranslateModel& model(bool attention) const { return attention ? additive_ : none_; }
  /// Per step: each model's training loss (mean per target token of the batch).
  const std::vector<double>& losses(bool attention) const { return attention ? additive_losses_ : none_losses_; }
  /// Validation loss at validation_steps() (0, every eval_every, the last step); a measurement
  /// advance_part() left pending is not among them until its last pass has run.
  const std::vector<int>& validation_steps() const { return val_steps_; }
  const std::vector<double>& validation_losses(bool attention) const { return attention ? additive_val_ : none_val_; }

  /// The run's whole state — configuration, both models (configuration and parameters), both
  /// Adam states, the batch order (generator, the epoch's batches, cursor), step, losses,
  /// validations and a validation part-way — as a checkpoint (meta {model: "seq2seq pair", task:
  /// "translate", kind: "trainer_state", ...}). A trainer restored from it and advanced gives the
  /// bits this one would have: how a run moves to a Web Worker and back.
  learn::Checkpoint state_checkpoint() const;
  /// A trainer at the state `ckpt` records. Throws Error(invalid_field) naming what does not fit.
  static TranslateTrainer from_state(const learn::Checkpoint& ckpt);
  /// Takes over the state `ckpt` records, which must be of this run (the same configuration and
  /// models): the same checks as from_state, the trainer unchanged when one fails.
  void load_state(const learn::Checkpoint& ckpt);

 private:
  static constexpr size_t kChunk = 8;
  // A validation measurement under way (advance_part): the model measured and the next pair, and
  // each model's sums of teacher_forced_loss.
  struct PendingValidation {
    bool attention = false;
    size_t start = 0;
    double total[2] = {0.0, 0.0};
    long counted[2] = {0, 0};
  };
  // Takes over a state read by learn::trainer_state_from_checkpoint, after every check.
  void take_state(const learn::TrainerState& st);
  static std::optional<PendingValidation> read_pending(const Json& pending, const std::vector<double>& total,
                                                       size_t validation_pairs);
  void record_validation();
  void train_one_step();
  void validation_part();
  void new_epoch();
  TranslateConfig cfg_;
  TranslationDataset data_;
  TranslateModel none_, additive_;
  learn::AdamState none_adam_, additive_adam_;
  Rng order_rng_;
  std::vector<std::vector<int>> batches_;  ///< the epoch's batches (pair indices)
  size_t cursor_ = 0;
  int step_ = 0;
  std::vector<double> none_losses_, additive_losses_, none_val_, additive_val_;
  std::vector<int> val_steps_;
  std::optional<PendingValidation> pending_;
};

// ---------------------------------------------------------------- decoding

// The model-level decoding (learn/seq2seq_decode.hpp) with the lesson's ids: BOS and EOS
// (translation_data.hpp) begin and end every decode, and source ids are words (3 and up).
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

/// The claim that the intervention path with nothing changed is the model's teacher-forced pass:
/// max |p − q| (path_max_diff) at most 1e-12. Never throws.
Check intervention_path_check(double path_max_diff);

// ---------------------------------------------------------------- evaluation

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

/// Teacher forcing step by step (decoder_step, BOS then the target) under an intervention: rows
/// L+1 (the target's words then EOS), probs, the attention as used, argmax, and the loss (mean
/// cross-entropy of target then EOS). With an empty intervention it is teacher_forced's pass by
/// another code path. Errors as teacher_forced and decoder_step.
TeacherForced teacher_forced_under(const TranslateModel& m, const std::vector<int>& source,
                                   const std::vector<int>& target, const AttentionIntervention& intervention);
/// greedy_decode under an intervention (step t of the decoding uses forced[t]). Errors as greedy_decode.
GreedyDecode greedy_decode_under(const TranslateModel& m, const std::vector<int>& source, int max_steps,
                                 const AttentionIntervention& intervention);

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

/// The Translate panel's test-set scores measured one sentence per unit, so that a model too big
/// for one frame (one loaded from a file) is measured across frames with its progress: the
/// fixed summary's evaluate_translation, then the attention model's, its alignment_agreement and
/// its most_read_removal (intact exact count from its evaluation), each over `pairs` in order.
/// The sums run in the same order as those functions, so the results are theirs to the bit
/// however the units are sliced. 4·pairs units; advance() throws as those functions do.
/// Errors (constructor): Error(invalid_field) when `none` has attention or `additive` has none.
class TranslateScoresStudy {
 public:
  TranslateScoresStudy(const TranslateModel& none, const TranslateModel& additive, std::vector<TranslationPair> pairs,
                       std::vector<LengthBucket> buckets);
  int advance(int max_units);  ///< runs up to max_units units; returns those run (0 once done)
  bool done() const { return unit_ >= units_total(); }
  int units_done() const { return unit_; }
  int units_total() const { return 4 * static_cast<int>(pairs_.size()); }
  /// What the next unit measures: "fixed summary", "attention", "agreement", "most-read removal" or "done".
  const char* phase() const;
  // The results, complete once done().
  const TranslateEval& none_eval() const { return none_eval_; }
  const TranslateEval& additive_eval() const { return additive_eval_; }
  const AlignmentAgreement& agreement() const { return agreement_; }
  const MostReadRemoval& removal() const { return removal_; }

 private:
  TranslateModel none_, additive_;  ///< copies: the panel may train or replace its models meanwhile
  std::vector<TranslationPair> pairs_;
  std::vector<LengthBucket> buckets_;
  TranslateEval none_eval_, additive_eval_;
  AlignmentAgreement agreement_;
  MostReadRemoval removal_;
  int unit_ = 0;
};

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

// ---------------------------------------------------------------- tokens as numbers

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

// ---------------------------------------------------------------- the record and its checkpoint

struct TranslateRun {
  TranslateConfig config;
  int step = 0;
  std::vector<double> none_params, additive_params, none_losses, additive_losses;
  std::vector<int> validation_steps;
  std::vector<double> none_validation, additive_validation;
};

/// Every field of a configuration; two configurations are the same run iff their JSON is equal.
Json translate_config_json(const TranslateConfig& cfg);
/// Reads translate_config_json back. Throws Error(invalid_field) naming a missing field.
TranslateConfig translate_config_from_json(const Json& j);

/// Trains cfg to its last step (what Train does, in one call).
TranslateRun record_translate_run(const TranslateConfig& cfg);
TranslateRun translate_run_of(const TranslateTrainer& trainer);

/// The run as the generic record (learn/run_record.hpp): model "seq2seq", task "translate", the
/// configuration's JSON, parameter vectors "none" and "additive", and the five curves below.
learn::RunRecord translate_run_record(const TranslateRun& run);
/// Reads a record back. Throws Error(invalid_field) naming what does not fit (a configuration field,
/// the parameter counts).
TranslateRun translate_run_of_record(const learn::RunRecord& record);

/// meta {model: "seq2seq", task: "translate", config, step, none_fnv1a, additive_fnv1a}; arrays
/// "none.params", "additive.params", "none.losses", "additive.losses", "validation_steps",
/// "none.validation_losses", "additive.validation_losses" (float64 bits).
learn::Checkpoint translate_run_checkpoint(const TranslateRun& run);
/// Throws Error(invalid_field) naming what does not fit (another task, sizes, a hash mismatch).
TranslateRun translate_run_from_checkpoint(const learn::Checkpoint& ckpt);

// ---------------------------------------------------------------- the H control's table

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
