// The recurrent models' layers (GRU cell and sequence, Bahdanau's additive attention), split from
// layers.cpp by layer family; declared in layers.hpp with the rest, same conventions.
#include "learn/layers.hpp"
#include "learn/gemm.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attn/det_tanh.hpp"
#include "attn/detmath.hpp"

namespace attn::learn {

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
  using Linear = void (*)(double*, const double*, const double*, const double*, int, int, int);
  const Linear project = transposed ? static_cast<Linear>(linear_forward_t) : static_cast<Linear>(linear_forward);  // the same sums either way
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

}  // namespace attn::learn
