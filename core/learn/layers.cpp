#include "learn/layers.hpp"
#include "learn/gemm.hpp"

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

// ---------------------------------------------------------------- ReLU, residual
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
  for (int i = 0; i < n; ++i) {
    const double* x = inp + static_cast<long>(i) * c;
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
    double* y = out + static_cast<long>(i) * c;
    for (int j = 0; j < c; ++j) y[j] = (x[j] - m) * r * weight[j] + bias[j];
    mean[i] = m;
    rstd[i] = r;
  }
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
  const int pairs = tab.d / 2;
  for (int m = 0; m < t; ++m) {
    double* row = x + static_cast<long>(m) * stride;
    const size_t at = static_cast<size_t>(first + m) * pairs;
    for (int i = 0; i < pairs; ++i) {
      const double c = tab.cos[at + i], s = tab.sin[at + i];
      const double a = row[2 * i], b = row[2 * i + 1];
      row[2 * i] = a * c - b * s;
      row[2 * i + 1] = a * s + b * c;
    }
  }
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

// ---------------------------------------------------------------- GRU
namespace {

// The cell's gates from its two projections gi = W_ih x + b_ih and gh = W_hh h + b_hh (n rows of 3H).
void gru_gates(double* h_out, double* gates, double* hn, const double* gi, const double* gh, const double* h, int n,
               int hid) {
  thread_local std::vector<double> rn;
  const int g3 = 3 * hid;
  rn.resize(static_cast<size_t>(hid));
  for (int b = 0; b < n; ++b) {
    const double* a = gi + static_cast<long>(b) * g3;
    const double* c = gh + static_cast<long>(b) * g3;
    double* gt = gates + static_cast<long>(b) * g3;
    double* hb = hn + static_cast<long>(b) * hid;
    const double* hp = h + static_cast<long>(b) * hid;
    double* ho = h_out + static_cast<long>(b) * hid;
    // r = σ(a_r + c_r), z = σ(a_z + c_z), n = tanh(a_n + r·c_n), each element as the scalar calls give it
    sigmoid_of_sum(gt, a, c, 2 * hid);  // r then z
    for (int j = 0; j < hid; ++j) {
      hb[j] = c[2 * hid + j];
      rn[j] = gt[j] * hb[j];
    }
    tanh_of_sum(gt + 2 * hid, a + 2 * hid, rn.data(), hid);
    for (int j = 0; j < hid; ++j) {
      const double z = gt[hid + j], nn = gt[2 * hid + j];
      ho[j] = (hp[j] - nn) * z + nn;  // ATen's GRUCell order of operations
    }
  }
}

// The gradients reaching the cell's two projections (dgi, dgh: n rows of 3H) for dh_out, and
// dh += the direct path (h' = (h − n) ⊙ z + n).
void gru_gate_grads(double* dgi, double* dgh, double* dh, const double* dh_out, const double* gates, const double* hn,
                    const double* h, int n, int hid) {
  const int g3 = 3 * hid;
  for (int b = 0; b < n; ++b) {
    const double* gt = gates + static_cast<long>(b) * g3;
    const double* hb = hn + static_cast<long>(b) * hid;
    const double* hp = h + static_cast<long>(b) * hid;
    const double* go = dh_out + static_cast<long>(b) * hid;
    double* dhp = dh + static_cast<long>(b) * hid;
    double* di = dgi + static_cast<long>(b) * g3;
    double* dg = dgh + static_cast<long>(b) * g3;
    for (int j = 0; j < hid; ++j) {
      const double r = gt[j], z = gt[hid + j], nn = gt[2 * hid + j];
      const double g = go[j];
      dhp[j] += g * z;
      const double dz = g * (hp[j] - nn);
      const double dn = g * (1.0 - z);
      const double dn_pre = dn * (1.0 - nn * nn);
      const double dr = dn_pre * hb[j];
      const double dr_pre = dr * r * (1.0 - r);
      const double dz_pre = dz * z * (1.0 - z);
      di[j] = dr_pre;
      di[hid + j] = dz_pre;
      di[2 * hid + j] = dn_pre;
      dg[j] = dr_pre;
      dg[hid + j] = dz_pre;
      dg[2 * hid + j] = dn_pre * r;
    }
  }
}

}  // namespace

namespace {
// gi = W_ih x + b_ih and gh = W_hh h + b_hh (n rows of 3H each; the weights as torch stores them,
// or transposed by transpose_weight), then the gates.
void gru_cell_step(double* h_out, double* gates, double* hn, const double* x, const double* h, const double* w_ih,
                   const double* w_hh, const double* b_ih, const double* b_hh, int n, int in, int hid,
                   bool transposed) {
  thread_local std::vector<double> gi, gh;
  const int g3 = 3 * hid;
  gi.resize(static_cast<size_t>(n) * g3);
  gh.resize(static_cast<size_t>(n) * g3);
  const auto project = transposed ? linear_forward_t : linear_forward;  // the same sums either way
  project(gi.data(), x, w_ih, b_ih, n, in, g3);
  project(gh.data(), h, w_hh, b_hh, n, hid, g3);
  gru_gates(h_out, gates, hn, gi.data(), gh.data(), h, n, hid);
}
}  // namespace

void gru_cell_forward_t(double* h_out, double* gates, double* hn, const double* x, const double* h,
                        const double* w_ih_t, const double* w_hh_t, const double* b_ih, const double* b_hh, int n,
                        int in, int hid) {
  gru_cell_step(h_out, gates, hn, x, h, w_ih_t, w_hh_t, b_ih, b_hh, n, in, hid, true);
}

void gru_cell_forward(double* h_out, double* gates, double* hn, const double* x, const double* h,
                      const double* w_ih, const double* w_hh, const double* b_ih, const double* b_hh, int n,
                      int in, int hid) {
  gru_cell_step(h_out, gates, hn, x, h, w_ih, w_hh, b_ih, b_hh, n, in, hid, false);
}

void gru_cell_backward(double* dx, double* dh, double* dw_ih, double* dw_hh, double* db_ih, double* db_hh,
                       const double* dh_out, const double* gates, const double* hn, const double* x,
                       const double* h, const double* w_ih, const double* w_hh, int n, int in, int hid) {
  thread_local std::vector<double> dgi, dgh;
  const int g3 = 3 * hid;
  dgi.assign(static_cast<size_t>(n) * g3, 0.0);
  dgh.assign(static_cast<size_t>(n) * g3, 0.0);
  gru_gate_grads(dgi.data(), dgh.data(), dh, dh_out, gates, hn, h, n, hid);
  linear_backward(dx, dw_ih, db_ih, dgi.data(), x, w_ih, n, in, g3);
  linear_backward(dh, dw_hh, db_hh, dgh.data(), h, w_hh, n, hid, g3);
}

namespace {
// The sequences' steps stacked in order: at[k] = the first row of sequence k; returns the total
// and sets the longest length.
long stack_rows(const GruSequence* seqs, int count, std::vector<long>& at, int& longest) {
  at.resize(static_cast<size_t>(count));
  long rows = 0;
  longest = 0;
  for (int k = 0; k < count; ++k) {
    at[static_cast<size_t>(k)] = rows;
    rows += seqs[k].len;
    longest = std::max(longest, seqs[k].len);
  }
  return rows;
}
// The sequences that have a step s, in order.
void still_reading(const GruSequence* seqs, int count, int s, std::vector<int>& reading) {
  reading.clear();
  for (int k = 0; k < count; ++k)
    if (seqs[k].len > s) reading.push_back(k);
}
}  // namespace

// The input projection W_ih x_s + b_ih does not depend on the recurrence: it is one matrix
// product over all t steps (each element the same sum, bias then k ascending, as step by step).
void gru_sequences_forward(const GruSequence* seqs, int count, const double* w_ih, const double* w_hh,
                           const double* b_ih, const double* b_hh, int in, int hid) {
  thread_local std::vector<double> xs, gi, whh_t, hprev, gh;
  thread_local std::vector<long> at;
  thread_local std::vector<int> reading;
  const int g3 = 3 * hid;
  int longest = 0;
  const long rows = stack_rows(seqs, count, at, longest);
  // The input projections of every step of every sequence as one product (each row its own sums).
  xs.resize(static_cast<size_t>(rows) * in);
  for (int k = 0; k < count; ++k)
    std::copy_n(seqs[k].x, static_cast<long>(seqs[k].len) * in, xs.data() + at[static_cast<size_t>(k)] * in);
  gi.resize(static_cast<size_t>(rows) * g3);
  if (rows > 0) linear_forward(gi.data(), xs.data(), w_ih, b_ih, static_cast<int>(rows), in, g3);
  whh_t.resize(static_cast<size_t>(hid) * g3);
  transpose_weight(whh_t.data(), w_hh, hid, g3);
  hprev.resize(static_cast<size_t>(count) * hid);
  gh.resize(static_cast<size_t>(count) * g3);
  for (int s = 0; s < longest; ++s) {
    still_reading(seqs, count, s, reading);
    const int m = static_cast<int>(reading.size());
    for (int r = 0; r < m; ++r) {
      double* hp = hprev.data() + static_cast<long>(r) * hid;
      if (s == 0)
        std::fill(hp, hp + hid, 0.0);
      else
        std::copy_n(seqs[reading[static_cast<size_t>(r)]].states + static_cast<long>(s - 1) * hid, hid, hp);
    }
    linear_forward_t(gh.data(), hprev.data(), whh_t.data(), b_hh, m, hid, g3);
    for (int r = 0; r < m; ++r) {
      const GruSequence& q = seqs[reading[static_cast<size_t>(r)]];
      gru_gates(q.states + static_cast<long>(s) * hid, q.gates + static_cast<long>(s) * g3,
                q.hn + static_cast<long>(s) * hid, gi.data() + (at[static_cast<size_t>(reading[static_cast<size_t>(r)])] + s) * g3,
                gh.data() + static_cast<long>(r) * g3, hprev.data() + static_cast<long>(r) * hid, 1, hid);
    }
  }
}

void gru_sequence_forward(double* states, double* gates, double* hn, const double* x, const double* w_ih,
                          const double* w_hh, const double* b_ih, const double* b_hh, int t, int in, int hid) {
  GruSequence q;
  q.len = t, q.x = x, q.states = states, q.gates = gates, q.hn = hn;
  gru_sequences_forward(&q, 1, w_ih, w_hh, b_ih, b_hh, in, hid);
}

// Step by step the recurrences go back from the last step, all sequences still reading together
// (dh_{s−1} += dg_h W_hh as one product); the weight gradients wait for all steps and are one
// product over the rows of all sequences, in sequence order and each last step first, so every
// sum adds its terms in the order of the step-by-step, sequence-by-sequence loop: the same bits.
void gru_sequences_backward(const GruSequence* seqs, int count, double* dw_ih, double* dw_hh, double* db_ih,
                            double* db_hh, const double* w_ih, const double* w_hh, int in, int hid) {
  thread_local std::vector<double> dgi_rev, dgh_rev, hprev_rev, dh, dg, dh0, x_rev, dx_rev;
  thread_local std::vector<long> at;
  thread_local std::vector<int> reading;
  const int g3 = 3 * hid;
  int longest = 0;
  const long rows = stack_rows(seqs, count, at, longest);
  dgi_rev.assign(static_cast<size_t>(rows) * g3, 0.0);
  dgh_rev.assign(static_cast<size_t>(rows) * g3, 0.0);
  hprev_rev.resize(static_cast<size_t>(rows) * hid);
  dh.resize(static_cast<size_t>(count) * hid);
  dg.resize(static_cast<size_t>(count) * g3);
  dh0.resize(static_cast<size_t>(hid));
  for (int s = longest - 1; s >= 0; --s) {
    still_reading(seqs, count, s, reading);
    const int m = static_cast<int>(reading.size());
    for (int r = 0; r < m; ++r) {
      const int k = reading[static_cast<size_t>(r)];
      const GruSequence& q = seqs[k];
      const long row = at[static_cast<size_t>(k)] + (q.len - 1 - s);  // this sequence's rows, last step first
      double* hp = hprev_rev.data() + row * hid;
      if (s == 0)
        std::fill(hp, hp + hid, 0.0);
      else
        std::copy_n(q.states + static_cast<long>(s - 1) * hid, hid, hp);
      double* dhprev = s == 0 ? dh0.data() : q.dstates + static_cast<long>(s - 1) * hid;
      if (s == 0) std::fill(dh0.begin(), dh0.end(), 0.0);
      gru_gate_grads(dgi_rev.data() + row * g3, dgh_rev.data() + row * g3, dhprev, q.dstates + static_cast<long>(s) * hid,
                     q.gates + static_cast<long>(s) * g3, q.hn + static_cast<long>(s) * hid, hp, 1, hid);
      std::copy_n(dhprev, hid, dh.data() + static_cast<long>(r) * hid);
      std::copy_n(dgh_rev.data() + row * g3, g3, dg.data() + static_cast<long>(r) * g3);
    }
    if (s == 0) continue;  // ∂loss/∂h₀ is not needed (h₀ = 0 is no parameter)
    gemm_acc(dh.data(), hid, dg.data(), g3, 1, w_hh, hid, m, hid, g3);  // dh_{s−1} += dg_h W_hh
    for (int r = 0; r < m; ++r)
      std::copy_n(dh.data() + static_cast<long>(r) * hid, hid,
                  seqs[reading[static_cast<size_t>(r)]].dstates + static_cast<long>(s - 1) * hid);
  }
  if (rows == 0) return;
  // The rows of all sequences lie in sequence order, each last step first: one product over them
  // adds every weight gradient's terms in the order of one call per sequence.
  gemm_acc(dw_hh, hid, dgh_rev.data(), 1, g3, hprev_rev.data(), hid, g3, hid, static_cast<int>(rows));  // dW_hh += Σ dg_h ⊗ h_{s−1}
  for (long r = 0; r < rows; ++r) {
    const double* g = dgh_rev.data() + r * g3;
    for (int o = 0; o < g3; ++o) db_hh[o] += g[o];
  }
  bool any_dx = false;
  x_rev.resize(static_cast<size_t>(rows) * in);
  for (int k = 0; k < count; ++k) {
    const GruSequence& q = seqs[k];
    double* xr = x_rev.data() + at[static_cast<size_t>(k)] * in;
    for (int r = 0; r < q.len; ++r) std::copy_n(q.x + static_cast<long>(q.len - 1 - r) * in, in, xr + static_cast<long>(r) * in);
    any_dx = any_dx || q.dx;
  }
  if (any_dx) {
    dx_rev.assign(static_cast<size_t>(rows) * in, 0.0);
    for (int k = 0; k < count; ++k) {
      const GruSequence& q = seqs[k];
      if (!q.dx) continue;
      double* dr = dx_rev.data() + at[static_cast<size_t>(k)] * in;
      for (int r = 0; r < q.len; ++r) std::copy_n(q.dx + static_cast<long>(q.len - 1 - r) * in, in, dr + static_cast<long>(r) * in);
    }
  }
  linear_backward(any_dx ? dx_rev.data() : nullptr, dw_ih, db_ih, dgi_rev.data(), x_rev.data(), w_ih,
                  static_cast<int>(rows), in, g3);
  if (any_dx)
    for (int k = 0; k < count; ++k) {
      const GruSequence& q = seqs[k];
      if (!q.dx) continue;
      const double* dr = dx_rev.data() + at[static_cast<size_t>(k)] * in;
      for (int r = 0; r < q.len; ++r) std::copy_n(dr + static_cast<long>(r) * in, in, q.dx + static_cast<long>(q.len - 1 - r) * in);
    }
}

void gru_sequence_backward(double* dx, double* dw_ih, double* dw_hh, double* db_ih, double* db_hh,
                           double* dstates, const double* states, const double* gates, const double* hn,
                           const double* x, const double* w_ih, const double* w_hh, int t, int in, int hid) {
  GruSequence q;
  q.len = t, q.x = x, q.states = const_cast<double*>(states), q.gates = const_cast<double*>(gates);
  q.hn = const_cast<double*>(hn), q.dstates = dstates, q.dx = dx;
  gru_sequences_backward(&q, 1, dw_ih, dw_hh, db_ih, db_hh, w_ih, w_hh, in, hid);
}

// ---------------------------------------------------------------- additive attention
namespace {
// out[j] = Σ_c m[j·ld + c] · x[c] for j < rows, each sum from 0.0 in ascending c (the plain loop's
// bits); four rows at a time, so that four independent sums share the adder instead of one
// waiting on its own latency.
void rows_dot(double* out, const double* m, long ld, const double* x, int rows, int n) {
  int j = 0;
  for (; j + 4 <= rows; j += 4) {
    const double *m0 = m + j * ld, *m1 = m0 + ld, *m2 = m1 + ld, *m3 = m2 + ld;
    double e0 = 0.0, e1 = 0.0, e2 = 0.0, e3 = 0.0;
    for (int c = 0; c < n; ++c) {
      e0 += m0[c] * x[c];
      e1 += m1[c] * x[c];
      e2 += m2[c] * x[c];
      e3 += m3[c] * x[c];
    }
    out[j] = e0, out[j + 1] = e1, out[j + 2] = e2, out[j + 3] = e3;
  }
  for (; j < rows; ++j) {
    const double* mj = m + j * ld;
    double e = 0.0;
    for (int c = 0; c < n; ++c) e += mj[c] * x[c];
    out[j] = e;
  }
}
}  // namespace

void additive_forward(double* context, double* weights, double* tanh_out, const double* s, const double* hs,
                      const double* whh, const double* w_s, const double* v, int len, int hs_dim, int s_dim,
                      int a) {
  thread_local std::vector<double> ws;
  ws.resize(static_cast<size_t>(a));
  linear_forward(ws.data(), s, w_s, nullptr, 1, s_dim, a);
  additive_forward_ws(context, weights, tanh_out, ws.data(), hs, whh, v, len, hs_dim, a);
}

void additive_forward_ws(double* context, double* weights, double* tanh_out, const double* ws, const double* hs,
                         const double* whh, const double* v, int len, int hs_dim, int a) {
  const int total = len;
  double mx = -std::numeric_limits<double>::infinity();
  tanh_of_rows(tanh_out, ws, 0, whh, total, a);
  rows_dot(weights, tanh_out, a, v, total, a);  // e_j = v · tanh(…)_j
  for (int j = 0; j < total; ++j)
    if (j == 0 || weights[j] > mx) mx = weights[j];
  exp_shifted(weights, weights, mx, total);
  double sum = 0.0;
  for (int j = 0; j < total; ++j) sum += weights[j];
  for (int c = 0; c < hs_dim; ++c) context[c] = 0.0;
  for (int j = 0; j < total; ++j) {
    weights[j] /= sum;
    const double* hj = hs + static_cast<long>(j) * hs_dim;
    for (int c = 0; c < hs_dim; ++c) context[c] += weights[j] * hj[c];
  }
}

void additive_backward(double* ds, double* dhs, double* dwhh, double* dw_s, double* dv, const double* dcontext,
                       const double* weights, const double* tanh_out, const double* s, const double* hs,
                       const double* w_s, const double* v, int len, int hs_dim, int s_dim, int a) {
  thread_local std::vector<double> dws;
  dws.assign(static_cast<size_t>(a), 0.0);
  additive_backward_ws(dws.data(), dhs, dwhh, dv, dcontext, weights, tanh_out, hs, v, len, hs_dim, a);
  linear_backward(ds, dw_s, nullptr, dws.data(), s, w_s, 1, s_dim, a);
}

void additive_backward_ws(double* dws, double* dhs, double* dwhh, double* dv, const double* dcontext,
                          const double* weights, const double* tanh_out, const double* hs, const double* v, int len,
                          int hs_dim, int a) {
  thread_local std::vector<double> da;
  da.resize(static_cast<size_t>(len));
  double ada = 0.0;
  rows_dot(da.data(), hs, hs_dim, dcontext, len, hs_dim);  // ∂loss/∂α_j = dcontext · h_j
  for (int j = 0; j < len; ++j) {
    double* dhj = dhs + static_cast<long>(j) * hs_dim;
    for (int c = 0; c < hs_dim; ++c) dhj[c] += weights[j] * dcontext[c];
    ada += weights[j] * da[j];
  }
  for (int j = 0; j < len; ++j) {
    const double de = weights[j] * (da[j] - ada);
    const double* th = tanh_out + static_cast<long>(j) * a;
    double* dwh = dwhh + static_cast<long>(j) * a;
    for (int c = 0; c < a; ++c) {
      dv[c] += de * th[c];
      const double dpre = de * v[c] * (1.0 - th[c] * th[c]);
      dwh[c] += dpre;
      dws[c] += dpre;
    }
  }
}

// ---------------------------------------------------------------- cross-entropy
double cross_entropy_forward(double* probs, const double* logits, const int* targets, int n, int v,
                             int* counted) {
  double total = 0.0;
  int count = 0;
  for (int i = 0; i < n; ++i) {
    const double* z = logits + static_cast<long>(i) * v;
    double* p = probs + static_cast<long>(i) * v;
    double mx = z[0];
    for (int j = 1; j < v; ++j)
      if (z[j] > mx) mx = z[j];
    exp_shifted(p, z, mx, v);
    double sum = 0.0;
    for (int j = 0; j < v; ++j) sum += p[j];
    for (int j = 0; j < v; ++j) p[j] /= sum;
    if (targets[i] == kIgnoreIndex) continue;
    // −log softmax = log Σ exp(z − max) − (z_t − max)
    total += det::log(sum) - (z[targets[i]] - mx);
    ++count;
  }
  if (counted) *counted = count;
  return count > 0 ? total / count : 0.0;
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
