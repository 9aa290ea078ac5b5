#include "lessons/permutation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "attn/attention.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/random.hpp"
#include "lessons/position_symmetry.hpp"

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

PermutationResult permutation_experiment(const PermutationInput& in) {
  const PositionSymmetryResult s = position_symmetry(in);
  const Index t = static_cast<Index>(s.tokens.size());
  require_range("query", in.query, 0, t - 1);

  PermutationResult r;
  static_cast<PermutedSelfAttention&>(r) = s;
  r.difference = r.f_px - r.p_f_x;

  // One query against K, V in order, then against K, V permuted together (unmasked).
  const Matrix q = s.query_x.row(in.query);
  const AttentionResult plain = attention(q, s.key_x, s.value_x);
  const AttentionResult moved =
      attention(q, permute_rows(s.key_x, in.permutation), permute_rows(s.value_x, in.permutation));
  r.query_output = plain.output.row(0).transpose();
  r.query_output_kv_permuted = moved.output.row(0).transpose();
  r.kv_diff = max_abs_diff(plain.output, moved.output);

  const bool expect_equivariant = !in.causal && in.positions == PositionKind::none;
  if (expect_equivariant)
    r.checks.push_back(check_at_most("f(PX) = P f(X): max |difference|", r.max_diff, 1e-12));
  else {
    const std::string pos = in.positions == PositionKind::rope ? "RoPE positions" : "positions";
    r.checks.push_back(check_above(
        std::string("equivariance breaks with ") +
            (in.causal && in.positions != PositionKind::none
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
