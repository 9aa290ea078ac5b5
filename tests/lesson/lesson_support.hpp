// tests/lesson/lesson_support.hpp — helpers for the issue-4 tests.
//
// - M({{..},{..}}) / V({..}): matrices and vectors written in the test.
// - CHECK_CODE(expr, code): expr must throw attn::Error with exactly that code.
// - naive_attention(): an independent reference written with std::exp and nested loops
//   (textbook softmax, no max subtraction; only for |scores| well below 700), masked keys skipped.
// - max_diff(): max |a − b| with INFO on shapes.
// - ATTN_LESSON_FIXTURE: path of the torch fixture (tests/fixtures/lesson-replica-seed17.json).
#pragma once

#include <attn/error.hpp>
#include <attn/types.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace lesson_test {

using attn::Index;
using attn::Matrix;
using attn::Vector;

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

inline double max_diff(const Matrix& a, const Matrix& b) {
  INFO("shapes " << a.rows() << "x" << a.cols() << " vs " << b.rows() << "x" << b.cols());
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  double m = 0.0;
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < a.cols(); ++j) {
      const double d = std::fabs(a(i, j) - b(i, j));
      if (d > m || d != d) m = d;
    }
  return m;
}

inline double max_diff(const Vector& a, const Vector& b) {
  REQUIRE(a.size() == b.size());
  double m = 0.0;
  for (Index i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a(i) - b(i)));
  return m;
}

/// Textbook attention: w_ij = exp(scale·q_i·k_j) / Σ_{allowed l} exp(scale·q_i·k_l); masked keys skipped.
/// allowed: empty = all; scale < 0 = 1/sqrt(d_k). Rows with no allowed key stay 0.
struct Naive {
  Matrix weights, output;
};
inline Naive naive_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                             const std::vector<std::vector<bool>>& allowed = {}, double scale = -1.0) {
  if (scale < 0) scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
  Naive n{Matrix::Zero(q.rows(), k.rows()), Matrix::Zero(q.rows(), v.cols())};
  for (Index i = 0; i < q.rows(); ++i) {
    double z = 0.0;
    for (Index j = 0; j < k.rows(); ++j) {
      if (!allowed.empty() && !allowed[static_cast<size_t>(i)][static_cast<size_t>(j)]) continue;
      double s = 0.0;
      for (Index c = 0; c < q.cols(); ++c) s += q(i, c) * k(j, c);
      n.weights(i, j) = std::exp(s * scale);
      z += n.weights(i, j);
    }
    for (Index j = 0; j < k.rows(); ++j) {
      if (z == 0.0) break;
      n.weights(i, j) /= z;
      for (Index c = 0; c < v.cols(); ++c) n.output(i, c) += n.weights(i, j) * v(j, c);
    }
  }
  return n;
}

inline Matrix naive_matmul(const Matrix& a, const Matrix& b) {
  Matrix c = Matrix::Zero(a.rows(), b.cols());
  for (Index i = 0; i < a.rows(); ++i)
    for (Index j = 0; j < b.cols(); ++j)
      for (Index t = 0; t < a.cols(); ++t) c(i, j) += a(i, t) * b(t, j);
  return c;
}

inline Matrix from_json_rows(const nlohmann::json& j) {
  const auto rows = j.get<std::vector<std::vector<double>>>();
  Matrix m(static_cast<Index>(rows.size()), rows.empty() ? 0 : static_cast<Index>(rows[0].size()));
  for (Index i = 0; i < m.rows(); ++i)
    for (Index c = 0; c < m.cols(); ++c) m(i, c) = rows[static_cast<size_t>(i)][static_cast<size_t>(c)];
  return m;
}

inline nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

}  // namespace lesson_test

/// expr must throw attn::Error whose code is exactly `expected` (an attn::ErrorCode).
#define CHECK_CODE(expr, expected)                                                              \
  do {                                                                                          \
    bool threw_ = false;                                                                        \
    try {                                                                                       \
      (void)(expr);                                                                             \
    } catch (const attn::Error& e_) {                                                           \
      threw_ = true;                                                                            \
      INFO("message: " << e_.what());                                                           \
      CHECK(std::string(e_.code_name()) == std::string(attn::code_name(expected)));             \
    }                                                                                           \
    if (!threw_) FAIL_CHECK("expected attn::Error " << attn::code_name(expected) << " from " #expr); \
  } while (0)
