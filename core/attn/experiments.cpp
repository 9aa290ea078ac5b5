#include "attn/experiments.hpp"

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
#include "attn/torch_replica.hpp"

namespace attn {

Check check_at_most(std::string claim, double measured, double limit) {
  return Check{std::move(claim), measured, limit, true, measured <= limit};
}
Check check_above(std::string claim, double measured, double limit) {
  return Check{std::move(claim), measured, limit, false, measured > limit};
}

// ---------------------------------------------------------------------------
// Alignment

namespace {
constexpr double kDistributionTolerance = 1e-9;

// Largest distance by which a 2-D point lies outside the triangle/segment/hull of
// `values`' rows, measured as the most negative barycentric-style margin. For a
// context built as a convex combination this is 0 up to rounding; for d_v != 2 we
// fall back to the per-coordinate bounding box (a necessary condition).
double hull_violation(const Matrix& values, const Matrix& contexts) {
  double worst = 0.0;
  for (Index i = 0; i < contexts.rows(); ++i)
    for (Index c = 0; c < contexts.cols(); ++c) {
      double lo = values(0, c), hi = values(0, c);
      for (Index j = 1; j < values.rows(); ++j) {
        lo = std::min(lo, values(j, c));
        hi = std::max(hi, values(j, c));
      }
      const double x = contexts(i, c);
      worst = std::max(worst, std::max(lo - x, x - hi));
    }
  return worst;
}
}  // namespace

AlignmentRead alignment_read(std::vector<std::string> queries, std::vector<std::string> keys,
                             const Matrix& weights, const Matrix& values) {
  require_shape_limits(weights, "weights", "Tq", "Tk");
  require_shape_limits(values, "values", "Tk", "d_v");
  require_finite(weights, "weights");
  require_finite(values, "values");
  if (weights.cols() != values.rows())
    throw Error(ErrorCode::shape_mismatch, "weights are " + shape_str(weights) + " and values " +
                                               shape_str(values) + ": one value per key is needed");
  if (static_cast<Index>(queries.size()) != weights.rows() ||
      static_cast<Index>(keys.size()) != weights.cols())
    throw Error(ErrorCode::shape_mismatch,
                std::to_string(queries.size()) + " query tokens and " + std::to_string(keys.size()) +
                    " key tokens do not label a " + shape_str(weights) + " weight matrix");
  for (Index i = 0; i < weights.rows(); ++i) {
    double sum = 0.0;
    for (Index j = 0; j < weights.cols(); ++j) {
      if (weights(i, j) < 0.0)
        throw Error(ErrorCode::invalid_field, "weight (" + std::to_string(i) + ", " +
                                                  std::to_string(j) + ") is negative; a row of "
                                                  "attention weights is a distribution");
      sum += weights(i, j);
    }
    if (std::fabs(sum - 1.0) > kDistributionTolerance)
      throw Error(ErrorCode::invalid_field, "weights row " + std::to_string(i) + " sums to " +
                                                std::to_string(sum) + ", not 1");
  }
  AlignmentRead r;
  r.queries = std::move(queries);
  r.keys = std::move(keys);
  r.weights = weights;
  r.values = values;
  r.contexts = matmul(weights, values, "weights·values");
  for (Index i = 0; i < weights.rows(); ++i) {
    Matrix terms(values.rows(), values.cols());
    for (Index j = 0; j < values.rows(); ++j) terms.row(j) = weights(i, j) * values.row(j);
    r.contributions.push_back(std::move(terms));
  }
  double min_w = 0.0;
  for (Index i = 0; i < weights.rows(); ++i)
    for (Index j = 0; j < weights.cols(); ++j) min_w = std::min(min_w, weights(i, j));
  r.checks.push_back(
      check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error(weights), 1e-12));
  r.checks.push_back(check_at_most("weights are >= 0: -min weight", -min_w, 0.0));
  r.checks.push_back(check_at_most("contexts lie inside the values' range: max excess",
                                   hull_violation(values, r.contexts), 1e-12));
  return r;
}

AlignmentRead lesson_alignment() {
  Matrix w(3, 3), v(3, 2);
  w << 0.8, 0.1, 0.1,  //
      0.1, 0.1, 0.8,   //
      0.1, 0.8, 0.1;
  v << 1, 0,  //
      0, 1,   //
      2, 0;
  return alignment_read({"le", "chat", "noir"}, {"the", "black", "cat"}, w, v);
}

void set_weight_keep_distribution(Matrix& weights, Index row, Index col, double value) {
  if (row < 0 || row >= weights.rows() || col < 0 || col >= weights.cols())
    throw Error(ErrorCode::invalid_field, "weight (" + std::to_string(row) + ", " +
                                              std::to_string(col) + ") is outside the " +
                                              shape_str(weights) + " matrix");
  if (!std::isfinite(value))
    throw Error(ErrorCode::non_finite, "a weight must be a finite number between 0 and 1");
  value = std::min(1.0, std::max(0.0, value));
  const Index tk = weights.cols();
  double others = 0.0;
  for (Index j = 0; j < tk; ++j)
    if (j != col) others += weights(row, j);
  const double rest = 1.0 - value;
  for (Index j = 0; j < tk; ++j) {
    if (j == col) continue;
    // Keep the other entries' proportions; spread evenly if they were all zero.
    weights(row, j) = others > 0.0 ? weights(row, j) * (rest / others)
                                   : (tk > 1 ? rest / static_cast<double>(tk - 1) : 0.0);
  }
  weights(row, col) = tk > 1 ? value : 1.0;
}

// ---------------------------------------------------------------------------
// Random heads

namespace {

struct Embedded {
  std::vector<std::string> tokens;
  Matrix x;
};

void require_range(const char* name, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    throw Error(ErrorCode::invalid_field, std::string(name) + " must be between " +
                                              std::to_string(lo) + " and " + std::to_string(hi) +
                                              ", got " + std::to_string(v));
}

// Tokenise, build the vocabulary, draw the embedding table from rng, look up rows.
Embedded embed_sentence(const std::string& sentence, int d_model, Rng& rng) {
  Embedded e;
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

double max_masked_weight(const AttentionResult& r) {
  double m = 0.0;
  for (Index i = 0; i < r.weights.rows(); ++i)
    for (Index j = 0; j < r.weights.cols(); ++j)
      if (!r.allowed(i, j)) m = std::max(m, std::fabs(r.weights(i, j)));
  return m;
}

}  // namespace

RandomHeadsResult random_heads(const RandomHeadsInput& in) {
  require_range("heads", in.heads, 1, 8);
  require_range("d_model", in.d_model, 1, 512);
  require_range("d_k", in.d_k, 1, 512);
  const Index width = static_cast<Index>(in.heads) * in.d_k;
  Embedded e;
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
  if (in.positions == PositionSignal::sinusoidal) e.x += sinusoidal_positions(t, in.d_model);

  MaskSpec mask;
  if (in.causal) mask.causal = Causal::square;
  if (in.valid_length != -1) {
    require_range("valid length", in.valid_length, 1, t);
    std::vector<bool> valid(static_cast<size_t>(t), false);
    for (int j = 0; j < in.valid_length; ++j) valid[static_cast<size_t>(j)] = true;
    mask.key_valid = valid;
  }
  MultiHeadResult mh;
  if (in.positions == PositionSignal::rope) {
    // RoPE rotates each head's queries and keys (its own d_k features) by slot position 0..T−1.
    const Matrix q = matmul(e.x, w.w_q, "x·w_q"), k = matmul(e.x, w.w_k, "x·w_k");
    const Matrix v = matmul(e.x, w.w_v, "x·w_v");
    for (Index h = 0; h < in.heads; ++h)
      mh.heads.push_back(attention(apply_rope(q.middleCols(h * in.d_k, in.d_k)),
                                   apply_rope(k.middleCols(h * in.d_k, in.d_k)), v.middleCols(h * in.d_k, in.d_k),
                                   mask));
  } else {
    mh = multi_head_attention(e.x, e.x, w, mask);
  }

  RandomHeadsResult r;
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

// ---------------------------------------------------------------------------
// Permutation

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
  Embedded e = embed_sentence(in.sentence, in.d_model, rng);
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
