// The forward layers in float32, for full-size models (GPT-2 small and up) whose weights are held
// once in float: the same functions as layers.hpp's double ones, overloaded on the element type, so
// that the decoder's forward (decoder.cpp) is one template over the scalar. Forward only: training
// stays in float64.
//
// Determinism as in float64: every sum runs in a fixed order (ascending over the reduced index), no
// contraction (-ffp-contract=off), vectorised only across independent outputs, so native and wasm
// give the same bits. Where a float sum would lose what the lesson measures (LayerNorm's
// statistics, the softmax's normaliser, the GELUs' transcendental functions) the arithmetic is done
// in double from the float inputs and rounded once: still one fixed order, still the same bits.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attn/det_tanh.hpp"
#include "attn/detmath.hpp"
#include "learn/layers.hpp"
#include "learn/layers_generic.hpp"

#define ATTN_LINEAR_F32_NS linear_f32_base
#include "learn/linear_f32_impl.hpp"

namespace attn::learn {

void embedding_forward(float* out, const int* tokens, const float* table, int n, int c) {
  for (int i = 0; i < n; ++i) std::copy(table + static_cast<long>(tokens[i]) * c, table + static_cast<long>(tokens[i] + 1) * c,
                                        out + static_cast<long>(i) * c);
}

namespace detail {
void linear_f32_avx2(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc);
}  // namespace detail

void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc) {
#if defined(ATTN_LINEAR_F32_AVX2)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return detail::linear_f32_avx2(out, inp, weight, bias, n, ic, oc);
#endif
  linear_f32_base::linear(out, inp, weight, bias, n, ic, oc);
}

void relu_forward(float* out, const float* inp, int n) {
  for (int i = 0; i < n; ++i) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void gelu_forward(float* out, const float* inp, int n) {
  for (int i = 0; i < n; ++i) {
    const double x = inp[i];
    out[i] = static_cast<float>(x * 0.5 * (1.0 + det::erf(x * 0.7071067811865476)));
  }
}

void gelu_new_forward(float* out, const float* inp, int n) {
  for (int i = 0; i < n; ++i) {
    const double x = inp[i];
    out[i] = static_cast<float>(0.5 * x * (1.0 + det::tanh(0.7978845608028654 * (x + 0.044715 * (x * x * x)))));
  }
}

void residual_forward(float* x, const float* y, int n) {
  for (int i = 0; i < n; ++i) x[i] += y[i];
}

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight, const float* bias,
                       int n, int c, double eps) {
  generic::layernorm_forward(out, mean, rstd, inp, weight, bias, n, c, eps);
}

void rope_forward(float* x, const RopeTable& tab, int t, int stride, int first) {
  generic::rope_forward(x, tab, t, stride, first);
}

void attention_forward(float* out, float* weights, const float* q, const float* k, const float* v,
                       const unsigned char* allowed, const AttentionShape& s) {
  const float scale = static_cast<float>(s.scale);
  thread_local std::vector<double> e;
  e.resize(static_cast<size_t>(s.tk));
  for (int i = 0; i < s.tq; ++i) {
    float* w = weights + static_cast<long>(i) * s.tk;
    float* o = out + static_cast<long>(i) * s.out_stride;
    const float* qi = q + static_cast<long>(i) * s.q_stride;
    const unsigned char* ok = allowed ? allowed + static_cast<long>(i) * s.tk : nullptr;
    float mx = -std::numeric_limits<float>::infinity();
    bool any = false;
    for (int j = 0; j < s.tk; ++j) {
      if (ok && !ok[j]) {
        w[j] = 0.0f;
        continue;
      }
      const float* kj = k + static_cast<long>(j) * s.k_stride;
      float dot = 0.0f;
      for (int c = 0; c < s.dk; ++c) dot += qi[c] * kj[c];
      w[j] = scale * dot;
      if (!any || w[j] > mx) mx = w[j];
      any = true;
    }
    for (int c = 0; c < s.dv; ++c) o[c] = 0.0f;
    if (!any) continue;  // a row with no allowed key: zero weights, zero output
    double sum = 0.0;
    for (int j = 0; j < s.tk; ++j) {
      e[static_cast<size_t>(j)] = ok && !ok[j] ? 0.0 : det::exp(static_cast<double>(w[j]) - static_cast<double>(mx));
      sum += e[static_cast<size_t>(j)];
    }
    for (int j = 0; j < s.tk; ++j) w[j] = static_cast<float>(e[static_cast<size_t>(j)] / sum);
    for (int j = 0; j < s.tk; ++j) {
      if (ok && !ok[j]) continue;  // weight exactly 0: nothing to add
      const float wj = w[j];
      const float* vj = v + static_cast<long>(j) * s.v_stride;
      for (int c = 0; c < s.dv; ++c) o[c] += wj * vj[c];
    }
  }
}

double cross_entropy_forward(float* probs, const float* logits, const int* targets, int n, int v, int* counted) {
  thread_local std::vector<double> e;
  e.resize(static_cast<size_t>(v));
  return generic::cross_entropy_forward(probs, logits, targets, n, v, counted,
                                        [](float*, const float* z, double mx, int len) -> const double* {
                                          for (int j = 0; j < len; ++j)
                                            e[static_cast<size_t>(j)] = det::exp(static_cast<double>(z[j]) - mx);
                                          return e.data();
                                        });
}

}  // namespace attn::learn
