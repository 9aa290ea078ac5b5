// attn/kernels/isa_impl.hpp — the body of one instruction-set build of the fast kernels.
//
// Included by exactly one .cpp per instruction set (isa_generic.cpp, isa_avx2.cpp,
// isa_avx512.cpp), after it defines ATTN_ISA_NS (the namespace of its entry points) and
// ATTN_EIGEN_NS (a private name for Eigen's namespace in that file). Everything below is
// internal to the including file; the entry points are declared in isa.hpp. Errors are reported
// in KernelArgs (bad_i/bad_j), never thrown: fast_attention.cpp turns them into attn::Error.
//
// Why Eigen is renamed: Eigen picks its SIMD path from the compiler flags (__AVX512F__, __AVX2__,
// __FMA__), and its inline functions would otherwise be emitted under the same names in files
// compiled with different flags; the linker keeps one copy, which could be the widest one.
#ifndef ATTN_ISA_NS
#error "define ATTN_ISA_NS before including attn/kernels/isa_impl.hpp"
#endif
#ifndef ATTN_EIGEN_NS
#error "define ATTN_EIGEN_NS before including attn/kernels/isa_impl.hpp"
#endif
#ifdef EIGEN_CORE_H
#error "isa_impl.hpp must be the first header to include Eigen in this file"
#endif

#define Eigen ATTN_EIGEN_NS
#include <Eigen/Core>
#undef Eigen

#include "attn/kernels/isa.hpp"
#include "attn/kernels/simd.hpp"

namespace attn::kernels::detail::ATTN_ISA_NS {
namespace {

namespace E = ::ATTN_EIGEN_NS;
using namespace simd;
using std::ptrdiff_t;

template <class T> constexpr T kNegInf = static_cast<T>(-__builtin_inf());

ATTN_INLINE ptrdiff_t imin(ptrdiff_t a, ptrdiff_t b) { return a < b ? a : b; }
ATTN_INLINE ptrdiff_t imax(ptrdiff_t a, ptrdiff_t b) { return a > b ? a : b; }
ATTN_INLINE ptrdiff_t round_up(ptrdiff_t x, ptrdiff_t m) { return (x + m - 1) / m * m; }
template <class T> ATTN_INLINE bool finite(T x) { return __builtin_isfinite(x); }

// ---------------------------------------------------------------------------
// Mask geometry. Causal and window masks allow a contiguous range per query (a row of the
// Tq×Tk mask) and per key (a column); key_valid and an explicit allowed matrix are checked per entry.

struct Range {
  ptrdiff_t lo, hi;  // [lo, hi); empty when lo >= hi
};

/// Keys that query i may see by the causal/window parts (0 <= lo, hi <= tk).
ATTN_INLINE Range keys_for_query(const MaskView& m, ptrdiff_t i, ptrdiff_t tk) {
  Range r{0, tk};
  if (m.causal) r.hi = imin(r.hi, i + m.causal_offset + 1);
  if (m.windowed) {
    r.lo = imax(r.lo, i - m.window);
    r.hi = imin(r.hi, i + m.window + 1);
  }
  return r;
}

/// Queries that may see key j by the causal/window parts (0 <= lo, hi <= tq).
ATTN_INLINE Range queries_for_key(const MaskView& m, ptrdiff_t j, ptrdiff_t tq) {
  Range r{0, tq};
  if (m.causal) r.lo = imax(r.lo, j - m.causal_offset);
  if (m.windowed) {
    r.lo = imax(r.lo, j - m.window);
    r.hi = imin(r.hi, j + m.window + 1);
  }
  return r;
}

// ---------------------------------------------------------------------------
// Row helpers on contiguous arrays (vector body, scalar or padded tail).

/// x *= scale over n entries; returns the max; sets *bad at a non-finite entry.
template <class T> ATTN_INLINE T scale_max_check(T* x, ptrdiff_t n, T scale, bool* bad) {
  constexpr int W = kLanes<T>;
  Vec<T> mv = splat<T>(kNegInf<T>);
  auto badv = not_finite<T>(Vec<T>{});
  ptrdiff_t j = 0;
  for (; j + W <= n; j += W) {
    const Vec<T> s = load<T>(x + j) * scale;
    badv |= not_finite<T>(s);
    mv = vmax<T>(mv, s);
    store<T>(x + j, s);
  }
  T m = hmax<T>(mv);
  bool b = any(badv);
  for (; j < n; ++j) {
    const T s = x[j] * scale;
    b = b || !finite(s);
    m = s > m ? s : m;
    x[j] = s;
  }
  if (b) *bad = true;
  return m;
}

template <class T> ATTN_INLINE T max_of(const T* x, ptrdiff_t n) {
  constexpr int W = kLanes<T>;
  Vec<T> mv = splat<T>(kNegInf<T>);
  ptrdiff_t j = 0;
  for (; j + W <= n; j += W) mv = vmax<T>(mv, load<T>(x + j));
  T m = hmax<T>(mv);
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

/// x = exp(x − m) over n entries; returns Σ x.
template <class T> ATTN_INLINE T exp_sub_sum(T* x, ptrdiff_t n, T m) {
  constexpr int W = kLanes<T>;
  Vec<T> sv = Vec<T>{};
  ptrdiff_t j = 0;
  for (; j + W <= n; j += W) {
    const Vec<T> p = exp_softmax_v(load<T>(x + j) - m);
    sv += p;
    store<T>(x + j, p);
  }
  T s = hsum<T>(sv);
  if (j < n) {
    T tmp[W];
    for (int t = 0; t < W; ++t) tmp[t] = j + t < n ? x[j + t] : kNegInf<T>;
    store<T>(tmp, exp_softmax_v(load<T>(tmp) - m));
    for (int t = 0; j + t < n; ++t) {
      x[j + t] = tmp[t];
      s += tmp[t];
    }
  }
  return s;
}

template <class T> ATTN_INLINE void fill(T* x, ptrdiff_t n, T value) {
  for (ptrdiff_t j = 0; j < n; ++j) x[j] = value;
}

// Packs the first n rows of `src` (row stride ld, `cols` wide) transposed into slabs of `width`
// rows: slab s holds column c of its rows at dst[(s·cols + c)·width + lane]; the lanes past row n
// in the last slab are zero, so a register block can read whole slabs.
template <class T> ATTN_INLINE void pack_slabs(T* dst, const T* src, ptrdiff_t ld, ptrdiff_t n, ptrdiff_t cols, int width) {
  for (ptrdiff_t s = 0; s * width < n; ++s)
    for (int x = 0; x < width; ++x) {
      const ptrdiff_t i = s * width + x;
      T* d = dst + s * cols * width + x;
      if (i < n) {
        const T* row = src + i * ld;
        for (ptrdiff_t c = 0; c < cols; ++c) d[c * width] = row[c];
      } else {
        for (ptrdiff_t c = 0; c < cols; ++c) d[c * width] = 0;
      }
    }
}

// ---------------------------------------------------------------------------
// Dense: S = Q·Kᵀ and O = P·V by Eigen's GEMM, the softmax in between row by row.
//   1. S (Tq×Tk, row-major, in the workspace) = Q·Kᵀ            — Eigen GEMM
//   2. per query row: scale, mask, check, max over allowed keys; p = exp(s − max); normalise
//   3. O = P·V                                                  — Eigen GEMM

template <class T> void dense_impl(KernelArgs<T>& a) {
  using M = E::Matrix<T, E::Dynamic, E::Dynamic, E::RowMajor>;
  using Stride = E::OuterStride<>;
  const ptrdiff_t tq = a.tq, tk = a.tk;
  const MaskView& mk = a.mask;
  E::Map<const M, 0, Stride> q(a.q, tq, a.dk, Stride(a.ldq));
  E::Map<const M, 0, Stride> k(a.k, tk, a.dk, Stride(a.ldk));
  E::Map<const M, 0, Stride> v(a.v, tk, a.dv, Stride(a.ldv));
  E::Map<M> p(a.workspace, tq, tk);
  E::Map<M> o(a.out, tq, a.dv);
  a.bad_i = a.bad_j = -1;
  const std::uint64_t t0 = a.clock_ns ? a.clock_ns() : 0;

  // 1. scores
  p.noalias() = q * k.transpose();
  const std::uint64_t t1 = a.clock_ns ? a.clock_ns() : 0;

  // 2. softmax over allowed keys, row by row (the row stays in L1 between passes).
  const bool per_entry = mk.key_valid || mk.allowed;
  for (ptrdiff_t i = 0; i < tq; ++i) {
    T* row = a.workspace + i * tk;
    const Range r = keys_for_query(mk, i, tk);
    const bool none = r.lo >= r.hi;  // e.g. a window that ends before the first key
    const ptrdiff_t lo = none ? 0 : r.lo, hi = none ? 0 : r.hi;
    T mx = kNegInf<T>;
    bool bad = false;
    if (!per_entry) {
      if (hi > lo) mx = scale_max_check(row + lo, hi - lo, a.scale, &bad);
    } else {
      for (ptrdiff_t j = lo; j < hi; ++j) {
        const bool ok = (!mk.key_valid || mk.key_valid[j]) &&
                        (!mk.allowed || mk.allowed[i * mk.allowed_stride + j]);
        if (!ok) {
          row[j] = kNegInf<T>;
          continue;
        }
        const T s = row[j] * a.scale;
        bad = bad || !finite(s);
        row[j] = s;
      }
      if (hi > lo) mx = max_of(row + lo, hi - lo);
    }
    if (bad) {
      for (ptrdiff_t j = lo; j < hi; ++j)
        if (row[j] != kNegInf<T> && !finite(row[j])) {
          a.bad_i = i;
          a.bad_j = j;
          return;
        }
      // an allowed score overflowed to −inf itself
      for (ptrdiff_t j = lo; j < hi; ++j)
        if (!finite(row[j]) && (!mk.key_valid || mk.key_valid[j]) &&
            (!mk.allowed || mk.allowed[i * mk.allowed_stride + j])) {
          a.bad_i = i;
          a.bad_j = j;
          return;
        }
    }
    fill(row, lo, T(0));
    fill(row + hi, tk - hi, T(0));
    if (mx == kNegInf<T>) {  // no allowed key: a zero row (the API applies the policy)
      fill(row + lo, hi - lo, T(0));
      a.empty[i] = 1;
      if (a.row_max) a.row_max[i] = kNegInf<T>;
      if (a.row_sum) a.row_sum[i] = 0;
      continue;
    }
    a.empty[i] = 0;
    const T sum = exp_sub_sum(row + lo, hi - lo, mx);
    const Vec<T> sv = splat<T>(sum);
    ptrdiff_t j = lo;
    for (; j + kLanes<T> <= hi; j += kLanes<T>) store<T>(row + j, load<T>(row + j) / sv);
    for (; j < hi; ++j) row[j] /= sum;
    if (a.row_max) a.row_max[i] = mx;
    if (a.row_sum) a.row_sum[i] = sum;
  }
  const std::uint64_t t2 = a.clock_ns ? a.clock_ns() : 0;

  // 3. values
  o.noalias() = p * v;
  if (a.clock_ns) {
    const std::uint64_t t3 = a.clock_ns();
    a.ns_scores += t1 - t0;
    a.ns_softmax += t2 - t1;
    a.ns_values += t3 - t2;
  }
}

// ---------------------------------------------------------------------------
// Tiled (FlashAttention; Dao et al. 2022, alg. 1, with the online softmax of Milakov &
// Gimelshein 2018). For each tile of Bq queries, keep per query the running max m_i, the running
// normaliser ℓ_i and an unnormalised output row o_i; for each tile of Bk keys:
//   1. Sᵀ = K_tile · Q_tileᵀ · scale          (Bk×Bq, key-major: one vector holds 2W queries)
//   2. mask; m̃_i = max_j s_ij over the tile's allowed keys
//   3. m_new = max(m_i, m̃_i);  α_i = exp(m_i − m_new)
//   4. p_ij = exp(s_ij − m_new);  ℓ_i = α_i·ℓ_i + Σ_j p_ij
//   5. o_i = α_i·o_i + Σ_j p_ij·v_j
// and finally out_i = o_i / ℓ_i. A query with no allowed key so far has m_i = −inf; its p and α
// are computed against 0 instead (exp(−inf) = 0), so no −inf − (−inf) ever happens. Tiles with no
// allowed pair are skipped. Working memory: the workspace of tiled_workspace_elems() only.
//
// Layout: scores are key-major (Sᵀ, one vector holds 2W queries), so the row max, the
// rescaling and the sums are lane-wise (no horizontal reductions), and the output accumulator
// is transposed too (Oᵀ, d_v × queries), so that both products are the same register block
// (block_2w). The query tile is packed once (Qᵀ, zero-padded to a multiple of 2W queries); K and
// V are read in place, except that in wasm each key tile is packed per query tile (ATTN_PACK_KEYS).
// The working set of one step (Sᵀ slab, V rows) stays in L1/L2 for the default 128 × 256 tiles.

/// Rows per register block: 6 with AVX2 (12 accumulators + 2 operands + 1 broadcast = 15 of 16
/// ymm registers); 4 in wasm, where V8 keeps one of the 16 xmm registers as scratch and needs a
/// temporary for each multiply before its add (6 rows spill); 8 with AVX-512 (16 of 32 zmm
/// accumulators: 10 and 12 rows measured no faster at T = 2048, d = 64, and 8 divides d_v = 64).
#ifndef ATTN_KERNEL_ROWS_AVX512
#define ATTN_KERNEL_ROWS_AVX512 8
#endif
#ifndef ATTN_KERNEL_ROWS
#if defined(__wasm__)
#define ATTN_KERNEL_ROWS 4
#elif defined(__AVX512F__)
#define ATTN_KERNEL_ROWS ATTN_KERNEL_ROWS_AVX512
#else
#define ATTN_KERNEL_ROWS 6
#endif
#endif
inline constexpr int kRows = ATTN_KERNEL_ROWS;
static_assert(kRows >= 1 && kRows <= 12 && kRows <= kKeyPackRows, "a register block fits the packed key tile");

// In wasm each register block is its own (small) function: inlined into the large tile loop,
// V8's register allocator spills the accumulators inside the k loop (2-3x slower).
#if defined(__wasm__)
#define ATTN_BLOCK_INLINE static __attribute__((noinline))
#else
#define ATTN_BLOCK_INLINE ATTN_INLINE
#endif

/// One k step of block_2w: each of the R rows' accumulator pair += a[r·ars] · (b0, b1).
template <class T, int R>
ATTN_INLINE void rank1_2w(Vec<T>* a0, Vec<T>* a1, const T* __restrict a, ptrdiff_t ars, Vec<T> b0, Vec<T> b1) {
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    const Vec<T> x = splat<T>(a[r * ars]);
    a0[r] += x * b0;
    a1[r] += x * b1;
  }
}

/// The one register block of both products: R rows × 2W lanes (one slab of queries),
///   C[r][0..2W) (+)= Σ_k A(r, k) · B[k][0..2W),   A(r, k) = a[r·ars + k·acs],  B row k at b + k·ldb.
/// Scores:  Sᵀ = K·Qᵀ:   A = K, in place (ars = ld_k, acs = 1) or packed in blocks of R keys
///                       ([k][r]: ars = 1, acs = R), B = packed Qᵀ slab.
/// Values:  Oᵀ += Vᵀ·Pᵀ: A = Vᵀ read in place (ars = 1, acs = ld_v), B = Pᵀ slab.
/// UNIT: ars is 1 (the broadcasts of one k are adjacent: no address arithmetic per row).
/// Per k: 2 vector loads, R broadcasts from one cache line, 2R multiply-adds (FMA with AVX2)
/// into 2R accumulators; the k loop is unrolled twice.
/// ACC: add to C (else overwrite). FUSE (scores of a tile where every pair is allowed): also
/// scale the block, fold it into the per-query tile max `mt` (2 vectors) and into `chk` (stays 0
/// unless a score is inf or NaN: s·0 is NaN exactly then), while it is still in registers.
template <class T, int R, bool ACC, bool FUSE, bool UNIT>
ATTN_BLOCK_INLINE void block_2w(ptrdiff_t kdim, const T* __restrict a, ptrdiff_t ars, ptrdiff_t acs,
                                const T* __restrict b, ptrdiff_t ldb, T* __restrict c, ptrdiff_t ldc, T scale,
                                T* __restrict mt, Vec<T>& chk) {
  constexpr int W = kLanes<T>;
  if constexpr (UNIT) ars = 1;
  Vec<T> a0[R], a1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    if constexpr (ACC) {
      a0[r] = load<T>(c + r * ldc);
      a1[r] = load<T>(c + r * ldc + W);
    } else {
      a0[r] = a1[r] = Vec<T>{};
    }
  }
  ptrdiff_t k = 0;
  for (; k + 2 <= kdim; k += 2, a += 2 * acs, b += 2 * ldb) {
    rank1_2w<T, R>(a0, a1, a, ars, load<T>(b), load<T>(b + W));
    rank1_2w<T, R>(a0, a1, a + acs, ars, load<T>(b + ldb), load<T>(b + ldb + W));
  }
  if (k < kdim) rank1_2w<T, R>(a0, a1, a, ars, load<T>(b), load<T>(b + W));
  if constexpr (FUSE) {
    Vec<T> m0 = load<T>(mt), m1 = load<T>(mt + W), z = chk;
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      a0[r] *= scale;
      a1[r] *= scale;
      z += a0[r] * T(0);
      z += a1[r] * T(0);
      m0 = vmax<T>(m0, a0[r]);
      m1 = vmax<T>(m1, a1[r]);
    }
    store<T>(mt, m0);
    store<T>(mt + W, m1);
    chk = z;
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    store<T>(c + r * ldc, a0[r]);
    store<T>(c + r * ldc + W, a1[r]);
  }
}

/// One block of n rows, 0 <= n <= N: instantiates block_2w for 1..N rows only (so a build
/// with few rows per block carries no code for the others).
template <class T, int N, bool ACC, bool FUSE, bool UNIT>
ATTN_INLINE void tail_2w(ptrdiff_t n, ptrdiff_t kdim, const T* a, ptrdiff_t ars, ptrdiff_t acs, const T* b,
                         ptrdiff_t ldb, T* c, ptrdiff_t ldc, T scale, T* mt, Vec<T>& chk) {
  if constexpr (N > 0) {
    if (n == N)
      block_2w<T, N, ACC, FUSE, UNIT>(kdim, a, ars, acs, b, ldb, c, ldc, scale, mt, chk);
    else
      tail_2w<T, N - 1, ACC, FUSE, UNIT>(n, kdim, a, ars, acs, b, ldb, c, ldc, scale, mt, chk);
  }
}

/// block_2w over `rows` rows of A: blocks of kRows rows (block n starts at a + n·ablock), then
/// one block of the remainder.
template <class T, bool ACC, bool FUSE, bool UNIT>
ATTN_INLINE void rows_2w(ptrdiff_t rows, ptrdiff_t kdim, const T* a, ptrdiff_t ablock, ptrdiff_t ars, ptrdiff_t acs,
                         const T* b, ptrdiff_t ldb, T* c, ptrdiff_t ldc, T scale, T* mt, Vec<T>& chk) {
  constexpr int R = kRows;
  ptrdiff_t r = 0;
  for (; r + R <= rows; r += R, a += ablock, c += R * ldc)
    block_2w<T, R, ACC, FUSE, UNIT>(kdim, a, ars, acs, b, ldb, c, ldc, scale, mt, chk);
  tail_2w<T, R - 1, ACC, FUSE, UNIT>(rows - r, kdim, a, ars, acs, b, ldb, c, ldc, scale, mt, chk);  // 0 <= rows − r < R
}

/// Pack the key tile (ATTN_PACK_KEYS): a register block's keys side by side for each feature.
/// Pays in wasm, where every strided broadcast costs V8 an address computation; natively the
/// in-place rows are as fast and the copy is not.
#ifndef ATTN_PACK_KEYS
#if defined(__wasm__)
#define ATTN_PACK_KEYS 1
#else
#define ATTN_PACK_KEYS 0
#endif
#endif

/// Sᵀ (kb × lanes, row stride lds) = K_tile · Qᵀ, slab by slab; FUSE as block_2w.
template <class T, bool FUSE>
ATTN_INLINE void scores_tile(ptrdiff_t kb, ptrdiff_t dk, ptrdiff_t lanes, const T* k, ptrdiff_t ldk, T* kp,
                             const T* qt, T* st, ptrdiff_t lds, T scale, T* mt, Vec<T>& chk) {
  constexpr int NQ = 2 * kLanes<T>;
  if constexpr (ATTN_PACK_KEYS != 0) {
    (void)ldk;
    for (ptrdiff_t s = 0; s < lanes / NQ; ++s)
      rows_2w<T, false, FUSE, true>(kb, dk, kp, dk * kRows, 1, kRows, qt + s * dk * NQ, NQ, st + s * NQ, lds, scale,
                                    FUSE ? mt + s * NQ : mt, chk);
  } else {
    (void)kp;
    for (ptrdiff_t s = 0; s < lanes / NQ; ++s)
      rows_2w<T, false, FUSE, false>(kb, dk, k, kRows * ldk, ldk, 1, qt + s * dk * NQ, NQ, st + s * NQ, lds, scale,
                                     FUSE ? mt + s * NQ : mt, chk);
  }
}

template <class T> void tiled_impl(KernelArgs<T>& a) {
  constexpr int W = kLanes<T>, NQ = 2 * W;
  static_assert(kQueryPad % NQ == 0, "the workspace pads query tiles to kQueryPad");
  const ptrdiff_t tq = a.tq, tk = a.tk, dk = a.dk, dv = a.dv;
  const ptrdiff_t bq = imin(a.tile_q, tq), bk = imin(a.tile_k, tk);
  const ptrdiff_t bqp = round_up(bq, kQueryPad);
  const MaskView& mk = a.mask;
  const bool explicit_mask = mk.allowed != nullptr;
  const T scale = a.scale;
  const Vec<T> ninf = splat<T>(kNegInf<T>);
  // Workspace (isa.hpp, tiled_workspace_elems):
  T* const qt = a.workspace;                  // Qᵀ slabs: [slab][c][NQ]
  T* const st = qt + bqp * dk;                // Sᵀ, then P: [key][lane], row stride lds
  T* const o = st + bk * (bqp + kQueryPad);   // Oᵀ: [d_v][lane], row stride lds
  T* const m = o + (bqp + kQueryPad) * dv;    // running max per query
  T* const l = m + bqp;                       // running normaliser
  T* const alpha = l + bqp;                   // rescale factor of this key tile
  T* const mu = alpha + bqp;                  // max used in exp (0 while a query has no allowed key)
  T* const mt = mu + bqp;                     // tile max
  T* const kp = mt + bqp;                     // packed key tile (wasm): [block][c][kRows]
  a.bad_i = a.bad_j = -1;

  for (ptrdiff_t i0 = 0; i0 < tq; i0 += bq) {
    const ptrdiff_t nb = imin(bq, tq - i0);
    const ptrdiff_t nbp = round_up(nb, NQ);  // lanes in use
    // Row stride of Sᵀ and Oᵀ: one slab more than the lanes, so that walking down a column does
    // not hit the same few L1 sets (nbp is often a power of two).
    const ptrdiff_t lds = nbp + NQ;
    // Pack the query tile: Qᵀ in slabs of NQ queries, zero past the last query.
    pack_slabs(qt, a.q + i0 * a.ldq, a.ldq, nb, dk, NQ);
    fill(m, nbp, kNegInf<T>);
    fill(l, nbp, T(0));
    fill(o, lds * dv, T(0));

    for (ptrdiff_t j0 = 0; j0 < tk; j0 += bk) {
      const ptrdiff_t kb = imin(bk, tk - j0);
      // 0. Classify the tile: skip it when no pair is allowed; "full" needs no per-entry mask.
      bool any_allowed = false, full = !explicit_mask;
      for (ptrdiff_t jj = 0; jj < kb; ++jj) {
        const ptrdiff_t j = j0 + jj;
        const Range r = queries_for_key(mk, j, tq);
        const ptrdiff_t lo = imax(r.lo, i0), hi = imin(r.hi, i0 + nb);
        if ((mk.key_valid && !mk.key_valid[j]) || lo >= hi) {
          full = false;
          continue;
        }
        if (lo != i0 || hi != i0 + nb) full = false;
        if (!explicit_mask) {
          any_allowed = true;
        } else if (!any_allowed) {
          for (ptrdiff_t i = lo; i < hi; ++i)
            if (mk.allowed[i * mk.allowed_stride + j]) {
              any_allowed = true;
              break;
            }
        }
      }
      if (!any_allowed) continue;

      // 1. Scores Sᵀ (kb × nbp). Full tiles: scaled, checked and max-reduced in registers.
      const std::uint64_t t0 = a.clock_ns ? a.clock_ns() : 0;
      if constexpr (ATTN_PACK_KEYS != 0)  // zero rows past the tile's last key
        pack_slabs(kp, a.k + j0 * a.ldk, a.ldk, kb, dk, kRows);
      for (ptrdiff_t x = 0; x < nbp; x += W) store<T>(mt + x, ninf);
      if (full) {
        Vec<T> chk{};
        scores_tile<T, true>(kb, dk, nbp, a.k + j0 * a.ldk, a.ldk, kp, qt, st, lds, scale, mt, chk);
        if (any(chk != chk)) {  // NaN: some score is not finite; find the first for the message
          for (ptrdiff_t jj = 0; jj < kb; ++jj)
            for (ptrdiff_t x = 0; x < nb; ++x)
              if (!finite(st[jj * lds + x])) {
                a.bad_i = i0 + x;
                a.bad_j = j0 + jj;
                return;
              }
        }
      } else {
        Vec<T> unused{};
        scores_tile<T, false>(kb, dk, nbp, a.k + j0 * a.ldk, a.ldk, kp, qt, st, lds, scale, mt, unused);
      }
      const std::uint64_t t1 = a.clock_ns ? a.clock_ns() : 0;

      // 2. Partial tiles: scale, mask (masked → −inf), check allowed scores are finite, tile max.
      for (ptrdiff_t jj = 0; !full && jj < kb; ++jj) {
        const ptrdiff_t j = j0 + jj;
        T* row = st + jj * lds;
        const Range q = queries_for_key(mk, j, tq);
        const Range r{imax(q.lo, i0) - i0, imin(q.hi, i0 + nb) - i0};
        if ((mk.key_valid && !mk.key_valid[j]) || r.lo >= r.hi) {
          for (ptrdiff_t x = 0; x < nbp; x += W) store<T>(row + x, ninf);
          continue;
        }
        if (!explicit_mask && r.lo == 0 && r.hi == nb) {  // padded lanes stay finite (0)
          auto badv = not_finite<T>(Vec<T>{});
          for (ptrdiff_t x = 0; x < nbp; x += W) {
            const Vec<T> s = load<T>(row + x) * scale;
            badv |= not_finite<T>(s);
            store<T>(row + x, s);
            store<T>(mt + x, vmax<T>(load<T>(mt + x), s));
          }
          if (any(badv))
            for (ptrdiff_t x = 0; x < nb; ++x)
              if (!finite(row[x])) {
                a.bad_i = i0 + x;
                a.bad_j = j;
                return;
              }
          continue;
        }
        for (ptrdiff_t x = 0; x < r.lo; ++x) row[x] = kNegInf<T>;
        for (ptrdiff_t x = r.hi; x < nbp; ++x) row[x] = kNegInf<T>;
        for (ptrdiff_t x = r.lo; x < r.hi; ++x) {
          if (explicit_mask && !mk.allowed[(i0 + x) * mk.allowed_stride + j]) {
            row[x] = kNegInf<T>;
            continue;
          }
          const T s = row[x] * scale;
          if (!finite(s)) {
            a.bad_i = i0 + x;
            a.bad_j = j;
            return;
          }
          row[x] = s;
        }
        for (ptrdiff_t x = 0; x < nbp; x += W) store<T>(mt + x, vmax<T>(load<T>(mt + x), load<T>(row + x)));
      }

      // 3. New running max; α = exp(m_old − m_new), computed against 0 while m_new is −inf.
      bool rescale = false;
      for (ptrdiff_t x = 0; x < nbp; x += W) {
        const Vec<T> mo = load<T>(m + x);
        const Vec<T> mn = vmax<T>(mo, load<T>(mt + x));
        const Vec<T> use = mn == ninf ? Vec<T>{} : mn;
        const Vec<T> al = exp_softmax_v(mo - use);
        rescale = rescale || any(al != splat<T>(T(1)));
        store<T>(m + x, mn);
        store<T>(mu + x, use);
        store<T>(alpha + x, al);
      }

      // 4.–5. Slab by slab (2W queries), so that the slab's probabilities are still in L1 when
      //    the value product reads them:
      //    P = exp(S − m_new) in place, walking down the keys with m_new and the sums in registers;
      //    ℓ = α·ℓ + Σ_j p;  Oᵀ = α·Oᵀ (only if some α != 1);  Oᵀ += Vᵀ·Pᵀ.
      std::uint64_t ns_exp = 0;
      const std::uint64_t t_slabs = a.clock_ns ? a.clock_ns() : 0;
      for (ptrdiff_t x = 0; x < nbp; x += NQ) {
        const std::uint64_t te = a.clock_ns ? a.clock_ns() : 0;
        const Vec<T> u0 = load<T>(mu + x), u1 = load<T>(mu + x + W);
        Vec<T> s0{}, s1{};
        T* col = st + x;
        for (ptrdiff_t jj = 0; jj < kb; ++jj, col += lds) {
          const Vec<T> p0 = exp_softmax_v(load<T>(col) - u0), p1 = exp_softmax_v(load<T>(col + W) - u1);
          store<T>(col, p0);
          store<T>(col + W, p1);
          s0 += p0;
          s1 += p1;
        }
        const Vec<T> al0 = load<T>(alpha + x), al1 = load<T>(alpha + x + W);
        store<T>(l + x, load<T>(l + x) * al0 + s0);
        store<T>(l + x + W, load<T>(l + x + W) * al1 + s1);
        if (rescale && (any(al0 != splat<T>(T(1))) || any(al1 != splat<T>(T(1)))))
          for (ptrdiff_t c = 0; c < dv; ++c) {
            T* oc = o + c * lds + x;
            store<T>(oc, load<T>(oc) * al0);
            store<T>(oc + W, load<T>(oc + W) * al1);
          }
        const std::uint64_t tv = a.clock_ns ? a.clock_ns() : 0;
        ns_exp += tv - te;
        Vec<T> unused{};
        rows_2w<T, true, false, true>(dv, kb, a.v + j0 * a.ldv, kRows, 1, a.ldv, st + x, lds, o + x, lds, T(1), mt,
                                      unused);
      }
      if (a.clock_ns) {
        const std::uint64_t t3 = a.clock_ns();
        a.ns_scores += t1 - t0;
        a.ns_softmax += (t_slabs - t1) + ns_exp;
        a.ns_values += (t3 - t_slabs) - ns_exp;
      }
    }

    // Finish the query tile: out_i = o_i / ℓ_i; a query with no allowed key gets a zero row.
    for (ptrdiff_t x = 0; x < nb; ++x) {
      const ptrdiff_t i = i0 + x;
      T* out = a.out + i * dv;
      const bool empty = m[x] == kNegInf<T>;
      a.empty[i] = empty ? 1 : 0;
      if (a.row_max) a.row_max[i] = m[x];
      if (a.row_sum) a.row_sum[i] = empty ? T(0) : l[x];
      if (empty)
        fill(out, dv, T(0));
      else
        for (ptrdiff_t c = 0; c < dv; ++c) out[c] = o[c * lds + x] / l[x];
    }
  }
}

template <class T> void gemm_impl(const T* a, const T* b, T* c, ptrdiff_t m, ptrdiff_t n, ptrdiff_t k) {
  using M = E::Matrix<T, E::Dynamic, E::Dynamic, E::RowMajor>;
  E::Map<const M> am(a, m, k), bm(b, k, n);
  E::Map<M> cm(c, m, n);
  cm.noalias() = am * bm;
}

}  // namespace

void tiled(KernelArgs<float>& a) { tiled_impl(a); }
void tiled(KernelArgs<double>& a) { tiled_impl(a); }
void dense(KernelArgs<float>& a) { dense_impl(a); }
void dense(KernelArgs<double>& a) { dense_impl(a); }
void exp_inplace(float* x, std::ptrdiff_t n) { exp_array(x, n); }
void exp_inplace(double* x, std::ptrdiff_t n) { exp_array(x, n); }
void gemm(const float* a, const float* b, float* c, std::ptrdiff_t m, std::ptrdiff_t n, std::ptrdiff_t k) {
  gemm_impl(a, b, c, m, n, k);
}
void gemm(const double* a, const double* b, double* c, std::ptrdiff_t m, std::ptrdiff_t n,
          std::ptrdiff_t k) {
  gemm_impl(a, b, c, m, n, k);
}

/// The instruction set this file was compiled for (what the kernels run on).
const char* build_name() {
#if defined(__wasm_simd128__)
  return "wasm simd128";
#elif defined(__wasm__)
  return "wasm (no SIMD)";
#elif defined(__AVX512F__) && defined(__FMA__)
  return "avx512+fma";
#elif defined(__AVX2__) && defined(__FMA__)
  return "avx2+fma";
#elif defined(__SSE2__)
  return "sse2";
#else
  return "scalar";
#endif
}

}  // namespace attn::kernels::detail::ATTN_ISA_NS
