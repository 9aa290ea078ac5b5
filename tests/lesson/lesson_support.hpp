// tests/lesson/lesson_support.hpp — helpers for the issue-4 tests.
//
// - M({{..},{..}}) / V({..}): matrices and vectors written in the test.
// - CHECK_CODE(expr, code): expr must throw attn::Error with exactly that code.
// - naive_attention(): tests/core/support.hpp's independent textbook reference.
// - max_diff(): max |a − b| with INFO on shapes.
// - ATTN_LESSON_FIXTURE: path of the torch fixture (tests/fixtures/lesson-replica-seed17.json).
#pragma once

// Built on the core tests' helpers (one naive reference, one error check for all test folders).
#include "../core/support.hpp"

namespace lesson_test {

using attn::Index;
using attn::Matrix;
using attn::Vector;
using attn_test::from_json_rows;
using attn_test::M;

inline Vector V(std::initializer_list<double> xs) {
  Vector v(static_cast<Index>(xs.size()));
  Index i = 0;
  for (double x : xs) v(i++) = x;
  return v;
}

/// max |a − b| (NaN sticks); the shapes must agree.
inline double max_diff(const Matrix& a, const Matrix& b) {
  INFO("shapes " << a.rows() << "x" << a.cols() << " vs " << b.rows() << "x" << b.cols());
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return attn_test::compare(a, b, 0.0).max_diff;
}

inline double max_diff(const Vector& a, const Vector& b) {
  REQUIRE(a.size() == b.size());
  double m = 0.0;
  for (Index i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a(i) - b(i)));
  return m;
}

/// The textbook reference of tests/core/support.hpp (attn_test::ref_attention).
using Naive = attn_test::Ref;
inline Naive naive_attention(const Matrix& q, const Matrix& k, const Matrix& v,
                             const attn_test::Mask& allowed = {}, double scale = -1.0) {
  return attn_test::ref_attention(q, k, v, allowed, scale);
}

inline Matrix naive_matmul(const Matrix& a, const Matrix& b) {
  return attn_test::from_rows(attn_test::ref_matmul(attn_test::to_rows(a), attn_test::to_rows(b)));
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
#define CHECK_CODE(expr, expected) CHECK_ATTN_ERROR(expr, expected)
