// Every layer's backward against central finite differences (double), with L = Σ r ⊙ out for a
// fixed random r, so that dout = r.
#include "learn/layers.hpp"
#include "attn/det_tanh.hpp"
#include "support/support.hpp"
#include "attn/rope.hpp"
#include "lessons/position_symmetry.hpp"

#include <cmath>
#include <cstring>
#include <numeric>
#include <functional>
#include <tuple>

using namespace attn::learn;

#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
namespace attn::learn::detail {  // the AVX2 width of the float32 linear layer (layers_f32.cpp picks it when it can)
void linear_f32_avx2(float* out, const float* inp, const float* weight, const float* bias, int n, int ic, int oc);
}  // namespace attn::learn::detail
#endif
using attn_test::check_grads;
using attn_test::ForceLanes;
using attn_test::randn;
using attn_test::sample_indices;

namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::vector<size_t> all(size_t n) { return sample_indices(n, n); }

}  // namespace

TEST_CASE("learn fd: linear with and without bias", "[learn][fd]") {
  attn::Rng rng(1);
  for (int with_bias = 0; with_bias < 2; ++with_bias) {
    for (int n : {2, 7}) {  // both code paths of linear_forward (few rows, many rows)
      const int ic = 5, oc = 4;
      std::vector<double> x = randn(rng, n * ic), w = randn(rng, oc * ic), b = randn(rng, oc), r = randn(rng, n * oc);
      std::vector<double> out(n * oc);
      auto f = [&] {
        linear_forward(out.data(), x.data(), w.data(), with_bias ? b.data() : nullptr, n, ic, oc);
        return dot(out, r);
      };
      f();
      std::vector<double> dx(x.size(), 0.0), dw(w.size(), 0.0), db(b.size(), 0.0);
      linear_backward(dx.data(), dw.data(), with_bias ? db.data() : nullptr, r.data(), x.data(), w.data(), n, ic, oc);
      LEARN_CHECK_GRADS(check_grads(f, x, dx, all(x.size()), "dx"));
      LEARN_CHECK_GRADS(check_grads(f, w, dw, all(w.size()), "dweight"));
      if (with_bias) LEARN_CHECK_GRADS(check_grads(f, b, db, all(b.size()), "dbias"));
    }
  }
}

TEST_CASE("learn: the two linear code paths give the same bits", "[learn]") {
  attn::Rng rng(2);
  const int ic = 9, oc = 6;
  std::vector<double> x = randn(rng, 8 * ic), w = randn(rng, oc * ic), b = randn(rng, oc);
  std::vector<double> many(8 * oc), few(oc);
  linear_forward(many.data(), x.data(), w.data(), b.data(), 8, ic, oc);
  for (int i = 0; i < 8; ++i) {
    linear_forward(few.data(), x.data() + i * ic, w.data(), b.data(), 1, ic, oc);
    for (int o = 0; o < oc; ++o) CHECK(few[o] == many[i * oc + o]);
  }
}

TEST_CASE("learn fd: embedding with a repeated token", "[learn][fd]") {
  attn::Rng rng(3);
  const int v = 5, c = 3;
  const std::vector<int> tokens = {2, 0, 2, 4};
  std::vector<double> table = randn(rng, v * c), r = randn(rng, tokens.size() * c), out(tokens.size() * c);
  auto f = [&] {
    embedding_forward(out.data(), tokens.data(), table.data(), 4, c);
    return dot(out, r);
  };
  std::vector<double> dt(table.size(), 0.0);
  embedding_backward(dt.data(), r.data(), tokens.data(), 4, c);
  LEARN_CHECK_GRADS(check_grads(f, table, dt, all(table.size()), "dtable"));
  for (int j = 0; j < c; ++j) {
    CHECK(dt[1 * c + j] == 0.0);  // token 1 never appears: exactly zero gradient
    CHECK(dt[3 * c + j] == 0.0);
  }
}

TEST_CASE("learn fd: relu away from the kink - and the residual add", "[learn][fd]") {
  std::vector<double> x = {-1.5, -0.3, 0.2, 0.9, 2.0, -0.7}, r = {0.3, -1.2, 0.8, 1.1, -0.4, 2.0}, out(6);
  auto f = [&] {
    relu_forward(out.data(), x.data(), 6);
    return dot(out, r);
  };
  std::vector<double> dx(6, 0.0);
  relu_backward(dx.data(), r.data(), x.data(), 6);
  LEARN_CHECK_GRADS(check_grads(f, x, dx, all(6), "dx"));

  std::vector<double> a = {1, 2, 3}, y = {0.5, -1, 4}, ra = {0.2, -0.3, 0.7};
  auto g = [&] {
    std::vector<double> s = a;
    residual_forward(s.data(), y.data(), 3);
    return dot(s, ra);
  };
  std::vector<double> dy(3, 0.0);
  residual_backward(dy.data(), ra.data(), 3);
  LEARN_CHECK_GRADS(check_grads(g, y, dy, all(3), "dy"));
}

TEST_CASE("learn fd: gelu (erf) and gelu_new (tanh) - and erf against the C library", "[learn][fd]") {
  // Both sides of 0, the tails where Φ saturates, and the region where the two GELUs differ most.
  std::vector<double> x = {-4.5, -3.1, -1.7, -0.6, -0.05, 0.0, 0.3, 1.2, 2.4, 5.5}, out(10);
  const std::vector<double> r = {0.3, -1.2, 0.8, 1.1, -0.4, 2.0, -0.9, 0.5, 1.7, -0.2};
  using Fwd = void (*)(double*, const double*, int);
  using Bwd = void (*)(double*, const double*, const double*, int);
  const std::tuple<Fwd, Bwd, const char*> kinds[] = {{gelu_forward, gelu_backward, "gelu"},
                                                     {gelu_new_forward, gelu_new_backward, "gelu_new"}};
  for (const auto& [fwd, bwd, name] : kinds) {
    INFO(name);
    Fwd forward = fwd;
    std::function<double()> f = [&] {
      forward(out.data(), x.data(), 10);
      return dot(out, r);
    };
    std::vector<double> dx(10, 0.0);
    bwd(dx.data(), r.data(), x.data(), 10);
    LEARN_CHECK_GRADS(check_grads(f, x, dx, all(10), "dx"));
  }
  // Values by hand: GELU(1) = Φ(1) = 0.8413447460685429; gelu_new(1) = 0.5(1 + tanh(sqrt(2/π)·1.044715)).
  std::vector<double> one = {1.0}, y(1);
  gelu_forward(y.data(), one.data(), 1);
  CHECK(std::fabs(y[0] - 0.8413447460685429) < 1e-15);
  gelu_new_forward(y.data(), one.data(), 1);
  CHECK(std::fabs(y[0] - 0.5 * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * 1.044715))) < 1e-15);
  // det::erf against glibc's erf, which is independent of it (a different algorithm), over [-7, 7].
  double worst = 0.0;
  for (int i = -7000; i <= 7000; ++i) {
    const double v = i / 1000.0 + 1e-4;
    worst = std::max(worst, std::fabs(attn::det::erf(v) - std::erf(v)));
  }
  CHECK(worst < 2e-15);
  CHECK(attn::det::erf(0.0) == 0.0);
  CHECK(std::isnan(attn::det::erf(std::nan(""))));
}

TEST_CASE("learn fd: layernorm", "[learn][fd]") {
  attn::Rng rng(4);
  const int n = 3, c = 6;
  std::vector<double> x = randn(rng, n * c), w = randn(rng, c), b = randn(rng, c), r = randn(rng, n * c);
  std::vector<double> out(n * c), mean(n), rstd(n);
  auto f = [&] {
    layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), n, c);
    return dot(out, r);
  };
  f();
  std::vector<double> dx(x.size(), 0.0), dw(c, 0.0), db(c, 0.0);
  layernorm_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), mean.data(), rstd.data(), n, c);
  LEARN_CHECK_GRADS(check_grads(f, x, dx, all(x.size()), "dx"));
  LEARN_CHECK_GRADS(check_grads(f, w, dw, all(c), "dweight"));
  LEARN_CHECK_GRADS(check_grads(f, b, db, all(c), "dbias"));
}

TEST_CASE("learn fd: rope - and its table matches apply_rope", "[learn][fd]") {
  attn::Rng rng(5);
  const int t = 5, d = 6, stride = 8;
  std::vector<double> x = randn(rng, t * stride), r = randn(rng, t * stride);
  const RopeTable tab = rope_table(t, d);
  auto f = [&] {
    std::vector<double> y = x;
    rope_forward(y.data(), tab, t, stride);
    return dot(y, r);
  };
  std::vector<double> dx = r;
  rope_backward(dx.data(), tab, t, stride);
  LEARN_CHECK_GRADS(check_grads(f, x, dx, all(x.size()), "dx"));

  attn::Matrix m(t, d);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < d; ++j) m(i, j) = x[i * stride + j];
  const attn::Matrix ref = attn::apply_rope(m);
  std::vector<double> y = x;
  rope_forward(y.data(), tab, t, stride);
  for (int i = 0; i < t; ++i)
    for (int j = 0; j < d; ++j) CHECK(y[i * stride + j] == ref(i, j));  // same bits as the core's RoPE
}

TEST_CASE("learn fd: attention with causal - key padding and an empty row", "[learn][fd]") {
  attn::Rng rng(6);
  const int tq = 4, tk = 5, dk = 3, dv = 2;
  std::vector<double> q = randn(rng, tq * dk), k = randn(rng, tk * dk), v = randn(rng, tk * dv), r = randn(rng, tq * dv);
  // bottom-right causal AND key 1 padded; query 0 sees keys 0..1 but key 1 is padding → it keeps key 0;
  // query 1 gets no key at all (row emptied by the explicit mask) → zero policy.
  std::vector<unsigned char> allowed(tq * tk, 0);
  for (int i = 0; i < tq; ++i)
    for (int j = 0; j <= i + (tk - tq); ++j) allowed[i * tk + j] = (j != 1 && i != 1) ? 1 : 0;
  AttentionShape s;
  s.tq = tq;
  s.tk = tk;
  s.dk = dk;
  s.dv = dv;
  s.q_stride = s.k_stride = dk;
  s.v_stride = s.out_stride = dv;
  s.scale = 0.8;
  std::vector<double> out(tq * dv), w(tq * tk);
  auto f = [&] {
    attention_forward(out.data(), w.data(), q.data(), k.data(), v.data(), allowed.data(), s);
    return dot(out, r);
  };
  f();
  for (int j = 0; j < tk; ++j) CHECK(w[1 * tk + j] == 0.0);
  std::vector<double> dq(q.size(), 0.0), dkk(k.size(), 0.0), dvv(v.size(), 0.0);
  attention_backward(dq.data(), dkk.data(), dvv.data(), r.data(), w.data(), q.data(), k.data(), v.data(), s);
  LEARN_CHECK_GRADS(check_grads(f, q, dq, all(q.size()), "dq"));
  LEARN_CHECK_GRADS(check_grads(f, k, dkk, all(k.size()), "dk"));
  LEARN_CHECK_GRADS(check_grads(f, v, dvv, all(v.size()), "dv"));
  for (int c = 0; c < dk; ++c) {
    CHECK(dq[1 * dk + c] == 0.0);  // the empty row gets exactly zero gradient
    CHECK(dkk[1 * dk + c] == 0.0);  // the padded key gets exactly zero gradient
  }
  for (int c = 0; c < dv; ++c) CHECK(dvv[1 * dv + c] == 0.0);
}

TEST_CASE("learn fd: gru cell and gru over a sequence", "[learn][fd]") {
  attn::Rng rng(7);
  const int n = 2, in = 3, hid = 4, g3 = 3 * hid;
  std::vector<double> x = randn(rng, n * in), h = randn(rng, n * hid), wih = randn(rng, g3 * in, 0.5),
                      whh = randn(rng, g3 * hid, 0.5), bih = randn(rng, g3, 0.5), bhh = randn(rng, g3, 0.5),
                      r = randn(rng, n * hid);
  std::vector<double> out(n * hid), gates(n * g3), hn(n * hid);
  auto f = [&] {
    gru_cell_forward(out.data(), gates.data(), hn.data(), x.data(), h.data(), wih.data(), whh.data(), bih.data(),
                     bhh.data(), n, in, hid);
    return dot(out, r);
  };
  f();
  std::vector<double> dx(x.size(), 0.0), dh(h.size(), 0.0), dwih(wih.size(), 0.0), dwhh(whh.size(), 0.0),
      dbih(g3, 0.0), dbhh(g3, 0.0);
  gru_cell_backward(dx.data(), dh.data(), dwih.data(), dwhh.data(), dbih.data(), dbhh.data(), r.data(), gates.data(),
                    hn.data(), x.data(), h.data(), wih.data(), whh.data(), n, in, hid);
  LEARN_CHECK_GRADS(check_grads(f, x, dx, all(x.size()), "dx"));
  LEARN_CHECK_GRADS(check_grads(f, h, dh, all(h.size()), "dh"));
  LEARN_CHECK_GRADS(check_grads(f, wih, dwih, all(wih.size()), "dweight_ih"));
  LEARN_CHECK_GRADS(check_grads(f, whh, dwhh, all(whh.size()), "dweight_hh"));
  LEARN_CHECK_GRADS(check_grads(f, bih, dbih, all(g3), "dbias_ih"));
  LEARN_CHECK_GRADS(check_grads(f, bhh, dbhh, all(g3), "dbias_hh"));

  // a sequence of 4 steps from h₀ = 0, loss on every output
  const int t = 4;
  std::vector<double> xs = randn(rng, t * in), rs = randn(rng, t * hid), states(t * hid), sg(t * g3), shn(t * hid);
  auto fs = [&] {
    gru_sequence_forward(states.data(), sg.data(), shn.data(), xs.data(), wih.data(), whh.data(), bih.data(),
                         bhh.data(), t, in, hid);
    return dot(states, rs);
  };
  fs();
  std::vector<double> dxs(xs.size(), 0.0), dw1(wih.size(), 0.0), dw2(whh.size(), 0.0), db1(g3, 0.0), db2(g3, 0.0);
  std::vector<double> dstates = rs;
  gru_sequence_backward(dxs.data(), dw1.data(), dw2.data(), db1.data(), db2.data(), dstates.data(), states.data(),
                        sg.data(), shn.data(), xs.data(), wih.data(), whh.data(), t, in, hid);
  LEARN_CHECK_GRADS(check_grads(fs, xs, dxs, all(xs.size()), "dx (sequence)"));
  LEARN_CHECK_GRADS(check_grads(fs, whh, dw2, all(whh.size()), "dweight_hh (sequence)"));
  LEARN_CHECK_GRADS(check_grads(fs, bhh, db2, all(g3), "dbias_hh (sequence)"));
}

TEST_CASE("learn: GRU sequences read together give the bits of the step-by-step cell, one sequence after another",
          "[learn][gru]") {
  // Lengths that end at different steps (some steps have fewer than four sequences reading, some
  // more), weights shared. The reference is nn.GRUCell's layer applied one step and one sequence
  // at a time (gru_cell_forward / gru_cell_backward with one row, last step first): the old
  // code's operations in the old code's order, at both register widths.
  attn::Rng rng(12);
  const int in = 5, hid = 6, g3 = 3 * hid;
  const std::vector<int> lens = {3, 7, 1, 7, 5, 2, 6};
  const int count = static_cast<int>(lens.size());
  const std::vector<double> wih = randn(rng, g3 * in), whh = randn(rng, g3 * hid), bih = randn(rng, g3),
                            bhh = randn(rng, g3);
  std::vector<std::vector<double>> x(count), dst0(count), dx0(count);
  for (int k = 0; k < count; ++k) {
    const int t = lens[static_cast<size_t>(k)];
    x[k] = randn(rng, t * in);
    dst0[k] = randn(rng, t * hid);
    dx0[k] = randn(rng, t * in);  // dx accumulates onto what is there
  }
  const std::vector<double> dw1_0 = randn(rng, g3 * in), dw2_0 = randn(rng, g3 * hid), db1_0 = randn(rng, g3),
                            db2_0 = randn(rng, g3);
  int last = 0;
  for (int lanes : {2, 4}) {
    ForceLanes force(lanes);
    if (gemm_lanes() == last) continue;
    last = gemm_lanes();
    std::vector<std::vector<double>> states(count), gates(count), hn(count), dst = dst0, dx = dx0;
    std::vector<std::vector<double>> states1(count), gates1(count), hn1(count), dst1 = dst0, dx1 = dx0;
    std::vector<GruSequence> seqs(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) {
      const int t = lens[static_cast<size_t>(k)];
      states[k].assign(t * hid, 0.0), gates[k].assign(t * g3, 0.0), hn[k].assign(t * hid, 0.0);
      states1[k] = states[k], gates1[k] = gates[k], hn1[k] = hn[k];
      GruSequence& q = seqs[static_cast<size_t>(k)];
      q.len = t, q.x = x[k].data(), q.states = states[k].data(), q.gates = gates[k].data(), q.hn = hn[k].data();
      q.dstates = dst[k].data(), q.dx = dx[k].data();
    }
    std::vector<double> dw1 = dw1_0, dw2 = dw2_0, db1 = db1_0, db2 = db2_0;
    std::vector<double> dw1_1 = dw1_0, dw2_1 = dw2_0, db1_1 = db1_0, db2_1 = db2_0;
    gru_sequences_forward(seqs.data(), count, wih.data(), whh.data(), bih.data(), bhh.data(), in, hid);
    gru_sequences_backward(seqs.data(), count, dw1.data(), dw2.data(), db1.data(), db2.data(), wih.data(), whh.data(),
                           in, hid);
    const std::vector<double> h0(hid, 0.0);
    for (int k = 0; k < count; ++k) {
      const int t = lens[static_cast<size_t>(k)];
      for (int s = 0; s < t; ++s)
        gru_cell_forward(states1[k].data() + s * hid, gates1[k].data() + s * g3, hn1[k].data() + s * hid,
                         x[k].data() + s * in, s == 0 ? h0.data() : states1[k].data() + (s - 1) * hid, wih.data(),
                         whh.data(), bih.data(), bhh.data(), 1, in, hid);
      std::vector<double> dh0(hid, 0.0);
      for (int s = t - 1; s >= 0; --s)
        gru_cell_backward(dx1[k].data() + s * in, s == 0 ? dh0.data() : dst1[k].data() + (s - 1) * hid, dw1_1.data(),
                          dw2_1.data(), db1_1.data(), db2_1.data(), dst1[k].data() + s * hid, gates1[k].data() + s * g3,
                          hn1[k].data() + s * hid, x[k].data() + s * in,
                          s == 0 ? h0.data() : states1[k].data() + (s - 1) * hid, wih.data(), whh.data(), 1, in, hid);
      INFO("lanes " << lanes << ", sequence " << k << " of length " << t);
      CHECK(attn_test::same_bits(states[k], states1[k]));
      CHECK(attn_test::same_bits(gates[k], gates1[k]));
      CHECK(attn_test::same_bits(hn[k], hn1[k]));
      CHECK(attn_test::same_bits(dx[k], dx1[k]));
    }
    INFO("lanes " << lanes);
    CHECK(attn_test::same_bits(dw1, dw1_1));
    CHECK(attn_test::same_bits(dw2, dw2_1));
    CHECK(attn_test::same_bits(db1, db1_1));
    CHECK(attn_test::same_bits(db2, db2_1));
  }
}

TEST_CASE("learn fd: additive attention over the valid source positions", "[learn][fd]") {
  attn::Rng rng(8);
  const int S = 5, len = 3, H = 4, A = 3;
  std::vector<double> s = randn(rng, H), hs = randn(rng, S * H), whh = randn(rng, S * A), ws = randn(rng, A * H),
                      v = randn(rng, A), r = randn(rng, H);
  std::vector<double> ctx(H), w(S, -1.0), th(S * A);
  auto f = [&] {
    std::fill(w.begin(), w.end(), 0.0);
    additive_forward(ctx.data(), w.data(), th.data(), s.data(), hs.data(), whh.data(), ws.data(), v.data(), len, H, H, A);
    return dot(ctx, r);
  };
  f();
  CHECK(std::accumulate(w.begin(), w.begin() + len, 0.0) == Approx(1.0).margin(1e-15));
  std::vector<double> ds(H, 0.0), dhs(hs.size(), 0.0), dwhh(whh.size(), 0.0), dws(ws.size(), 0.0), dv(A, 0.0);
  additive_backward(ds.data(), dhs.data(), dwhh.data(), dws.data(), dv.data(), r.data(), w.data(), th.data(), s.data(),
                    hs.data(), ws.data(), v.data(), len, H, H, A);
  LEARN_CHECK_GRADS(check_grads(f, s, ds, all(H), "ds"));
  LEARN_CHECK_GRADS(check_grads(f, hs, dhs, all(hs.size()), "dh"));
  LEARN_CHECK_GRADS(check_grads(f, whh, dwhh, all(whh.size()), "dWh_h"));
  LEARN_CHECK_GRADS(check_grads(f, ws, dws, all(ws.size()), "dw_s"));
  LEARN_CHECK_GRADS(check_grads(f, v, dv, all(A), "dv"));
  for (int j = len * H; j < S * H; ++j) CHECK(dhs[j] == 0.0);  // padded positions: exactly zero
}

TEST_CASE("learn fd: cross-entropy with ignore_index", "[learn][fd]") {
  attn::Rng rng(9);
  const int n = 4, v = 5;
  std::vector<double> z = randn(rng, n * v, 2.0), p(n * v);
  const std::vector<int> targets = {3, kIgnoreIndex, 0, 4};
  int counted = 0;
  auto f = [&] { return cross_entropy_forward(p.data(), z.data(), targets.data(), n, v, &counted); };
  const double loss = f();
  CHECK(counted == 3);
  // by hand: mean over the three counted rows of log Σ exp(z) − z_target
  double ref = 0.0;
  for (int i : {0, 2, 3}) {
    double se = 0.0;
    for (int j = 0; j < v; ++j) se += std::exp(z[i * v + j]);
    ref += std::log(se) - z[i * v + targets[i]];
  }
  CHECK(loss == Approx(ref / 3).epsilon(1e-13));
  std::vector<double> dz(z.size(), 0.0);
  cross_entropy_backward(dz.data(), p.data(), targets.data(), n, v, counted);
  LEARN_CHECK_GRADS(check_grads(f, z, dz, all(z.size()), "dlogits"));
  for (int j = 0; j < v; ++j) CHECK(dz[1 * v + j] == 0.0);
}

TEST_CASE("learn: the float32 linear layer gives the bits of the plain loop at every width", "[learn][f32]") {
  // Bias plus the products in ascending k, one rounding each: the plain scalar loop below, written
  // independently of the blocked kernel (tiles of outputs, blocks of rows; SSE2, and AVX2 called
  // directly when the CPU has it; simd128 in wasm). Shapes cover partial tiles and row blocks.
  attn::Rng rng(77);
  for (auto [n, ic, oc] : {std::tuple{1, 5, 3}, std::tuple{7, 33, 17}, std::tuple{9, 64, 50}, std::tuple{13, 70, 45}}) {
    std::vector<float> x(static_cast<size_t>(n) * ic), w(static_cast<size_t>(oc) * ic), b(static_cast<size_t>(oc));
    for (float& v : x) v = static_cast<float>(rng.normal());
    for (float& v : w) v = static_cast<float>(rng.normal());
    for (float& v : b) v = static_cast<float>(rng.normal());
    std::vector<float> got(static_cast<size_t>(n) * oc), want(got.size());
    linear_forward(got.data(), x.data(), w.data(), b.data(), n, ic, oc);
    std::vector<std::vector<float>> variants;  // each x86-64 width this CPU runs, called directly
#if defined(__x86_64__) && !defined(__EMSCRIPTEN__)
    if (__builtin_cpu_supports("avx2")) {
      variants.emplace_back(got.size());
      attn::learn::detail::linear_f32_avx2(variants.back().data(), x.data(), w.data(), b.data(), n, ic, oc);
    }
#endif
    for (int r = 0; r < n; ++r)
      for (int o = 0; o < oc; ++o) {
        float s = b[static_cast<size_t>(o)];
        for (int k = 0; k < ic; ++k) {
          const float p = x[static_cast<size_t>(r) * ic + k] * w[static_cast<size_t>(o) * ic + k];
          s = s + p;
        }
        want[static_cast<size_t>(r) * oc + o] = s;
      }
    INFO("n " << n << ", ic " << ic << ", oc " << oc);
    CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
    for (const std::vector<float>& v : variants) CHECK(std::memcmp(v.data(), want.data(), v.size() * sizeof(float)) == 0);
  }
}
