// lessons/timing.hpp — the lesson's CPU timing fixture: LSTM forward vs causal attention forward.
//
// LSTM cell as PyTorch documents nn.LSTM (gate order i, f, g, o in the stacked weights):
//   gates = W_ih x_t + b_ih + W_hh h_{t−1} + b_hh          (4H), split into i, f, g, o (H each)
//   i = σ(i), f = σ(f), g = tanh(g), o = σ(o)
//   c_t = f ⊙ c_{t−1} + i ⊙ g,   h_t = o ⊙ tanh(c_t)
// W_ih is 4H×D and W_hh 4H×H (PyTorch's out×in layout, multiplied with column vectors).
// σ and tanh are attn::det (bit-identical native and wasm).
//
// The fixture mirrors the script: T = 32, d = 8, 3 warm-ups, median of 5 runs, one-thread CPU,
// forward only, timed with std::chrono::steady_clock. Timings are not deterministic and are never
// held to a threshold; the only checks are that both forwards ran and gave finite outputs.
// Caveat (the lesson's): this is not an architecture benchmark and does not prove parallelism.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lessons/check.hpp"
#include "attn/random.hpp"
#include "attn/types.hpp"

namespace attn {

struct LstmWeights {
  Matrix w_ih;  ///< 4H×D, rows: gates i, f, g, o (H rows each)
  Matrix w_hh;  ///< 4H×H
  Vector b_ih;  ///< 4H
  Vector b_hh;  ///< 4H
};

struct LstmResult {
  Matrix h;     ///< T×H: h_t for every step (nn.LSTM's output with batch_first)
  Vector h_last, c_last;  ///< H: the final hidden and cell state
};

/// One-layer LSTM over x (T×D) from h_0 = c_0 = 0. Errors: empty_sequence, shape_mismatch (a
/// weight's shape does not fit D and H = w_hh.cols()), non_finite, too_large.
LstmResult lstm_forward(const Matrix& x, const LstmWeights& w);

/// nn.LSTM's default init in law: every weight and bias U(−1/√H, 1/√H), drawn W_ih, W_hh, b_ih,
/// b_hh, row by row. Errors: invalid_field (D or H outside 1..1024).
LstmWeights lstm_init(Rng& rng, Index d_in, Index hidden);

struct TimingFixture {
  int t = 32, d = 8, warmups = 3, repeats = 5;
  std::vector<double> lstm_seconds;       ///< repeats timings (after the warm-ups)
  std::vector<double> attention_seconds;  ///< repeats timings of causal single-head attention
  double lstm_median = 0, attention_median = 0;
  bool ran = false;
  std::string clock = "std::chrono::steady_clock";
  std::string caveat;                     ///< not an architecture benchmark; does not prove parallelism
  std::vector<Check> checks;              ///< only "ran": both outputs finite and of the right shape
};

/// z: T×d from Rng(seed) N(0,1); LSTM(d, d) and a causal single head (W_q, W_k, W_v d×d) from the
/// same Rng. Errors: invalid_field (t 1..512, d 1..256, warmups 0..100, repeats 1..101).
TimingFixture timing_fixture(std::uint64_t seed = 17, int t = 32, int d = 8, int warmups = 3, int repeats = 5);

/// The median of n >= 1 samples (seconds, or any unit): the middle value after sorting, the mean
/// of the two middle values for even n. Used for every timing the lessons report. n = 0 is not
/// allowed (the callers always time at least one repeat).
double median(std::vector<double> v);

}  // namespace attn
