#include "lessons/additive_trained.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "lessons/additive_checks.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

// A tensor of the model's flat parameters (PyTorch state_dict order, out×in, row-major) as a
// row-major Matrix of the same shape.
Matrix tensor_matrix(const TranslateModel& m, const char* name, int rows, int cols) {
  const double* p = learn::tensor_in(m.layout, m.params.data(), name);
  Matrix out(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out(r, c) = p[static_cast<size_t>(r) * cols + c];
  return out;
}

Vector tensor_vector(const TranslateModel& m, const char* name, int n) {
  const double* p = learn::tensor_in(m.layout, m.params.data(), name);
  Vector out(n);
  for (int i = 0; i < n; ++i) out(i) = p[i];
  return out;
}

int argmax(const std::vector<double>& p) {
  int best = 0;
  for (size_t k = 1; k < p.size(); ++k)
    if (p[k] > p[static_cast<size_t>(best)]) best = static_cast<int>(k);
  return best;  // the lowest id among equal maxima, as greedy_decode
}

}  // namespace

TranslateModel translate_attention_model(const TranslateRun& run) {
  TranslateModel m;
  m.config = translate_model_config(run.config, true);
  m.layout = learn::seq2seq_layout(m.config);
  if (run.additive_params.size() != m.layout.total())
    bad("the attention model has " + std::to_string(run.additive_params.size()) + " parameters; its layout needs " +
        std::to_string(m.layout.total()));
  m.params = run.additive_params;
  return m;
}

TrainedAdditiveStep trained_additive_step(const TranslateModel& m, const TrainedAdditiveInput& in) {
  const learn::Seq2SeqConfig& c = m.config;
  if (!c.attention) bad("the fixed-summary translator (attention \"none\") has no attention to read: use the attention model");
  if (m.params.size() != m.layout.total())
    bad("the model has " + std::to_string(m.params.size()) + " parameters; its layout needs " +
        std::to_string(m.layout.total()));
  const int H = c.hidden, A = c.attn_dim, C = c.context_dim();
  const TranslationVocab& en = english_vocab();
  const TranslationVocab& fr = french_vocab();

  TrainedAdditiveStep r;
  const std::vector<int> source = english_ids(in.sentence);  // empty sentence, unknown word
  const int S = static_cast<int>(source.size());
  for (int id : source) r.source_words.push_back(en.words[static_cast<size_t>(id)]);

  // The tokens fed at steps 0..steps−1: <bos>, then the walked side's words.
  std::vector<int> walked;
  if (in.feed == DecoderFeed::teacher_forced) {
    walked = reference_translation(source);  // not a sentence of the grammar
    walked.push_back(kTranslateEos);
  } else {
    const GreedyDecode g = greedy_decode(m, source, S + 10);  // translate_alignment's limit
    walked = g.tokens;
    if (g.ended) walked.push_back(kTranslateEos);
  }
  for (int id : walked) r.target_words.push_back(fr.words[static_cast<size_t>(id)]);
  r.steps = static_cast<int>(walked.size());
  if (in.step < 0 || in.step >= r.steps)
    bad("step " + std::to_string(in.step) + " is outside 0.." + std::to_string(r.steps - 1) + " (the " +
        std::to_string(r.steps) + " target steps of \"" + words_of(fr, walked) + "\")");
  r.step = in.step;

  // 1. The trained encoder's annotations h_j (S×C) and s_0, by the model's own encoder.
  const EncodedSource enc = encode_source(m, source);
  r.encoder_states.resize(S, C);
  for (int j = 0; j < S; ++j)
    for (int k = 0; k < C; ++k) r.encoder_states(j, k) = enc.states[static_cast<size_t>(j) * C + k];

  // 2. s_{i−1}: the model's decoder step run over the tokens fed before this step.
  std::vector<double> s = enc.s0, probs, weights;
  int previous = kTranslateBos;
  for (int t = 0; t < in.step; ++t) {
    decoder_step(m, enc, s, previous, probs, weights);
    previous = walked[static_cast<size_t>(t)];
  }
  r.state = Vector(H);
  for (int k = 0; k < H; ++k) r.state(k) = s[static_cast<size_t>(k)];
  r.previous_word = fr.words[static_cast<size_t>(previous)];
  r.target_word = r.target_words[static_cast<size_t>(in.step)];

  // 3. The model's own step from s_{i−1}: its attention row and its next-word distribution.
  std::vector<double> s_next = s;
  decoder_step(m, enc, s_next, previous, probs, weights);
  r.model_weights = Vector(S);
  for (int j = 0; j < S; ++j) r.model_weights(j) = weights[static_cast<size_t>(j)];
  const int best = argmax(probs);
  r.model_word = fr.words[static_cast<size_t>(best)];
  r.model_probability = probs[static_cast<size_t>(best)];

  // 4. The read of this step with the model's attention parameters (eq. 6): the scores, weights
  //    and context the lesson names, computed by the core's additive score on the model's states.
  r.params.w_s = tensor_matrix(m, "attn.w_s.weight", A, H);
  r.params.w_h = tensor_matrix(m, "attn.w_h.weight", A, C);
  r.params.bias = tensor_vector(m, "attn.w_h.bias", A);
  r.params.v = tensor_vector(m, "attn.v.weight", A);
  r.attention = additive_attention(r.state, r.encoder_states, r.params);

  r.checks = additive_checks(r.attention, r.encoder_states);
  double gap = 0.0;
  for (int j = 0; j < S; ++j) gap = std::max(gap, std::fabs(r.attention.weights(j) - r.model_weights(j)));
  r.checks.push_back(check_at_most("these weights are the translator's own attention at this step: max |difference|",
                                   gap, 1e-12));
  r.note = "a trained translator: h_j are its encoder's annotations for the sentence, s is its decoder's state, and "
           "W_s, W_h, b, v are its learned attention parameters";
  return r;
}

TrainedAdditiveWalk trained_additive_walk(const TranslateModel& m, const TrainedAdditiveInput& in) {
  TrainedAdditiveInput at = in;
  at.step = 0;
  TrainedAdditiveWalk w;
  w.steps.push_back(trained_additive_step(m, at));
  const int steps = w.steps[0].steps;
  for (at.step = 1; at.step < steps; ++at.step) w.steps.push_back(trained_additive_step(m, at));
  const Index S = static_cast<Index>(w.steps[0].source_words.size());
  w.alignment.resize(steps, S);
  for (int t = 0; t < steps; ++t) w.alignment.row(t) = w.steps[static_cast<size_t>(t)].attention.weights.transpose();
  return w;
}

}  // namespace attn::lessons
