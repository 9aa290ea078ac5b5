#include "attn/random.hpp"

#include <cmath>
#include <cstring>
#include <cctype>

#include "attn/detmath.hpp"
#include "attn/error.hpp"

namespace attn {

namespace {
// std::mt19937_64's parameters ([rand.predef]): w = 64, n = 312, m = 156, r = 31.
constexpr int kShift = 156;  // m
constexpr std::uint64_t kMatrixA = 0xb5026f5aa96619e9ULL;
constexpr std::uint64_t kUpperMask = ~0ULL << 31, kLowerMask = (1ULL << 31) - 1;
constexpr std::uint64_t kInitMultiplier = 6364136223846793005ULL;

// Decimal digits of an unsigned 64-bit word from text[*pos], after any white space; false on no
// digits or overflow.
bool read_word(const std::string& text, std::size_t* pos, std::uint64_t* out) {
  std::size_t p = *pos;
  while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
  const std::size_t start = p;
  std::uint64_t v = 0;
  for (; p < text.size() && text[p] >= '0' && text[p] <= '9'; ++p) {
    const std::uint64_t d = static_cast<std::uint64_t>(text[p] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (p == start) return false;
  *pos = p;
  *out = v;
  return true;
}
}  // namespace

Mt19937_64::Mt19937_64(std::uint64_t seed) {
  x_[0] = seed;
  for (int i = 1; i < kWords; ++i)
    x_[i] = kInitMultiplier * (x_[i - 1] ^ (x_[i - 1] >> 62)) + static_cast<std::uint64_t>(i);
  i_ = 0;
}

std::uint64_t Mt19937_64::operator()() {
  // The twist for one word ([rand.eng.mers]): X_i from X_{i−n}, X_{i−n+1} and X_{i−n+m}.
  const int next = i_ + 1 == kWords ? 0 : i_ + 1;
  const int far = i_ + kShift >= kWords ? i_ + kShift - kWords : i_ + kShift;
  const std::uint64_t y = (x_[i_] & kUpperMask) | (x_[next] & kLowerMask);
  std::uint64_t z = x_[far] ^ (y >> 1) ^ ((y & 1) ? kMatrixA : 0);
  x_[i_] = z;
  i_ = next;
  // Tempering: u = 29, d; s = 17, b; t = 37, c; l = 43.
  z ^= (z >> 29) & 0x5555555555555555ULL;
  z ^= (z << 17) & 0x71d67fffeda60000ULL;
  z ^= (z << 37) & 0xfff7eee000000000ULL;
  z ^= z >> 43;
  return z;
}

std::string Mt19937_64::text() const {
  std::string out;
  out.reserve(kWords * 21);
  for (int j = 0; j < kWords; ++j) {
    if (j) out += ' ';
    out += std::to_string(x_[(i_ + j) % kWords]);
  }
  return out;
}

std::size_t Mt19937_64::read(const std::string& text) {
  std::uint64_t words[kWords];
  std::size_t pos = 0;
  for (int j = 0; j < kWords; ++j)
    if (!read_word(text, &pos, &words[j])) return 0;
  std::memcpy(x_, words, sizeof words);
  i_ = 0;
  return pos;
}

std::string Rng::state() const {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &spare_, sizeof bits);  // the spare normal's exact bits
  return engine_.text() + ' ' + (has_spare_ ? '1' : '0') + ' ' + std::to_string(bits);
}

void Rng::set_state(const std::string& text) {
  Mt19937_64 engine(0);
  std::size_t pos = engine.read(text);
  std::uint64_t spare = 0, bits = 0;
  const bool parsed = pos > 0 && read_word(text, &pos, &spare) && read_word(text, &pos, &bits);
  // Nothing may follow: another library's engine text has another count of numbers.
  while (parsed && pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  if (!parsed || pos != text.size() || spare > 1)
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
