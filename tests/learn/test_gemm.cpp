// The learning layers' matrix product at every register width this machine has, against the plain
// triple loop written here (C's value, then p ascending, one rounding per multiply and per add):
// the same bits, over shapes that reach every tile edge and both A layouts (rows, transposed).
#include "learn/gemm.hpp"
#include "learn/layers.hpp"
#include "support/support.hpp"
#include "attn/det_tanh.hpp"
#include "attn/detmath.hpp"

#include <cstring>
#include <limits>

using namespace attn::learn;
using attn_test::ForceLanes;
using attn_test::randn;

namespace {

// The textbook loop, kept out of line so no width is chosen for it.
[[gnu::noinline]] void triple_loop(double* c, int ldc, const double* a, long a_rs, long a_cs, const double* b, int ldb,
                                   int m, int n, int k) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      volatile double acc = c[static_cast<long>(i) * ldc + j];
      for (int p = 0; p < k; ++p) {
        const double prod = a[i * a_rs + p * a_cs] * b[static_cast<long>(p) * ldb + j];
        acc = acc + prod;
      }
      c[static_cast<long>(i) * ldc + j] = acc;
    }
}

}  // namespace

TEST_CASE("learn: the matrix product gives the triple loop's bits at every register width", "[learn][gemm]") {
  attn::Rng rng(7);
  int widths_seen = 0, last = 0;
  for (int lanes : {2, 4}) {
    ForceLanes force(lanes);
    if (gemm_lanes() == last) continue;  // this CPU lacks the width: it was clamped to one already run
    last = gemm_lanes();
    ++widths_seen;
    INFO("lanes " << gemm_lanes() << " (" << gemm_isa_name() << ")");
    for (int m : {1, 3, 4, 5, 9})
      for (int n : {1, 2, 3, 7, 8, 15, 16, 17, 33})
        for (int k : {0, 1, 5, 16})
          for (int transposed = 0; transposed < 2; ++transposed) {
            const int lda = transposed ? m : k;  // A stored M×K, or K×M read through its transpose
            const std::vector<double> a = randn(rng, static_cast<size_t>(m) * k + 1, 1.0);
            const std::vector<double> b = randn(rng, static_cast<size_t>(k) * (n + 2) + 1, 1.0);
            std::vector<double> c = randn(rng, static_cast<size_t>(m) * (n + 1), 1.0), want = c;
            const long a_rs = transposed ? 1 : lda, a_cs = transposed ? lda : 1;
            gemm_acc(c.data(), n + 1, a.data(), a_rs, a_cs, b.data(), n + 2, m, n, k);
            triple_loop(want.data(), n + 1, a.data(), a_rs, a_cs, b.data(), n + 2, m, n, k);
            INFO("m " << m << " n " << n << " k " << k << " transposed " << transposed);
            REQUIRE(std::memcmp(c.data(), want.data(), c.size() * sizeof(double)) == 0);
          }
  }
  CHECK(widths_seen >= 1);
  CHECK(gemm_lanes() >= 2);
}

TEST_CASE("learn: the products' FLOP count is 2·M·N·K per product, by hand for a linear layer", "[learn][gemm]") {
  attn::Rng rng(3);
  const int n = 7, ic = 5, oc = 6;
  const std::vector<double> x = randn(rng, n * ic), w = randn(rng, oc * ic), b = randn(rng, oc), dout = randn(rng, n * oc);
  std::vector<double> y(n * oc), dx(n * ic), dw(oc * ic), db(oc);
  const std::uint64_t f0 = gemm_flops();
  linear_forward(y.data(), x.data(), w.data(), b.data(), n, ic, oc);
  CHECK(gemm_flops() - f0 == 2u * n * ic * oc);  // one product, a multiply and an add per term
  const std::uint64_t f1 = gemm_flops();
  linear_backward(dx.data(), dw.data(), db.data(), dout.data(), x.data(), w.data(), n, ic, oc);
  CHECK(gemm_flops() - f1 == 2u * 2u * n * ic * oc);  // dinp and dweight
  const std::uint64_t f2 = gemm_flops();
  linear_backward(nullptr, dw.data(), db.data(), dout.data(), x.data(), w.data(), n, ic, oc);
  CHECK(gemm_flops() - f2 == 2u * n * ic * oc);  // dweight only
  const std::uint64_t f3 = gemm_flops();
  linear_forward(y.data(), x.data(), w.data(), b.data(), 2, ic, oc);  // few rows: dot products
  CHECK(gemm_flops() - f3 == 2u * 2 * ic * oc);
}

TEST_CASE("learn: the shifted exp gives det::exp's bits at every register width", "[learn][gemm]") {
  // Values across det::exp's branches: its regular range, the edges of the lanes' range (−708, 709),
  // subnormal results, underflow to 0, overflow to inf, ±inf and NaN, at every position in a group.
  std::vector<double> in;
  attn::Rng rng(11);
  for (double v : randn(rng, 400, 30.0)) in.push_back(v);
  for (double v : {0.0, -0.0, 1e-300, -1e-300, 0.5, -0.5, 708.0, -708.0, 709.0, 709.5, -708.5, -709.0, -730.0, -744.0,
                   -745.2, -800.0, 709.79, 710.0, 1e6, -1e6, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    for (int pad = 0; pad < 5; ++pad) {
      in.push_back(v);
      for (int q = 0; q < pad; ++q) in.push_back(0.25 * q - 1.0);
    }
  int last = 0;
  for (int lanes : {2, 4}) {
    ForceLanes force(lanes);
    if (gemm_lanes() == last) continue;
    last = gemm_lanes();
    for (double shift : {0.0, 3.5, -2.0}) {
      for (int n : {0, 1, 3, 4, 5, static_cast<int>(in.size())}) {
        std::vector<double> out(static_cast<size_t>(n) + 1, 7.0), want(static_cast<size_t>(n) + 1, 7.0);
        exp_shifted(out.data(), in.data(), shift, n);
        for (int j = 0; j < n; ++j) want[static_cast<size_t>(j)] = attn::det::exp(in[static_cast<size_t>(j)] - shift);
        INFO("lanes " << gemm_lanes() << " shift " << shift << " n " << n);
        REQUIRE(std::memcmp(out.data(), want.data(), out.size() * sizeof(double)) == 0);  // and out[n] untouched
      }
      std::vector<double> inplace = in;  // out == in
      exp_shifted(inplace.data(), inplace.data(), shift, static_cast<int>(in.size()));
      for (size_t j = 0; j < in.size(); ++j) {
        const double w = attn::det::exp(in[j] - shift);
        REQUIRE(std::memcmp(&inplace[j], &w, sizeof w) == 0);
      }
    }
  }
}

TEST_CASE("learn: tanh and sigmoid of a sum give det::tanh's and det::sigmoid's bits at every register width",
          "[learn][gemm]") {
  // Both tanh branches (|x| < 1 and not, mixed within a group), ±0, the lanes' edges (±354, ±708),
  // beyond them, ±inf and NaN, each at every position in a group.
  std::vector<double> a, b;
  attn::Rng rng(5);
  const std::vector<double> r1 = randn(rng, 300, 2.0), r2 = randn(rng, 300, 0.7);
  a.insert(a.end(), r1.begin(), r1.end());
  b.insert(b.end(), r2.begin(), r2.end());
  const double inf = std::numeric_limits<double>::infinity();
  for (double v : {0.0, -0.0, 0.999999, -1.0, 1.0, 1.0000001, 353.9, 354.0, -354.0, 354.5, 700.0, -708.0, -709.0,
                   708.5, 745.5, -750.0, inf, -inf, std::numeric_limits<double>::quiet_NaN()})
    for (int pad = 0; pad < 5; ++pad) {
      a.push_back(v), b.push_back(0.0);
      for (int q = 0; q < pad; ++q) a.push_back(0.3 * q - 0.5), b.push_back(0.2);
    }
  const int n = static_cast<int>(a.size());
  int last = 0;
  for (int lanes : {2, 4}) {
    ForceLanes force(lanes);
    if (gemm_lanes() == last) continue;
    last = gemm_lanes();
    INFO("lanes " << gemm_lanes());
    for (int m : {0, 1, 3, 5, n}) {
      std::vector<double> t(static_cast<size_t>(m)), s(static_cast<size_t>(m));
      tanh_of_sum(t.data(), a.data(), b.data(), m);
      sigmoid_of_sum(s.data(), a.data(), b.data(), m);
      for (int j = 0; j < m; ++j) {
        const double wt = attn::det::tanh(a[static_cast<size_t>(j)] + b[static_cast<size_t>(j)]);
        const double ws = attn::det::sigmoid(a[static_cast<size_t>(j)] + b[static_cast<size_t>(j)]);
        INFO("j " << j << " x " << a[static_cast<size_t>(j)] + b[static_cast<size_t>(j)]);
        REQUIRE(std::memcmp(&t[static_cast<size_t>(j)], &wt, sizeof wt) == 0);
        REQUIRE(std::memcmp(&s[static_cast<size_t>(j)], &ws, sizeof ws) == 0);
      }
    }
  }
}

TEST_CASE("learn: tanh of rows gives det::tanh's bits, one row added to every row or row by row, in place",
          "[learn][gemm]") {
  // Mixed branches so that both packed lists fill past their 256-element chunk within a call, an
  // edge value or NaN in some rows, and rows of a width that is not a multiple of any register.
  attn::Rng rng(11);
  const int rows = 23, n = 37;
  std::vector<double> b = randn(rng, static_cast<size_t>(rows) * n, 1.5), a = randn(rng, static_cast<size_t>(rows) * n, 0.8);
  b[40] = 354.0, b[41] = -354.5, b[300] = std::numeric_limits<double>::quiet_NaN(), b[302] = 1.0;
  // x = −0.0 + −0.0 = −0.0 exactly, row by row and with row 0 of a added to every row (301 = 8·37 + 5)
  a[5] = -0.0, a[301] = -0.0, b[5] = -0.0, b[301] = -0.0;
  a[40] = 0.0, a[41] = 0.0, a[302] = 0.0, a[3] = 0.0, a[4] = 0.0, a[6] = 0.0;  // the edges exactly, both ways
  int last = 0;
  for (int lanes : {2, 4}) {
    ForceLanes force(lanes);
    if (gemm_lanes() == last) continue;
    last = gemm_lanes();
    for (long a_rs : {0L, static_cast<long>(n)}) {
      INFO("lanes " << gemm_lanes() << " a_rs " << a_rs);
      std::vector<double> out(b.size() + 1, 7.0), inplace = b;
      tanh_of_rows(out.data(), a.data(), a_rs, b.data(), rows, n);
      tanh_of_rows(inplace.data(), a.data(), a_rs, inplace.data(), rows, n);  // out == b
      for (int r = 0; r < rows; ++r)
        for (int j = 0; j < n; ++j) {
          const size_t k = static_cast<size_t>(r) * n + j;
          const double w = attn::det::tanh(a[static_cast<size_t>(r * a_rs + j)] + b[k]);
          INFO("row " << r << " column " << j);
          REQUIRE(std::memcmp(&out[k], &w, sizeof w) == 0);
          REQUIRE(std::memcmp(&inplace[k], &w, sizeof w) == 0);
        }
      REQUIRE(out.back() == 7.0);  // nothing written past rows·n
    }
  }
}
