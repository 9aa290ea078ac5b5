#include "lessons/additive_checks.hpp"

#include <algorithm>
#include <cmath>

namespace attn {
namespace {

// max_c |Σ_j a_j h_jc − c_c|, the context recomputed in the order j = 0..Tk−1.
double context_gap(const Vector& weights, const Matrix& h, const Vector& context) {
  double worst = 0.0;
  for (Index c = 0; c < h.cols(); ++c) {
    double s = 0.0;
    for (Index j = 0; j < h.rows(); ++j) s += weights(j) * h(j, c);
    worst = std::max(worst, std::fabs(s - context(c)));
  }
  return worst;
}

double row_sum_gap(const Vector& w) { return std::fabs(w.sum() - 1.0); }

}  // namespace

std::vector<Check> additive_checks(const AdditiveResult& r, const Matrix& h) {
  std::vector<Check> checks;
  checks.push_back(check_at_most("weights sum to 1 over valid positions: |sum - 1|", row_sum_gap(r.weights), 1e-12));
  double invalid = 0.0;
  for (Index j = 0; j < r.weights.size(); ++j)
    if (!r.key_valid[static_cast<size_t>(j)]) invalid = std::max(invalid, std::fabs(r.weights(j)));
  checks.push_back(check_at_most("invalid positions get weight 0: max weight", invalid, 0.0));
  checks.push_back(check_at_most("context = sum_j a_j h_j: max |difference|", context_gap(r.weights, h, r.context), 1e-12));
  return checks;
}

std::vector<Check> scoring_checks(const ScoringComparison& r, const Matrix& h) {
  double sums = 0.0, ctx = 0.0;
  for (Index f = 0; f < r.weights.rows(); ++f) {
    const Vector w = r.weights.row(f).transpose(), c = r.contexts.row(f).transpose();
    sums = std::max(sums, row_sum_gap(w));
    ctx = std::max(ctx, context_gap(w, h, c));
  }
  return {check_at_most("each scoring function gives a distribution: max |sum - 1|", sums, 1e-12),
          check_at_most("each context = sum_j a_j h_j: max |difference|", ctx, 1e-12)};
}

}  // namespace attn
