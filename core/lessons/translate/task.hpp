// lessons/translate/task.hpp — the Translate lesson's pair of models, their configuration and their batches.
//
// Two GRU translators of the mini-language (data.hpp), identical except for the attention: a fixed summary (Cho et al. 2014, attention "none") and
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
//
// Files of the lesson (lessons/translate/): data (the mini-language), task (this), trainer,
// format (configuration JSON, run record, trainer state), decode, eval, interventions,
// scores_study, token_analysis, widths, captions; translate.hpp includes them all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "learn/optim.hpp"
#include "learn/seq2seq.hpp"
#include "learn/seq2seq_decode.hpp"
#include "lessons/translate/data.hpp"

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

/// The seq2seq configuration of one of the pair (vocabularies from data.hpp).
learn::Seq2SeqConfig translate_model_config(const TranslateConfig& cfg, bool attention);

/// Teacher-forced batch of pairs[indices[i]] (layout above). Throws Error(invalid_field) for an
/// index out of range, Error(empty_sequence) for no indices.
learn::Seq2SeqBatch translation_batch(const std::vector<TranslationPair>& pairs, const std::vector<int>& indices);

/// Mean teacher-forced cross-entropy per target token (EOS included) over all pairs: forward passes
/// of kTranslateLossBatch pairs in order (teacher_forced_loss_part), each loss weighted by its
/// counted targets.
double teacher_forced_loss(const TranslateModel& m, const std::vector<TranslationPair>& pairs);

/// Pairs per forward pass of teacher_forced_loss.
constexpr size_t kTranslateLossBatch = 64;
/// One forward pass of teacher_forced_loss: pairs [start, start + kTranslateLossBatch) added to its
/// sums (total += mean loss × counted targets, counted += counted targets), so that a measurement
/// can run one pass per frame and give the bits of the whole. Errors as translation_batch.
void teacher_forced_loss_part(const TranslateModel& m, const std::vector<TranslationPair>& pairs, size_t start,
                              double& total, long& counted);
/// teacher_forced_loss's mean of its sums: total / counted, 0 when nothing is counted.
double teacher_forced_mean(double total, long counted);

}  // namespace attn::lessons
