#include "attn/temperature.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

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

TemperatureResult temperature_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                                        const MaskSpec& mask, double temperature, bool hard,
                                        const AttentionOptions& options) {
  if (!hard && (!std::isfinite(temperature) || !(temperature > 0.0)))
    throw Error(ErrorCode::invalid_field, "temperature must be a finite number > 0 (got " + std::to_string(temperature) +
                                              "); for the tau -> 0 limit choose hard (argmax) mode");
  TemperatureResult r;
  r.temperature = temperature;
  r.hard = hard;
  // 1. Ordinary attention gives the scaled scores, the mask and the empty-row handling.
  r.attention = attention(q, k, v, mask, options);
  AttentionResult& a = r.attention;
  const Index tq = a.scores.rows(), tk = a.scores.cols(), dv = v.cols();
  // 2. Re-normalise each row at τ, or select the argmax set.
  for (Index i = 0; i < tq; ++i) {
    if (a.empty_row[static_cast<size_t>(i)]) continue;
    double m = -INFINITY;
    for (Index j = 0; j < tk; ++j)
      if (a.allowed(i, j)) m = std::max(m, a.scores(i, j));
    double z = 0.0;
    for (Index j = 0; j < tk; ++j) {
      if (!a.allowed(i, j)) continue;
      const double w = hard ? (a.scores(i, j) == m ? 1.0 : 0.0) : det::exp((a.scores(i, j) - m) / temperature);
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
  // 4. Row statistics and the softmax Jacobian norm ‖diag(w) − w wᵀ‖_F / τ.
  for (Index i = 0; i < tq; ++i) {
    double mw = 0.0, h = 0.0, g2 = 0.0;
    for (Index j = 0; j < tk; ++j) {
      const double w = a.weights(i, j);
      mw = std::max(mw, w);
      if (w > 0.0) h -= w * det::log(w);
      for (Index l = 0; l < tk; ++l) {
        const double jac = (j == l ? w : 0.0) - w * a.weights(i, l);
        g2 += jac * jac;
      }
    }
    r.max_weight.push_back(mw);
    r.entropy.push_back(h);
    r.gradient_norm.push_back(hard ? 0.0 : std::sqrt(g2) / temperature);
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
  r.gradient_note = hard ? "hard (argmax) selection is piecewise constant in the scores: its gradient is 0 almost "
                           "everywhere and undefined at ties, so it gives no useful learning signal"
                         : "soft attention is differentiable: dw/ds = (diag(w) - w w^T)/tau; it shrinks as the "
                           "row saturates (tau -> 0)";
  r.checks.push_back(check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error(a.weights, a.empty_row), 1e-12));
  r.checks.push_back(check_at_most(std::string("outputs lie in the convex hull of the values") +
                                       (dv == 2 ? "" : " (per-coordinate range, d_v != 2)") + ": max distance outside",
                                   worst, 1e-12 * scale));
  if (hard) {
    double grad = 0.0;
    for (double g : r.gradient_norm) grad = std::max(grad, g);
    r.checks.push_back(check_at_most("argmax has no useful gradient: max |d weights / d scores|", grad, 0.0));
  }
  return r;
}

}  // namespace attn
