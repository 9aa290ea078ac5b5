#include "lessons/permutation.hpp"

#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/heads.hpp"
#include "attn/linalg.hpp"
#include "attn/random.hpp"
#include "attn/rope.hpp"
#include "lessons/random_heads.hpp"

namespace attn {

std::vector<int> random_permutation(int n, std::uint64_t seed) {
  if (n < 0) throw Error(ErrorCode::invalid_field, "permutation length must be >= 0");
  std::vector<int> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  Rng rng(seed);
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(rng.below(static_cast<std::uint64_t>(i) + 1));
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(j)]);
  }
  return p;
}

namespace {

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

Matrix permute_rows(const Matrix& m, const std::vector<int>& p) {
  Matrix out(m.rows(), m.cols());
  for (size_t i = 0; i < p.size(); ++i) out.row(static_cast<Index>(i)) = m.row(p[i]);
  return out;
}

}  // namespace

PermutationResult permutation_experiment(const PermutationInput& in) {
  require_range("d_model", in.d_model, 1, 512);
  Rng rng(in.seed);
  EmbeddedSentence e = embed_sentence(in.sentence, in.d_model, rng);
  const Index t = static_cast<Index>(e.tokens.size());
  require_permutation(in.permutation, t);
  require_range("query", in.query, 0, t - 1);
  HeadWeights w{linear_init(rng, in.d_model, in.d_model), linear_init(rng, in.d_model, in.d_model),
                linear_init(rng, in.d_model, in.d_model)};

  PermutationResult r;
  r.tokens = e.tokens;
  for (int i : in.permutation) r.permuted_tokens.push_back(e.tokens[static_cast<size_t>(i)]);
  r.x = e.x;
  r.px = permute_rows(e.x, in.permutation);

  // Positions are attached to slots, not to tokens: they are added after permuting.
  Matrix x_in = r.x, px_in = r.px;
  if (in.positions == PositionSignal::sinusoidal) {
    const Matrix pe = sinusoidal_positions(t, in.d_model);
    x_in += pe;
    px_in += pe;
  }
  MaskSpec mask;
  if (in.causal) mask.causal = Causal::square;
  // RoPE: Q and K rotated by their slot 0..T−1 after the projections (V is not rotated).
  auto head = [&](const Matrix& x) {
    if (in.positions != PositionSignal::rope) return self_attention(x, w, mask);
    SelfAttentionResult s;
    s.query = apply_rope(matmul(x, w.w_q, "x·w_q"));
    s.key = apply_rope(matmul(x, w.w_k, "x·w_k"));
    s.value = matmul(x, w.w_v, "x·w_v");
    s.attention = attention(s.query, s.key, s.value, mask);
    return s;
  };
  const SelfAttentionResult fx = head(x_in);
  const SelfAttentionResult fpx = head(px_in);
  r.f_px = fpx.attention.output;
  r.p_f_x = permute_rows(fx.attention.output, in.permutation);
  r.max_diff = max_abs_diff(r.f_px, r.p_f_x);
  r.weights_x = fx.attention.weights;
  r.weights_px = fpx.attention.weights;

  // One query against K, V in order, then against K, V permuted together (unmasked).
  const Matrix q = fx.query.row(in.query);
  const AttentionResult plain = attention(q, fx.key, fx.value);
  const AttentionResult moved =
      attention(q, permute_rows(fx.key, in.permutation), permute_rows(fx.value, in.permutation));
  r.query_output = plain.output.row(0).transpose();
  r.query_output_kv_permuted = moved.output.row(0).transpose();
  r.kv_diff = max_abs_diff(plain.output, moved.output);

  const bool expect_equivariant = !in.causal && in.positions == PositionSignal::none;
  if (expect_equivariant)
    r.checks.push_back(check_at_most("f(PX) = P f(X): max |difference|", r.max_diff, 1e-12));
  else {
    const std::string pos = in.positions == PositionSignal::rope ? "RoPE positions" : "positions";
    r.checks.push_back(check_above(
        std::string("equivariance breaks with ") +
            (in.causal && in.positions != PositionSignal::none
                 ? "a causal mask and " + pos
                 : (in.causal ? std::string("a causal mask") : pos)) +
            ": max |f(PX) - P f(X)|",
        r.max_diff, 1e-3));
  }
  r.checks.push_back(check_at_most("permuting K and V together leaves query " +
                                       std::to_string(in.query) + "'s output: max |difference|",
                                   r.kv_diff, 1e-12));
  r.checks.push_back(check_at_most("rows sum to 1: max |sum - 1|",
                                   std::max(max_row_sum_error(r.weights_x),
                                            max_row_sum_error(r.weights_px)),
                                   1e-12));
  return r;
}

}  // namespace attn
