#include "attn/random.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

#include "attn/detmath.hpp"
#include "attn/error.hpp"

namespace attn {

std::string Rng::state() const {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &spare_, sizeof bits);  // the spare normal's exact bits
  std::ostringstream os;
  os << engine_ << ' ' << (has_spare_ ? 1 : 0) << ' ' << bits;
  return os.str();
}

void Rng::set_state(const std::string& text) {
  std::istringstream is(text);
  std::mt19937_64 engine;
  int spare = 0;
  std::uint64_t bits = 0;
  is >> engine >> spare >> bits;
  const bool parsed = !is.fail();
  // Nothing may follow: another library's engine text has another count of numbers.
  std::string rest;
  const bool trailing = parsed && static_cast<bool>(is >> rest);
  if (!parsed || trailing || (spare != 0 && spare != 1))
    throw Error(ErrorCode::invalid_field, "the random generator's state does not parse");
  engine_ = engine;
  has_spare_ = spare == 1;
  std::memcpy(&spare_, &bits, sizeof bits);
}

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
