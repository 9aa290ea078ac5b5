#include "lessons/temperature.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"
#include "learn/layers.hpp"

namespace attn {
namespace {

// Hard selection of one row: 1/m on each of the m allowed keys at the row maximum, 0 elsewhere;
// all 0 for a row with no allowed key.
void argmax_row(const double* s, const unsigned char* ok, Index n, double* w) {
  double m = -INFINITY;
  for (Index j = 0; j < n; ++j)
    if (ok[j]) m = std::max(m, s[j]);
  double z = 0.0;
  for (Index j = 0; j < n; ++j) {
    w[j] = ok[j] && s[j] == m ? 1.0 : 0.0;
    z += w[j];
  }
  for (Index j = 0; j < n; ++j)
    if (ok[j]) w[j] /= z;
}

// Central finite-difference probe of the hard selection of one row: for each allowed key j whose
// score is not a tied maximum, (w(s + δe_j) − w(s − δe_j)) / (realised 2δ), δ = kArgmaxProbeStep ×
// the gap between the top score and the next distinct one, floored at 4 ulps of the row's largest
// |score|; probed only where δ <= gap/8, so no perturbed score can reach or leave the top.
struct ArgmaxProbe {
  double norm2 = 0.0;   // Σ over probed (j, l) of the squared difference quotients
  double max_abs = 0.0;
  int partials = 0;
  bool whole = false;   // every allowed key probed (a unique top and a resolvable gap)
};
ArgmaxProbe probe_argmax_row(const double* s, const unsigned char* ok, Index n) {
  ArgmaxProbe p;
  double top = -INFINITY, biggest = 0.0;
  int tied = 0, allowed = 0;
  for (Index j = 0; j < n; ++j) {
    if (!ok[j]) continue;
    ++allowed;
    biggest = std::max(biggest, std::fabs(s[j]));
    if (s[j] > top) top = s[j], tied = 1;
    else if (s[j] == top) ++tied;
  }
  if (allowed == 0) {  // an empty row has no score: its Jacobian has no column, norm 0
    p.whole = true;
    return p;
  }
  double next = -INFINITY;
  for (Index j = 0; j < n; ++j)
    if (ok[j] && s[j] < top) next = std::max(next, s[j]);
  const double gap = next == -INFINITY ? std::max(1.0, biggest) : top - next;  // one distinct score: its size
  const double ulp = std::nextafter(biggest, INFINITY) - biggest;
  const double step = std::max(kArgmaxProbeStep * gap, 4.0 * ulp);
  if (!(step <= gap / 8.0)) return p;  // the top two scores are too close to resolve
  std::vector<double> sp(s, s + n), wp(static_cast<size_t>(n)), wm(static_cast<size_t>(n));
  p.whole = tied == 1;
  for (Index j = 0; j < n; ++j) {
    if (!ok[j] || (tied > 1 && s[j] == top)) continue;  // a tied top score has no derivative
    sp[j] = s[j] + step;
    const double hi = sp[j];
    argmax_row(sp.data(), ok, n, wp.data());
    sp[j] = s[j] - step;
    const double lo = sp[j];
    argmax_row(sp.data(), ok, n, wm.data());
    sp[j] = s[j];
    for (Index l = 0; l < n; ++l) {
      if (!ok[l]) continue;  // a masked key's weight is 0 whatever the scores
      const double d = (wp[l] - wm[l]) / (hi - lo);
      p.norm2 += d * d;
      p.max_abs = std::max(p.max_abs, std::fabs(d));
      ++p.partials;
    }
  }
  return p;
}

double cross(double ox, double oy, double ax, double ay, double bx, double by) {
  return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox);
}

double segment_distance(double ax, double ay, double bx, double by, double px, double py) {
  const double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0.0;
  t = std::min(1.0, std::max(0.0, t));
  const double ex = ax + t * dx - px, ey = ay + t * dy - py;
  return std::sqrt(ex * ex + ey * ey);
}

}  // namespace

Matrix convex_hull_2d(const Matrix& points) {
  require_shape_limits(points, "points", "n", "2");
  require_finite(points, "points");
  if (points.cols() != 2) throw Error(ErrorCode::shape_mismatch, "a 2-D hull needs n x 2 points, got " + shape_str(points));
  std::vector<std::pair<double, double>> p;
  for (Index i = 0; i < points.rows(); ++i) p.emplace_back(points(i, 0), points(i, 1));
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  if (p.size() < 3) {
    Matrix h(static_cast<Index>(p.size()), 2);
    for (size_t i = 0; i < p.size(); ++i) h.row(static_cast<Index>(i)) << p[i].first, p[i].second;
    return h;
  }
  // Andrew's monotone chain: lower then upper hull, dropping non-left turns (collinear too).
  std::vector<std::pair<double, double>> h(2 * p.size());
  size_t n = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    while (n >= 2 && cross(h[n - 2].first, h[n - 2].second, h[n - 1].first, h[n - 1].second, p[i].first, p[i].second) <= 0) --n;
    h[n++] = p[i];
  }
  for (size_t i = p.size() - 1, lower = n + 1; i-- > 0;) {
    while (n >= lower && cross(h[n - 2].first, h[n - 2].second, h[n - 1].first, h[n - 1].second, p[i].first, p[i].second) <= 0) --n;
    h[n++] = p[i];
  }
  --n;  // the last point repeats the first
  Matrix out(static_cast<Index>(n), 2);
  for (size_t i = 0; i < n; ++i) out.row(static_cast<Index>(i)) << h[i].first, h[i].second;
  return out;
}

double hull_distance_2d(const Matrix& hull, double px, double py) {
  const Index n = hull.rows();
  if (n == 0) return INFINITY;
  if (n == 1) return std::hypot(px - hull(0, 0), py - hull(0, 1));
  if (n == 2) return segment_distance(hull(0, 0), hull(0, 1), hull(1, 0), hull(1, 1), px, py);
  bool inside = true;
  for (Index i = 0; i < n; ++i) {
    const Index j = (i + 1) % n;
    if (cross(hull(i, 0), hull(i, 1), hull(j, 0), hull(j, 1), px, py) < 0) inside = false;
  }
  if (inside) return 0.0;
  double best = INFINITY;
  for (Index i = 0; i < n; ++i) {
    const Index j = (i + 1) % n;
    best = std::min(best, segment_distance(hull(i, 0), hull(i, 1), hull(j, 0), hull(j, 1), px, py));
  }
  return best;
}

double softmax_jacobian_norm(const double* s, const unsigned char* allowed, int n, double scale, double* weights) {
  learn::AttentionShape shape;
  shape.tq = 1;
  shape.tk = n;
  shape.dk = shape.dv = 1;
  shape.q_stride = shape.k_stride = shape.v_stride = shape.out_stride = 1;
  shape.scale = scale;
  const double q = 1.0;
  std::vector<double> k(static_cast<size_t>(n)), v(k.size(), 0.0), w(k.size()), dk(k.size()), dv(k.size());
  for (int j = 0; j < n; ++j) k[static_cast<size_t>(j)] = !allowed || allowed[j] ? s[j] : 0.0;
  double out = 0.0;
  learn::attention_forward(&out, w.data(), &q, k.data(), v.data(), allowed, shape);
  double norm2 = 0.0;
  for (int l = 0; l < n; ++l) {  // row l of the Jacobian: upstream gradient one-hot on w_l
    const double dout = 1.0;
    double dq = 0.0;
    std::fill(dk.begin(), dk.end(), 0.0);
    v[static_cast<size_t>(l)] = 1.0;
    learn::attention_backward(&dq, dk.data(), dv.data(), &dout, w.data(), &q, k.data(), v.data(), shape);
    v[static_cast<size_t>(l)] = 0.0;
    for (double d : dk) norm2 += d * d;
  }
  if (weights) std::copy(w.begin(), w.end(), weights);
  return std::sqrt(norm2);
}

TemperatureResult temperature_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const MaskSpec& mask, double temperature, bool hard,
                                        const AttentionOptions& options) {
  if (!hard && (!std::isfinite(temperature) || !(temperature > 0.0)))
    throw Error(ErrorCode::invalid_field, "temperature must be a finite number > 0 (got " + std::to_string(temperature) +
                                              "); for the τ → 0 limit choose hard (argmax) mode");
  TemperatureResult r;
  r.temperature = temperature;
  r.hard = hard;
  // 1. Ordinary attention gives the scaled scores, the mask and the empty-row handling.
  r.attention = attention(q, k, v, mask, options);
  AttentionResult& a = r.attention;
  const Index tq = a.scores.rows(), tk = a.scores.cols(), dv = v.cols();
  // 2. Re-normalise each row at τ, or select the argmax set (the function the probe perturbs).
  std::vector<double> srow(static_cast<size_t>(tk)), wrow(srow.size());
  std::vector<unsigned char> okrow(static_cast<size_t>(tk));
  auto load_row = [&](Index i) {
    for (Index j = 0; j < tk; ++j) {
      okrow[static_cast<size_t>(j)] = a.allowed(i, j) ? 1 : 0;
      srow[static_cast<size_t>(j)] = a.allowed(i, j) ? a.scores(i, j) : 0.0;
    }
  };
  for (Index i = 0; i < tq; ++i) {
    if (a.empty_row[static_cast<size_t>(i)]) continue;
    if (hard) {
      load_row(i);
      argmax_row(srow.data(), okrow.data(), tk, wrow.data());
      for (Index j = 0; j < tk; ++j) a.weights(i, j) = wrow[static_cast<size_t>(j)];
      continue;
    }
    double m = -INFINITY;
    for (Index j = 0; j < tk; ++j)
      if (a.allowed(i, j)) m = std::max(m, a.scores(i, j));
    double z = 0.0;
    for (Index j = 0; j < tk; ++j) {
      if (!a.allowed(i, j)) continue;
      const double w = det::exp((a.scores(i, j) - m) / temperature);
      a.weights(i, j) = w;
      z += w;
    }
    for (Index j = 0; j < tk; ++j)
      if (a.allowed(i, j)) a.weights(i, j) /= z;
  }
  // 3. Outputs over allowed keys, in key order (as attention() sums them).
  a.output = Matrix::Zero(tq, dv);
  for (Index i = 0; i < tq; ++i)
    for (Index j = 0; j < tk; ++j) {
      if (!a.allowed(i, j)) continue;
      for (Index c = 0; c < dv; ++c) a.output(i, c) += a.weights(i, j) * v(j, c);
    }
  // 4. Row statistics and ‖∂w/∂s‖_F: soft, by the backward pass on the scores with scale 1/τ (the
  //    chain rule through s/τ happens inside the backward); hard, by the finite-difference probe.
  r.uniform_entropy = det::log(static_cast<double>(tk));
  for (Index i = 0; i < tq; ++i) {
    double mw = 0.0, h = 0.0;
    for (Index j = 0; j < tk; ++j) {
      const double w = a.weights(i, j);
      mw = std::max(mw, w);
      if (w > 0.0) h -= w * det::log(w);
    }
    load_row(i);
    r.max_weight.push_back(mw);
    r.entropy.push_back(h);
    if (!hard) {
      r.gradient_norm.push_back(
          softmax_jacobian_norm(srow.data(), okrow.data(), static_cast<int>(tk), 1.0 / temperature));
      r.gradient_probed.push_back(true);
      continue;
    }
    const ArgmaxProbe p = probe_argmax_row(srow.data(), okrow.data(), tk);
    r.gradient_norm.push_back(p.whole ? std::sqrt(p.norm2) : NAN);
    r.gradient_probed.push_back(p.whole);
    r.probe_max = std::max(r.probe_max, p.max_abs);
    r.probed_partials += p.partials;
  }
  // 5. Hull: exact 2-D hull for d_v = 2, else the per-coordinate range of the values.
  double scale = 1.0;
  for (Index j = 0; j < v.rows(); ++j)
    for (Index c = 0; c < dv; ++c) scale = std::max(scale, std::fabs(v(j, c)));
  r.hull = dv == 2 ? convex_hull_2d(v) : Matrix(0, 2);
  double worst = 0.0;
  for (Index i = 0; i < tq; ++i) {
    double e = 0.0;
    if (!a.empty_row[static_cast<size_t>(i)]) {
      if (dv == 2) {
        e = hull_distance_2d(r.hull, a.output(i, 0), a.output(i, 1));
      } else {
        for (Index c = 0; c < dv; ++c)
          e = std::max({e, v.col(c).minCoeff() - a.output(i, c), a.output(i, c) - v.col(c).maxCoeff()});
      }
    }
    r.hull_excess.push_back(e);
    worst = std::max(worst, e);
  }
  int unprobed = 0;
  for (bool b : r.gradient_probed) unprobed += b ? 0 : 1;
  auto num = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return std::string(buf);
  };
  if (!hard) {
    r.gradient_note = "Soft attention is differentiable: dw/ds is measured by the softmax backward pass (it "
                      "equals (diag(w) − w wᵀ)/τ).";
  } else {
    r.gradient_note = "hard (argmax) selection, measured by a central finite-difference probe (each allowed score "
                      "moved by ±" + num(kArgmaxProbeStep) + " of its row's score gap): max |dw/ds| = " +
                      num(r.probe_max) + " over " + std::to_string(r.probed_partials) +
                      " partial derivatives. The selection is piecewise constant in the scores, so it gives no "
                      "useful learning signal";
    if (unprobed > 0)
      r.gradient_note += "; " + std::to_string(unprobed) + (unprobed == 1 ? " row has" : " rows have") +
                         " a tied top score (or top two closer than the probe resolves): there the selection "
                         "jumps and the gradient does not exist (null)";
  }
  r.checks.push_back(check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error(a.weights, a.empty_row), 1e-12));
  r.checks.push_back(check_at_most(std::string("outputs lie in the convex hull of the values") +
                                       (dv == 2 ? "" : " (per-coordinate range, d_v != 2)") + ": max distance outside",
                                   worst, 1e-12 * scale));
  if (hard && r.probed_partials > 0)
    r.checks.push_back(check_at_most("argmax has no useful gradient: max |d weights / d scores| by a central "
                                     "finite-difference probe (" +
                                         std::to_string(r.probed_partials) + " partial derivatives)",
                                     r.probe_max, 0.0));
  return r;
}

TemperatureGradientTrend temperature_gradient_trend(double temperature, const std::vector<double>& norms,
                                                    double reference_temperature,
                                                    const std::vector<double>& reference_norms) {
  for (double t : {temperature, reference_temperature})
    if (!std::isfinite(t) || !(t > 0.0))
      throw Error(ErrorCode::invalid_field, "gradient trend: temperatures must be finite and > 0");
  if (norms.empty() || norms.size() != reference_norms.size())
    throw Error(ErrorCode::invalid_field, "gradient trend: needs the same rows at both temperatures, got " +
                                              std::to_string(norms.size()) + " and " +
                                              std::to_string(reference_norms.size()));
  TemperatureGradientTrend t;
  t.temperature = temperature;
  t.reference_temperature = reference_temperature;
  for (size_t i = 0; i < norms.size(); ++i) {
    if (!std::isfinite(norms[i]) || norms[i] < 0 || !std::isfinite(reference_norms[i]) || reference_norms[i] < 0)
      throw Error(ErrorCode::invalid_field, "gradient trend: row " + std::to_string(i) + " has no finite norm");
    t.mean_norm += norms[i];
    t.reference_mean_norm += reference_norms[i];
    t.max_norm = std::max(t.max_norm, norms[i]);
  }
  t.mean_norm /= static_cast<double>(norms.size());
  t.reference_mean_norm /= static_cast<double>(norms.size());
  if (!(t.reference_mean_norm > 0))
    throw Error(ErrorCode::invalid_field, "gradient trend: the reference rows have no gradient to compare with");
  t.ratio = t.mean_norm / t.reference_mean_norm;
  t.factor_ratio = reference_temperature / temperature;
  t.bracket_ratio = t.ratio / t.factor_ratio;
  auto num = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return std::string(buf);
  };
  const std::string at = "At τ = " + num(temperature) + " the rows' mean ‖dw/ds‖ is " + num(t.mean_norm);
  if (temperature == reference_temperature) {
    t.caption = at + ". This is the reference τ: move τ to measure whether the 1/τ factor of "
                     "(diag(w) − w wᵀ)/τ or the saturating bracket wins.";
    return t;
  }
  const bool colder = temperature < reference_temperature;  // then 1/τ grew
  const bool grew = t.ratio > 1.0;
  const bool bracket_grew = t.bracket_ratio > 1.0;
  const std::string outcome = std::string("the gradient ") + (grew ? "grew" : "shrank") + " as τ " + (colder ? "fell" : "rose");
  std::string verdict;
  if (colder == bracket_grew)
    verdict = "both pushed the same way: " + outcome;
  else if (colder == grew)
    verdict = "the 1/τ factor wins: " + outcome;
  else
    verdict = "the bracket wins: " + outcome;
  t.caption = at + ", " + num(t.ratio) + "× its value at τ = " + num(reference_temperature) + " (" +
              num(t.reference_mean_norm) + "). Of (diag(w) − w wᵀ)/τ, the 1/τ factor changed " + num(t.factor_ratio) +
              "× and the bracket " + num(t.bracket_ratio) + "× as the rows " + (colder ? "sharpened" : "flattened") +
              ", so " + verdict + ".";
  return t;
}

}  // namespace attn
