// attn/kernels/fast_attention.cpp — the API edge of the fast kernels: input checks and errors
// (the same codes, order and messages as attention.cpp), the mask described for the kernels
// (isa.hpp MaskView), workspace allocation, and dispatch to an instruction-set build.
#include "attn/kernels/fast_attention.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/kernels/isa.hpp"
#include "attn/linalg.hpp"

namespace attn::kernels {
namespace {

template <class T> using CRef = Eigen::Ref<const RowMatrix<T>>;

// ---------------------------------------------------------------------------
// Instruction-set selection

bool cpu_has_avx2_fma() {
#if defined(ATTN_HAVE_ISA_AVX2) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

/// The AVX-512 subsets isa_avx512.cpp is compiled with. libgcc's check also requires that the OS
/// saves the zmm state (XCR0), so a kernel or hypervisor without it reports false.
bool cpu_has_avx512() {
#if defined(ATTN_HAVE_ISA_AVX512) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#else
  return false;
#endif
}

bool isa_available(Isa isa) {
  switch (isa) {
    case Isa::generic: return true;
    case Isa::avx2: return cpu_has_avx2_fma();
    case Isa::avx512: return cpu_has_avx512();
  }
  return false;
}

/// The default build: the widest the CPU has.
Isa widest_isa() {
  if (cpu_has_avx512()) return Isa::avx512;
  if (cpu_has_avx2_fma()) return Isa::avx2;
  return Isa::generic;
}

/// The build at start-up: ATTN_KERNEL_ISA (generic, avx2, avx512) when it names a build this
/// machine has — to compare builds or force a lower one without code — else the widest.
Isa initial_isa() {
  const char* env = std::getenv("ATTN_KERNEL_ISA");
  const std::optional<Isa> wanted = env ? parse_isa(env) : std::nullopt;
  return wanted && isa_available(*wanted) ? *wanted : widest_isa();
}

std::atomic<Isa>& current_isa() {
  static std::atomic<Isa> isa{initial_isa()};
  return isa;
}

// Calls NS::CALL in the namespace of build ISA (generic when that build is not compiled in).
#ifdef ATTN_HAVE_ISA_AVX512
#define ATTN_CASE_AVX512(CALL) \
  case Isa::avx512:            \
    return detail::isa_avx512::CALL;
#else
#define ATTN_CASE_AVX512(CALL)
#endif
#ifdef ATTN_HAVE_ISA_AVX2
#define ATTN_CASE_AVX2(CALL) \
  case Isa::avx2:            \
    return detail::isa_avx2::CALL;
#else
#define ATTN_CASE_AVX2(CALL)
#endif
#define ATTN_DISPATCH(ISA, CALL)            \
  switch (ISA) {                            \
    ATTN_CASE_AVX512(CALL)                  \
    ATTN_CASE_AVX2(CALL)                    \
    default:                                \
      return detail::isa_generic::CALL;     \
  }

template <class T> void call_tiled(detail::KernelArgs<T>& a, bool portable) {
  ATTN_DISPATCH(portable ? Isa::generic : current_isa().load(), tiled(a))
}
template <class T> void call_dense(detail::KernelArgs<T>& a, bool portable) {
  ATTN_DISPATCH(portable ? Isa::generic : current_isa().load(), dense(a))
}

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// ---------------------------------------------------------------------------
// Input checks (codes and order as attention.cpp's check_inputs, with the kernels' limits)

std::string shape_of(Index r, Index c) { return std::to_string(r) + "x" + std::to_string(c); }

template <class T>
void check_limits(const CRef<T>& m, const char* name, const char* rows_name, const char* cols_name) {
  if (m.rows() == 0 || m.cols() == 0)
    throw Error(ErrorCode::empty_sequence, std::string(name) + " is " + shape_of(m.rows(), m.cols()) + ": " +
                                               rows_name + " and " + cols_name + " must both be at least 1");
  if (m.rows() > kMaxKernelTokens)
    throw Error(ErrorCode::too_large, std::string(name) + " has " + rows_name + "=" + std::to_string(m.rows()) +
                                          " rows; the kernels' limit is " + std::to_string(kMaxKernelTokens));
  if (m.cols() > kMaxKernelWidth)
    throw Error(ErrorCode::too_large, std::string(name) + " has " + cols_name + "=" + std::to_string(m.cols()) +
                                          "; the kernels' limit is " + std::to_string(kMaxKernelWidth));
}

template <class T> void check_finite(const CRef<T>& m, const char* name) {
  for (Index i = 0; i < m.rows(); ++i) {
    const T* row = m.data() + i * m.outerStride();
    bool ok = true;
    for (Index j = 0; j < m.cols(); ++j) ok &= static_cast<bool>(std::isfinite(row[j]));
    if (ok) continue;
    for (Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(row[j]))
        throw Error(ErrorCode::non_finite, std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) +
                                               "] is " + (std::isnan(row[j]) ? "NaN" : "infinite") +
                                               "; every entry must be a finite number");
  }
}

template <class T> void check_inputs(const CRef<T>& q, const CRef<T>& k, const CRef<T>& v) {
  check_limits<T>(q, "query", "Tq", "d_k");
  check_limits<T>(k, "key", "Tk", "d_k");
  check_limits<T>(v, "value", "Tk", "d_v");
  if (q.cols() != k.cols())
    throw Error(ErrorCode::shape_mismatch, "query is " + shape_of(q.rows(), q.cols()) + " and key is " +
                                               shape_of(k.rows(), k.cols()) + ": both need the same width d_k");
  if (k.rows() != v.rows())
    throw Error(ErrorCode::shape_mismatch, "key is " + shape_of(k.rows(), k.cols()) + " and value is " +
                                               shape_of(v.rows(), v.cols()) +
                                               ": one value row per key row (Tk) is needed");
  check_finite<T>(q, "query");
  check_finite<T>(k, "key");
  check_finite<T>(v, "value");
}

/// A MaskSpec as a MaskView; validation in build_allowed's order (masks.cpp).
/// `key_valid_store` keeps the Tk key flags alive for the call.
detail::MaskView mask_view(const MaskSpec& spec, Index tq, Index tk, std::vector<unsigned char>& key_valid_store) {
  detail::MaskView m{};
  if (spec.causal == Causal::square && tq != tk)
    throw Error(ErrorCode::causal_alignment_required,
                "causal mask with Tq=" + std::to_string(tq) + " != Tk=" + std::to_string(tk) +
                    " is ambiguous: say \"top_left\" (PyTorch is_causal: query i sees keys 0..i) or "
                    "\"bottom_right\" (FlashAttention: query i sees keys 0..i+Tk-Tq)");
  if (spec.causal != Causal::none) {
    m.causal = true;
    m.causal_offset = spec.causal == Causal::bottom_right ? tk - tq : 0;
  }
  if (spec.key_valid) {
    if (static_cast<Index>(spec.key_valid->size()) != tk)
      throw Error(ErrorCode::shape_mismatch, "mask.key_valid has " + std::to_string(spec.key_valid->size()) +
                                                 " flags but there are Tk=" + std::to_string(tk) + " keys");
    key_valid_store.assign(spec.key_valid->begin(), spec.key_valid->end());
    m.key_valid = key_valid_store.data();
  }
  if (spec.allowed) {
    if (spec.allowed->rows() != tq || spec.allowed->cols() != tk)
      throw Error(ErrorCode::shape_mismatch, "mask.allowed is " + std::to_string(spec.allowed->rows()) + "x" +
                                                 std::to_string(spec.allowed->cols()) +
                                                 " but attention is Tq x Tk = " + std::to_string(tq) + "x" +
                                                 std::to_string(tk));
    m.allowed = spec.allowed->data();
    m.allowed_stride = spec.allowed->cols();
  }
  if (spec.half_width) {
    if (*spec.half_width < 0)
      throw Error(ErrorCode::invalid_mask, "window must be >= 0, got " + std::to_string(*spec.half_width));
    m.windowed = true;
    m.window = static_cast<std::ptrdiff_t>(std::min<long long>(*spec.half_width, static_cast<long long>(tq + tk)));
  }
  return m;
}

detail::MaskView allowed_view(const BoolMatrix& allowed, Index tq, Index tk) {
  if (allowed.rows() != tq || allowed.cols() != tk)
    throw Error(ErrorCode::shape_mismatch, "allowed mask is " + std::to_string(allowed.rows()) + "x" +
                                               std::to_string(allowed.cols()) + " but Tq x Tk = " +
                                               std::to_string(tq) + "x" + std::to_string(tk));
  detail::MaskView m{};
  m.allowed = allowed.data();
  m.allowed_stride = allowed.cols();
  return m;
}

double scale_of(const KernelOptions& o, Index dk) {
  const double s = o.scale ? *o.scale : 1.0 / std::sqrt(static_cast<double>(dk));
  if (!std::isfinite(s) || !(s > 0.0))
    throw Error(ErrorCode::invalid_scale,
                "scale must be a finite number > 0 (default 1/sqrt(d_k)), got " + std::to_string(s));
  return s;
}

Index tile_or_default(Index t, Index fallback, const char* name) {
  if (t == 0) return fallback;
  if (t < 0 || t > kMaxTile)
    throw Error(ErrorCode::invalid_field, std::string(name) + " must be between 1 and " + std::to_string(kMaxTile) +
                                              " (0 = default), got " + std::to_string(t));
  return t;
}

enum class Kind { dense, tiled };

template <class T>
KernelResult<T> run(Kind kind, const CRef<T>& q, const CRef<T>& k, const CRef<T>& v, const detail::MaskView& mask,
                    std::size_t mask_bytes, const KernelOptions& opt) {
  const Index tq = q.rows(), tk = k.rows(), dk = q.cols(), dv = v.cols();
  KernelResult<T> r;
  r.scale = scale_of(opt, dk);
  const Index tile_q = tile_or_default(opt.tile_q, kDefaultTileQ, "tile_q");
  const Index tile_k = tile_or_default(opt.tile_k, kDefaultTileK, "tile_k");
  if (kind == Kind::dense && tq * tk > kMaxDensePairs)
    throw Error(ErrorCode::too_large, "Tq*Tk = " + std::to_string(tq * tk) + " exceeds the dense kernel's limit of " +
                                          std::to_string(kMaxDensePairs) + " scores; use the tiled kernel");

  detail::KernelArgs<T> a{};
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.ldq = q.outerStride();
  a.ldk = k.outerStride();
  a.ldv = v.outerStride();
  a.tq = tq;
  a.tk = tk;
  a.dk = dk;
  a.dv = dv;
  a.scale = static_cast<T>(r.scale);
  a.mask = mask;
  a.tile_q = tile_q;
  a.tile_k = tile_k;
  r.output.resize(tq, dv);
  a.out = r.output.data();
  if (opt.keep_stats) {
    r.row_max.resize(static_cast<std::size_t>(tq));
    r.row_sum.resize(static_cast<std::size_t>(tq));
    a.row_max = r.row_max.data();
    a.row_sum = r.row_sum.data();
  }
  std::unique_ptr<unsigned char[]> empty(new unsigned char[static_cast<std::size_t>(tq)]);
  a.empty = empty.get();
  std::unique_ptr<T[]> workspace;  // not zero-filled: the kernels write before they read
  std::size_t ws_elems;
  if (kind == Kind::dense) {
    ws_elems = static_cast<std::size_t>(tq) * static_cast<std::size_t>(tk);
    if (opt.keep_weights) {
      r.weights.resize(tq, tk);
      a.workspace = r.weights.data();
    }
  } else {
    ws_elems = static_cast<std::size_t>(
        detail::tiled_workspace_elems(std::min(tile_q, tq), std::min(tile_k, tk), dk, dv));
  }
  if (!a.workspace) {
    workspace.reset(new T[ws_elems]);
    a.workspace = workspace.get();
  }
  r.extra_bytes = ws_elems * sizeof(T) + static_cast<std::size_t>(tq) + mask_bytes;
  if (opt.profile) a.clock_ns = &now_ns;

  if (kind == Kind::dense)
    call_dense(a, opt.portable);
  else
    call_tiled(a, opt.portable);

  if (a.bad_i >= 0)
    throw Error(ErrorCode::non_finite, "score for query " + std::to_string(a.bad_i) + ", key " +
                                           std::to_string(a.bad_j) +
                                           " overflowed (q·k·scale is not finite); inputs are too large");
  r.empty_row.assign(static_cast<std::size_t>(tq), false);
  for (Index i = 0; i < tq; ++i) {
    if (!empty[static_cast<std::size_t>(i)]) continue;
    if (opt.empty_rows == EmptyRows::error)
      throw Error(ErrorCode::no_allowed_key,
                  "query row " + std::to_string(i) +
                      " has no allowed key (every key is masked for it); fix the mask, or "
                      "choose empty_rows = \"zero\" to get a zero output for such rows");
    r.empty_row[static_cast<std::size_t>(i)] = true;
  }
  if (opt.profile) {
    opt.profile->scores_ns += a.ns_scores;
    opt.profile->softmax_ns += a.ns_softmax;
    opt.profile->values_ns += a.ns_values;
  }
  return r;
}

template <class T>
KernelResult<T> run_spec(Kind kind, const CRef<T>& q, const CRef<T>& k, const CRef<T>& v, const MaskSpec& spec,
                         const KernelOptions& opt) {
  check_inputs<T>(q, k, v);
  std::vector<unsigned char> key_valid;
  const detail::MaskView m = mask_view(spec, q.rows(), k.rows(), key_valid);
  return run<T>(kind, q, k, v, m, key_valid.size(), opt);
}

template <class T>
KernelResult<T> run_allowed(Kind kind, const CRef<T>& q, const CRef<T>& k, const CRef<T>& v,
                            const BoolMatrix& allowed, const KernelOptions& opt) {
  check_inputs<T>(q, k, v);
  return run<T>(kind, q, k, v, allowed_view(allowed, q.rows(), k.rows()), 0, opt);
}

}  // namespace

template <class T>
KernelResult<T> dense_attention(const CRef<T>& q, const CRef<T>& k, const CRef<T>& v, const MaskSpec& mask,
                                const KernelOptions& options) {
  return run_spec<T>(Kind::dense, q, k, v, mask, options);
}
template <class T>
KernelResult<T> tiled_attention(const CRef<T>& q, const CRef<T>& k, const CRef<T>& v, const MaskSpec& mask,
                                const KernelOptions& options) {
  return run_spec<T>(Kind::tiled, q, k, v, mask, options);
}
template <class T>
KernelResult<T> dense_attention_with_allowed(const CRef<T>& q, const CRef<T>& k, const CRef<T>& v,
                                             const BoolMatrix& allowed, const KernelOptions& options) {
  return run_allowed<T>(Kind::dense, q, k, v, allowed, options);
}
template <class T>
KernelResult<T> tiled_attention_with_allowed(const CRef<T>& q, const CRef<T>& k, const CRef<T>& v,
                                             const BoolMatrix& allowed, const KernelOptions& options) {
  return run_allowed<T>(Kind::tiled, q, k, v, allowed, options);
}

#define ATTN_INSTANTIATE(T)                                                                                   \
  template KernelResult<T> dense_attention<T>(const CRef<T>&, const CRef<T>&, const CRef<T>&, const MaskSpec&, \
                                              const KernelOptions&);                                         \
  template KernelResult<T> tiled_attention<T>(const CRef<T>&, const CRef<T>&, const CRef<T>&, const MaskSpec&, \
                                              const KernelOptions&);                                         \
  template KernelResult<T> dense_attention_with_allowed<T>(const CRef<T>&, const CRef<T>&, const CRef<T>&,     \
                                                           const BoolMatrix&, const KernelOptions&);          \
  template KernelResult<T> tiled_attention_with_allowed<T>(const CRef<T>&, const CRef<T>&, const CRef<T>&,     \
                                                           const BoolMatrix&, const KernelOptions&);
ATTN_INSTANTIATE(float)
ATTN_INSTANTIATE(double)
#undef ATTN_INSTANTIATE

AttentionResult tiled_attention_result(const Matrix& q, const Matrix& k, const Matrix& v, const MaskSpec& mask,
                                       const AttentionOptions& options, Index tile_q, Index tile_k) {
  // The reference's limits: the result holds Tq×Tk scores and weights.
  require_shape_limits(q, "query", "Tq", "d_k");
  require_shape_limits(k, "key", "Tk", "d_k");
  require_shape_limits(v, "value", "Tk", "d_v");
  if (q.cols() == k.cols() && k.rows() == v.rows() && q.rows() * k.rows() > kMaxPairs)
    throw Error(ErrorCode::too_large, "Tq*Tk = " + std::to_string(q.rows() * k.rows()) +
                                          " scores exceed the limit of " + std::to_string(kMaxPairs));
  KernelOptions ko;
  ko.scale = options.scale;
  ko.empty_rows = options.empty_rows;
  ko.tile_q = tile_q;
  ko.tile_k = tile_k;
  ko.keep_stats = true;
  ko.portable = true;  // same bits natively and in the browser
  KernelResult<double> t = tiled_attention<double>(q, k, v, mask, ko);

  AttentionResult r;
  const Index tq = q.rows(), tk = k.rows(), dk = q.cols();
  r.scale = t.scale;
  r.output = std::move(t.output);
  r.empty_row = t.empty_row;
  r.allowed = build_allowed(mask, tq, tk);
  r.scores = Matrix::Zero(tq, tk);
  r.weights = Matrix::Zero(tq, tk);
  for (Index i = 0; i < tq; ++i) {
    const double m = t.row_max[static_cast<std::size_t>(i)], l = t.row_sum[static_cast<std::size_t>(i)];
    const bool empty = r.empty_row[static_cast<std::size_t>(i)];
    for (Index j = 0; j < tk; ++j) {
      if (!r.allowed(i, j)) continue;
      double s = 0.0;  // as attention(): summed in feature order, then scaled
      for (Index c = 0; c < dk; ++c) s += q(i, c) * k(j, c);
      s *= r.scale;
      r.scores(i, j) = s;
      if (!empty) r.weights(i, j) = det::exp(s - m) / l;
    }
  }
  return r;
}

std::size_t tiled_workspace_bytes(Index tq, Index tk, Index d_k, Index d_v, std::size_t elem_size, Index tile_q,
                                  Index tile_k) {
  const Index bq = std::min(tile_or_default(tile_q, kDefaultTileQ, "tile_q"), tq);
  const Index bk = std::min(tile_or_default(tile_k, kDefaultTileK, "tile_k"), tk);
  return static_cast<std::size_t>(detail::tiled_workspace_elems(bq, bk, d_k, d_v)) * elem_size;
}

void exp_inplace(float* x, std::size_t n) {
  ATTN_DISPATCH(current_isa().load(), exp_inplace(x, static_cast<std::ptrdiff_t>(n)))
}
void exp_inplace(double* x, std::size_t n) {
  ATTN_DISPATCH(current_isa().load(), exp_inplace(x, static_cast<std::ptrdiff_t>(n)))
}

template <class T> void eigen_gemm(const RowMatrix<T>& a, const RowMatrix<T>& b, RowMatrix<T>& c) {
  if (a.cols() != b.rows())
    throw Error(ErrorCode::shape_mismatch, "eigen_gemm: inner sizes differ (" + shape_of(a.rows(), a.cols()) +
                                               " times " + shape_of(b.rows(), b.cols()) + ")");
  c.resize(a.rows(), b.cols());
  ATTN_DISPATCH(current_isa().load(), gemm(a.data(), b.data(), c.data(), a.rows(), b.cols(), a.cols()))
}
template void eigen_gemm<float>(const RowMatrix<float>&, const RowMatrix<float>&, RowMatrix<float>&);
template void eigen_gemm<double>(const RowMatrix<double>&, const RowMatrix<double>&, RowMatrix<double>&);

Isa active_isa() { return current_isa().load(); }

bool set_isa(Isa isa) {
  if (!isa_available(isa)) return false;
  current_isa().store(isa);
  return true;
}

std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512})
    if (isa_available(isa)) out.push_back(isa);
  return out;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::generic: return detail::isa_generic::build_name();
#ifdef ATTN_HAVE_ISA_AVX2
    case Isa::avx2: return detail::isa_avx2::build_name();
#endif
#ifdef ATTN_HAVE_ISA_AVX512
    case Isa::avx512: return detail::isa_avx512::build_name();
#endif
    default: return "unavailable";
  }
}

std::optional<Isa> parse_isa(std::string_view name) {
  if (name == "generic") return Isa::generic;
  if (name == "avx2") return Isa::avx2;
  if (name == "avx512") return Isa::avx512;
  return std::nullopt;
}

}  // namespace attn::kernels
