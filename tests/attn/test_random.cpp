// tests/attn/test_random.cpp — seeded sampling owned by the core.
//
// Statistical margins: for a fixed seed these are deterministic, but the limits are set at
// 5 standard errors of the statistic so that a correct sampler passes for any seed.
#include <attn/random.hpp>

#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"

using namespace attn_test;

TEST_CASE("random: Rng is deterministic per seed", "[random]") {
  attn::Rng a(17), b(17), c(18);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const double x = a.uniform01(), y = b.uniform01(), z = c.uniform01();
    CHECK(x == y);
    differs = differs || x != z;
  }
  CHECK(differs);
  attn::Rng n1(5), n2(5);
  for (int i = 0; i < 101; ++i) CHECK(n1.normal() == n2.normal());  // odd count: spare path too
}

TEST_CASE("random: uniform01 is the top 53 bits of mt19937_64", "[random]") {
  // random.hpp documents: top 53 bits of one std::mt19937_64 draw times 2^-53; the C++
  // standard fixes mt19937_64's sequence (its 10000th output from the default seed 5489
  // is 9981545732273789042).
  std::mt19937_64 e(5489);
  for (int i = 0; i < 9999; ++i) e();
  REQUIRE(e() == 9981545732273789042ULL);
  std::mt19937_64 engine(17);
  attn::Rng rng(17);
  for (int i = 0; i < 100; ++i) {
    const double expected = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    CHECK(rng.uniform01() == expected);
  }
  attn::Rng r2(3);
  for (int i = 0; i < 10000; ++i) {
    const double u = r2.uniform01();
    CHECK((u >= 0.0 && u < 1.0));
    const double v = r2.uniform(-2.0, 3.0);
    CHECK((v >= -2.0 && v < 3.0));
  }
}

TEST_CASE("random: below is in range and unbiased", "[random]") {
  attn::Rng rng(99);
  const int n = 7, draws = 70000;
  std::vector<int> count(n, 0);
  for (int i = 0; i < draws; ++i) {
    const auto k = rng.below(n);
    REQUIRE(k < static_cast<std::uint64_t>(n));
    count[static_cast<size_t>(k)]++;
  }
  // Each bin ~ Binomial(70000, 1/7): mean 10000, sd ≈ 92.6; allow 5 sd = 463.
  for (int k = 0; k < n; ++k) {
    INFO("bin " << k << " count " << count[static_cast<size_t>(k)]);
    CHECK(std::abs(count[static_cast<size_t>(k)] - 10000) < 463);
  }
  CHECK(rng.below(1) == 0);
}

TEST_CASE("random: linear_init follows U(-b b) with b = 1/sqrt(fan_in)", "[random]") {
  // fan_in 64, 64×64 = 4096 draws, bound b = 1/8. U(-b, b): mean 0, variance b²/3.
  // Standard error of the mean: b/sqrt(3·4096) = 0.00113; margin 5 SE = 0.0057.
  // Standard error of the variance: sqrt(4/45)·b²/64 = 0.0000727 (b² = 1/64); margin 5 SE = 0.00037.
  attn::Rng rng(17);
  const Matrix w = attn::linear_init(rng, 64, 64);
  REQUIRE(w.rows() == 64);
  REQUIRE(w.cols() == 64);
  const double b = 0.125;
  const double n = static_cast<double>(w.size());
  const double mean = w.sum() / n;
  const double var = (w.array() - mean).square().sum() / (n - 1);
  INFO("mean " << fmt17(mean) << " variance " << fmt17(var) << " (expected " << fmt17(b * b / 3) << ")");
  CHECK(std::fabs(mean) < 0.0057);
  CHECK(std::fabs(var - b * b / 3) < 0.00037);
  CHECK(w.maxCoeff() < b);
  CHECK(w.minCoeff() >= -b);
  CHECK(w.maxCoeff() > 0.99 * b);  // the range is actually used
  CHECK(w.minCoeff() < -0.99 * b);
  // Shape in×out: fan_in is the row count (a 3×64 layer has bound 1/sqrt(3)).
  const Matrix narrow = attn::linear_init(rng, 3, 64);
  CHECK(narrow.cwiseAbs().maxCoeff() < 1.0 / std::sqrt(3.0));
  CHECK(narrow.cwiseAbs().maxCoeff() > 0.9 / std::sqrt(3.0));
}

TEST_CASE("random: embedding_init and normal follow N(0 1)", "[random]") {
  // 64×64 = 4096 draws: SE of the mean 1/64 = 0.0156 (margin 5 SE = 0.078); SE of the variance
  // sqrt(2/4096) = 0.0221 (margin 0.11). Fourth moment 3 ± 5·sqrt(96/4096) = ±0.77.
  attn::Rng rng(17);
  const Matrix e = attn::embedding_init(rng, 64, 64);
  const double n = static_cast<double>(e.size());
  const double mean = e.sum() / n;
  const double var = (e.array() - mean).square().sum() / (n - 1);
  const double m4 = (e.array() - mean).pow(4).sum() / n;
  INFO("mean " << fmt17(mean) << " variance " << fmt17(var) << " 4th moment " << fmt17(m4));
  CHECK(std::fabs(mean) < 0.078);
  CHECK(std::fabs(var - 1.0) < 0.11);
  CHECK(std::fabs(m4 - 3.0) < 0.77);
  // Tail: P(|z| > 2) = 0.0455 -> 186 of 4096 expected, sd 13.3; allow 5 sd.
  const double tail = static_cast<double>((e.array().abs() > 2.0).count());
  INFO("tail count " << tail);
  CHECK(std::fabs(tail - 186.4) < 67);
}

TEST_CASE("random: state() and set_state continue the sequence, other texts are refused", "[random]") {
  attn::Rng a(23);
  for (int i = 0; i < 7; ++i) a.uniform01();
  a.normal();  // leaves the spare normal pending: part of the state
  const std::string saved = a.state();
  attn::Rng b(99);
  b.set_state(saved);
  for (int i = 0; i < 5; ++i) {
    const double x = a.normal(), y = b.normal();
    CHECK(std::memcmp(&x, &y, sizeof x) == 0);
    CHECK(a.below(1000) == b.below(1000));
  }
  attn::Rng c(5);
  const std::string before = c.state();
  // One number more (libstdc++'s engine text read by libc++, or a copy with junk after it).
  CHECK_THROWS_AS(c.set_state(saved + " 7"), attn::Error);
  CHECK_THROWS_AS(c.set_state(saved.substr(0, saved.size() / 2)), attn::Error);
  CHECK_THROWS_AS(c.set_state(""), attn::Error);
  CHECK(c.state() == before);  // a refused text changes nothing
}

TEST_CASE("random: the engine is std::mt19937_64 draw for draw, and its text is the standard's", "[random]") {
  for (const std::uint64_t seed : {0ULL, 1ULL, 17ULL, 2026ULL, 0xFFFFFFFFFFFFFFFFULL}) {
    attn::Mt19937_64 ours(seed);
    std::mt19937_64 ref(seed);
    int drawn = 0;
    for (const int upto : {0, 1, 311, 312, 313, 624, 700, 2000}) {
      for (; drawn < upto; ++drawn) REQUIRE(ours() == ref());
      // The standard's text is X_{i-n} ... X_{i-1}. libc++ writes exactly that. libstdc++ twists
      // all n words at once and writes its array and then its position p: that is the standard's
      // text only when p = n (no draw taken from the new batch yet).
      std::ostringstream os;
      os << ref;
      std::istringstream is(os.str());
      std::vector<std::uint64_t> words;
      for (std::uint64_t w; is >> w;) words.push_back(w);
      bool comparable = words.size() == static_cast<std::size_t>(attn::Mt19937_64::kWords);
      if (words.size() == attn::Mt19937_64::kWords + 1) {
        comparable = words.back() == static_cast<std::uint64_t>(attn::Mt19937_64::kWords);
        words.pop_back();
      }
      INFO("seed " << seed << " after " << upto << " draws");
      if (comparable) {
        std::string standard;
        for (std::size_t j = 0; j < words.size(); ++j) standard += (j ? " " : "") + std::to_string(words[j]);
        CHECK(ours.text() == standard);
      }
      // Read back, the text continues the sequence.
      attn::Mt19937_64 copy(99);
      CHECK(copy.read(ours.text()) == ours.text().size());
      std::mt19937_64 ref_copy = ref;
      for (int k = 0; k < 400; ++k) REQUIRE(copy() == ref_copy());
    }
  }
  attn::Mt19937_64 e(5);
  const std::string before = e.text();
  CHECK(e.read("1 2 3") == 0);                                   // too few words
  CHECK(e.read(std::string(312 * 2, ' ')) == 0);                  // none
  CHECK(e.read("18446744073709551616" + before.substr(before.find(' '))) == 0);  // 2^64 overflows
  CHECK(e.text() == before);  // a refused text changes nothing
}
