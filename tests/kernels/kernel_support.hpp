// tests/kernels/kernel_support.hpp — helpers of the fast-kernel tests.
//
// - Seeded inputs from attn::Rng (the core's own sampling: same numbers natively and in wasm).
// - max_abs_diff with the first differing entries reported through INFO.
// - The mask cases every comparison sweeps (causal kinds, key padding with a fully masked first
//   tile, window, random allowed with fully masked blocks and empty rows, combinations).
// - CHECK_KERNEL_ERROR(expr, code): expr must throw attn::Error with exactly `code`.
#pragma once

#include "../core/support.hpp"
#include <attn/error.hpp>
#include <attn/kernels/fast_attention.hpp>
#include <attn/masks.hpp>
#include <attn/random.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace kernel_test {

using attn::BoolMatrix;
using attn::Index;
using attn::MaskSpec;
using attn::Matrix;
using attn::kernels::MatrixF;

/// Tq×d matrix with entries uniform in [lo, hi), drawn row by row.
inline Matrix uniform(attn::Rng& rng, Index rows, Index cols, double lo = -1.0, double hi = 1.0) {
  Matrix m(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) m(i, j) = rng.uniform(lo, hi);
  return m;
}

/// max |a − b|; on shape mismatch returns +inf. Puts the first few differences above `tol`
/// into `where` for INFO.
template <class A, class B>
double max_diff(const A& a, const B& b, double tol, std::string* where = nullptr) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  double worst = 0.0;
  int shown = 0;
  std::ostringstream os;
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j) {
      const double d = std::fabs(static_cast<double>(a(i, j)) - static_cast<double>(b(i, j)));
      if (!(d <= worst)) worst = d;  // NaN sticks
      if (!(d <= tol) && shown < 4) {
        os << " (" << i << "," << j << "): " << static_cast<double>(a(i, j)) << " vs "
           << static_cast<double>(b(i, j));
        ++shown;
      }
    }
  if (where) *where = os.str();
  return worst;
}

struct MaskCase {
  std::string name;
  MaskSpec spec;
  bool may_have_empty_rows;  // run with EmptyRows::zero
};

/// Mask cases for a Tq×Tk problem (only those that are valid for the shape).
inline std::vector<MaskCase> mask_cases(Index tq, Index tk, std::uint64_t seed) {
  std::vector<MaskCase> out;
  out.push_back({"none", MaskSpec{}, false});
  if (tq == tk) {
    MaskSpec s;
    s.causal = attn::Causal::square;
    out.push_back({"causal", s, false});
  }
  {
    MaskSpec s;
    s.causal = attn::Causal::top_left;
    out.push_back({"causal top_left", s, false});
  }
  {
    MaskSpec s;
    s.causal = attn::Causal::bottom_right;  // Tq > Tk: the first Tq − Tk queries see nothing
    out.push_back({"causal bottom_right", s, tq > tk});
  }
  {
    // Key padding: the first 130 keys (all but the last 3 when Tk is smaller) are padding, so
    // the first key tile is fully masked for every tile size up to 128.
    MaskSpec s;
    std::vector<bool> valid(static_cast<size_t>(tk), true);
    const Index pad = std::min<Index>(130, tk > 3 ? tk - 3 : 0);
    for (Index j = 0; j < pad; ++j) valid[static_cast<size_t>(j)] = false;
    if (tk > 10) valid[static_cast<size_t>(tk - 2)] = false;  // and one near the end
    s.key_valid = valid;
    out.push_back({"key padding with masked first tile", s, false});
  }
  {
    MaskSpec s;
    s.half_width = 3;
    out.push_back({"window 3", s, std::abs(static_cast<long long>(tq - tk)) > 3});
  }
  {
    MaskSpec s;
    s.causal = attn::Causal::bottom_right;
    s.half_width = 5;
    out.push_back({"bottom_right and window 5", s, true});
  }
  {
    // Random allowed (p = 0.6) with a fully masked block in the top-left corner, a fully masked
    // column band and two empty rows.
    attn::Rng rng(seed);
    BoolMatrix a(tq, tk);
    for (Index i = 0; i < tq; ++i)
      for (Index j = 0; j < tk; ++j) a(i, j) = rng.uniform01() < 0.6;
    for (Index i = 0; i < std::min<Index>(tq, 40); ++i)
      for (Index j = 0; j < std::min<Index>(tk, 70); ++j) a(i, j) = false;
    for (Index i = 0; i < tq; ++i)
      for (Index j = tk / 2; j < std::min<Index>(tk, tk / 2 + 9); ++j) a(i, j) = false;
    a.row(tq / 2).setConstant(false);
    a.row(tq - 1).setConstant(false);
    MaskSpec s;
    s.allowed = a;
    out.push_back({"random allowed with masked blocks and empty rows", s, true});
  }
  {
    MaskSpec s;
    s.causal = attn::Causal::top_left;
    std::vector<bool> valid(static_cast<size_t>(tk), true);
    for (Index j = 0; j < tk; j += 3) valid[static_cast<size_t>(j)] = false;
    s.key_valid = valid;
    out.push_back({"top_left and every third key padded", s, true});
  }
  return out;
}

inline const char* isa_label(attn::kernels::Isa isa) { return attn::kernels::isa_name(isa); }

/// Restores the automatically chosen instruction set when a test ends.
struct IsaGuard {
  attn::kernels::Isa saved = attn::kernels::active_isa();
  ~IsaGuard() { attn::kernels::set_isa(saved); }
};

}  // namespace kernel_test

/// expr must throw attn::Error with exactly `expected_code` (tests/core/support.hpp).
#define CHECK_KERNEL_ERROR(expr, expected_code) CHECK_ATTN_ERROR(expr, expected_code)
