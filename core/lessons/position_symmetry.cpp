#include "lessons/position_symmetry.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/positions.hpp"
#include "attn/random.hpp"
#include "attn/rope.hpp"
#include "attn/tokenizer.hpp"
#include "lessons/random_heads.hpp"  // embed_sentence

namespace attn {

namespace {

Vector column_mean(const Matrix& m) {
  Vector v = Vector::Zero(m.cols());
  for (Index i = 0; i < m.rows(); ++i) v += m.row(i).transpose();
  return v / static_cast<double>(m.rows());
}

struct Head {
  Matrix w_q, w_k, w_v;
};

struct HeadRun {
  Matrix q, k, v;  ///< after positions (Q and K rotated when RoPE)
  AttentionResult attention;
};

// f: one head on x at slot positions 0..T−1.
HeadRun run_head(const Matrix& x, const Head& w, PositionKind pos, bool causal) {
  Matrix xin = x;
  if (pos == PositionKind::sinusoidal) xin += sinusoidal_positions(x.rows(), x.cols());
  HeadRun r;
  r.q = matmul(xin, w.w_q, "x·w_q");
  r.k = matmul(xin, w.w_k, "x·w_k");
  r.v = matmul(xin, w.w_v, "x·w_v");
  if (pos == PositionKind::rope) {
    r.q = apply_rope(r.q);
    r.k = apply_rope(r.k);
  }
  MaskSpec mask;
  if (causal) mask.causal = Causal::square;
  r.attention = attention(r.q, r.k, r.v, mask);
  return r;
}

}  // namespace

void require_permutation(const std::vector<int>& p, Index t) {
  if (static_cast<Index>(p.size()) != t)
    throw Error(ErrorCode::invalid_field, "the permutation has " + std::to_string(p.size()) +
                                              " entries but the sentence has " + std::to_string(t) +
                                              " tokens");
  std::vector<bool> seen(static_cast<size_t>(t), false);
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= t)
      throw Error(ErrorCode::invalid_field, "permutation entry " + std::to_string(i) + " is " +
                                                std::to_string(p[i]) + "; entries must be 0.." +
                                                std::to_string(t - 1));
    if (seen[static_cast<size_t>(p[i])])
      throw Error(ErrorCode::invalid_field,
                  "permutation repeats " + std::to_string(p[i]) + "; each of 0.." +
                      std::to_string(t - 1) + " must appear exactly once");
    seen[static_cast<size_t>(p[i])] = true;
  }
}


PositionSymmetryResult position_symmetry(const PositionSymmetryInput& in) {
  require_range("d_model", in.d_model, 1, 512);
  PositionSymmetryResult r;
  // Draws in this order from one Rng(seed): embedding table, then W_q, W_k, W_v.
  Rng rng(in.seed);
  EmbeddedSentence e = embed_sentence(in.sentence, in.d_model, rng);
  r.tokens = std::move(e.tokens);
  r.x = std::move(e.x);
  const Index t = static_cast<Index>(r.tokens.size());
  require_permutation(in.permutation, t);
  Head w;
  w.w_q = linear_init(rng, in.d_model, in.d_model);
  w.w_k = linear_init(rng, in.d_model, in.d_model);
  w.w_v = linear_init(rng, in.d_model, in.d_model);
  for (int i : in.permutation) r.permuted_tokens.push_back(r.tokens[static_cast<size_t>(i)]);
  r.px = permute_rows(r.x, in.permutation);

  const HeadRun run_x = run_head(r.x, w, in.positions, in.causal);
  const AttentionResult& fx = run_x.attention;
  const AttentionResult fpx = run_head(r.px, w, in.positions, in.causal).attention;
  r.query_x = run_x.q;
  r.key_x = run_x.k;
  r.value_x = run_x.v;
  r.f_x = fx.output;
  r.f_px = fpx.output;
  r.p_f_x = permute_rows(fx.output, in.permutation);
  r.max_diff = max_abs_diff(r.f_px, r.p_f_x);
  r.weights_x = fx.weights;
  r.weights_px = fpx.weights;
  r.pooled_x = column_mean(r.f_x);
  r.pooled_px = column_mean(r.f_px);
  r.pooled_diff = (r.pooled_x - r.pooled_px).cwiseAbs().maxCoeff();

  const bool equivariant = !in.causal && in.positions == PositionKind::none;
  if (equivariant) {
    r.checks.push_back(check_at_most("no positions, no mask: f(PX) = P f(X): max |difference|", r.max_diff, 1e-12));
    r.checks.push_back(check_at_most("mean pooling is permutation invariant: max |mean f(PX) - mean f(X)|",
                                     r.pooled_diff, 1e-12));
  } else {
    std::string why = in.causal ? "a causal mask" : "";
    if (in.positions != PositionKind::none)
      why += std::string(in.causal ? " and " : "") + position_kind_name(in.positions) + " positions";
    if (in.causal && in.positions == PositionKind::none) why += " (no positions at all)";
    r.checks.push_back(check_above("equivariance breaks with " + why + ": max |f(PX) - P f(X)|", r.max_diff, 1e-3));
  }
  if (in.positions == PositionKind::rope && in.d_model >= 2) {
    // (R_m q)·(R_n k) depends on m − n only: compare (m, n) = (2, 5) with (9, 12).
    const Matrix q = matmul(r.x.topRows(1), w.w_q), k = matmul(r.x.bottomRows(1), w.w_k);
    auto score = [&](long long m, long long n) {
      const Matrix a = apply_rope(q, {m}), b = apply_rope(k, {n});
      double s = 0.0;
      for (Index c = 0; c < a.cols(); ++c) s += a(0, c) * b(0, c);
      return s;
    };
    r.rope_relative_diff = std::fabs(score(2, 5) - score(9, 12));
    r.checks.push_back(check_at_most("RoPE scores depend on m - n only: |(R_2 q).(R_5 k) - (R_9 q).(R_12 k)|",
                                     r.rope_relative_diff, 1e-12));
  }
  r.checks.push_back(check_at_most("rows sum to 1: max |sum - 1|",
                                   std::max(max_row_sum_error(r.weights_x), max_row_sum_error(r.weights_px)), 1e-12));
  return r;
}

}  // namespace attn
