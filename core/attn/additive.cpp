#include "attn/additive.hpp"

#include <cmath>
#include <string>

#include "attn/attention.hpp"
#include "attn/det_tanh.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/random.hpp"
#include "attn/tokenizer.hpp"

namespace attn {
namespace {

std::string vec_shape(const Vector& v) { return std::to_string(v.size()); }

void require_vector(const Vector& v, const std::string& name) {
  if (v.size() == 0) throw Error(ErrorCode::empty_sequence, name + " is empty");
  if (v.size() > kMaxWidth)
    throw Error(ErrorCode::too_large, name + " has " + std::to_string(v.size()) + " entries; the limit is " +
                                          std::to_string(kMaxWidth));
  for (Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v(i)))
      throw Error(ErrorCode::non_finite, name + "[" + std::to_string(i) + "] is not a finite number");
}

std::vector<bool> valid_flags(const std::vector<bool>& key_valid, Index tk) {
  if (key_valid.empty()) return std::vector<bool>(static_cast<size_t>(tk), true);
  if (static_cast<Index>(key_valid.size()) != tk)
    throw Error(ErrorCode::shape_mismatch, "key_valid has " + std::to_string(key_valid.size()) +
                                               " flags but there are Tk=" + std::to_string(tk) +
                                               " encoder states");
  return key_valid;
}

// Softmax of a score row over valid positions (the core's masked softmax), weights → context.
void normalise(const Vector& scores, const std::vector<bool>& valid, const Matrix& h, Vector& weights,
               Vector& context) {
  const Index tk = scores.size();
  Matrix row(1, tk);
  BoolMatrix allowed(1, tk);
  for (Index j = 0; j < tk; ++j) {
    row(0, j) = scores(j);
    allowed(0, j) = valid[static_cast<size_t>(j)];
  }
  std::vector<bool> empty;
  const Matrix w = masked_softmax(row, allowed, &empty);
  if (empty[0])
    throw Error(ErrorCode::no_allowed_key, "no source position is valid (key_valid is all false): the "
                                           "softmax has nothing to normalise over");
  weights = w.row(0).transpose();
  context = Vector::Zero(h.cols());
  for (Index j = 0; j < tk; ++j)
    if (valid[static_cast<size_t>(j)])
      for (Index c = 0; c < h.cols(); ++c) context(c) += weights(j) * h(j, c);
}

void check_params(const Vector& s, const Matrix& h, const AdditiveParams& p) {
  require_vector(s, "decoder_state");
  require_shape_limits(h, "encoder_states", "Tk", "d_h");
  require_finite(h, "encoder_states");
  require_shape_limits(p.w_s, "w_s", "d_a", "d_s");
  require_shape_limits(p.w_h, "w_h", "d_a", "d_h");
  require_finite(p.w_s, "w_s");
  require_finite(p.w_h, "w_h");
  require_vector(p.bias, "bias");
  require_vector(p.v, "v");
  const Index da = p.w_s.rows();
  if (p.w_s.cols() != s.size())
    throw Error(ErrorCode::shape_mismatch, "w_s is " + shape_str(p.w_s) + " but decoder_state has d_s=" +
                                               vec_shape(s) + " entries: w_s must be d_a x d_s (it multiplies the "
                                               "state as a column vector)");
  if (p.w_h.cols() != h.cols())
    throw Error(ErrorCode::shape_mismatch, "w_h is " + shape_str(p.w_h) + " but encoder_states is " +
                                               shape_str(h) + ": w_h must be d_a x d_h");
  if (p.w_h.rows() != da)
    throw Error(ErrorCode::shape_mismatch, "w_s is " + shape_str(p.w_s) + " and w_h is " + shape_str(p.w_h) +
                                               ": both need d_a rows");
  if (p.bias.size() != da || p.v.size() != da)
    throw Error(ErrorCode::shape_mismatch, "bias has " + vec_shape(p.bias) + " and v has " + vec_shape(p.v) +
                                               " entries; both need d_a=" + std::to_string(da));
}

}  // namespace

AdditiveResult additive_attention(const Vector& s, const Matrix& h, const AdditiveParams& p,
                                  const std::vector<bool>& key_valid) {
  check_params(s, h, p);
  const Index tk = h.rows(), da = p.w_s.rows();
  AdditiveResult r;
  r.key_valid = valid_flags(key_valid, tk);
  // 1. W_s s once; 2. for each valid j: tanh(W_s s + W_h h_j + b), then e_j = v_aᵀ · that.
  r.query_part = matvec(p.w_s, s);
  r.hidden = Matrix::Zero(tk, da);
  r.scores = Vector::Zero(tk);
  for (Index j = 0; j < tk; ++j) {
    if (!r.key_valid[static_cast<size_t>(j)]) continue;
    const Vector hj = h.row(j).transpose();
    const Vector key_part = matvec(p.w_h, hj);
    double e = 0.0;
    for (Index a = 0; a < da; ++a) {
      r.hidden(j, a) = det::tanh(r.query_part(a) + key_part(a) + p.bias(a));
      e += p.v(a) * r.hidden(j, a);
    }
    r.scores(j) = e;
  }
  // 3. softmax over valid positions; 4. context = Σ a_j h_j.
  normalise(r.scores, r.key_valid, h, r.weights, r.context);
  return r;
}

ScoringComparison compare_score_functions(const Vector& s, const Matrix& h, const Matrix& w_general,
                                          const AdditiveParams& p, const std::vector<bool>& key_valid) {
  const AdditiveResult add = additive_attention(s, h, p, key_valid);
  const Index tk = h.rows(), d = h.cols();
  if (s.size() != d)
    throw Error(ErrorCode::shape_mismatch, "dot-product scores need d_s = d_h, got d_s=" + vec_shape(s) +
                                               ", d_h=" + std::to_string(d));
  require_shape_limits(w_general, "w_general", "d_s", "d_h");
  require_finite(w_general, "w_general");
  if (w_general.rows() != s.size() || w_general.cols() != d)
    throw Error(ErrorCode::shape_mismatch, "w_general is " + shape_str(w_general) + " but must be d_s x d_h = " +
                                               vec_shape(s) + "x" + std::to_string(d));
  ScoringComparison r;
  r.names = {"dot", "scaled_dot", "general", "additive"};
  r.key_valid = add.key_valid;
  r.scores = Matrix::Zero(4, tk);
  r.weights = Matrix::Zero(4, tk);
  r.contexts = Matrix::Zero(4, d);
  const Vector ws = matvec(w_general.transpose(), s);  // (sᵀ W)ᵀ = Wᵀ s, d_h
  const double root = std::sqrt(static_cast<double>(d));
  for (Index j = 0; j < tk; ++j) {
    if (!r.key_valid[static_cast<size_t>(j)]) continue;
    double dot = 0.0, general = 0.0;
    for (Index c = 0; c < d; ++c) {
      dot += s(c) * h(j, c);
      general += ws(c) * h(j, c);
    }
    r.scores(0, j) = dot;
    r.scores(1, j) = dot / root;
    r.scores(2, j) = general;
    r.scores(3, j) = add.scores(j);
  }
  for (Index f = 0; f < 4; ++f) {
    Vector w, c;
    normalise(r.scores.row(f).transpose(), r.key_valid, h, w, c);
    r.weights.row(f) = w.transpose();
    r.contexts.row(f) = c.transpose();
  }
  return r;
}

}  // namespace attn
