// learn/layers_generic.hpp — the forward layers whose loops are one template over the element type,
// for layers.cpp (double) and layers_f32.cpp (float): LayerNorm and RoPE compute in double from the
// inputs either way and round once to S, so the double instantiation is the float64 layer exactly.
// Internal to core/learn; the public declarations are layers.hpp's.
#pragma once

#include <cmath>

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

}  // namespace attn::learn::generic
