#include "lessons/random_heads.hpp"

#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "attn/error.hpp"
#include "attn/heads.hpp"
#include "attn/linalg.hpp"
#include "attn/positions.hpp"
#include "attn/random.hpp"
#include "attn/rope.hpp"
#include "attn/tokenizer.hpp"
#include "lessons/torch_replica.hpp"

namespace attn {

// Random heads

namespace {

double max_masked_weight(const AttentionResult& r) {
  double m = 0.0;
  for (Index i = 0; i < r.weights.rows(); ++i)
    for (Index j = 0; j < r.weights.cols(); ++j)
      if (!r.allowed(i, j)) m = std::max(m, std::fabs(r.weights(i, j)));
  return m;
}

}  // namespace

EmbeddedSentence embed_sentence(const std::string& sentence, int d_model, Rng& rng) {
  EmbeddedSentence e;
  e.tokens = tokenize(sentence);
  if (e.tokens.empty())
    throw Error(ErrorCode::empty_sequence, "the sentence has no tokens; type at least one word");
  if (static_cast<long long>(e.tokens.size()) > kMaxHeadsTokens)
    throw Error(ErrorCode::too_large, "the sentence has " + std::to_string(e.tokens.size()) +
                                          " tokens; the page draws at most " +
                                          std::to_string(kMaxHeadsTokens));
  const Vocabulary vocab = build_vocabulary(e.tokens);
  const Matrix table = embedding_init(rng, static_cast<Index>(vocab.tokens.size()), d_model);
  e.x = embed(table, token_ids(vocab, e.tokens));
  return e;
}

RandomHeadsResult random_heads(const RandomHeadsInput& in) {
  require_range("heads", in.heads, 1, 8);
  require_range("d_model", in.d_model, 1, 512);
  require_range("d_k", in.d_k, 1, 512);
  const Index width = static_cast<Index>(in.heads) * in.d_k;
  EmbeddedSentence e;
  MultiHeadWeights w;
  w.heads = in.heads;
  if (in.init == HeadsInit::torch_replica) {
    TorchInit ti = torch_init(in.sentence, in.seed, in.d_model, static_cast<int>(width));
    e.tokens = std::move(ti.tokens);
    e.x = std::move(ti.x);
    w.w_q = std::move(ti.weights.w_q);
    w.w_k = std::move(ti.weights.w_k);
    w.w_v = std::move(ti.weights.w_v);
  } else {
    Rng rng(in.seed);
    e = embed_sentence(in.sentence, in.d_model, rng);
    w.w_q = linear_init(rng, in.d_model, width);
    w.w_k = linear_init(rng, in.d_model, width);
    w.w_v = linear_init(rng, in.d_model, width);
  }
  const Index t = static_cast<Index>(e.tokens.size());
  if (in.positions == PositionKind::sinusoidal) e.x += sinusoidal_positions(t, in.d_model);

  MaskSpec mask;
  if (in.causal) mask.causal = Causal::square;
  if (in.valid_length != -1) {
    require_range("valid length", in.valid_length, 1, t);
    std::vector<bool> valid(static_cast<size_t>(t), false);
    for (int j = 0; j < in.valid_length; ++j) valid[static_cast<size_t>(j)] = true;
    mask.key_valid = valid;
  }
  MultiHeadResult mh;
  RandomHeadsResult r;
  // Each head's q, k, v, as multi_head_attention computes them (the same products), kept for the anatomy.
  const Matrix q = matmul(e.x, w.w_q, "x·w_q"), k = matmul(e.x, w.w_k, "x·w_k");
  const Matrix v = matmul(e.x, w.w_v, "x·w_v");
  const bool rope = in.positions == PositionKind::rope;
  for (Index h = 0; h < in.heads; ++h) {
    // RoPE rotates each head's queries and keys (its own d_k features) by slot position 0..T−1.
    r.q.push_back(rope ? apply_rope(q.middleCols(h * in.d_k, in.d_k)) : Matrix(q.middleCols(h * in.d_k, in.d_k)));
    r.k.push_back(rope ? apply_rope(k.middleCols(h * in.d_k, in.d_k)) : Matrix(k.middleCols(h * in.d_k, in.d_k)));
    r.v.push_back(v.middleCols(h * in.d_k, in.d_k));
  }
  if (rope) {
    for (Index h = 0; h < in.heads; ++h)
      mh.heads.push_back(attention(r.q[static_cast<size_t>(h)], r.k[static_cast<size_t>(h)], r.v[static_cast<size_t>(h)], mask));
  } else {
    mh = multi_head_attention(e.x, e.x, w, mask);
  }

  r.tokens = std::move(e.tokens);
  r.x = std::move(e.x);
  r.heads = std::move(mh.heads);
  double sum_err = 0.0, masked = 0.0;
  for (const AttentionResult& h : r.heads) {
    sum_err = std::max(sum_err, max_row_sum_error(h.weights, h.empty_row));
    masked = std::max(masked, max_masked_weight(h));
  }
  r.checks.push_back(check_at_most("rows sum to 1: max |sum - 1|", sum_err, 1e-12));
  if (!mask.empty())
    r.checks.push_back(check_at_most("masked keys get weight 0: max masked weight", masked, 0.0));
  return r;
}

HeadAnatomy head_anatomy(const RandomHeadsResult& r, int head, int query_row) {
  require_range("head", head, 0, static_cast<long long>(r.heads.size()) - 1);
  require_range("query row", query_row, 0, static_cast<long long>(r.tokens.size()) - 1);
  const size_t h = static_cast<size_t>(head);
  const AttentionResult& a = r.heads[h];
  HeadAnatomy an;
  an.head = head;
  an.query_row = query_row;
  an.q = r.q[h];
  an.k = r.k[h];
  an.v = r.v[h];
  an.d_k = static_cast<int>(an.q.cols());
  an.d_v = static_cast<int>(an.v.cols());
  an.scale = a.scale;
  const Index i = query_row, t = an.k.rows();
  for (Index j = 0; j < t; ++j) {
    double s = 0.0;  // in feature order, as attention() sums it
    for (Index c = 0; c < an.q.cols(); ++c) s += an.q(i, c) * an.k(j, c);
    an.raw_scores.push_back(s);
    an.scaled.push_back(s * a.scale);
    an.raw_abs_max = std::max(an.raw_abs_max, std::fabs(s));
    an.scaled_abs_max = std::max(an.scaled_abs_max, std::fabs(s * a.scale));
    an.allowed.push_back(a.allowed(i, j));
    an.weights.push_back(a.weights(i, j));
  }
  for (Index c = 0; c < a.output.cols(); ++c) an.output.push_back(a.output(i, c));
  an.qkv_abs_max = std::max({an.q.cwiseAbs().maxCoeff(), an.k.cwiseAbs().maxCoeff(), an.v.cwiseAbs().maxCoeff()});
  return an;
}

}  // namespace attn
