// The learning layers' attention (learn::attention_forward / attention_backward) runs its matrix
// products only over the keys each block of queries can reach. Against the textbook loops written
// here — every key of every row, masked ones entering the sums as exact zeros, in ascending order —
// it must give the same bits: outputs, weights and the three gradients, over masks whose reachable
// keys start late, end early, have holes, rows with no key, weights that underflow to 0, strided
// layouts, accumulation into nonzero gradients, and at every register width.
#include "learn/gemm.hpp"
#include "learn/layers.hpp"
#include "support/support.hpp"
#include "attn/detmath.hpp"

#include <limits>
#include <string>

using namespace attn::learn;
using attn_test::ForceLanes;
using attn_test::randn;
using attn_test::same_bits;

namespace {

struct Layout {
  AttentionShape s;
  std::vector<double> q, k, v, dout;
};

// One sum, C's value first then each term in order, one rounding per multiply and per add.
[[gnu::noinline]] double add_terms(double acc, const double* a, long as, const double* b, long bs, int n) {
  for (int p = 0; p < n; ++p) {
    volatile double prod = a[p * as] * b[p * bs];
    acc = acc + prod;
  }
  return acc;
}

// The plain loops over every key: scores, the max over allowed keys, det::exp of every key's
// shifted score (masked ones then set to 0), the normaliser over the whole row, the blend.
void reference_forward(std::vector<double>& out, std::vector<double>& w, const Layout& L, const unsigned char* allowed) {
  const AttentionShape& s = L.s;
  for (int i = 0; i < s.tq; ++i) {
    double* row = w.data() + static_cast<size_t>(i) * s.tk;
    for (int j = 0; j < s.tk; ++j)
      row[j] = add_terms(0.0, L.q.data() + static_cast<long>(i) * s.q_stride, 1, L.k.data() + static_cast<long>(j) * s.k_stride, 1, s.dk);
    const unsigned char* ok = allowed ? allowed + static_cast<long>(i) * s.tk : nullptr;
    double mx = -std::numeric_limits<double>::infinity();
    bool any = false;
    for (int j = 0; j < s.tk; ++j) {
      if (ok && !ok[j]) continue;
      row[j] = s.scale * row[j];
      if (!any || row[j] > mx) mx = row[j];
      any = true;
    }
    double* o = out.data() + static_cast<long>(i) * s.out_stride;
    for (int c = 0; c < s.dv; ++c) o[c] = 0.0;
    if (!any) {
      for (int j = 0; j < s.tk; ++j) row[j] = 0.0;
      continue;
    }
    double sum = 0.0;
    for (int j = 0; j < s.tk; ++j) {
      row[j] = (ok && !ok[j]) ? 0.0 : attn::det::exp(row[j] - mx);
      sum += row[j];
    }
    for (int j = 0; j < s.tk; ++j) row[j] /= sum;
    for (int c = 0; c < s.dv; ++c) o[c] = add_terms(o[c], row, 1, L.v.data() + c, s.v_stride, s.tk);
  }
}

void reference_backward(std::vector<double>& dq, std::vector<double>& dk, std::vector<double>& dv, const std::vector<double>& w,
                        const Layout& L) {
  const AttentionShape& s = L.s;
  std::vector<double> ds(static_cast<size_t>(s.tq) * s.tk);
  for (int i = 0; i < s.tq; ++i) {
    const double* wr = w.data() + static_cast<size_t>(i) * s.tk;
    double* d = ds.data() + static_cast<size_t>(i) * s.tk;
    for (int j = 0; j < s.tk; ++j)
      d[j] = add_terms(0.0, L.dout.data() + static_cast<long>(i) * s.out_stride, 1, L.v.data() + static_cast<long>(j) * s.v_stride, 1, s.dv);
    double wdw = 0.0;
    for (int j = 0; j < s.tk; ++j)
      if (wr[j] != 0.0) wdw += wr[j] * d[j];
    for (int j = 0; j < s.tk; ++j) d[j] = wr[j] == 0.0 ? 0.0 : wr[j] * (d[j] - wdw) * s.scale;
  }
  for (int j = 0; j < s.tk; ++j)
    for (int c = 0; c < s.dv; ++c) {
      double& g = dv[static_cast<size_t>(j) * s.v_stride + c];
      g = add_terms(g, w.data() + j, s.tk, L.dout.data() + c, s.out_stride, s.tq);
    }
  for (int i = 0; i < s.tq; ++i)
    for (int c = 0; c < s.dk; ++c) {
      double& g = dq[static_cast<size_t>(i) * s.q_stride + c];
      g = add_terms(g, ds.data() + static_cast<size_t>(i) * s.tk, 1, L.k.data() + c, s.k_stride, s.tk);
    }
  for (int j = 0; j < s.tk; ++j)
    for (int c = 0; c < s.dk; ++c) {
      double& g = dk[static_cast<size_t>(j) * s.k_stride + c];
      g = add_terms(g, ds.data() + j, s.tk, L.q.data() + c, s.q_stride, s.tq);
    }
}

// The masks: every key (nullptr), causal (bottom-right when tk > tq), key padding at the end, a
// window whose first keys are masked, holes, and rows left empty.
std::vector<std::pair<std::string, std::vector<unsigned char>>> masks(attn::Rng& rng, int tq, int tk) {
  std::vector<std::pair<std::string, std::vector<unsigned char>>> out;
  auto make = [&](const std::string& name, auto allowed) {
    std::vector<unsigned char> m(static_cast<size_t>(tq) * tk);
    for (int i = 0; i < tq; ++i)
      for (int j = 0; j < tk; ++j) m[static_cast<size_t>(i) * tk + j] = allowed(i, j) ? 1 : 0;
    out.emplace_back(name, std::move(m));
  };
  make("causal", [&](int i, int j) { return j <= i + (tk - tq); });
  make("key padding", [&](int, int j) { return j < tk - tk / 3; });
  make("window of 3", [&](int i, int j) { return j <= i + (tk - tq) && j > i + (tk - tq) - 3; });
  make("holes and empty rows", [&](int i, int j) { return i % 3 != 1 && (rng.uniform01() < 0.5 || j == tk - 1 - i % tk); });
  make("late keys only", [&](int i, int j) { return i % 2 == 0 && j >= tk / 2; });
  return out;
}

}  // namespace

TEST_CASE("learn: attention over the reachable keys gives the full loops' bits, forward and backward",
          "[learn][gemm][attention]") {
  attn::Rng rng(11);
  int widths_seen = 0, last = 0, cases = 0, underflowed = 0;
  for (int lanes : {2, 4}) {
    ForceLanes force(lanes);
    if (gemm_lanes() == last) continue;  // this CPU lacks the width
    last = gemm_lanes();
    ++widths_seen;
    for (int tq : {1, 3, 4, 5, 9, 32})
      for (int tk : {1, 4, 7, 32})
        for (int dk : {1, 3, 8}) {
          if (tk < tq && tq != 32) continue;
          Layout L;
          AttentionShape& s = L.s;
          s.tq = tq;
          s.tk = tk;
          s.dk = dk;
          s.dv = dk + 1;
          s.q_stride = s.k_stride = 3 * dk + 2;  // q, k, v side by side in one row, as the decoder's qkv
          s.v_stride = s.q_stride;
          s.out_stride = s.dv + 1;
          s.scale = dk == 3 ? 60.0 : 1.0 / std::sqrt(static_cast<double>(dk));  // 60: some weights underflow to 0
          L.q = randn(rng, static_cast<size_t>(tq) * s.q_stride);
          L.k = randn(rng, static_cast<size_t>(tk) * s.k_stride);
          L.v = randn(rng, static_cast<size_t>(tk) * s.v_stride);
          L.dout = randn(rng, static_cast<size_t>(tq) * s.out_stride);
          std::vector<std::pair<std::string, std::vector<unsigned char>>> ms = masks(rng, tq, tk);
          ms.emplace_back("every key", std::vector<unsigned char>());
          for (const auto& [name, m] : ms) {
            INFO("lanes " << gemm_lanes() << ", tq " << tq << ", tk " << tk << ", d_k " << dk << ", mask: " << name);
            const unsigned char* allowed = m.empty() ? nullptr : m.data();
            std::vector<double> out(static_cast<size_t>(tq) * s.out_stride, 7.0), w(static_cast<size_t>(tq) * tk, 7.0);
            std::vector<double> out_ref = out, w_ref = w;
            attention_forward(out.data(), w.data(), L.q.data(), L.k.data(), L.v.data(), allowed, s);
            reference_forward(out_ref, w_ref, L, allowed);
            REQUIRE(same_bits(w, w_ref));
            REQUIRE(same_bits(out, out_ref));
            for (int i = 0; i < tq; ++i)
              for (int j = 0; j < tk; ++j)
                if (w[static_cast<size_t>(i) * tk + j] == 0.0 && (!allowed || allowed[static_cast<size_t>(i) * tk + j])) ++underflowed;
            // gradients accumulate (+=) into what is there: from nonzero values, and from zero as the
            // models' backward passes start
            for (const bool from_zero : {false, true}) {
              INFO("gradients start " << (from_zero ? "at zero" : "nonzero"));
              auto start = [&](size_t n) { return from_zero ? std::vector<double>(n, 0.0) : randn(rng, n); };
              std::vector<double> dq = start(L.q.size()), dkk = start(L.k.size()), dvv = start(L.v.size());
              std::vector<double> dq_ref = dq, dk_ref = dkk, dv_ref = dvv;
              attention_backward(dq.data(), dkk.data(), dvv.data(), L.dout.data(), w.data(), L.q.data(), L.k.data(), L.v.data(), s);
              reference_backward(dq_ref, dk_ref, dv_ref, w_ref, L);
              REQUIRE(same_bits(dq, dq_ref));
              REQUIRE(same_bits(dkk, dk_ref));
              REQUIRE(same_bits(dvv, dv_ref));
            }
            ++cases;
          }
        }
  }
  CHECK(widths_seen >= 1);
  CHECK(cases > 100);
  CHECK(underflowed > 0);  // the zero-weight paths were reached by allowed keys too
}
