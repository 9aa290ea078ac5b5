#include "lessons/additive_decoder.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attn/det_tanh.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/random.hpp"
#include "attn/tokenizer.hpp"

namespace attn {

AdditiveDecoderDemo additive_decoder_demo(const AdditiveDecoderInput& in) {
  for (const auto& [name, v] : {std::pair<const char*, int>{"d_h", in.d_h}, {"d_s", in.d_s}, {"d_a", in.d_a}})
    if (v < 1 || v > 64)
      throw Error(ErrorCode::invalid_field, std::string(name) + " must be between 1 and 64, got " + std::to_string(v));
  AdditiveDecoderDemo r;
  r.source_tokens = tokenize(in.source);
  r.target_tokens = tokenize(in.target);
  if (r.source_tokens.empty() || r.target_tokens.empty())
    throw Error(ErrorCode::empty_sequence, "source and target need at least one token each");
  if (r.source_tokens.size() > 64 || r.target_tokens.size() > 64)
    throw Error(ErrorCode::invalid_field, "source and target are limited to 64 tokens each");
  const Index tk = static_cast<Index>(r.source_tokens.size()), tq = static_cast<Index>(r.target_tokens.size());
  const Index dh = in.d_h, ds = in.d_s, da = in.d_a;
  Rng rng(in.seed);
  auto normal = [&](Index rows, Index cols) {
    Matrix m(rows, cols);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < cols; ++j) m(i, j) = rng.normal();
    return m;
  };
  // out×in matrices with nn.Linear's law U(±1/sqrt(in)).
  auto uniform = [&](Index out, Index fan_in) {
    const double b = 1.0 / std::sqrt(static_cast<double>(fan_in));
    Matrix m(out, fan_in);
    for (Index i = 0; i < out; ++i)
      for (Index j = 0; j < fan_in; ++j) m(i, j) = rng.uniform(-b, b);
    return m;
  };
  auto uniform_vec = [&](Index n, Index fan_in) {
    const double b = 1.0 / std::sqrt(static_cast<double>(fan_in));
    Vector v(n);
    for (Index i = 0; i < n; ++i) v(i) = rng.uniform(-b, b);
    return v;
  };
  r.encoder_states = normal(tk, dh);
  const Vocabulary vocab = build_vocabulary(r.target_tokens);
  const Matrix target_embedding = normal(static_cast<Index>(vocab.tokens.size()), ds);
  const std::vector<int> target_ids = token_ids(vocab, r.target_tokens);
  r.params.w_s = uniform(da, ds);
  r.params.w_h = uniform(da, dh);
  r.params.bias = uniform_vec(da, dh);
  r.params.v = uniform_vec(da, da);
  r.w_general = uniform(ds, dh);
  const Matrix a = uniform(ds, ds), b = uniform(ds, ds), c = uniform(ds, dh);
  r.note = "untrained, seeded weights: the steps show the mechanics of additive attention; which source "
           "word gets the weight means nothing until the model is trained";

  // s_0 = tanh(C · mean_j h_j).
  Vector mean_h = Vector::Zero(dh);
  for (Index j = 0; j < tk; ++j) mean_h += r.encoder_states.row(j).transpose();
  mean_h /= static_cast<double>(tk);
  Vector state = matvec(c, mean_h);
  for (Index i = 0; i < ds; ++i) state(i) = det::tanh(state(i));

  r.alignment = Matrix::Zero(tq, tk);
  double sums = 0.0;
  for (Index t = 0; t < tq; ++t) {
    AdditiveDecoderStep step;
    step.target_token = r.target_tokens[static_cast<size_t>(t)];
    step.state = state;
    step.attention = additive_attention(state, r.encoder_states, r.params);
    step.attention_checks = additive_checks(step.attention, r.encoder_states);
    if (ds == dh) {
      step.comparison = compare_score_functions(state, r.encoder_states, r.w_general, r.params);
      step.comparison_checks = scoring_checks(step.comparison, r.encoder_states);
    }
    r.alignment.row(t) = step.attention.weights.transpose();
    sums = std::max(sums, std::fabs(step.attention.weights.sum() - 1.0));
    // s_t = tanh(A s_{t−1} + B y_t + C c_t).
    const Vector y = target_embedding.row(target_ids[static_cast<size_t>(t)]).transpose();
    const Vector as = matvec(a, state), by = matvec(b, y), cc = matvec(c, step.attention.context);
    for (Index i = 0; i < ds; ++i) state(i) = det::tanh(as(i) + by(i) + cc(i));
    r.steps.push_back(std::move(step));
  }
  r.checks.push_back(check_at_most("every target step's weights sum to 1: max |sum - 1|", sums, 1e-12));
  return r;
}

}  // namespace attn
