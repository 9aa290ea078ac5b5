#include "lessons/torch_replica.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
std::uint32_t to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// avx_mathfun.h log256_ps for one lane, x in (0, 1] here (u1 = 1 − uniform).
float cephes_logf(float x) {
  if (x <= 0.0f) return std::numeric_limits<float>::quiet_NaN();
  if (x < from_bits(0x00800000u)) x = from_bits(0x00800000u);  // cut off denormals
  // 1. exponent and mantissa in [0.5, 1).
  const auto biased = static_cast<std::int32_t>(to_bits(x) >> 23);
  x = from_bits((to_bits(x) & ~0x7f800000u) | to_bits(0.5f));
  float e = static_cast<float>(biased - 0x7f);
  e = e + 1.0f;
  // 2. if x < sqrt(1/2): e −= 1, x = x + x − 1, else x = x − 1.
  const bool small = x < 0.707106781186547524f;
  const float tmp = small ? x : 0.0f;
  x = x - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  x = x + tmp;
  // 3. polynomial, in the order of the intrinsics (separate multiply and add, no fusion).
  const float z = x * x;
  float y = 7.0376836292E-2f;
  static constexpr float kP[] = {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f,
                                 1.4249322787E-1f,  -1.6668057665E-1f, 2.0000714765E-1f,
                                 -2.4999993993E-1f, 3.3333331174E-1f};
  for (float c : kP) {
    y = y * x;
    y = y + c;
  }
  y = y * x;
  y = y * z;
  y = y + e * -2.12194440e-4f;
  y = y - z * 0.5f;
  x = x + y;
  x = x + e * 0.693359375f;
  return x;
}

// avx_mathfun.h sincos256_ps for one lane.
void cephes_sincosf(float x, float& s, float& c) {
  bool sin_negative = std::signbit(x);
  x = std::fabs(x);
  // 1. j = (int(x·4/π) + 1) & ~1, the octant; y = float(j).
  float y = x * 1.27323954473516f;
  std::int32_t j = static_cast<std::int32_t>(y);
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  if (j & 4) sin_negative = !sin_negative;
  const bool use_cos_poly_for_sin = (j & 2) != 0;  // poly_mask false
  const bool cos_negative = ((~(j - 2)) & 4) != 0;
  // 2. extended-precision reduction x = ((x − y·DP1) − y·DP2) − y·DP3.
  x = x + y * -0.78515625f;
  x = x + y * -2.4187564849853515625e-4f;
  x = x + y * -3.77489497744594108e-8f;
  // 3. both polynomials.
  const float z = x * x;
  float yc = 2.443315711809948E-005f;
  yc = yc * z;
  yc = yc + -1.388731625493765E-003f;
  yc = yc * z;
  yc = yc + 4.166664568298827E-002f;
  yc = yc * z;
  yc = yc * z;
  yc = yc - z * 0.5f;
  yc = yc + 1.0f;
  float ys = -1.9515295891E-4f;
  ys = ys * z;
  ys = ys + 8.3321608736E-3f;
  ys = ys * z;
  ys = ys + -1.6666654611E-1f;
  ys = ys * z;
  ys = ys * x;
  ys = ys + x;
  // 4. select and sign (sign flips are exact).
  const float sin_v = use_cos_poly_for_sin ? yc : ys;
  const float cos_v = use_cos_poly_for_sin ? ys : yc;
  s = sin_negative ? -sin_v : sin_v;
  c = cos_negative ? -cos_v : cos_v;
}

// normal_fill_16_AVX2 on data[0..15], mean 0, std 1 (the fmadd with std 1, mean 0 is exact).
void normal_fill_16(float* data) {
  const auto two_pi = static_cast<float>(2.0f * 3.14159265358979323846);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];
    const float u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * cephes_logf(u1));
    const float theta = two_pi * u2;
    float s, c;
    cephes_sincosf(theta, s, c);
    data[j] = radius * c;
    data[j + 8] = radius * s;
  }
}

}  // namespace

float TorchCpuGenerator::uniform_float(float from, float to) {
  const std::uint32_t v = random();
  const float x = static_cast<float>(v & 0xFFFFFFu) * (1.0f / 16777216.0f);  // exact
  return std::fmaf(x, to - from, from);
}

std::vector<float> torch_normal_fill(TorchCpuGenerator& gen, std::size_t n) {
  if (n < 16)
    throw Error(ErrorCode::invalid_field, "the torch replica reproduces normal_ for tensors of at least 16 "
                                          "elements; this one has " + std::to_string(n) +
                                          " (torch samples smaller ones differently)");
  std::vector<float> data(n);
  for (float& x : data) x = gen.uniform_float(0.0f, 1.0f);
  for (std::size_t i = 0; i + 16 <= n; i += 16) normal_fill_16(data.data() + i);
  if (n % 16 != 0) {
    float* tail = data.data() + n - 16;  // recompute the last 16 values with fresh uniforms
    for (int i = 0; i < 16; ++i) tail[i] = gen.uniform_float(0.0f, 1.0f);
    normal_fill_16(tail);
  }
  return data;
}

std::vector<float> torch_uniform_fill(TorchCpuGenerator& gen, std::size_t n, double from, double to) {
  const auto f = static_cast<float>(from), t = static_cast<float>(to);
  std::vector<float> data(n);
  for (float& x : data) x = gen.uniform_float(f, t);
  return data;
}

Matrix torch_linear_weight(TorchCpuGenerator& gen, Index out, Index in) {
  // kaiming_uniform_(a=√5), fan_in = in, as torch.nn.init computes it in Python floats.
  const double a = std::sqrt(5.0);
  const double gain = std::sqrt(2.0 / (1.0 + a * a));
  const double std_dev = gain / std::sqrt(static_cast<double>(in));
  const double bound = std::sqrt(3.0) * std_dev;
  const std::vector<float> w = torch_uniform_fill(gen, static_cast<std::size_t>(out * in), -bound, bound);
  Matrix m(out, in);
  for (Index i = 0; i < out; ++i)
    for (Index j = 0; j < in; ++j) m(i, j) = w[static_cast<std::size_t>(i * in + j)];
  return m;
}

TorchInit torch_init(const std::string& sentence, std::uint64_t seed, int d_model, int width) {
  if (d_model < 1 || d_model > 512)
    throw Error(ErrorCode::invalid_field, "d_model must be between 1 and 512, got " + std::to_string(d_model));
  if (width < 1 || width > 512)
    throw Error(ErrorCode::invalid_field, "the projection width must be between 1 and 512, got " + std::to_string(width));
  TorchInit r;
  r.tokens = tokenize(sentence);
  if (r.tokens.empty()) throw Error(ErrorCode::empty_sequence, "the sentence has no tokens; type at least one word");
  if (static_cast<long long>(r.tokens.size()) > kMaxHeadsTokens)
    throw Error(ErrorCode::too_large, "the sentence has " + std::to_string(r.tokens.size()) + " tokens; the limit is " +
                                          std::to_string(kMaxHeadsTokens));
  r.vocab = build_vocabulary(r.tokens);
  const Index v = static_cast<Index>(r.vocab.tokens.size()), d = d_model;
  TorchCpuGenerator gen(seed);
  // 1. nn.Embedding(vocab, d): weight.normal_(0, 1), row-major.
  const std::vector<float> e = torch_normal_fill(gen, static_cast<std::size_t>(v * d));
  r.embedding_table = Matrix(v, d);
  for (Index i = 0; i < v; ++i)
    for (Index j = 0; j < d; ++j) r.embedding_table(i, j) = e[static_cast<std::size_t>(i * d + j)];
  r.x = embed(r.embedding_table, token_ids(r.vocab, r.tokens));
  // 2. W_q, W_k, W_v = nn.Linear(d, width, bias=False), in this order.
  r.torch_w_q = torch_linear_weight(gen, width, d);
  r.torch_w_k = torch_linear_weight(gen, width, d);
  r.torch_w_v = torch_linear_weight(gen, width, d);
  r.weights = HeadWeights{r.torch_w_q.transpose(), r.torch_w_k.transpose(), r.torch_w_v.transpose()};
  return r;
}

LessonReplica lesson_replica(const std::string& sentence, std::uint64_t seed, int d_model) {
  TorchInit init = torch_init(sentence, seed, d_model, d_model);
  LessonReplica r;
  r.tokens = std::move(init.tokens);
  r.vocab = std::move(init.vocab);
  r.embedding_table = std::move(init.embedding_table);
  r.x = std::move(init.x);
  r.torch_w_q = std::move(init.torch_w_q);
  r.torch_w_k = std::move(init.torch_w_k);
  r.torch_w_v = std::move(init.torch_w_v);
  r.weights = std::move(init.weights);
  // 3. The script's m(x): unmasked, scale 1/sqrt(d).
  r.attention = self_attention(r.x, r.weights);
  r.checks.push_back(check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error(r.attention.attention.weights), 1e-12));
  double not_float = 0.0;  // every drawn value is a float32 value, as in the script before .double()
  for (const Matrix* m : {&r.embedding_table, &r.torch_w_q, &r.torch_w_k, &r.torch_w_v})
    for (Index i = 0; i < m->rows(); ++i)
      for (Index j = 0; j < m->cols(); ++j)
        not_float = std::max(not_float, std::fabs((*m)(i, j) - static_cast<double>(static_cast<float>((*m)(i, j)))));
  r.checks.push_back(check_at_most("parameters are float32 values (created in float32, then .double()): max "
                                   "|x - float(x)|",
                                   not_float, 0.0));
  return r;
}

}  // namespace attn
