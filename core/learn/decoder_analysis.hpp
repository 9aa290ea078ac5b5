// learn/decoder_analysis.hpp — what a decoder's heads do, measured on any decoder (a trained lab
// model or a GPT-2-family model read from a file), in its element type S (double, or float for a
// model held in float32). Nothing here knows a task: a caller passes batches, targets and, for a
// score, which key each query should look at.
//
// Heads are numbered layer-major: head id = l·heads + h. A head's map is its B×T×T block of
// DecoderActivationsT::Layer::weights (row = query, column = key).
//   maps and scores   — the maps of one sequence; a score's mean over a batch (Olsson et al. 2022,
//                       "In-context learning and induction heads", for the previous-token and
//                       induction scores);
//   ablation          — zero ablation replaces a head's output by zeros, mean ablation by its mean
//                       over a reference batch (Heimersheim & Nanda 2024, "How to use and interpret
//                       activation patching", §2);
//   patching          — a head's output copied from a clean run into a corrupted one, and the
//                       recovered fraction (L_corrupt − L_patched)/(L_corrupt − L_clean) (ibid.);
//   weight vs contribution — a_ij next to ‖a_ij · W_O,h · v_j,h‖₂, what key j's value adds to the
//                       residual stream through the head's slice of out_proj (Kobayashi et al.
//                       2020, "Attention is not only a weight");
//   K/V-cache checks  — cached logits against the full forward's, generation's step-to-step
//                       dependency, and edits of the future that must not move the past.
#pragma once

#include <functional>
#include <vector>

#include "learn/decoder.hpp"

namespace attn::learn {

/// Cross-entropy and argmax accuracy of a forward's rows against a target list (B·T' entries,
/// kIgnoreIndex skipped). loss in nats, averaged over the counted rows (0 when none).
struct TargetScores {
  double loss = 0.0, accuracy = 0.0;
  int counted = 0;
};
/// acts: a decoder_forward's activations (logits and probs B·T'×V); targets B·T'. The loss is
/// −log softmax from the logits (the max subtracted), accumulated in double; the argmax (first
/// maximum) is read from probs. Never throws; targets must fit acts (not checked).
template <class S>
TargetScores decoder_target_scores(const DecoderActivationsT<S>& acts, const std::vector<int>& targets, int vocab);

/// The maps of every head (layer-major) on one sequence of the batch: layers·heads maps of T'×T'
/// weights, row-major. Throws Error(invalid_field) for a sequence outside the batch.
template <class S>
std::vector<std::vector<S>> decoder_head_maps(const DecoderConfig& cfg, const DecoderActivationsT<S>& acts, int sequence);

/// A per-head score of one map: w T'×T' (row-major), t = T', the sequence's index in its batch.
template <class S>
using HeadMapScore = std::function<double(const S* w, int t, int sequence)>;

/// The mean of `score` over the batch's sequences, for every head (layers·heads, layer-major):
/// each head's values summed in sequence order, then divided by B.
template <class S>
std::vector<double> decoder_head_score_means(const DecoderConfig& cfg, const DecoderActivationsT<S>& acts,
                                             const HeadMapScore<S>& score);

/// Pattern scores of one T×T map (row-major), in [0, 1] for a softmax map:
/// previous-token — mean over queries i >= 1 of w[i][i − 1] (0 when t = 1);
/// diagonal — mean over i of w[i][i]; first-token — mean over i of w[i][0];
/// induction — for a sequence whose tokens at repeat_start.. repeat the `period` tokens before,
/// mean over the repeat's queries i of w[i][i − period + 1], the key after the earlier copy of
/// token i (Olsson et al. 2022). Throws Error(invalid_field) when the repeat does not fit t.
template <class S>
double previous_token_score(const S* w, int t);
template <class S>
double diagonal_score(const S* w, int t);
template <class S>
double first_token_score(const S* w, int t);
template <class S>
double induction_score(const S* w, int t, int repeat_start, int period);

/// Every head's output averaged over the batch's B·T' positions: layers·heads vectors of d_k
/// numbers (the means of mean ablation). Sums in row order, then ÷ B·T'.
template <class S>
std::vector<std::vector<S>> decoder_head_output_means(const DecoderConfig& cfg, const DecoderActivationsT<S>& acts);

/// An intervention that changes one head (id = l·heads + h) and keeps every other: zero or
/// mean_of_batch (means from decoder_head_output_means) ablation, or patch (from `source`, a
/// forward of a batch of the same shape). Throws Error(invalid_field) for a head out of range,
/// a mean ablation without layers·heads means, or a patch without a source.
template <class S>
HeadInterventionT<S> decoder_one_head_intervention(const DecoderConfig& cfg, int head,
                                                   typename HeadInterventionT<S>::Mode mode,
                                                   const std::vector<std::vector<S>>& means = {},
                                                   const DecoderActivationsT<S>* source = nullptr);

/// The fraction of the clean-to-corrupted loss gap a patch recovers: (L_corrupt − L_patched) /
/// (L_corrupt − L_clean), 0 when the two runs tie (never NaN). Heimersheim & Nanda 2024.
double patching_recovered(double clean_loss, double corrupt_loss, double patched_loss);

/// Weight against contribution for one query of one head: for every key j <= query (T' numbers,
/// 0 past the query), weights[j] = a_ij and norms[j] = ‖a_ij · W_O,h · v_j,h‖₂, W_O,h the d×d_k
/// columns of the layer's out_proj.weight that read head h and v_j,h key j's value (d_k numbers,
/// acts' qkv). Their sum over j is the head's output at i through out_proj (without its bias).
/// Kobayashi et al. 2020. Throws Error(invalid_field) for a layer, head, sequence or query out
/// of range, Error(shape_mismatch) when params do not fit the layout.
struct HeadContribution {
  std::vector<double> weights, norms;
};
template <class S>
HeadContribution decoder_head_contribution(const DecoderConfig& cfg, const ParamLayout& layout,
                                           const std::vector<S>& params, const DecoderActivationsT<S>& acts, int layer,
                                           int head, int sequence, int query);

/// K/V-cache against full forward on one sequence: the teacher-forced decoder_forward's logits
/// (T'×V, kept in full_logits when given) and decoder_incremental_logits'; max_diff = max |Δ|
/// over every position and logit (0 for the lab's models: the same per-layer pieces). Throws as
/// decoder_forward and decoder_incremental_logits do (tokens 2.. need a target; position 0's is
/// tokens[1], or tokens[0] for a single token).
struct CacheCheck {
  double max_diff = 0.0;
  int positions = 0;  ///< logit rows the one teacher-forced forward returned (T')
};
template <class S>
CacheCheck decoder_cache_check(const DecoderConfig& cfg, const ParamLayout& layout, const std::vector<S>& params,
                               const std::vector<int>& tokens, std::vector<S>* full_logits = nullptr);

/// Greedy generation: appends up to n tokens (stopping at the context), each the first argmax of
/// the K/V-cached logits of the last position (decoder_generate at temperature 0). Throws
/// Error(invalid_field) for an empty prompt or a token out of the vocabulary.
template <class S>
std::vector<int> decoder_greedy(const DecoderConfig& cfg, const ParamLayout& layout, const std::vector<S>& params,
                                std::vector<int> prompt, int n);

/// Generation is sequential, measured on a greedy run of t tokens from `first`: at each step j >= 1
/// the token fed (step j − 1's argmax) is replaced by (token + 1) mod V; step j's logits must move
/// while every earlier step's stay to the bit. And once, at the middle step t/2, the forced run
/// continues greedily to the end and every later step should move.
struct GenerationDependency {
  std::vector<int> generation;            ///< the free greedy run: generation[j] is fed at step j
  int dependent_steps = 0;                ///< steps j whose logits moved when their input was forced
  int sequential_steps = 0;               ///< 1 + dependent_steps
  double forced_earlier_max_diff = 0.0;   ///< max change of any step before the forced one (0 exactly)
  double forced_step_min_diff = 0.0;      ///< min over j of the forced step's own max change (0 when t < 2)
  int forced_at = 0, later_steps = 0, later_moved = 0;
};
template <class S>
GenerationDependency decoder_generation_dependency(const DecoderConfig& cfg, const ParamLayout& layout,
                                                   const std::vector<S>& params, int first, int t);

/// Causality of shifted targets: for each cut c, every token after c is edited ((token + 1) mod V)
/// and the full forward's logits of positions 0..c must not move (future_max_diff, exactly 0 in
/// causal attention) while position c + 1, which reads the first edited token, may
/// (target_max_diff). reference_logits: the unedited forward's logits (decoder_cache_check's
/// full_logits). Throws as decoder_forward does.
struct FutureEditCheck {
  double future_max_diff = 0.0, target_max_diff = 0.0;
  int edits = 0;
};
template <class S>
FutureEditCheck decoder_future_edit_check(const DecoderConfig& cfg, const ParamLayout& layout,
                                          const std::vector<S>& params, const std::vector<int>& tokens,
                                          const std::vector<S>& reference_logits);

}  // namespace attn::learn
