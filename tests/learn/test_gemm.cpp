// The learning layers' matrix product at every register width this machine has, against the plain
// triple loop written here (C's value, then p ascending, one rounding per multiply and per add):
// the same bits, over shapes that reach every tile edge and both A layouts (rows, transposed).
#include "learn/gemm.hpp"
#include "learn/layers.hpp"
#include "support/support.hpp"

#include <cstring>

using namespace attn::learn;
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

struct ForceLanes {
  explicit ForceLanes(int lanes) { gemm_force_lanes(lanes); }
  ~ForceLanes() { gemm_force_lanes(0); }
};

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
