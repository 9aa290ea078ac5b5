// lessons/additive_trained.hpp — the additive-attention step of a *trained* translator: the
// Translate lesson's GRU encoder-decoder with Bahdanau attention (lessons/translate/), read at
// one target step with the same quantities as the untrained stepped example
// (lessons/additive_decoder.hpp), but every number comes from the model's own parameters.
//
// Bahdanau, Cho & Bengio 2015, §3.1 and appendix A.1.2 (eq. 6 of the lesson's numbering):
//   e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j)    (here W_a = attn.w_s.weight, U_a = attn.w_h.weight
//                                               with its bias attn.w_h.bias, v_a = attn.v.weight)
//   a_ij = softmax_j(e_ij),   c_i = Σ_j a_ij h_j.
// The encoder states h_j and the decoder state s_{i−1} come from the model's own encoder and
// decoder step (encode_source, decoder_step); the read of step i is attn::additive_attention (the
// core's one additive score) on those states with the model's attention parameters. The model's
// decoder step computes the same weights inside its own pass (learn::additive_forward); the two are
// compared here as a claim, so a mismatch of layouts or of steps shows as a FAIL, not a silent error.
#pragma once

#include <string>
#include <vector>

#include "attn/additive.hpp"
#include "attn/types.hpp"
#include "lessons/check.hpp"
#include "lessons/translate/decode.hpp"
#include "lessons/translate/eval.hpp"
#include "lessons/translate/format.hpp"

namespace attn::lessons {

/// How the decoder reached step i: fed the grammar's reference translation (teacher forcing, as
/// translate_alignment's rows) or its own greedy choices (as greedy_decode).
enum class DecoderFeed { teacher_forced, greedy };

struct TrainedAdditiveInput {
  std::string sentence = "the black cat";  ///< English, the grammar's words (english_ids)
  int step = 0;                            ///< target step, 0-based: 0 reads with s_0 after <bos>
  DecoderFeed feed = DecoderFeed::teacher_forced;
};

struct TrainedAdditiveStep {
  std::vector<std::string> source_words;  ///< S: the English words (rows of encoder_states)
  /// The target side the steps walk: teacher forced, the reference then "<eos>"; greedy, the
  /// model's choices (its "<eos>" included when it ended).
  std::vector<std::string> target_words;
  int steps = 0;              ///< target_words.size(): valid steps are 0..steps−1
  int step = 0;
  std::string previous_word;  ///< y_{i−1} fed into this step ("<bos>" at step 0)
  std::string target_word;    ///< the word of this step on the walked side
  std::string model_word;     ///< the model's most likely word at this step (argmax of its distribution)
  double model_probability = 0.0;  ///< its probability

  Matrix encoder_states;      ///< S×C: h_j, the trained encoder's annotations, row j = source word j
  Vector state;               ///< H: s_{i−1}, the decoder state that scores this step
  AdditiveParams params;      ///< the model's attention: w_s A×H, w_h A×C, bias A, v A
  AdditiveResult attention;   ///< scores e_ij (S), weights a_ij (S), context c_i (C), tanh layer S×A
  Vector model_weights;       ///< S: the weights the model's own decoder step computed at this step
  std::vector<Check> checks;  ///< additive_checks of the read, and read = the model's own weights (1e-12)
  std::string note;           ///< what these numbers are (a trained model, not random draws)
};

/// The additive read of step in.step of the attention translator m on in.sentence.
/// Shapes: S = the sentence's words, H = m.config.hidden (d_s = H), C = m.config.context_dim() (d_h =
/// C: H, or 2H with a bidirectional encoder), A = m.config.attn_dim.
/// Errors (attn::Error): invalid_field when m has no attention (attention "none") or its
/// parameters do not fit its layout; english_ids' errors for the sentence (empty_sequence, an
/// unknown word named with the word list); reference_translation's when the words are not a
/// sentence of the grammar (teacher forcing needs the reference); invalid_field naming the range
/// when in.step is outside 0..steps−1.
TrainedAdditiveStep trained_additive_step(const TranslateModel& m, const TrainedAdditiveInput& in = {});

/// Every step of the walk (0..steps−1) of in.sentence, in.feed, as trained_additive_step gives
/// each, and their weights stacked: alignment is steps×S (row i = step i's a_ij). Errors as
/// trained_additive_step (in.step is ignored).
struct TrainedAdditiveWalk {
  std::vector<TrainedAdditiveStep> steps;
  Matrix alignment;
};
TrainedAdditiveWalk trained_additive_walk(const TranslateModel& m, const TrainedAdditiveInput& in);

/// The attention model of a shipped or recorded run (TranslateRun::additive_params with the run's
/// configuration). Throws Error(invalid_field) when the parameters do not fit the layout.
TranslateModel translate_attention_model(const TranslateRun& run);

}  // namespace attn::lessons
