// lessons/masking_claims.hpp — the lesson's causal and padding claims as experiments.
//
// Every mask here is an *allowed* mask (true = the query may attend to the key), applied to the
// scores before the softmax (attn/masks.hpp). Shapes: x is T×d_model, weights as attn/heads.hpp
// (W_q, W_k: d_model×d_k, W_v: d_model×d_v, our in×out layout), outputs T×d_v.
//
//   prefix_isolation      — perturb positions >= p; under the causal mask outputs 0..p−1 do not move
//                           at all (measured, exactly 0), while unmasked attention does (negative control).
//   key_padding_experiment — padded keys get exactly 0 weight; padded *query* rows still produce
//                           outputs, which the task loss must ignore (flagged, not hidden).
//   empty_row_demo        — a query with no allowed key: the default policy refuses (code and message
//                           kept as data), EmptyRows::zero gives a zero row instead.
//   causal_alignments     — top-left vs bottom-right causal masks for Tq != Tk, as data.
// Source: the lesson's hands-on script (prefix isolation with +100 on positions 3.., padding with
// keys 4, 5 invalid) and the two causal alignments, top-left j <= i and bottom-right j <= i + Tk − Tq (PyTorch is_causal; FlashAttention >= 2.1).
#pragma once

#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "attn/attention.hpp"
#include "lessons/check.hpp"
#include "attn/heads.hpp"

namespace attn {

struct PrefixIsolationResult {
  Index from = 3;                         ///< p: first perturbed position
  double amount = 100.0;                  ///< added to every feature of rows >= p
  Matrix x, x_changed;                    ///< T×d_model, before and after the perturbation
  Matrix causal_output, causal_output_changed;      ///< T×d_v, causal self-attention
  Matrix unmasked_output, unmasked_output_changed;  ///< T×d_v, no mask (negative control)
  std::vector<double> causal_row_change;  ///< T: max_c |Δ output(i, c)| under the causal mask
  std::vector<double> unmasked_row_change;///< T: the same without a mask
  double causal_prefix_change = 0;        ///< max over rows < p (the claim: exactly 0)
  double unmasked_prefix_change = 0;      ///< max over rows < p without a mask (the control: > 0)
  std::vector<Check> checks;
};

/// Single-head self-attention of x and of x with `amount` added to rows from..T−1, causal and
/// unmasked, with the same weights. Errors (attn::Error): invalid_field (from outside 1..T−1),
/// non_finite (amount or inputs), and those of self_attention().
PrefixIsolationResult prefix_isolation(const Matrix& x, const HeadWeights& w, Index from = 3,
                                       double amount = 100.0);

struct KeyPaddingResult {
  std::vector<bool> key_valid;        ///< T flags: false = padding (self-attention: keys are positions)
  std::vector<bool> ignored_by_loss;  ///< T: query rows at padded positions; they have outputs,
                                      ///< but the task loss/readout must ignore them
  AttentionResult attention;          ///< with the key-padding mask
  Matrix x_changed;                   ///< x with `amount` added to the padded positions
  Matrix output_changed;              ///< T×d_v outputs for x_changed
  double max_padded_weight = 0;       ///< max weight on a padded key (the claim: exactly 0)
  double valid_rows_change = 0;       ///< max |Δ output| over valid query rows (the claim: exactly 0)
  double padded_rows_change = 0;      ///< max |Δ output| over padded query rows (their query moved)
  std::vector<Check> checks;
};

/// Self-attention of x with key padding `key_valid` (size T), then again with `amount` added to
/// the padded rows of x. Errors: shape_mismatch (key_valid size != T), no_allowed_key (no valid
/// key at all), non_finite, and those of self_attention().
KeyPaddingResult key_padding_experiment(const Matrix& x, const HeadWeights& w,
                                        const std::vector<bool>& key_valid, double amount = 100.0);

struct EmptyRowDemo {
  BoolMatrix allowed;               ///< Tq×Tk allowed mask built from the spec
  std::vector<bool> empty_row;      ///< Tq: rows with no allowed key
  bool rejected = false;            ///< the default policy (EmptyRows::error) refused the case
  std::string error_code;           ///< "no_allowed_key" when rejected, else empty
  std::string error_message;        ///< the message the page shows (names the row)
  AttentionResult zero_policy;      ///< the same case with EmptyRows::zero
  std::vector<Check> checks;
};

/// Runs attention(q, k, v, mask) under both empty-row policies. The no_allowed_key refusal is
/// captured as data; every other error is thrown as attention() throws it.
EmptyRowDemo empty_row_demo(const Matrix& q, const Matrix& k, const Matrix& v, const MaskSpec& mask);

struct CausalAlignmentTable {
  Index tq = 0, tk = 0;
  BoolMatrix top_left;                   ///< Tq×Tk: query i sees keys j <= i (PyTorch is_causal)
  BoolMatrix bottom_right;               ///< Tq×Tk: query i sees keys j <= i + Tk − Tq (FlashAttention >= 2.1)
  std::vector<long long> top_left_last_key;      ///< Tq: last visible key, −1 when none
  std::vector<long long> bottom_right_last_key;  ///< Tq: last visible key, −1 when none
  bool square_refused = false;           ///< plain causal (Causal::square) refused because Tq != Tk
  std::string square_message;            ///< its causal_alignment_required message
  std::vector<Check> checks;
};

/// Both causal alignments for Tq queries and Tk keys. Errors: empty_sequence (Tq or Tk < 1),
/// too_large (Tq·Tk > kMaxPairs or a side > kMaxTokens).
CausalAlignmentTable causal_alignments(Index tq, Index tk);

}  // namespace attn
