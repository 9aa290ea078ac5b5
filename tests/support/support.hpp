// tests/support/support.hpp — the helpers every test folder shares (namespace attn_test).
//
// - M({{..},{..}}) / V({..}): matrices and vectors written in the test.
// - A naive reference for attention written independently of the core: nested
//   std::vector loops and the textbook softmax with std::exp (no max subtraction,
//   so only for |scores| well below 700), masked keys simply skipped.
// - Matrix comparison that reports the first differing entries and the max
//   difference (INFO), with an absolute tolerance (CHECK_MATRIX_NEAR, max_diff).
// - JSON comparison with an absolute tolerance per number (JsonDiff, CHECK_JSON_NEAR).
// - CHECK_ALL_PASS(checks): every claim check of a result passes; a failure names the claim.
// - CHECK_ATTN_ERROR(expr, code): expr must throw attn::Error with exactly `code`.
// - Fixture loading from ATTN_TESTS_DIR (the tests/ source folder; under node the
//   wasm build reads it through NODERAWFS).
// - Fast kernels: seeded inputs, the mask cases every comparison sweeps, an instruction-set guard.
// - Learning: finite differences (Richardson) and relative-error gradient checks; model
//   configurations in one line; bit-for-bit vector comparison; the shipped checkpoints.
#pragma once

#include <attn/error.hpp>
#include <lessons/random_heads.hpp>
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/check.hpp>
#include <attn/kernels/fast_attention.hpp>
#include <attn/masks.hpp>
#include <attn/random.hpp>
#include <attn/tokenizer.hpp>
#include <attn/types.hpp>
#include <learn/checkpoint.hpp>
#include <learn/gemm.hpp>
#include <learn/decoder.hpp>
#include <learn/seq2seq.hpp>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#ifndef ATTN_TESTS_DIR
#error "ATTN_TESTS_DIR must name the tests/ source folder"
#endif

namespace attn_test {

using attn::BoolMatrix;
using attn::Index;
using attn::MaskSpec;
using attn::Matrix;
using attn::Vector;
using attn::kernels::MatrixF;
using Rows = std::vector<std::vector<double>>;
using Mask = std::vector<std::vector<bool>>;

/// The lessons' seeded head on a sentence, rebuilt as random_heads and position_symmetry document
/// it: Rng(17) draws the embedding table (vocab × 8, N(0, 1)), then W_q, W_k, W_v (8 × 8); x is the
/// sentence's embedding.
struct SeededHead {
  Matrix x, wq, wk, wv;
};
inline SeededHead seeded_head(const std::string& sentence) {
  attn::Rng rng(17);
  const std::vector<std::string> tokens = attn::tokenize(sentence);
  const attn::Vocabulary vocab = attn::build_vocabulary(tokens);
  const Matrix table = attn::embedding_init(rng, static_cast<Index>(vocab.tokens.size()), 8);
  SeededHead h;
  h.x = attn::embed(table, attn::token_ids(vocab, tokens));
  h.wq = attn::linear_init(rng, 8, 8);
  h.wk = attn::linear_init(rng, 8, 8);
  h.wv = attn::linear_init(rng, 8, 8);
  return h;
}

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

inline Vector V(std::initializer_list<double> xs) {
  Vector v(static_cast<Index>(xs.size()));
  Index i = 0;
  for (double x : xs) v(i++) = x;
  return v;
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

/// The same reference under the name the lesson tests use.
using Naive = Ref;
inline Naive naive_attention(const Matrix& q, const Matrix& k, const Matrix& v, const Mask& allowed = {},
                             double scale = -1.0) {
  return ref_attention(q, k, v, allowed, scale);
}

inline Matrix naive_matmul(const Matrix& a, const Matrix& b) { return from_rows(ref_matmul(to_rows(a), to_rows(b))); }

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

/// max |a − b| (NaN sticks); the shapes must agree.
inline double max_diff(const Matrix& a, const Matrix& b) {
  INFO("shapes " << a.rows() << "x" << a.cols() << " vs " << b.rows() << "x" << b.cols());
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return compare(a, b, 0.0).max_diff;
}

inline double max_diff(const Vector& a, const Vector& b) {
  REQUIRE(a.size() == b.size());
  double m = 0.0;
  for (Index i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a(i) - b(i)));
  return m;
}

/// max |a − b| for any two matrices (float or double); on shape mismatch returns +inf. Puts the
/// first few differences above `tol` into `where` for INFO.
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

// ---------------------------------------------------------------------------
// JSON comparison with a tolerance.

/// Walks expected and actual in lockstep: numbers must agree within |actual − expected| <= tol
/// (NaN never passes), arrays element by element with equal lengths, objects name by name with
/// the same names, anything else (strings, booleans, null) exactly. Counts the numbers compared
/// and the problems, keeping the first `shown` problems with their paths.
struct JsonDiff {
  double tol = 0.0;
  double max_diff = 0.0;
  long compared = 0;
  long bad = 0;
  int shown = 5;
  std::vector<std::string> first;

  void note(const std::string& msg) {
    ++bad;
    if (static_cast<int>(first.size()) < shown) first.push_back(msg);
  }

  void walk(const nlohmann::json& expected, const nlohmann::json& actual, const std::string& path) {
    if (expected.is_number()) {
      if (!actual.is_number()) return note(path + ": expected " + expected.dump() + ", got " + actual.dump());
      const double e = expected.get<double>(), a = actual.get<double>();
      const double d = std::fabs(a - e);
      ++compared;
      if (d > max_diff || d != d) max_diff = d;
      if (!(d <= tol)) note(path + ": expected " + fmt17(e) + ", actual " + fmt17(a) + ", diff " + fmt17(d));
      return;
    }
    if (expected.is_array()) {
      if (!actual.is_array() || actual.size() != expected.size())
        return note(path + ": expected an array of " + std::to_string(expected.size()) + ", got " +
                    (actual.is_array() ? "an array of " + std::to_string(actual.size()) : actual.type_name()));
      for (size_t i = 0; i < expected.size(); ++i) walk(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
      return;
    }
    if (expected.is_object()) {
      if (!actual.is_object()) return note(path + ": expected an object, got " + actual.dump());
      if (actual.size() != expected.size())
        note(path + ": " + std::to_string(actual.size()) + " names, expected " + std::to_string(expected.size()));
      for (auto it = expected.begin(); it != expected.end(); ++it) {
        if (!actual.contains(it.key())) {
          note(path + "." + it.key() + ": missing");
          continue;
        }
        walk(it.value(), actual[it.key()], path + "." + it.key());
      }
      return;
    }
    if (expected != actual) note(path + ": expected " + expected.dump() + ", got " + actual.dump());
  }

  /// The problems kept, one per line.
  std::string problems() const {
    std::string out;
    for (const std::string& s : first) out += "\n  " + s;
    return out;
  }
};

inline JsonDiff json_diff(const nlohmann::json& actual, const nlohmann::json& expected, double tol,
                          const std::string& path = "") {
  JsonDiff d;
  d.tol = tol;
  d.walk(expected, actual, path);
  return d;
}

// ---------------------------------------------------------------------------
// Claim checks (attn::Check: claim, measured, limit, expect_at_most, pass).

/// The failing claims of `checks`, one per line with measured and limit; empty when all pass.
inline std::string failed_claims(const std::vector<attn::Check>& checks) {
  std::string out;
  for (const attn::Check& c : checks)
    if (!c.pass)
      out += "\n  claim \"" + c.claim + "\": measured " + fmt17(c.measured) + (c.expect_at_most ? ", at most " : ", above ") +
             fmt17(c.limit);
  return out;
}

// ---------------------------------------------------------------------------
// RoPE written from the paper (Su et al. 2021) with std::cos/std::sin, T×d: row m's pair
// (2i, 2i+1) rotated by m·10000^(−2i/d); an odd last column is left as it is.
inline Matrix naive_rope(const Matrix& x) {
  Matrix out = x;
  const double d = static_cast<double>(x.cols());
  for (Index m = 0; m < x.rows(); ++m)
    for (Index i = 0; 2 * i + 1 < x.cols(); ++i) {
      const double th = static_cast<double>(m) * std::pow(10000.0, -2.0 * static_cast<double>(i) / d);
      const double a = x(m, 2 * i), b = x(m, 2 * i + 1);
      out(m, 2 * i) = a * std::cos(th) - b * std::sin(th);
      out(m, 2 * i + 1) = a * std::sin(th) + b * std::cos(th);
    }
  return out;
}

}  // namespace attn_test

/// CHECK that every claim check in `checks` (a std::vector<attn::Check>) passes; a failure names
/// each failing claim with its measured figure and limit.
#define CHECK_ALL_PASS(checks)                                                          \
  do {                                                                                  \
    const std::string attn_failed_ = attn_test::failed_claims(checks);                  \
    INFO("failing claims of " #checks ":" << attn_failed_);                             \
    CHECK(attn_failed_.empty());                                                        \
  } while (0)

/// CHECK that two JSON values agree, numbers within an absolute tolerance; on failure print the
/// first differing entries with their paths.
#define CHECK_JSON_NEAR(actual, expected, tol)                                          \
  do {                                                                                  \
    const auto attn_jd_ = attn_test::json_diff((actual), (expected), (tol), #actual);   \
    INFO(attn_jd_.bad << " problems in " << attn_jd_.compared << " numbers compared, max |difference| " \
                      << attn_test::fmt17(attn_jd_.max_diff) << attn_jd_.problems());   \
    CHECK(attn_jd_.bad == 0);                                                           \
  } while (0)

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

// True in an AddressSanitizer build (g++ defines __SANITIZE_ADDRESS__, clang has the feature): slow
// replays there check a shorter prefix.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

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

/// A JSON file by its full path (compile definitions such as ATTN_LESSON_FIXTURE name them).
inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// ---------------------------------------------------------------------------
// Fast kernels: seeded inputs from attn::Rng (the core's own sampling: same numbers natively
// and in wasm) and the mask cases every comparison sweeps.

/// rows×cols matrix with entries uniform in [lo, hi), drawn row by row.
inline Matrix uniform(attn::Rng& rng, Index rows, Index cols, double lo = -1.0, double hi = 1.0) {
  Matrix m(rows, cols);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < cols; ++j) m(i, j) = rng.uniform(lo, hi);
  return m;
}

struct MaskCase {
  std::string name;
  MaskSpec spec;
  bool may_have_empty_rows;  // run with EmptyRows::zero
};

/// Mask cases for a Tq×Tk problem (only those that are valid for the shape): causal kinds, key
/// padding with a fully masked first tile, window, random allowed with fully masked blocks and
/// empty rows, combinations.
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

// ---------------------------------------------------------------------------
// Learning: finite differences.
//
// Central differences in double with one Richardson step, R = (4·D(h/2) − D(h)) / 3,
// D(h) = (f(x + h) − f(x − h)) / 2h, whose truncation error is O(h⁴); with h = 1e-3 the rounding
// error is about 1e-16·|f|/h and the truncation error about h⁴. Agreement is judged as the
// learning targets state it: |a − b| / max(|a|, |b|, 1e-8) <= 1e-6.

inline double rel_error(double a, double b) {
  return std::fabs(a - b) / std::max({std::fabs(a), std::fabs(b), 1e-8});
}

/// Richardson-extrapolated central difference of f at x[i].
inline double numeric_grad(const std::function<double()>& f, double& xi, double h = 1e-3) {
  const double x0 = xi;
  auto central = [&](double step) {
    xi = x0 + step;
    const double up = f();
    xi = x0 - step;
    const double down = f();
    xi = x0;
    return (up - down) / (2.0 * step);
  };
  const double d1 = central(h), d2 = central(h / 2);
  return (4.0 * d2 - d1) / 3.0;
}

struct GradReport {
  int checked = 0, failed = 0;
  double worst = 0.0;
  std::string first_failures;
};

/// Compares analytic[i] with the finite difference of f in x[i] for the listed indices.
inline GradReport check_grads(const std::function<double()>& f, std::vector<double>& x,
                              const std::vector<double>& analytic, const std::vector<size_t>& indices,
                              const std::string& what) {
  GradReport r;
  for (size_t i : indices) {
    const double num = numeric_grad(f, x[i]);
    const double e = rel_error(analytic[i], num);
    ++r.checked;
    r.worst = std::max(r.worst, e);
    if (!(e <= 1e-6)) {
      ++r.failed;
      if (r.failed <= 5) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%s[%zu]: analytic %.12g, numeric %.12g, rel %.3g\n", what.c_str(), i,
                      analytic[i], num, e);
        r.first_failures += buf;
      }
    }
  }
  return r;
}

/// Every index below n, or `count` of them spread evenly (always including the first and last).
inline std::vector<size_t> sample_indices(size_t n, size_t count) {
  std::vector<size_t> out;
  if (n <= count) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (size_t k = 0; k < count; ++k) out.push_back(k * (n - 1) / (count - 1));
  return out;
}

inline std::vector<double> randn(attn::Rng& rng, size_t n, double scale = 1.0) {
  std::vector<double> v(n);
  for (double& x : v) x = scale * rng.normal();
  return v;
}

/// A decoder configuration in one line: its sizes, then the MLP width, the positions and LayerNorm
/// (defaults as DecoderConfig's), in DecoderConfig's order.
inline attn::learn::DecoderConfig decoder_config(int vocab, int context, int d_model, int heads, int layers,
                                                 int mlp = 0,
                                                 attn::learn::DecoderPositions positions = attn::learn::DecoderPositions::learned,
                                                 bool layer_norm = false) {
  return attn::learn::DecoderConfig{vocab, context, d_model, heads, layers, mlp, positions, layer_norm};
}

/// A seq2seq configuration in one line (E = embed, H = hidden, A = attn_dim), in Seq2SeqConfig's order.
inline attn::learn::Seq2SeqConfig seq2seq_config(int src_vocab, int tgt_vocab, int embed, int hidden, bool attention,
                                                 int attn_dim) {
  return attn::learn::Seq2SeqConfig{src_vocab, tgt_vocab, embed, hidden, attention, attn_dim};
}

/// The same length and the same bits entry by entry (so −0.0 differs from 0.0).
/// While alive, the learning layers' vector loops run `lanes` doubles per register (2 or 4; a width
/// the CPU lacks falls back to 2), so that a test compares every build's bits.
struct ForceLanes {
  explicit ForceLanes(int lanes) { attn::learn::gemm_force_lanes(lanes); }
  ~ForceLanes() { attn::learn::gemm_force_lanes(0); }
  ForceLanes(const ForceLanes&) = delete;
  ForceLanes& operator=(const ForceLanes&) = delete;
};

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/// learn::decode_checkpoint over the bytes of a string (an encoded checkpoint or a file's text).
inline attn::learn::Checkpoint decode_bytes(const std::string& bytes) {
  return attn::learn::decode_checkpoint(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

/// A shipped checkpoint, by its path relative to tests/ ("../checkpoints/translate.ckpt"), decoded.
inline attn::learn::Checkpoint read_checkpoint(const std::string& relative) { return decode_bytes(read_text(relative)); }

/// A trainer's whole state through its encoded bytes and back, as the training Worker hands a run
/// over: Trainer::from_state of the decoded encode_checkpoint(t.state_checkpoint()).
template <class Trainer>
Trainer through_bytes(const Trainer& t) {
  return Trainer::from_state(decode_bytes(attn::learn::encode_checkpoint(t.state_checkpoint())));
}

/// The page's side of the handover: a new trainer of `config` takes in place (load_state) the state
/// of another that ran `steps` steps, as the page takes the Worker's; `state` receives that state.
template <class Trainer, class Config>
Trainer taken_over(const Config& config, int steps, attn::learn::Checkpoint* state) {
  Trainer page(config), worker(config);
  worker.advance(steps);
  *state = worker.state_checkpoint();
  page.load_state(*state);
  return page;
}

/// A trainer of `config` with another seed refuses `state` as another run's and stays at step 0.
template <class Trainer, class Config>
void check_refuses_other_run(const Config& config, const attn::learn::Checkpoint& state) {
  Config other = config;
  other.seed = config.seed + 1;
  Trainer stranger(other);
  CHECK_THROWS_WITH(stranger.load_state(state), Catch::Contains("another run"));
  CHECK(stranger.step() == 0);
}

}  // namespace attn_test

/// Every finite-difference check of a GradReport passed (and there was at least one).
#define LEARN_CHECK_GRADS(report)                                            \
  do {                                                                       \
    const auto& rep_ = (report);                                             \
    INFO("checked " << rep_.checked << ", worst rel error " << rep_.worst    \
                    << "\n" << rep_.first_failures);                         \
    CHECK(rep_.checked > 0);                                                 \
    CHECK(rep_.failed == 0);                                                 \
  } while (0)
