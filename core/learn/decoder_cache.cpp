// K/V-cache decoding: generation's one-row-at-a-time pass. It runs per edit on one short
// sequence, so in wasm it is compiled for size (core/CMakeLists.txt); the pieces it calls keep -O3.
#include <algorithm>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "learn/decoder.hpp"
#include "learn/decoder_rows.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

}  // namespace

using namespace rows;

std::vector<double> decoder_incremental_logits(const DecoderConfig& c, const ParamLayout& layout,
                                               const std::vector<double>& params, const std::vector<int>& tokens) {
  const int T = static_cast<int>(tokens.size()), d = c.d_model, h = c.heads, dk = d / h, V = c.vocab;
  if (T < 1 || T > c.context)
    bad(ErrorCode::invalid_field, "the sequence must have 1.." + std::to_string(c.context) + " tokens, got " +
                                      std::to_string(T));
  for (int i = 0; i < T; ++i)
    if (tokens[static_cast<size_t>(i)] < 0 || tokens[static_cast<size_t>(i)] >= V)
      bad(ErrorCode::invalid_field, "tokens[" + std::to_string(i) + "] = " + std::to_string(tokens[static_cast<size_t>(i)]) +
                                        " is outside the vocabulary 0.." + std::to_string(V - 1));
  if (params.size() != layout.total())
    bad(ErrorCode::shape_mismatch, "the parameters do not fit the model's layout");
  const double* P = params.data();
  const Matrix pe = c.positions == DecoderPositions::sinusoidal ? sinusoidal_positions(T, d) : Matrix();
  const RopeTable rope = c.positions == DecoderPositions::rope ? rope_table(T, dk) : RopeTable{};
  // Per layer, the keys and values of the positions so far (T×d each, heads side by side).
  std::vector<std::vector<double>> kcache(static_cast<size_t>(c.layers)), vcache(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) {
    kcache[static_cast<size_t>(l)].assign(static_cast<size_t>(T) * d, 0.0);
    vcache[static_cast<size_t>(l)].assign(static_cast<size_t>(T) * d, 0.0);
  }
  std::vector<double> logits(static_cast<size_t>(T) * V), x(static_cast<size_t>(d)), heads(static_cast<size_t>(d)),
      w(static_cast<size_t>(T)), scratch;
  DecoderActivations one;  // one row's activations, reused step after step
  DecoderActivations::Layer L;
  for (int t = 0; t < T; ++t) {
    embed_rows(c, layout, P, &tokens[static_cast<size_t>(t)], 1, t, pe, x.data());
    for (int l = 0; l < c.layers; ++l) {
      qkv_rows(c, layout, P, l, x.data(), 1, L);
      rope_rows(c, rope, L.qkv.data(), 1, t);
      std::copy(L.qkv.begin() + d, L.qkv.begin() + 2 * d, kcache[static_cast<size_t>(l)].begin() + static_cast<long>(t) * d);
      std::copy(L.qkv.begin() + 2 * d, L.qkv.end(), vcache[static_cast<size_t>(l)].begin() + static_cast<long>(t) * d);
      AttentionShape s = head_shape(1, d, dk);  // one query over the t + 1 cached keys: nothing to mask
      s.tk = t + 1;
      s.k_stride = s.v_stride = d;
      for (int hh = 0; hh < h; ++hh)
        attention_forward(heads.data() + hh * dk, w.data(), L.qkv.data() + hh * dk,
                          kcache[static_cast<size_t>(l)].data() + hh * dk, vcache[static_cast<size_t>(l)].data() + hh * dk,
                          nullptr, s);
      attn_out_rows(c, layout, P, l, heads.data(), 1, x.data(), scratch);
      mlp_rows(c, layout, P, l, x.data(), 1, L, scratch);
    }
    head_rows(c, layout, P, x.data(), 1, one, logits.data() + static_cast<size_t>(t) * V);
  }
  return logits;
}

}  // namespace attn::learn
