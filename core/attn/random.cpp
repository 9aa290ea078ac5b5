#include "attn/random.hpp"

#include <cmath>

#include "attn/detmath.hpp"

namespace attn {

double Rng::uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {  // a point uniform in the unit disc, excluding the centre
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * det::log(s) / s);  // sqrt is correctly rounded by IEEE 754
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

std::uint64_t Rng::below(std::uint64_t n) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do x = engine_();
  while (x >= limit);
  return x % n;
}

Matrix linear_init(Rng& rng, Index d_in, Index d_out) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(d_in));
  Matrix w(d_in, d_out);
  for (Index i = 0; i < d_in; ++i)
    for (Index j = 0; j < d_out; ++j) w(i, j) = rng.uniform(-bound, bound);
  return w;
}

Matrix embedding_init(Rng& rng, Index vocab, Index dim) {
  Matrix e(vocab, dim);
  for (Index i = 0; i < vocab; ++i)
    for (Index j = 0; j < dim; ++j) e(i, j) = rng.normal();
  return e;
}

}  // namespace attn
