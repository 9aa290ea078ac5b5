// tests/core/support.hpp — helpers shared by the core tests.
//
// - A naive reference for attention written independently of the core: nested
//   std::vector loops and the textbook softmax with std::exp (no max subtraction,
//   so only for |scores| well below 700), masked keys simply skipped.
// - Matrix comparison that reports the first differing entries and the max
//   difference (INFO), with an absolute tolerance.
// - CHECK_ATTN_ERROR(expr, code): expr must throw attn::Error with exactly `code`.
// - Fixture loading from ATTN_TESTS_DIR (the tests/ source folder; under node the
//   wasm build reads it through NODERAWFS).
#pragma once

#include <attn/error.hpp>
#include <attn/types.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#ifndef ATTN_TESTS_DIR
#error "ATTN_TESTS_DIR must name the tests/ source folder"
#endif

namespace attn_test {

using attn::Index;
using attn::Matrix;
using Rows = std::vector<std::vector<double>>;
using Mask = std::vector<std::vector<bool>>;

/// Matrix from rows written in the test: M({{1, 2}, {3, 4}}).
inline Matrix M(std::initializer_list<std::initializer_list<double>> rows) {
  const Index r = static_cast<Index>(rows.size());
  const Index c = r ? static_cast<Index>(rows.begin()->size()) : 0;
  Matrix m(r, c);
  Index i = 0;
  for (const auto& row : rows) {
    REQUIRE(static_cast<Index>(row.size()) == c);
    Index j = 0;
    for (double x : row) m(i, j++) = x;
    ++i;
  }
  return m;
}

inline Matrix from_rows(const Rows& rows) {
  const Index r = static_cast<Index>(rows.size());
  const Index c = r ? static_cast<Index>(rows[0].size()) : 0;
  Matrix m(r, c);
  for (Index i = 0; i < r; ++i) {
    REQUIRE(static_cast<Index>(rows[static_cast<size_t>(i)].size()) == c);
    for (Index j = 0; j < c; ++j) m(i, j) = rows[static_cast<size_t>(i)][static_cast<size_t>(j)];
  }
  return m;
}

inline Rows to_rows(const Matrix& m) {
  Rows r(static_cast<size_t>(m.rows()), std::vector<double>(static_cast<size_t>(m.cols())));
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j) r[static_cast<size_t>(i)][static_cast<size_t>(j)] = m(i, j);
  return r;
}

inline Matrix from_json_rows(const nlohmann::json& j) { return from_rows(j.get<Rows>()); }

inline Matrix transpose(const Matrix& m) {
  Matrix t(m.cols(), m.rows());
  for (Index i = 0; i < m.rows(); ++i)
    for (Index j = 0; j < m.cols(); ++j) t(j, i) = m(i, j);
  return t;
}

inline std::string fmt17(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// ---------------------------------------------------------------------------
// Naive reference (independent of the core).

inline Rows ref_matmul(const Rows& a, const Rows& b) {
  Rows c(a.size(), std::vector<double>(b.empty() ? 0 : b[0].size(), 0.0));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < c[i].size(); ++j) {
      double s = 0.0;
      for (size_t t = 0; t < b.size(); ++t) s += a[i][t] * b[t][j];
      c[i][j] = s;
    }
  return c;
}

struct Ref {
  Matrix weights;  // Tq×Tk
  Matrix output;   // Tq×d_v
};

/// Textbook attention: s_ij = scale·Σ_c q_ic k_jc; w_ij = exp(s_ij) / Σ_{allowed l} exp(s_il)
/// over allowed keys (0 elsewhere); out_i = Σ_{allowed j} w_ij v_j. `allowed` empty = all allowed.
/// scale < 0 means the default 1/sqrt(d_k). Rows with no allowed key stay zero.
inline Ref ref_attention(const Matrix& q, const Matrix& k, const Matrix& v, const Mask& allowed = {},
                         double scale = -1.0) {
  const size_t tq = static_cast<size_t>(q.rows()), tk = static_cast<size_t>(k.rows());
  const size_t dk = static_cast<size_t>(q.cols()), dv = static_cast<size_t>(v.cols());
  if (scale < 0) scale = 1.0 / std::sqrt(static_cast<double>(dk));
  Rows w(tq, std::vector<double>(tk, 0.0)), out(tq, std::vector<double>(dv, 0.0));
  for (size_t i = 0; i < tq; ++i) {
    double z = 0.0;
    for (size_t j = 0; j < tk; ++j) {
      if (!allowed.empty() && !allowed[i][j]) continue;
      double s = 0.0;
      for (size_t c = 0; c < dk; ++c)
        s += q(static_cast<Index>(i), static_cast<Index>(c)) * k(static_cast<Index>(j), static_cast<Index>(c));
      w[i][j] = std::exp(s * scale);
      z += w[i][j];
    }
    for (size_t j = 0; j < tk; ++j) {
      if (!allowed.empty() && !allowed[i][j]) continue;
      w[i][j] /= z;
      for (size_t c = 0; c < dv; ++c) out[i][c] += w[i][j] * v(static_cast<Index>(j), static_cast<Index>(c));
    }
  }
  return {from_rows(w), from_rows(out)};
}

/// Lower-triangular (j <= i + offset) Tq×Tk mask written with plain loops.
inline Mask ref_causal(size_t tq, size_t tk, long offset = 0) {
  Mask m(tq, std::vector<bool>(tk, false));
  for (size_t i = 0; i < tq; ++i)
    for (size_t j = 0; j < tk; ++j) m[i][j] = static_cast<long>(j) <= static_cast<long>(i) + offset;
  return m;
}

inline Mask ref_key_valid(size_t tq, const std::vector<bool>& valid) {
  return Mask(tq, valid);
}

inline Mask to_mask(const attn::BoolMatrix& b) {
  Mask m(static_cast<size_t>(b.rows()), std::vector<bool>(static_cast<size_t>(b.cols())));
  for (Index i = 0; i < b.rows(); ++i)
    for (Index j = 0; j < b.cols(); ++j) m[static_cast<size_t>(i)][static_cast<size_t>(j)] = b(i, j);
  return m;
}

inline attn::BoolMatrix to_bool_matrix(const Mask& m) {
  attn::BoolMatrix b(static_cast<Index>(m.size()), m.empty() ? 0 : static_cast<Index>(m[0].size()));
  for (Index i = 0; i < b.rows(); ++i)
    for (Index j = 0; j < b.cols(); ++j) b(i, j) = m[static_cast<size_t>(i)][static_cast<size_t>(j)];
  return b;
}

// ---------------------------------------------------------------------------
// Comparison with context.

struct Comparison {
  bool ok = true;
  double max_diff = 0.0;
  std::string report;
};

/// |actual − expected| <= tol entrywise (NaN never passes). The report names the shapes,
/// the first (up to 4) entries beyond tol with both values (%.17g) and the max difference.
inline Comparison compare(const Matrix& actual, const Matrix& expected, double tol,
                          const std::string& what = "matrix") {
  Comparison c;
  std::ostringstream os;
  os << what << ": actual " << actual.rows() << "x" << actual.cols() << ", expected " << expected.rows()
     << "x" << expected.cols() << ", tolerance " << tol;
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    c.ok = false;
    c.max_diff = INFINITY;
    os << " -- shapes differ";
    c.report = os.str();
    return c;
  }
  int shown = 0;
  for (Index i = 0; i < actual.rows(); ++i)
    for (Index j = 0; j < actual.cols(); ++j) {
      const double d = std::fabs(actual(i, j) - expected(i, j));
      const bool bad = !(d <= tol);
      if (d > c.max_diff || d != d) c.max_diff = d;
      if (bad) {
        c.ok = false;
        if (shown++ < 4)
          os << "\n  [" << i << "][" << j << "] actual " << fmt17(actual(i, j)) << " expected "
             << fmt17(expected(i, j)) << " diff " << fmt17(d);
      }
    }
  os << "\n  max |difference| = " << fmt17(c.max_diff);
  c.report = os.str();
  return c;
}

}  // namespace attn_test

/// CHECK that two matrices agree within an absolute tolerance; on failure print context.
#define CHECK_MATRIX_NEAR(actual, expected, tol)                                        \
  do {                                                                                  \
    const auto attn_cmp_ = attn_test::compare((actual), (expected), (tol), #actual);    \
    INFO(attn_cmp_.report);                                                             \
    CHECK(attn_cmp_.ok);                                                                \
  } while (0)

/// `expr` must throw attn::Error carrying exactly `expected_code` (an attn::ErrorCode).
#define CHECK_ATTN_ERROR(expr, expected_code)                                           \
  do {                                                                                  \
    bool attn_threw_ = false;                                                           \
    try {                                                                               \
      (void)(expr);                                                                     \
    } catch (const attn::Error& attn_e_) {                                              \
      attn_threw_ = true;                                                               \
      INFO("message: " << attn_e_.what());                                              \
      CHECK(std::string(attn_e_.code_name()) == std::string(attn::code_name(expected_code))); \
      CHECK(std::string(attn_e_.what()).size() > 0);                                    \
    }                                                                                   \
    INFO("expression: " #expr);                                                         \
    CHECK(attn_threw_);                                                                 \
  } while (0)

namespace attn_test {

inline std::string read_text(const std::string& relative) {
  const std::string path = std::string(ATTN_TESTS_DIR) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json load_json(const std::string& relative) {
  return nlohmann::json::parse(read_text(relative));
}

}  // namespace attn_test
