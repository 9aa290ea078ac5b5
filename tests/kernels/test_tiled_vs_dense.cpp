// tests/kernels/test_tiled_vs_dense.cpp — the fast kernels (float64) against the reference
// attention() (attention.hpp: fixed-order loops, det::exp), for every tile size, every mask kind,
// both empty-row policies and every instruction-set build available on the machine.
//
// Tolerance: 1e-12 absolute on outputs and weights (entries of Q, K, V in [−1, 1]; the kernels
// differ from the reference only in summation order, FMA and a ~2 ulp exp, i.e. ~1e-15 here).
#include <algorithm>

#include "support/support.hpp"

#include <attn/attention.hpp>

using namespace attn_test;
namespace kn = attn::kernels;

namespace {

struct Shape {
  Index tq, tk, dk, dv;
};

// Tk not a multiple of any tile > 1, Tq ≠ Tk both ways, d_v odd and smaller than a vector,
// d_k = 1, and one shape larger than the 128 tile (a partial last tile at 128).
const Shape kShapes[] = {{1, 1, 1, 1}, {5, 7, 3, 2}, {37, 150, 16, 5}, {150, 37, 8, 9}, {133, 141, 24, 33}};
const Index kTiles[] = {1, 2, 3, 7, 16, 64, 128};

void compare_case(const Shape& sh, const MaskCase& mc, Index tile_q, Index tile_k, kn::Isa isa, const Matrix& q,
                  const Matrix& k, const Matrix& v, const attn::AttentionResult& ref) {
  kn::KernelOptions o;
  o.empty_rows = mc.may_have_empty_rows ? attn::EmptyRows::zero : attn::EmptyRows::error;
  o.tile_q = tile_q;
  o.tile_k = tile_k;
  INFO("shape Tq=" << sh.tq << " Tk=" << sh.tk << " d_k=" << sh.dk << " d_v=" << sh.dv << ", mask: " << mc.name
                   << ", tile " << tile_q << "x" << tile_k << ", isa " << isa_label(isa));
  const kn::KernelResult<double> t = kn::tiled_attention<double>(q, k, v, mc.spec, o);
  std::string where;
  const double d = max_diff(t.output, ref.output, 1e-12, &where);
  INFO("tiled output max |diff| = " << d << where);
  CHECK(d <= 1e-12);
  CHECK(t.empty_row == ref.empty_row);
}

// Every shape (Q, K, V drawn from Rng(seed) in turn), every mask case (mask_cases(.., mask_seed)),
// the reference result with the empty-row policy the case needs, then every instruction set the
// machine has: check(sh, mc, isa, q, k, v, ro, ref) with that instruction set active.
template <class Check>
void for_each_case(std::uint64_t seed, std::uint64_t mask_seed, Check&& check) {
  attn::Rng rng(seed);
  for (const Shape& sh : kShapes) {
    const Matrix q = uniform(rng, sh.tq, sh.dk), k = uniform(rng, sh.tk, sh.dk), v = uniform(rng, sh.tk, sh.dv);
    for (const MaskCase& mc : mask_cases(sh.tq, sh.tk, mask_seed)) {
      attn::AttentionOptions ro;
      ro.empty_rows = mc.may_have_empty_rows ? attn::EmptyRows::zero : attn::EmptyRows::error;
      const attn::AttentionResult ref = attn::attention(q, k, v, mc.spec, ro);
      for (kn::Isa isa : kn::available_isas()) {
        REQUIRE(kn::set_isa(isa));
        check(sh, mc, isa, q, k, v, ro, ref);
      }
    }
  }
}

}  // namespace

TEST_CASE("tiled float64 equals the reference for every tile size and mask") {
  IsaGuard guard;
  for_each_case(2024, 7, [](const Shape& sh, const MaskCase& mc, kn::Isa isa, const Matrix& q, const Matrix& k,
                            const Matrix& v, const attn::AttentionOptions&, const attn::AttentionResult& ref) {
    for (Index tile : kTiles) compare_case(sh, mc, tile, tile, isa, q, k, v, ref);
    // Unequal query and key tiles.
    compare_case(sh, mc, 3, 64, isa, q, k, v, ref);
    compare_case(sh, mc, 128, 7, isa, q, k, v, ref);
    compare_case(sh, mc, 0, 0, isa, q, k, v, ref);  // defaults (128 x 256)
  });
}

TEST_CASE("dense float64 fast path equals the reference for every mask") {
  IsaGuard guard;
  for_each_case(77, 9, [](const Shape& sh, const MaskCase& mc, kn::Isa isa, const Matrix& q, const Matrix& k,
                          const Matrix& v, const attn::AttentionOptions& ro, const attn::AttentionResult& ref) {
    kn::KernelOptions o;
    o.empty_rows = ro.empty_rows;
    o.keep_weights = true;
    INFO("shape Tq=" << sh.tq << " Tk=" << sh.tk << ", mask: " << mc.name << ", isa " << isa_label(isa));
    const kn::KernelResult<double> r = kn::dense_attention<double>(q, k, v, mc.spec, o);
    std::string where;
    const double d_out = max_diff(r.output, ref.output, 1e-12, &where);
    INFO("output max |diff| = " << d_out << where);
    CHECK(d_out <= 1e-12);
    const double d_w = max_diff(r.weights, ref.weights, 1e-12, &where);
    INFO("weights max |diff| = " << d_w << where);
    CHECK(d_w <= 1e-12);
    CHECK(r.empty_row == ref.empty_row);
    CHECK(r.extra_bytes >= static_cast<size_t>(sh.tq * sh.tk) * sizeof(double));
  });
}

TEST_CASE("tiled result rebuilds the reference weights and scores from its row statistics") {
  attn::Rng rng(5);
  const Matrix q = uniform(rng, 40, 6), k = uniform(rng, 53, 6), v = uniform(rng, 53, 4);
  for (const MaskCase& mc : mask_cases(40, 53, 3)) {
    attn::AttentionOptions ro;
    ro.empty_rows = attn::EmptyRows::zero;
    const attn::AttentionResult ref = attn::attention(q, k, v, mc.spec, ro);
    for (Index tile : kTiles) {
      INFO("mask: " << mc.name << ", tile " << tile);
      const attn::AttentionResult t = kn::tiled_attention_result(q, k, v, mc.spec, ro, tile, tile);
      CHECK(max_diff(t.output, ref.output, 1e-12) <= 1e-12);
      CHECK(max_diff(t.weights, ref.weights, 1e-12) <= 1e-12);
      CHECK(max_diff(t.scores, ref.scores, 0.0) == 0.0);  // recomputed in the same order
      CHECK(t.allowed == ref.allowed);
      CHECK(t.empty_row == ref.empty_row);
      CHECK(t.scale == ref.scale);
    }
  }
}

TEST_CASE("masked keys with huge values change nothing in the fast kernels") {
  // Key 0 and its value are enormous but padded out: q·k would overflow, 0·v would not be 0·inf.
  // The reference ignores them; so must the kernels (never multiply a masked entry by zero).
  IsaGuard guard;
  attn::Rng rng(11);
  Matrix q = uniform(rng, 9, 4), k = uniform(rng, 12, 4), v = uniform(rng, 12, 3);
  k.row(0).setConstant(1e300);
  q.col(0).setConstant(1e10);
  v.row(0).setConstant(1e300);
  MaskSpec s;
  std::vector<bool> valid(12, true);
  valid[0] = false;
  s.key_valid = valid;
  kn::KernelOptions o;
  o.scale = 1e-12;  // keep the allowed scores (q·k ~ 1e10) moderate
  attn::AttentionOptions ro;
  ro.scale = 1e-12;
  const attn::AttentionResult ref = attn::attention(q, k, v, s, ro);
  for (kn::Isa isa : kn::available_isas()) {
    REQUIRE(kn::set_isa(isa));
    for (Index tile : kTiles) {
      o.tile_q = o.tile_k = tile;
      INFO("tile " << tile << ", isa " << isa_label(isa));
      CHECK(max_diff(kn::tiled_attention<double>(q, k, v, s, o).output, ref.output, 1e-12) <= 1e-12);
    }
    CHECK(max_diff(kn::dense_attention<double>(q, k, v, s, o).output, ref.output, 1e-12) <= 1e-12);
  }
}

TEST_CASE("tiled working memory is independent of Tk and far below the dense matrix") {
  // The target at T = 8192: at most 1/20 of dense's extra memory (a Tq×Tk matrix).
  for (size_t elem : {sizeof(float), sizeof(double)}) {
    const size_t dense = size_t(8192) * 8192 * elem;
    const size_t tiled = kn::tiled_workspace_bytes(8192, 8192, 64, 64, elem);
    INFO("elem " << elem << ": tiled " << tiled << " B, dense " << dense << " B");
    CHECK(tiled * 20 <= dense);
    CHECK(kn::tiled_workspace_bytes(8192, 1 << 20, 64, 64, elem) == tiled);
  }
  attn::Rng rng(3);
  const Matrix q = uniform(rng, 300, 16), k = uniform(rng, 700, 16), v = uniform(rng, 700, 16);
  const kn::KernelResult<double> r = kn::tiled_attention<double>(q, k, v);
  CHECK(r.extra_bytes < size_t(300) * 700 * sizeof(double) / 4);
  CHECK(r.extra_bytes >= kn::tiled_workspace_bytes(300, 700, 16, 16, sizeof(double)));
}

TEST_CASE("kernels profile their phases when asked") {
  attn::Rng rng(4);
  const Matrix q = uniform(rng, 64, 16), k = uniform(rng, 64, 16), v = uniform(rng, 64, 16);
  kn::KernelProfile p;
  kn::KernelOptions o;
  o.profile = &p;
  (void)kn::tiled_attention<double>(q, k, v, {}, o);
  (void)kn::dense_attention<double>(q, k, v, {}, o);
  CHECK(p.scores_ns + p.softmax_ns + p.values_ns > 0);
}
