#include "lessons/masking_claims.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "attn/masks.hpp"

namespace attn {
namespace {

// Per-row max |a − b| (NaN propagates as the worst value).
std::vector<double> row_change(const Matrix& a, const Matrix& b) {
  std::vector<double> out(static_cast<size_t>(a.rows()), 0.0);
  for (Index i = 0; i < a.rows(); ++i)
    for (Index c = 0; c < a.cols(); ++c) {
      const double d = std::fabs(a(i, c) - b(i, c));
      double& m = out[static_cast<size_t>(i)];
      if (d > m || d != d) m = d;
    }
  return out;
}

double max_over(const std::vector<double>& v, size_t begin, size_t end) {
  double m = 0.0;
  for (size_t i = begin; i < end && i < v.size(); ++i)
    if (v[i] > m || v[i] != v[i]) m = v[i];
  return m;
}

void require_finite_number(double v, const std::string& name) {
  if (!std::isfinite(v)) throw Error(ErrorCode::non_finite, name + " must be a finite number");
}

}  // namespace

PrefixIsolationResult prefix_isolation(const Matrix& x, const HeadWeights& w, Index from, double amount) {
  require_shape_limits(x, "x", "T", "d_model");
  require_finite_number(amount, "amount");
  const Index t = x.rows();
  if (from < 1 || from > t - 1)
    throw Error(ErrorCode::invalid_field,
                "from must be between 1 and T-1 = " + std::to_string(t - 1) + " (a non-empty prefix and a "
                "non-empty future), got " + std::to_string(from));
  PrefixIsolationResult r;
  r.from = from;
  r.amount = amount;
  r.x = x;
  r.x_changed = x;
  r.x_changed.bottomRows(t - from).array() += amount;
  MaskSpec causal;
  causal.causal = Causal::square;
  r.causal_output = self_attention(r.x, w, causal).attention.output;
  r.causal_output_changed = self_attention(r.x_changed, w, causal).attention.output;
  r.unmasked_output = self_attention(r.x, w).attention.output;
  r.unmasked_output_changed = self_attention(r.x_changed, w).attention.output;
  r.causal_row_change = row_change(r.causal_output, r.causal_output_changed);
  r.unmasked_row_change = row_change(r.unmasked_output, r.unmasked_output_changed);
  r.causal_prefix_change = max_over(r.causal_row_change, 0, static_cast<size_t>(from));
  r.unmasked_prefix_change = max_over(r.unmasked_row_change, 0, static_cast<size_t>(from));
  const std::string rows = "outputs 0.." + std::to_string(from - 1);
  r.checks.push_back(check_at_most("causal: " + rows + " do not move when positions >= " +
                                       std::to_string(from) + " change: max |difference|",
                                   r.causal_prefix_change, 0.0));
  r.checks.push_back(check_above("negative control, no mask: " + rows + " move: max |difference|",
                                 r.unmasked_prefix_change, 0.0));
  return r;
}

KeyPaddingResult key_padding_experiment(const Matrix& x, const HeadWeights& w,
                                        const std::vector<bool>& key_valid, double amount) {
  require_shape_limits(x, "x", "T", "d_model");
  require_finite_number(amount, "amount");
  const Index t = x.rows();
  if (static_cast<Index>(key_valid.size()) != t)
    throw Error(ErrorCode::shape_mismatch, "key_valid has " + std::to_string(key_valid.size()) +
                                               " flags but x has T=" + std::to_string(t) + " positions");
  MaskSpec mask;
  mask.key_valid = key_valid;
  KeyPaddingResult r;
  r.key_valid = key_valid;
  r.ignored_by_loss.assign(key_valid.size(), false);
  for (size_t i = 0; i < key_valid.size(); ++i) r.ignored_by_loss[i] = !key_valid[i];
  r.attention = self_attention(x, w, mask).attention;  // throws no_allowed_key if no key is valid
  r.x_changed = x;
  for (Index i = 0; i < t; ++i)
    if (!key_valid[static_cast<size_t>(i)]) r.x_changed.row(i).array() += amount;
  r.output_changed = self_attention(r.x_changed, w, mask).attention.output;
  for (Index i = 0; i < t; ++i)
    for (Index j = 0; j < t; ++j)
      if (!key_valid[static_cast<size_t>(j)]) r.max_padded_weight = std::max(r.max_padded_weight, std::fabs(r.attention.weights(i, j)));
  const std::vector<double> change = row_change(r.attention.output, r.output_changed);
  for (size_t i = 0; i < change.size(); ++i) {
    double& m = key_valid[i] ? r.valid_rows_change : r.padded_rows_change;
    if (change[i] > m || change[i] != change[i]) m = change[i];
  }
  r.checks.push_back(check_at_most("padded keys get weight 0: max weight on a padded key", r.max_padded_weight, 0.0));
  r.checks.push_back(check_at_most("changing padded positions leaves valid rows: max |difference|",
                                   r.valid_rows_change, 0.0));
  r.checks.push_back(check_at_most("rows sum to 1, padded query rows included: max |sum - 1|",
                                   max_row_sum_error(r.attention.weights), 1e-12));
  return r;
}

EmptyRowDemo empty_row_demo(const Matrix& q, const Matrix& k, const Matrix& v, const MaskSpec& mask) {
  EmptyRowDemo r;
  AttentionOptions zero;
  zero.empty_rows = EmptyRows::zero;
  r.zero_policy = attention(q, k, v, mask, zero);  // every error but no_allowed_key surfaces here
  r.allowed = r.zero_policy.allowed;
  r.empty_row = r.zero_policy.empty_row;
  try {
    (void)attention(q, k, v, mask);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::no_allowed_key) throw;
    r.rejected = true;
    r.error_code = e.code_name();
    r.error_message = e.what();
  }
  size_t empty = 0;
  double zero_rows = 0.0;
  for (size_t i = 0; i < r.empty_row.size(); ++i) {
    if (!r.empty_row[i]) continue;
    ++empty;
    const Index row = static_cast<Index>(i);
    zero_rows = std::max({zero_rows, r.zero_policy.weights.row(row).cwiseAbs().maxCoeff(),
                          r.zero_policy.output.row(row).cwiseAbs().maxCoeff()});
  }
  r.checks.push_back(check_at_most(
      "the default policy refuses exactly when a row has no allowed key: |refused - has empty row|",
      std::fabs(static_cast<double>(r.rejected) - static_cast<double>(empty > 0)), 0.0));
  r.checks.push_back(check_at_most("zero policy: empty rows have zero weights and output: max |entry|",
                                   zero_rows, 0.0));
  r.checks.push_back(check_at_most("zero policy: other rows sum to 1: max |sum - 1|",
                                   max_row_sum_error(r.zero_policy.weights, r.empty_row), 1e-12));
  return r;
}

CausalAlignmentTable causal_alignments(Index tq, Index tk) {
  if (tq < 1 || tk < 1)
    throw Error(ErrorCode::empty_sequence, "Tq and Tk must both be at least 1, got Tq=" + std::to_string(tq) +
                                               ", Tk=" + std::to_string(tk));
  if (tq > kMaxTokens || tk > kMaxTokens || tq * tk > kMaxPairs)
    throw Error(ErrorCode::too_large, "Tq=" + std::to_string(tq) + ", Tk=" + std::to_string(tk) +
                                          " exceed the limits (each <= " + std::to_string(kMaxTokens) + ")");
  CausalAlignmentTable r;
  r.tq = tq;
  r.tk = tk;
  r.top_left = causal_mask(tq, tk, Causal::top_left);
  r.bottom_right = causal_mask(tq, tk, Causal::bottom_right);
  auto last_keys = [&](const BoolMatrix& m) {
    std::vector<long long> out(static_cast<size_t>(tq), -1);
    for (Index i = 0; i < tq; ++i)
      for (Index j = 0; j < tk; ++j)
        if (m(i, j)) out[static_cast<size_t>(i)] = j;
    return out;
  };
  r.top_left_last_key = last_keys(r.top_left);
  r.bottom_right_last_key = last_keys(r.bottom_right);
  try {
    (void)causal_mask(tq, tk, Causal::square);
  } catch (const Error& e) {
    r.square_refused = true;
    r.square_message = e.what();
  }
  // Claims, counted entry by entry against the closed forms j <= i and j <= i + Tk − Tq.
  double tl_bad = 0, br_bad = 0, differ = 0;
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) {
      tl_bad += r.top_left(i, j) != (j <= i);
      br_bad += r.bottom_right(i, j) != (j <= i + tk - tq);
      differ += r.top_left(i, j) != r.bottom_right(i, j);
    }
  r.checks.push_back(check_at_most("top-left: query i sees keys 0..i: entries off", tl_bad, 0.0));
  r.checks.push_back(check_at_most("bottom-right: query i sees keys 0..i+Tk-Tq: entries off", br_bad, 0.0));
  if (tq == tk) {
    r.checks.push_back(check_at_most("Tq = Tk: both alignments agree: entries that differ", differ, 0.0));
  } else {
    r.checks.push_back(check_above("Tq != Tk: the alignments differ: entries that differ", differ, 0.0));
    r.checks.push_back(check_above("Tq != Tk: plain causal is refused (refused = 1)",
                                   static_cast<double>(r.square_refused), 0.0));
  }
  return r;
}

}  // namespace attn
