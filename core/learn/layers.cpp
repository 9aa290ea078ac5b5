#include "learn/layers.hpp"
#include "learn/gemm.hpp"
#include "learn/layers_generic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/det_tanh.hpp"
#include "attn/detmath.hpp"

namespace attn::learn {

// ---------------------------------------------------------------- embedding
void embedding_forward(double* out, const int* tokens, const double* table, int n, int c) {
  for (int i = 0; i < n; ++i) {
    const double* row = table + static_cast<long>(tokens[i]) * c;
    double* o = out + static_cast<long>(i) * c;
    for (int j = 0; j < c; ++j) o[j] = row[j];
  }
}

void embedding_backward(double* dtable, const double* dout, const int* tokens, int n, int c) {
  // Positions in ascending order: a token seen twice sums its gradients in a fixed order.
  for (int i = 0; i < n; ++i) {
    double* row = dtable + static_cast<long>(tokens[i]) * c;
    const double* g = dout + static_cast<long>(i) * c;
    for (int j = 0; j < c; ++j) row[j] += g[j];
  }
}

// ---------------------------------------------------------------- the matrix product
// Two doubles per register here (SSE2 natively, simd128 in wasm); natively on x86-64 the AVX2 build
// of the same loops (gemm_avx2.cpp) when the CPU has it. The width never changes a sum's order
// (learn/gemm_lanes.hpp), so every build gives the same bits. No AVX-512 build: on this project's
// 2-core Zen 4 machines it trained the decoder 10-20% slower than SSE2, AVX2 38% faster
// (bench/train_bench, measured 2026-12-04); on a Zen 5 machine, whose multiply-add peak doubles at
// 8 lanes, the same loops at 8 lanes trained the decoder at 159 steps/s against AVX2's 254, and
// the blocked tanh ran slower too (short rows leave 8-lane registers half empty).
}  // namespace attn::learn
#define ATTN_GEMM_NS gemm_base
#define ATTN_GEMM_W 2
#include "learn/gemm_lanes.hpp"
namespace attn::learn {

namespace {
using GemmFn = void (*)(double*, int, const double*, long, long, const double*, int, int, int, int);
using ExpFn = void (*)(double*, const double*, double, int);
using SumFn = void (*)(double*, const double*, const double*, int);
using RowsFn = void (*)(double*, const double*, long, const double*, int, int);
struct GemmChoice {
  GemmFn fn;
  ExpFn exp;
  RowsFn tanh;
  SumFn sigmoid;
  int lanes;
  const char* name;
};

GemmChoice gemm_choice(int want) {
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
  if (want >= 4 && __builtin_cpu_supports("avx2")) return {detail::gemm_acc_avx2, detail::exp_shifted_avx2, detail::tanh_of_rows_avx2,
            detail::sigmoid_of_sum_avx2, 4, "avx2"};
#else
  (void)want;
#endif
  return {gemm_base::gemm_acc, gemm_base::exp_shifted, gemm_base::tanh_of_rows, gemm_base::sigmoid_of_sum, 2,
          "sse2/simd128"};
}

std::uint64_t g_flops = 0;  // 2·m·n·k per product since the start (single-threaded, as the core is)

GemmChoice& current_gemm() {
  static GemmChoice c = gemm_choice(4);
  return c;
}
}  // namespace

void gemm_acc(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb, int m, int n,
              int k) {
  g_flops += 2ull * static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(k);
  current_gemm().fn(c, ldc, a, a_rs, a_cs, b, ldb, m, n, k);
}
std::uint64_t gemm_flops() { return g_flops; }
void exp_shifted(double* out, const double* in, double shift, int n) { current_gemm().exp(out, in, shift, n); }
void tanh_of_sum(double* out, const double* a, const double* b, int n) { current_gemm().tanh(out, a, 0, b, 1, n); }
void tanh_of_rows(double* out, const double* a, long a_rs, const double* b, int rows, int n) {
  current_gemm().tanh(out, a, a_rs, b, rows, n);
}
void sigmoid_of_sum(double* out, const double* a, const double* b, int n) { current_gemm().sigmoid(out, a, b, n); }
int gemm_lanes() { return current_gemm().lanes; }
const char* gemm_isa_name() { return current_gemm().name; }
void gemm_force_lanes(int lanes) { current_gemm() = gemm_choice(lanes == 0 ? 4 : lanes); }

// ---------------------------------------------------------------- linear

void linear_forward(double* out, const double* inp, const double* weight, const double* bias, int n, int ic,
                    int oc) {
  if (n < 4) {
    // Few rows: dot products straight from the torch layout.
    g_flops += 2ull * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(ic) * static_cast<std::uint64_t>(oc);
    for (int i = 0; i < n; ++i) {
      const double* x = inp + static_cast<long>(i) * ic;
      for (int o = 0; o < oc; ++o) {
        const double* w = weight + static_cast<long>(o) * ic;
        double acc = bias ? bias[o] : 0.0;
        for (int k = 0; k < ic; ++k) acc += x[k] * w[k];
        out[static_cast<long>(i) * oc + o] = acc;
      }
    }
    return;
  }
  // Many rows: the same sums (bias, then k ascending) over a transposed weight, in register tiles.
  thread_local std::vector<double> wt;
  wt.resize(static_cast<size_t>(ic) * oc);
  transpose_weight(wt.data(), weight, ic, oc);
  linear_forward_t(out, inp, wt.data(), bias, n, ic, oc);
}

void transpose_weight(double* wt, const double* weight, int ic, int oc) {
  for (int o = 0; o < oc; ++o)
    for (int k = 0; k < ic; ++k) wt[static_cast<size_t>(k) * oc + o] = weight[static_cast<long>(o) * ic + k];
}

void linear_forward_t(double* out, const double* inp, const double* wt, const double* bias, int n, int ic, int oc) {
  for (int i = 0; i < n; ++i) {
    double* y = out + static_cast<long>(i) * oc;
    for (int o = 0; o < oc; ++o) y[o] = bias ? bias[o] : 0.0;
  }
  gemm_acc(out, oc, inp, ic, 1, wt, oc, n, oc, ic);
}

void linear_backward(double* dinp, double* dweight, double* dbias, const double* dout, const double* inp,
                     const double* weight, int n, int ic, int oc) {
  // dinp[i][k] += Σ_o dout[i][o] · weight[o][k]   (o ascending)
  if (dinp) gemm_acc(dinp, ic, dout, oc, 1, weight, ic, n, ic, oc);
  // dweight[o][k] += Σ_i dout[i][o] · inp[i][k]   (i ascending)
  gemm_acc(dweight, ic, dout, 1, oc, inp, ic, oc, ic, n);
  if (dbias)
    for (int i = 0; i < n; ++i) {
      const double* g = dout + static_cast<long>(i) * oc;
      for (int o = 0; o < oc; ++o) dbias[o] += g[o];
    }
}

// ---------------------------------------------------------------- activations, residual
void gelu_forward(double* out, const double* inp, int n) {
  for (int i = 0; i < n; ++i) out[i] = inp[i] * 0.5 * (1.0 + det::erf(inp[i] * 0.7071067811865476));  // 1/√2
}

void gelu_backward(double* dinp, const double* dout, const double* inp, int n) {
  for (int i = 0; i < n; ++i) {
    const double x = inp[i];
    const double cdf = 0.5 * (1.0 + det::erf(x * 0.7071067811865476));
    const double pdf = det::exp(-0.5 * x * x) * 0.3989422804014327;  // 1/√(2π)
    dinp[i] += dout[i] * (cdf + x * pdf);
  }
}

namespace {
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;
}  // namespace

void gelu_new_forward(double* out, const double* inp, int n) {
  for (int i = 0; i < n; ++i) {
    const double x = inp[i];
    out[i] = 0.5 * x * (1.0 + det::tanh(kSqrt2OverPi * (x + kGeluCubic * (x * x * x))));
  }
}

void gelu_new_backward(double* dinp, const double* dout, const double* inp, int n) {
  for (int i = 0; i < n; ++i) {
    const double x = inp[i];
    const double t = det::tanh(kSqrt2OverPi * (x + kGeluCubic * (x * x * x)));
    const double du = kSqrt2OverPi * (1.0 + 3.0 * kGeluCubic * (x * x));
    dinp[i] += dout[i] * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du);
  }
}

void relu_forward(double* out, const double* inp, int n) {
  for (int i = 0; i < n; ++i) out[i] = inp[i] > 0.0 ? inp[i] : 0.0;
}

void relu_backward(double* dinp, const double* dout, const double* inp, int n) {
  for (int i = 0; i < n; ++i)
    if (inp[i] > 0.0) dinp[i] += dout[i];
}

void residual_forward(double* x, const double* y, int n) {
  for (int i = 0; i < n; ++i) x[i] += y[i];
}

void residual_backward(double* dy, const double* dx, int n) {
  for (int i = 0; i < n; ++i) dy[i] += dx[i];
}

// ---------------------------------------------------------------- LayerNorm
void layernorm_forward(double* out, double* mean, double* rstd, const double* inp, const double* weight,
                       const double* bias, int n, int c, double eps) {
  generic::layernorm_forward(out, mean, rstd, inp, weight, bias, n, c, eps);
}

void layernorm_backward(double* dinp, double* dweight, double* dbias, const double* dout, const double* inp,
                        const double* weight, const double* mean, const double* rstd, int n, int c) {
  for (int i = 0; i < n; ++i) {
    const double* g = dout + static_cast<long>(i) * c;
    const double* x = inp + static_cast<long>(i) * c;
    double* dx = dinp + static_cast<long>(i) * c;
    const double m = mean[i], r = rstd[i];
    // Two reductions: mean of dnorm and mean of dnorm·norm (the two projections the
    // normalisation removes).
    double mean_dnorm = 0.0, mean_dnorm_norm = 0.0;
    for (int j = 0; j < c; ++j) {
      const double norm = (x[j] - m) * r;
      const double dnorm = weight[j] * g[j];
      mean_dnorm += dnorm;
      mean_dnorm_norm += dnorm * norm;
    }
    mean_dnorm /= c;
    mean_dnorm_norm /= c;
    for (int j = 0; j < c; ++j) {
      const double norm = (x[j] - m) * r;
      const double dnorm = weight[j] * g[j];
      dbias[j] += g[j];
      dweight[j] += norm * g[j];
      dx[j] += (dnorm - mean_dnorm - norm * mean_dnorm_norm) * r;
    }
  }
}

// ---------------------------------------------------------------- RoPE
RopeTable rope_table(int t, int d, double base) {
  RopeTable tab;
  tab.t = t;
  tab.d = d;
  const int pairs = d / 2;
  tab.cos.resize(static_cast<size_t>(t) * pairs);
  tab.sin.resize(static_cast<size_t>(t) * pairs);
  for (int i = 0; i < pairs; ++i) {
    // θ_i = base^(−2i/d), written as attn::apply_rope writes it (same bits).
    const double theta = 1.0 / det::pow(base, static_cast<double>(2 * i) / static_cast<double>(d));
    for (int m = 0; m < t; ++m) {
      const double angle = static_cast<double>(m) * theta;
      tab.cos[static_cast<size_t>(m) * pairs + i] = det::cos(angle);
      tab.sin[static_cast<size_t>(m) * pairs + i] = det::sin(angle);
    }
  }
  return tab;
}

void rope_forward(double* x, const RopeTable& tab, int t, int stride, int first) {
  generic::rope_forward(x, tab, t, stride, first);
}

void rope_backward(double* dx, const RopeTable& tab, int t, int stride) {
  const int pairs = tab.d / 2;
  for (int m = 0; m < t; ++m) {
    double* row = dx + static_cast<long>(m) * stride;
    for (int i = 0; i < pairs; ++i) {
      const double c = tab.cos[static_cast<size_t>(m) * pairs + i], s = tab.sin[static_cast<size_t>(m) * pairs + i];
      const double ga = row[2 * i], gb = row[2 * i + 1];
      // Transpose of [[c, −s], [s, c]].
      row[2 * i] = ga * c + gb * s;
      row[2 * i + 1] = -ga * s + gb * c;
    }
  }
}

// ---------------------------------------------------------------- attention
// Each product below is a gemm_acc, whose sums run in the same ascending order as the plain
// loops (over c for scores, over j for outputs and dq, over i for dk and dv). A masked key's
// weight is exactly 0, so its terms are exact zeros (for finite inputs: 0·inf would be NaN). Adding
// ±0 leaves a sum unchanged unless the sum is −0.0 (x + y is −0.0 only when both are), and a sum
// that does not start at −0.0 never becomes −0.0; so leaving such terms out keeps the bits of
// every sum here (outputs and scores start at +0; callers' gradients never hold −0.0: they start
// zero-filled). The products therefore run over blocks of kSpanRows rows, each over the span of keys
// (or queries) those rows can reach — under a causal mask about half of every square product.
namespace {

constexpr int kSpanRows = 4;  // the matrix product's register tile height (gemm_rows<4>)

// Where each query's nonzero weights can lie: keys [lo[i], hi[i]) (lo = hi for an empty row).
struct KeySpans {
  std::vector<int> lo, hi;
  // The keys any of queries [r0, r1) can reach: [*klo, *khi), empty when *klo >= *khi.
  void keys_of(int r0, int r1, int tk, int* klo, int* khi) const {
    *klo = tk;
    *khi = 0;
    for (int i = r0; i < r1; ++i)
      if (lo[static_cast<size_t>(i)] < hi[static_cast<size_t>(i)]) {
        *klo = std::min(*klo, lo[static_cast<size_t>(i)]);
        *khi = std::max(*khi, hi[static_cast<size_t>(i)]);
      }
  }
  // The queries that can reach any of keys [c0, c1): [*qlo, *qhi) (a covering range).
  void queries_of(int c0, int c1, int tq, int* qlo, int* qhi) const {
    *qlo = tq;
    *qhi = 0;
    for (int i = 0; i < tq; ++i)
      if (lo[static_cast<size_t>(i)] < hi[static_cast<size_t>(i)] && lo[static_cast<size_t>(i)] < c1 &&
          hi[static_cast<size_t>(i)] > c0) {
        *qlo = std::min(*qlo, i);
        *qhi = i + 1;
      }
  }
};

// Spans from an allowed mask (nullptr: every key): the first to the last allowed key of each row.
void spans_of_mask(KeySpans& sp, const unsigned char* allowed, int tq, int tk) {
  sp.lo.resize(static_cast<size_t>(tq));
  sp.hi.resize(static_cast<size_t>(tq));
  for (int i = 0; i < tq; ++i) {
    int a = 0, b = tk;
    if (allowed) {
      const unsigned char* ok = allowed + static_cast<long>(i) * tk;
      while (a < tk && !ok[a]) ++a;
      while (b > a && !ok[b - 1]) --b;
    }
    sp.lo[static_cast<size_t>(i)] = a;
    sp.hi[static_cast<size_t>(i)] = b;
  }
}

// Spans from the weights: the first to the last nonzero weight of each row.
void spans_of_weights(KeySpans& sp, const double* weights, int tq, int tk) {
  sp.lo.resize(static_cast<size_t>(tq));
  sp.hi.resize(static_cast<size_t>(tq));
  for (int i = 0; i < tq; ++i) {
    const double* w = weights + static_cast<long>(i) * tk;
    int a = 0, b = tk;
    while (a < tk && w[a] == 0.0) ++a;
    while (b > a && w[b - 1] == 0.0) --b;
    sp.lo[static_cast<size_t>(i)] = a;
    sp.hi[static_cast<size_t>(i)] = b;
  }
}

// f(r0, r1, klo, khi) for each block of kSpanRows queries [r0, r1) that reaches a key, with the
// keys [klo, khi) it reaches.
template <typename F>
void for_query_blocks(const KeySpans& sp, int tq, int tk, F&& f) {
  for (int r0 = 0; r0 < tq; r0 += kSpanRows) {
    const int r1 = std::min(r0 + kSpanRows, tq);
    int klo = 0, khi = 0;
    sp.keys_of(r0, r1, tk, &klo, &khi);
    if (klo < khi) f(r0, r1, klo, khi);
  }
}

// c[i][j] = Σ_p a[i][p] · bt[p][j] for rows [r0, r1), columns [klo, khi) (c and bt of leading
// dimension ld, a of row stride a_rs, K = k): those entries zeroed, then the product added.
void block_product(double* c, int ld, const double* a, long a_rs, const double* bt, int r0, int r1, int klo, int khi, int k) {
  for (int i = r0; i < r1; ++i) std::fill(c + static_cast<long>(i) * ld + klo, c + static_cast<long>(i) * ld + khi, 0.0);
  gemm_acc(c + static_cast<long>(r0) * ld + klo, ld, a + static_cast<long>(r0) * a_rs, a_rs, 1, bt + klo, ld, r1 - r0,
           khi - klo, k);
}

// c rows [r0, r1) (row stride c_rs, n columns) += a rows [r0, r1), columns [klo, khi) (row stride
// a_rs) · b rows [klo, khi) (row stride b_rs): the sum over the keys those rows reach.
void block_over_keys(double* c, long c_rs, const double* a, long a_rs, const double* b, long b_rs, int r0, int r1, int klo,
                     int khi, int n) {
  gemm_acc(c + r0 * c_rs, static_cast<int>(c_rs), a + r0 * a_rs + klo, a_rs, 1, b + klo * b_rs, static_cast<int>(b_rs),
           r1 - r0, n, khi - klo);
}

}  // namespace

void attention_forward(double* out, double* weights, const double* q, const double* k, const double* v,
                       const unsigned char* allowed, const AttentionShape& s) {
  thread_local std::vector<double> kt, z;
  thread_local KeySpans sp;
  kt.resize(static_cast<size_t>(s.dk) * s.tk);
  for (int j = 0; j < s.tk; ++j)
    for (int c = 0; c < s.dk; ++c) kt[static_cast<size_t>(c) * s.tk + j] = k[static_cast<long>(j) * s.k_stride + c];
  spans_of_mask(sp, allowed, s.tq, s.tk);
  // pass 1: dot products q·k of every pair a block of queries can reach (then scaled)
  for_query_blocks(sp, s.tq, s.tk, [&](int r0, int r1, int klo, int khi) {
    block_product(weights, s.tk, q, s.q_stride, kt.data(), r0, r1, klo, khi, s.dk);
  });
  // pass 2: the max over each row's allowed keys only (masked keys never enter it), and the
  // shifted scores score − max of every row's span packed into one list, so that one exp call
  // runs over all of them in full registers (rows of a causal mask are short). x − max computed
  // here is the subtraction exp_shifted would do; a masked key packs 0 and is set to 0 after.
  z.resize(0);
  for (int i = 0; i < s.tq; ++i) {
    double* w = weights + static_cast<long>(i) * s.tk;
    const unsigned char* ok = allowed ? allowed + static_cast<long>(i) * s.tk : nullptr;
    const int lo = sp.lo[static_cast<size_t>(i)], hi = sp.hi[static_cast<size_t>(i)];
    double* o = out + static_cast<long>(i) * s.out_stride;
    for (int c = 0; c < s.dv; ++c) o[c] = 0.0;
    std::fill(w, w + lo, 0.0);
    std::fill(w + std::max(lo, hi), w + s.tk, 0.0);
    if (lo >= hi) continue;  // empty row: zero weights, zero output
    double mx = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (int j = lo; j < hi; ++j) {
      if (ok && !ok[j]) continue;
      w[j] = s.scale * w[j];
      if (!any || w[j] > mx) mx = w[j];
      any = true;
    }
    for (int j = lo; j < hi; ++j) z.push_back(ok && !ok[j] ? 0.0 : w[j] - mx);
  }
  // pass 3: exp(score − max) (subtracting the max only for stability), the normaliser, normalise
  // (adding a masked key's +0 leaves a sum's bits)
  exp_shifted(z.data(), z.data(), 0.0, static_cast<int>(z.size()));
  size_t at = 0;
  for (int i = 0; i < s.tq; ++i) {
    double* w = weights + static_cast<long>(i) * s.tk;
    const unsigned char* ok = allowed ? allowed + static_cast<long>(i) * s.tk : nullptr;
    const int lo = sp.lo[static_cast<size_t>(i)], hi = sp.hi[static_cast<size_t>(i)];
    double sum = 0.0;
    for (int j = lo; j < hi; ++j, ++at) {
      w[j] = ok && !ok[j] ? 0.0 : z[at];
      sum += w[j];
    }
    for (int j = lo; j < hi; ++j) w[j] /= sum;
  }
  // pass 4: blend the values, out = weights · v, each block over the keys it reaches
  for_query_blocks(sp, s.tq, s.tk, [&](int r0, int r1, int klo, int khi) {
    block_over_keys(out, s.out_stride, weights, s.tk, v, s.v_stride, r0, r1, klo, khi, s.dv);
  });
}

void attention_backward(double* dq, double* dk, double* dv, const double* dout, const double* weights,
                        const double* q, const double* k, const double* v, const AttentionShape& s) {
  thread_local std::vector<double> vt, dw;
  thread_local KeySpans sp;
  vt.resize(static_cast<size_t>(s.dv) * s.tk);
  dw.resize(static_cast<size_t>(s.tq) * s.tk);
  for (int j = 0; j < s.tk; ++j)
    for (int c = 0; c < s.dv; ++c) vt[static_cast<size_t>(c) * s.tk + j] = v[static_cast<long>(j) * s.v_stride + c];
  // A zero weight (masked, an empty row, underflowed) gets a zero gradient: spans from the weights.
  spans_of_weights(sp, weights, s.tq, s.tk);
  // dweights = dout · vᵀ over each query block's keys, then softmax backward row by row:
  // ds_ij = w_ij (dw_ij − Σ_j' w_ij' dw_ij') · scale, into dw (exactly 0 where w_ij is 0)
  for_query_blocks(sp, s.tq, s.tk, [&](int r0, int r1, int klo, int khi) {
    block_product(dw.data(), s.tk, dout, s.out_stride, vt.data(), r0, r1, klo, khi, s.dv);
  });
  for (int i = 0; i < s.tq; ++i) {
    const double* w = weights + static_cast<long>(i) * s.tk;
    double* d = dw.data() + static_cast<size_t>(i) * s.tk;
    const int lo = sp.lo[static_cast<size_t>(i)], hi = sp.hi[static_cast<size_t>(i)];
    double wdw = 0.0;
    for (int j = lo; j < hi; ++j)
      if (w[j] != 0.0) wdw += w[j] * d[j];
    std::fill(d, d + lo, 0.0);
    std::fill(d + std::max(lo, hi), d + s.tk, 0.0);
    for (int j = lo; j < hi; ++j)  // a masked key, an empty row, an underflowed weight: exactly 0
      d[j] = w[j] == 0.0 ? 0.0 : w[j] * (d[j] - wdw) * s.scale;
  }
  // dq += ds · k over each query block's keys
  for_query_blocks(sp, s.tq, s.tk, [&](int r0, int r1, int klo, int khi) {
    block_over_keys(dq, s.q_stride, dw.data(), s.tk, k, s.k_stride, r0, r1, klo, khi, s.dk);
  });
  // dv += weightsᵀ · dout and dk += dsᵀ · q over the queries that reach each key block
  for (int c0 = 0; c0 < s.tk; c0 += kSpanRows) {
    const int c1 = std::min(c0 + kSpanRows, s.tk);
    int qlo = 0, qhi = 0;
    sp.queries_of(c0, c1, s.tq, &qlo, &qhi);
    if (qlo >= qhi) continue;
    gemm_acc(dv + static_cast<long>(c0) * s.v_stride, s.v_stride, weights + static_cast<long>(qlo) * s.tk + c0, 1, s.tk,
             dout + static_cast<long>(qlo) * s.out_stride, s.out_stride, c1 - c0, s.dv, qhi - qlo);
    gemm_acc(dk + static_cast<long>(c0) * s.k_stride, s.k_stride, dw.data() + static_cast<size_t>(qlo) * s.tk + c0, 1, s.tk,
             q + static_cast<long>(qlo) * s.q_stride, s.q_stride, c1 - c0, s.dk, qhi - qlo);
  }
}

// ---------------------------------------------------------------- cross-entropy
double cross_entropy_forward(double* probs, const double* logits, const int* targets, int n, int v,
                             int* counted) {
  return generic::cross_entropy_forward(probs, logits, targets, n, v, counted,
                                        [](double* p, const double* z, double mx, int len) -> const double* {
                                          exp_shifted(p, z, mx, len);
                                          return p;
                                        });
}

void cross_entropy_backward(double* dlogits, const double* probs, const int* targets, int n, int v, int counted) {
  if (counted <= 0) return;
  const double inv = 1.0 / counted;
  for (int i = 0; i < n; ++i) {
    if (targets[i] == kIgnoreIndex) continue;
    const double* p = probs + static_cast<long>(i) * v;
    double* d = dlogits + static_cast<long>(i) * v;
    for (int j = 0; j < v; ++j) d[j] += (p[j] - (j == targets[i] ? 1.0 : 0.0)) * inv;
  }
}

}  // namespace attn::learn
