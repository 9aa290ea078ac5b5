// learn/layers_generic.hpp — the forward layers whose loops are one template over the element type,
// for layers.cpp (double) and layers_f32.cpp (float): LayerNorm, RoPE and the softmax cross-entropy
// compute in double from the inputs either way and round once to S, so the double instantiation is
// the float64 layer exactly.
// Internal to core/learn; the public declarations are layers.hpp's.
#pragma once

#include <cmath>

#include "attn/detmath.hpp"
#include "learn/layers.hpp"

namespace attn::learn::generic {

/// layers.hpp's layernorm_forward over S: statistics in double, ascending j.
template <class S>
void layernorm_forward(S* out, S* mean, S* rstd, const S* inp, const S* weight, const S* bias, int n, int c, double eps) {
  for (int i = 0; i < n; ++i) {
    const S* x = inp + static_cast<long>(i) * c;
    double m = 0.0;
    for (int j = 0; j < c; ++j) m += x[j];
    m /= c;
    double var = 0.0;
    for (int j = 0; j < c; ++j) {
      const double d = x[j] - m;
      var += d * d;
    }
    var /= c;
    const double r = 1.0 / std::sqrt(var + eps);
    S* y = out + static_cast<long>(i) * c;
    for (int j = 0; j < c; ++j) y[j] = static_cast<S>((x[j] - m) * r * weight[j] + bias[j]);
    mean[i] = static_cast<S>(m);
    rstd[i] = static_cast<S>(r);
  }
}

/// layers.hpp's rope_forward over S: each rotated pair in double.
template <class S>
void rope_forward(S* x, const RopeTable& tab, int t, int stride, int first) {
  const int pairs = tab.d / 2;
  for (int m = 0; m < t; ++m) {
    S* row = x + static_cast<long>(m) * stride;
    const size_t at = static_cast<size_t>(first + m) * pairs;
    for (int i = 0; i < pairs; ++i) {
      const double c = tab.cos[at + i], s = tab.sin[at + i];
      const double a = row[2 * i], b = row[2 * i + 1];
      row[2 * i] = static_cast<S>(a * c - b * s);
      row[2 * i + 1] = static_cast<S>(a * s + b * c);
    }
  }
}

/// layers.hpp's cross_entropy_forward over S: each row's maximum, normaliser and loss term in
/// double, ascending j. `exp_row(p, z, mx, v)` returns a row of v doubles holding det::exp(z[j] − mx)
/// (the double layer writes them into p itself, vectorised with the same bits; the float one into
/// a double buffer of its own); the probabilities are those divided by their sum, rounded once to S.
template <class S, class ExpRow>
double cross_entropy_forward(S* probs, const S* logits, const int* targets, int n, int v, int* counted, ExpRow exp_row) {
  double total = 0.0;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const S* z = logits + static_cast<long>(i) * v;
    S* p = probs + static_cast<long>(i) * v;
    double mx = z[0];
    for (int j = 1; j < v; ++j)
      if (z[j] > mx) mx = z[j];
    const double* e = exp_row(p, z, mx, v);
    double sum = 0.0;
    for (int j = 0; j < v; ++j) sum += e[j];
    for (int j = 0; j < v; ++j) p[j] = static_cast<S>(e[j] / sum);
    if (targets[i] == kIgnoreIndex) continue;
    // −log softmax = log Σ exp(z − max) − (z_t − max)
    total += det::log(sum) - (static_cast<double>(z[targets[i]]) - mx);
    ++count;
  }
  if (counted) *counted = count;
  return count > 0 ? total / count : 0.0;
}

}  // namespace attn::learn::generic
