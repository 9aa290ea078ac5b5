// attn/random.hpp — seeded sampling owned by the core.
//
// Why our own: std::uniform_real_distribution and std::normal_distribution are
// implemented differently by libstdc++ (native) and libc++ (emscripten), so
// the same seed would give different weights in the browser. The engine is
// std::mt19937_64, whose output sequence the C++ standard fixes exactly; the
// conversions below use only IEEE arithmetic and attn::det functions.
// Distributions match PyTorch's defaults in *law*, not in bits: PyTorch has its
// own generator, so seed 17 here is not torch.manual_seed(17).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "attn/types.hpp"

namespace attn {

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
  /// The generator's whole state as text (the engine's textual form, then the normal spare):
  /// set_state of it continues the same sequence with the same C++ library. libstdc++ (native)
  /// and libc++ (wasm) write the engine differently, and a text of one is refused by the other.
  std::string state() const;
  /// Restores a state() text. Throws Error(invalid_field) when it does not parse.
  void set_state(const std::string& text);

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

/// nn.Linear's default weight init, U(−1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = d_in,
/// returned in our in×out layout (d_in×d_out). Entries drawn row by row.
Matrix linear_init(Rng& rng, Index d_in, Index d_out);

/// nn.Embedding's default init N(0, 1): vocab×dim, drawn row by row.
Matrix embedding_init(Rng& rng, Index vocab, Index dim);

}  // namespace attn
