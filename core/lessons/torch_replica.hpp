// lessons/torch_replica.hpp — PyTorch's CPU generator, reproduced for the lesson's script.
//
// The lesson's script runs torch.manual_seed(17); nn.Embedding(6, 8); SingleHeadAttention(8) (three
// nn.Linear(8, 8, bias=False)), all created in float32 and then converted with .double(). To show
// exactly its matrix, this file replays torch 1.13's CPU sampling (aten/src/ATen):
//   generator  CPUGeneratorImpl: mt19937 (32-bit) seeded with manual_seed's value mod 2^32 —
//              the same sequence as std::mt19937(seed), whose output the C++ standard fixes.
//   uniform    core/TransformationHelper.h uniform_real<float>: x = (u32 & (2^24 − 1)) · 2^-24,
//              then x·(to − from) + from in float. The AVX2 kernel build fuses that multiply-add
//              (one rounding): reproduced with std::fmaf, which is correctly rounded everywhere.
//   normal_    native/cpu/DistributionTemplates.h normal_fill (float, >= 16 elements, contiguous):
//              fill ALL n entries with uniform floats first; then for each 16-entry chunk and
//              j in 0..7: u1 = 1 − x[j], u2 = x[j+8], r = sqrt(−2 ln u1), θ = 2π·u2,
//              x[j] = r cos θ, x[j+8] = r sin θ; if n % 16 != 0, the LAST 16 entries are refilled
//              with 16 fresh uniforms and transformed again. On x86-64 with AVX2 (torch's default
//              dispatch there) ln, sin and cos are avx_mathfun.h's log256_ps / sincos256_ps (Cephes
//              polynomials in float); they are replayed here operation by operation in scalar float.
//   Linear     nn.init.kaiming_uniform_(a=√5): gain = sqrt(2/(1 + a²)), bound = √3·gain/√fan_in
//              = 1/√fan_in (computed in double as Python does, then cast to float), weight.uniform_.
// Verified against the script's own numbers (tests/fixtures/lesson-replica-seed17.json, torch 1.13):
// bit-identical embedding and weights. Only the arithmetic of IEEE float +, −, ×, sqrt, fmaf and
// integer ops is used, so native and wasm agree to the bit.
// Not replicated: normal_ on fewer than 16 elements (torch then uses a different, double
// Box–Muller path) — refused with invalid_field.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attn/attention.hpp"
#include "lessons/check.hpp"
#include "lessons/random_heads.hpp"  // kMaxHeadsTokens
#include "attn/heads.hpp"
#include "attn/tokenizer.hpp"

namespace attn {

/// torch.Generator (CPU) as torch.manual_seed(seed) leaves it.
class TorchCpuGenerator {
 public:
  explicit TorchCpuGenerator(std::uint64_t seed) : engine_(static_cast<std::uint32_t>(seed)) {}
  std::uint32_t random() { return static_cast<std::uint32_t>(engine_()); }
  /// uniform_real<float>(random(), from, to) with the fused multiply-add of the AVX2 build.
  float uniform_float(float from, float to);

 private:
  std::mt19937 engine_;
};

/// tensor.normal_(0, 1) on a contiguous float tensor of n >= 16 elements (row-major order).
/// Errors: invalid_field (n < 16: torch's small-tensor path is not replicated).
std::vector<float> torch_normal_fill(TorchCpuGenerator& gen, std::size_t n);

/// tensor.uniform_(from, to) on n float elements (from, to given in double, cast to float as torch does).
std::vector<float> torch_uniform_fill(TorchCpuGenerator& gen, std::size_t n, double from, double to);

/// nn.Linear(in, out).weight after kaiming_uniform_(a=√5): out×in (PyTorch layout), float values in double.
Matrix torch_linear_weight(TorchCpuGenerator& gen, Index out, Index in);

struct TorchInit {
  std::vector<std::string> tokens;  ///< T whitespace tokens
  Vocabulary vocab;                 ///< sorted unique tokens (the script's vocab)
  Matrix embedding_table;           ///< vocab×d_model: nn.Embedding weight (float32 values)
  Matrix x;                         ///< T×d_model: the sentence's rows of the table
  Matrix torch_w_q, torch_w_k, torch_w_v;  ///< width×d_model, PyTorch's out×in layout
  HeadWeights weights;              ///< d_model×width, the core's in×out layout (the transposes)
};

/// torch.manual_seed(seed); nn.Embedding(vocab, d_model); nn.Linear(d_model, width, bias=False)
/// three times (W_q, W_k, W_v), all float32 then .double(). width = h·d_k for a multi-head
/// layout (heads read column blocks, attn/heads.hpp), d_model for the lesson's single head.
/// Errors: empty_sequence (no tokens), invalid_field (d_model or width outside 1..512, or
/// vocab·d_model < 16), too_large (more than kMaxHeadsTokens tokens).
TorchInit torch_init(const std::string& sentence, std::uint64_t seed, int d_model, int width);

struct LessonReplica {
  std::vector<std::string> tokens;  ///< T whitespace tokens
  Vocabulary vocab;                 ///< sorted unique tokens (the script's vocab)
  Matrix embedding_table;           ///< vocab×d_model: nn.Embedding weight (float32 values)
  Matrix x;                         ///< T×d_model: the sentence's rows of the table
  Matrix torch_w_q, torch_w_k, torch_w_v;  ///< d×d in PyTorch's out×in layout (as the fixture stores them)
  HeadWeights weights;              ///< the same in the core's in×out layout (W_q = torch_w_qᵀ, ...)
  SelfAttentionResult attention;    ///< unmasked single-head attention, scale 1/√d (the printed matrix)
  std::vector<Check> checks;
};

/// The lesson's model for any sentence: torch_init(sentence, seed, d_model, d_model), then the
/// script's m(x). Errors: those of torch_init.
LessonReplica lesson_replica(const std::string& sentence = "The cat sat on the mat", std::uint64_t seed = 17,
                             int d_model = 8);

}  // namespace attn
