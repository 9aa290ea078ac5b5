// lessons/additive_decoder.hpp — the lesson's stepped additive-attention decoder (Bahdanau et al.
// 2015, §3.1): a seeded, untrained decoder reads the source with additive attention at each
// target step; the scoring math is attn/additive.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/additive.hpp"
#include "lessons/additive_checks.hpp"
#include "attn/types.hpp"
#include "lessons/check.hpp"

namespace attn {

struct AdditiveDecoderInput {
  std::string source = "the black cat";  ///< whitespace tokens; 1..64
  std::string target = "le chat noir";   ///< whitespace tokens; 1..64
  std::uint64_t seed = 17;
  int d_h = 4, d_s = 4, d_a = 6;         ///< each 1..64; the comparison needs d_s = d_h
};

struct AdditiveDecoderStep {
  std::string target_token;    ///< y_t, the token this step emits (teacher forcing)
  Vector state;                ///< s_{t−1}: the decoder state that scores this step (d_s)
  AdditiveResult attention;    ///< its additive read of the source
  std::vector<Check> attention_checks;   ///< additive_checks of that read
  ScoringComparison comparison;///< the four scores on the same s_{t−1} (when d_s = d_h)
  std::vector<Check> comparison_checks;  ///< scoring_checks of the comparison (empty without one)
};

struct AdditiveDecoderDemo {
  std::vector<std::string> source_tokens, target_tokens;
  Matrix encoder_states;      ///< Tk×d_h: seeded stand-ins for the encoder annotations
  AdditiveParams params;
  Matrix w_general;           ///< d_s×d_h
  Matrix alignment;           ///< Tq×Tk: additive weights, one row per target step
  std::vector<AdditiveDecoderStep> steps;
  std::string note;           ///< "untrained, seeded weights: the alignment means nothing yet"
  std::vector<Check> checks;
};

/// A decoder stepping through `target` over `source` with seeded, untrained weights. Drawn from
/// one Rng(seed) in this order: encoder states N(0,1) (Tk×d_h); target embeddings N(0,1)
/// (one per target vocabulary entry, d_s); W_s, W_h, b (fan_in d_h), v_a (fan_in d_a), W_general,
/// and the recurrence A (d_s×d_s), B (d_s×d_s), C (d_s×d_h), each U(±1/sqrt(fan_in)). Then
///   s_0 = tanh(C · mean_j h_j),   c_t = additive read with s_{t−1},
///   s_t = tanh(A s_{t−1} + B y_t + C c_t)   (the recurrence is a stand-in: the lesson leaves it
///   to the surrounding model). Errors: empty_sequence (no tokens), invalid_field (a size outside
///   1..64 or more than 64 tokens).
AdditiveDecoderDemo additive_decoder_demo(const AdditiveDecoderInput& in = {});

}  // namespace attn
