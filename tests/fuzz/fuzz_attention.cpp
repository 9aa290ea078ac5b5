// tests/fuzz/fuzz_attention.cpp — libFuzzer target: attn::attention with shapes, values,
// masks, scales and the empty-row policy decoded from the fuzz input.
//
// The input decides (FuzzedDataProvider): Tq, Tk, d_k, d_v (0..12, sometimes a deliberately
// mismatched key/value shape), the value regime (small, large, any finite double, or a
// special value: ±0, ±1e300, DBL_MAX, denormals, NaN, ±inf), the mask parts (causal
// none/square/top_left/bottom_right; key_valid, sometimes of the wrong length; an allowed
// matrix, sometimes of the wrong shape; a window, sometimes negative or huge), the scale
// (default, any positive, or 0/negative/NaN/inf/tiny/huge) and empty_rows (error/zero).
//
// An independent model of the contract (written here with plain loops) says which error
// codes the input may produce and what the allowed mask is. Checked (abort() = a finding):
//   - errors: only attn::Error, only with a code this input can explain; an input the
//     contract must reject (a zero size, a shape mismatch, NaN/inf, a bad scale, an
//     ambiguous causal mask, a negative window, an empty row under "error") never succeeds;
//   - results: the allowed mask equals the model's; no NaN in output, weights or allowed
//     scores; masked weights exactly 0; every row with an allowed key sums to 1 within 1e-12
//     and is flagged non-empty; a row with none is all zero (output too) and flagged;
//     weights agree with a long-double softmax within a bound that grows with |scores|.
#include <algorithm>
#include <attn/attention.hpp>
#include <attn/error.hpp>
#include <fuzzer/FuzzedDataProvider.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace {

using attn::BoolMatrix;
using attn::Causal;
using attn::ErrorCode;
using attn::Index;
using attn::Matrix;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_attention: %s\n", what.c_str());
  std::abort();
}

double special(FuzzedDataProvider& in) {
  static const double table[] = {0.0,    -0.0,     1e300,   -1e300,     DBL_MAX, -DBL_MAX,
                                 1e-300, DBL_MIN,  4.9e-324, 1.0,       NAN,     INFINITY,
                                 -INFINITY, 709.0, -745.0,  1e154};
  return table[in.ConsumeIntegralInRange<size_t>(0, sizeof table / sizeof table[0] - 1)];
}

double value(FuzzedDataProvider& in, int regime) {
  switch (regime) {
    case 0: return in.ConsumeFloatingPointInRange<double>(-4.0, 4.0);
    case 1: return in.ConsumeFloatingPointInRange<double>(-1e3, 1e3);
    case 2: return in.ConsumeFloatingPoint<double>();  // any finite double
    default: return in.ConsumeIntegralInRange<int>(0, 15) == 0 ? special(in)
                                                               : in.ConsumeFloatingPointInRange<double>(-4.0, 4.0);
  }
}

Matrix matrix(FuzzedDataProvider& in, Index rows, Index cols, int regime) {
  Matrix m(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) m(i, j) = value(in, regime);
  return m;
}

bool all_finite(const Matrix& m) {
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j)
      if (!std::isfinite(m(i, j))) return false;
  return true;
}

double max_abs(const Matrix& m) {
  double r = 0.0;
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j) r = std::fmax(r, std::fabs(m(i, j)));
  return r;
}

std::string where(Index i, Index j) { return "(" + std::to_string(i) + ", " + std::to_string(j) + ")"; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);

  // 1. Shapes. Zero sizes are rare but reachable; a shape bug is injected on request.
  const Index tq = in.ConsumeIntegralInRange<Index>(0, 12);
  const Index tk = in.ConsumeIntegralInRange<Index>(0, 12);
  const Index dk = in.ConsumeIntegralInRange<Index>(0, 12);
  const Index dv = in.ConsumeIntegralInRange<Index>(0, 12);
  const int shape_bug = in.ConsumeIntegralInRange<int>(0, 15);  // 1: key width, 2: value rows
  const Index dk_key = shape_bug == 1 ? dk + 1 : dk;
  const Index tk_value = shape_bug == 2 ? tk + 1 : tk;

  // 2. Values.
  const int regime = in.ConsumeIntegralInRange<int>(0, 3);
  const Matrix q = matrix(in, tq, dk, regime);
  const Matrix k = matrix(in, tk, dk_key, regime);
  const Matrix v = matrix(in, tk_value, dv, regime);

  // 3. Mask (true = may attend).
  attn::MaskSpec spec;
  spec.causal = static_cast<Causal>(in.ConsumeIntegralInRange<int>(0, 3));
  bool mask_shape_bug = false;
  if (in.ConsumeBool()) {
    const bool bad = in.ConsumeIntegralInRange<int>(0, 15) == 0;
    const Index n = bad ? tk + 1 : tk;
    mask_shape_bug |= bad;
    std::vector<bool> kv(static_cast<size_t>(n));
    for (Index j = 0; j < n; ++j) kv[static_cast<size_t>(j)] = in.ConsumeIntegralInRange<int>(0, 3) != 0;
    spec.key_valid = kv;
  }
  if (in.ConsumeBool()) {
    const bool bad = in.ConsumeIntegralInRange<int>(0, 15) == 0;
    const Index r = bad ? tq + 1 : tq;
    mask_shape_bug |= bad;
    BoolMatrix a(r, tk);
    for (Index i = 0; i < r; ++i)
      for (Index j = 0; j < tk; ++j) a(i, j) = in.ConsumeIntegralInRange<int>(0, 3) != 0;
    spec.allowed = a;
  }
  if (in.ConsumeBool()) {
    const int w = in.ConsumeIntegralInRange<int>(0, 15);
    spec.half_width = w == 15 ? LLONG_MAX : w == 14 ? LLONG_MIN : w == 13 ? -1 : w;
  }

  // 4. Scale and empty-row policy.
  attn::AttentionOptions opt;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: break;  // default 1/sqrt(d_k)
    case 1: opt.scale = in.ConsumeFloatingPointInRange<double>(1e-3, 10.0); break;
    case 2: opt.scale = in.ConsumeFloatingPointInRange<double>(0.0, DBL_MAX); break;  // may be 0
    default: {
      static const double bad[] = {-1.0, NAN, INFINITY, -INFINITY, 1e-300, 1e300, 0.0, -0.0};
      opt.scale = bad[in.ConsumeIntegralInRange<size_t>(0, 7)];
    }
  }
  opt.empty_rows = in.ConsumeBool() ? attn::EmptyRows::zero : attn::EmptyRows::error;

  // 5. The model: which codes can this input produce, and must it fail?
  std::set<ErrorCode> may;
  bool must_fail = false;
  auto expect = [&](bool cond, ErrorCode c) {
    if (cond) {
      may.insert(c);
      must_fail = true;
    }
  };
  expect(tq == 0 || tk == 0 || dk == 0 || dv == 0 || dk_key == 0 || tk_value == 0, ErrorCode::empty_sequence);
  expect(shape_bug == 1 || shape_bug == 2 || mask_shape_bug, ErrorCode::shape_mismatch);
  expect(!all_finite(q) || !all_finite(k) || !all_finite(v), ErrorCode::non_finite);
  const double scale = opt.scale ? *opt.scale : 1.0 / std::sqrt(static_cast<double>(dk));
  expect(opt.scale && !(std::isfinite(*opt.scale) && *opt.scale > 0.0), ErrorCode::invalid_scale);
  expect(spec.causal == Causal::square && tq != tk, ErrorCode::causal_alignment_required);
  expect(spec.half_width && *spec.half_width < 0, ErrorCode::invalid_mask);
  // A score may overflow (non_finite) only if Σ|q||k| (the core sums q·k, then scales) or
  // scale·Σ|q||k| can reach the double range.
  const long double bound = std::max(1.0L, static_cast<long double>(scale)) *
                            static_cast<long double>(dk) * max_abs(q) * max_abs(k);
  if (!(bound < 1e300L)) may.insert(ErrorCode::non_finite);

  // The allowed mask and empty rows, when the mask is well-formed.
  const bool mask_ok = !must_fail;
  BoolMatrix allowed(tq, tk);
  std::vector<bool> empty(static_cast<size_t>(tq), false);
  if (mask_ok) {
    const Index offset = spec.causal == Causal::bottom_right ? tk - tq : 0;
    for (Index i = 0; i < tq; ++i) {
      bool any = false;
      for (Index j = 0; j < tk; ++j) {
        bool a = true;
        if (spec.causal != Causal::none) a = a && j <= i + offset;
        if (spec.key_valid) a = a && (*spec.key_valid)[static_cast<size_t>(j)];
        if (spec.allowed) a = a && (*spec.allowed)(i, j);
        if (spec.half_width) {
          const unsigned long long d = static_cast<unsigned long long>(i > j ? i - j : j - i);
          a = a && d <= static_cast<unsigned long long>(*spec.half_width);
        }
        allowed(i, j) = a;
        any = any || a;
      }
      empty[static_cast<size_t>(i)] = !any;
      expect(!any && opt.empty_rows == attn::EmptyRows::error, ErrorCode::no_allowed_key);
    }
  }

  // 6. Run.
  attn::AttentionResult r;
  try {
    r = attn::attention(q, k, v, spec, opt);
  } catch (const attn::Error& e) {
    if (!may.count(e.code()))
      finding(std::string("unexpected error code ") + e.code_name() + ": " + e.what() +
              " (Tq=" + std::to_string(tq) + " Tk=" + std::to_string(tk) + " d_k=" + std::to_string(dk) +
              " d_v=" + std::to_string(dv) + ")");
    if (std::string(e.what()).empty()) finding("error without a message");
    return 0;
  }
  if (must_fail) finding("an input the contract rejects was accepted (first expected code: " +
                         std::string(attn::code_name(*may.begin())) + ")");

  // 7. Check the result.
  if (r.output.rows() != tq || r.output.cols() != dv || r.weights.rows() != tq || r.weights.cols() != tk ||
      r.scores.rows() != tq || r.scores.cols() != tk || static_cast<Index>(r.empty_row.size()) != tq)
    finding("result shapes are wrong");
  if (r.allowed != allowed) finding("allowed mask differs from the model");
  if (r.scale != scale) finding("scale used differs from the requested/default scale");
  const bool v_moderate = max_abs(v) < 1e300;
  for (Index i = 0; i < tq; ++i) {
    const bool row_empty = empty[static_cast<size_t>(i)];
    if (r.empty_row[static_cast<size_t>(i)] != row_empty) finding("empty_row flag wrong in row " + std::to_string(i));
    for (Index c = 0; c < dv; ++c) {
      const double o = r.output(i, c);
      if (std::isnan(o)) finding("NaN in output" + where(i, c));
      if (v_moderate && !std::isfinite(o)) finding("non-finite output" + where(i, c));
      if (row_empty && o != 0.0) finding("empty row with a non-zero output" + where(i, c));
    }
    // Long-double reference softmax over allowed keys (max subtracted).
    long double row_max = -INFINITY, z = 0.0L, row_bound = 0.0L;
    std::vector<long double> s(static_cast<size_t>(tk), 0.0L);
    for (Index j = 0; j < tk; ++j) {
      if (!allowed(i, j)) continue;
      long double dot = 0.0L, absdot = 0.0L;
      for (Index c = 0; c < dk; ++c) {
        dot += static_cast<long double>(q(i, c)) * k(j, c);
        absdot += std::fabs(static_cast<long double>(q(i, c)) * k(j, c));
      }
      s[static_cast<size_t>(j)] = dot * scale;
      row_bound = std::fmax(row_bound, absdot * scale);
      row_max = std::fmax(row_max, s[static_cast<size_t>(j)]);
    }
    for (Index j = 0; j < tk; ++j)
      if (allowed(i, j)) z += std::exp(s[static_cast<size_t>(j)] - row_max);
    const long double tol = 1e-12L + 8.0L * static_cast<long double>(dk + 2) * DBL_EPSILON * row_bound;

    double sum = 0.0;
    for (Index j = 0; j < tk; ++j) {
      const double w = r.weights(i, j);
      if (std::isnan(w)) finding("NaN weight" + where(i, j));
      if (!allowed(i, j)) {
        if (w != 0.0) finding("masked weight is not exactly 0 at" + where(i, j));
        continue;
      }
      if (std::isnan(r.scores(i, j)) || !std::isfinite(r.scores(i, j))) finding("non-finite allowed score" + where(i, j));
      if (!(w >= 0.0 && w <= 1.0)) finding("weight outside [0, 1] at" + where(i, j));
      const long double ref = std::exp(s[static_cast<size_t>(j)] - row_max) / z;
      if (!(std::fabs(static_cast<long double>(w) - ref) <= tol))
        finding("weight" + where(i, j) + " = " + std::to_string(w) + " differs from the long-double softmax " +
                std::to_string(static_cast<double>(ref)));
      sum += w;
    }
    if (row_empty) {
      if (sum != 0.0) finding("empty row " + std::to_string(i) + " has weights");
    } else if (!(std::fabs(sum - 1.0) <= 1e-12)) {
      finding("row " + std::to_string(i) + " of allowed keys sums to " + std::to_string(sum));
    }
  }
  return 0;
}
