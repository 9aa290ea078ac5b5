#include "lessons/attribution.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

double norm2(const Vector& v) {
  double s = 0.0;
  for (Index i = 0; i < v.size(); ++i) s += v(i) * v(i);
  return std::sqrt(s);
}

}  // namespace

AttributionResult attribution(const Vector& weights, const Matrix& values) {
  require_shape_limits(values, "values", "Tk", "d_v");
  require_finite(values, "values");
  const Index tk = values.rows(), dv = values.cols();
  if (weights.size() != tk)
    throw Error(ErrorCode::shape_mismatch, "weights has " + std::to_string(weights.size()) +
                                               " entries but values has Tk=" + std::to_string(tk) + " rows");
  double sum = 0.0;
  for (Index j = 0; j < tk; ++j) {
    if (!std::isfinite(weights(j)))
      throw Error(ErrorCode::non_finite, "weights[" + std::to_string(j) + "] is not a finite number");
    if (weights(j) < 0.0)
      throw Error(ErrorCode::invalid_field, "weights[" + std::to_string(j) +
                                                "] is negative; a row of attention weights is a distribution");
    sum += weights(j);
  }
  if (std::fabs(sum - 1.0) > 1e-9)
    throw Error(ErrorCode::invalid_field, "weights sum to " + std::to_string(sum) + ", not 1");

  AttributionResult r;
  r.weights = weights;
  r.values = values;
  r.contributions = Matrix(tk, dv);
  r.contribution_norms = Vector(tk);
  r.output = Vector::Zero(dv);
  for (Index j = 0; j < tk; ++j) {
    for (Index c = 0; c < dv; ++c) {
      r.contributions(j, c) = weights(j) * values(j, c);
      r.output(c) += r.contributions(j, c);
    }
    r.contribution_norms(j) = norm2(r.contributions.row(j).transpose());
    if (weights(j) > weights(r.top_weight_key)) r.top_weight_key = j;
    if (r.contribution_norms(j) > r.contribution_norms(r.top_contribution_key)) r.top_contribution_key = j;
  }

  // Interventions, each recomputed from scratch (not from the identities they illustrate).
  r.zero_value_change = Vector(tk);
  r.remove_key_change = Vector(tk);
  r.remove_key_possible.assign(static_cast<size_t>(tk), false);
  double identity_gap = 0.0;
  for (Index j = 0; j < tk; ++j) {
    Vector zeroed = Vector::Zero(dv), removed = Vector::Zero(dv);
    double rest = 0.0;
    for (Index i = 0; i < tk; ++i)
      if (i != j) rest += weights(i);
    for (Index i = 0; i < tk; ++i) {
      if (i == j) continue;  // v_j := 0 adds nothing; key j removed adds nothing
      for (Index c = 0; c < dv; ++c) {
        zeroed(c) += weights(i) * values(i, c);
        if (rest > 0.0) removed(c) += (weights(i) / rest) * values(i, c);
      }
    }
    r.zero_value_change(j) = norm2(r.output - zeroed);
    r.remove_key_possible[static_cast<size_t>(j)] = rest > 0.0;
    r.remove_key_change(j) = rest > 0.0 ? norm2(r.output - removed) : std::numeric_limits<double>::quiet_NaN();
    identity_gap = std::max(identity_gap, std::fabs(r.zero_value_change(j) - r.contribution_norms(j)));
  }
  Vector resum = Vector::Zero(dv);
  for (Index j = 0; j < tk; ++j) resum += r.contributions.row(j).transpose();
  r.checks.push_back(check_at_most("output = sum of contributions a_j v_j: max |difference|",
                                   (resum - r.output).cwiseAbs().maxCoeff(), 1e-12));
  r.checks.push_back(check_at_most("zeroing v_j changes the output by ||a_j v_j||: max |difference|",
                                   identity_gap, 1e-12));
  return r;
}

AttributionResult attribution_counterexample() {
  Vector a(2);
  a << 0.99, 0.01;
  Matrix v(2, 2);
  v << 0, 0,  //
      10, 20;
  AttributionResult r = attribution(a, v);
  r.checks.push_back(check_at_most("the top-weight key (0.99) contributes nothing: ||a_top v_top||",
                                   r.contribution_norms(r.top_weight_key), 0.0));
  Vector expect(2);
  expect << 0.1, 0.2;
  r.checks.push_back(check_at_most("output is (0.1, 0.2): max |difference|",
                                   (r.output - expect).cwiseAbs().maxCoeff(), 1e-12));
  return r;
}

}  // namespace attn
