// attn/random.hpp — seeded sampling owned by the core.
//
// Why our own: std::uniform_real_distribution and std::normal_distribution are
// implemented differently by libstdc++ (native) and libc++ (emscripten), so
// the same seed would give different weights in the browser. The engine is
// MT19937-64 with the parameters of std::mt19937_64 ([rand.predef]), whose output sequence the
// C++ standard fixes exactly; the conversions below use only IEEE arithmetic and attn::det
// functions. The engine is written out here (Matsumoto & Nishimura 1998; Nishimura 2000 for the
// 64-bit parameters) for its textual state alone: the standard library's goes through iostreams,
// whose locale machinery is a third of the page's download budget, and libstdc++ and libc++
// write it differently. tests/attn/test_random.cpp checks it against std::mt19937_64.
// Distributions match PyTorch's defaults in *law*, not in bits: PyTorch has its
// own generator, so seed 17 here is not torch.manual_seed(17).
#pragma once

#include <cstdint>
#include <cstddef>
#include <string>

#include "attn/types.hpp"

namespace attn {

/// MT19937-64: the generator std::mt19937_64 names, draw for draw (checked against it natively).
class Mt19937_64 {
 public:
  static constexpr int kWords = 312;  // n, the state's 64-bit words
  /// Seeded as std::mt19937_64(seed): x_0 = seed, x_i = f·(x_{i−1} ⊕ (x_{i−1} ≫ 62)) + i.
  explicit Mt19937_64(std::uint64_t seed);
  /// The next 64-bit output (the state's next word, tempered).
  std::uint64_t operator()();
  /// The standard's textual representation: X_{i−n} … X_{i−1}, oldest first, in decimal with one
  /// space between (what libc++'s operator<< writes).
  std::string text() const;
  /// Reads text() back. Returns the characters consumed, or 0 when the text does not hold n
  /// decimal words below 2^64 (the engine is then unchanged).
  std::size_t read(const std::string& text);

 private:
  std::uint64_t x_[kWords];
  int i_ = 0;  // the word the next draw replaces: X_{i−n}
};

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  /// Uniform on [0, 1): the top 53 bits of one engine draw times 2^-53.
  double uniform01();
  /// Uniform on [lo, hi).
  double uniform(double lo, double hi);
  /// Standard normal N(0, 1) by Marsaglia's polar method (uses det::log, sqrt).
  double normal();
  /// Uniform integer in [0, n) by rejection (no modulo bias). n >= 1.
  std::uint64_t below(std::uint64_t n);
  /// The generator's whole state as text (the engine's textual form, then the normal spare and
  /// its bits): set_state of it continues the same sequence, natively and in wasm alike.
  std::string state() const;
  /// Restores a state() text. Throws Error(invalid_field) when it does not parse.
  void set_state(const std::string& text);

 private:
  Mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

/// nn.Linear's default weight init, U(−1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = d_in,
/// returned in our in×out layout (d_in×d_out). Entries drawn row by row.
Matrix linear_init(Rng& rng, Index d_in, Index d_out);

/// nn.Embedding's default init N(0, 1): vocab×dim, drawn row by row.
Matrix embedding_init(Rng& rng, Index vocab, Index dim);

}  // namespace attn
