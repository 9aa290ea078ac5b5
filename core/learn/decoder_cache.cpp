// K/V-cache decoding: generation's one-row-at-a-time pass. It runs per edit on one short
// sequence, so in wasm it is compiled for size (core/CMakeLists.txt); the pieces it calls keep -O3.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"
#include "attn/positions.hpp"
#include "learn/decoder.hpp"
#include "learn/decoder_rows.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

}  // namespace

using namespace rows;

template <class S>
DecoderCacheT<S>::DecoderCacheT(const DecoderConfig& c, const ParamLayout& layout, const std::vector<S>& params)
    : c_(c), layout_(layout), params_(params) {
  if (params.size() != layout.total())
    bad(ErrorCode::shape_mismatch, "the parameters do not fit the model's layout");
  const int d = c.d_model, dk = d / c.heads;
  if (c.positions == DecoderPositions::sinusoidal) pe_ = sinusoidal_positions(c.context, d);
  if (c.positions == DecoderPositions::rope) rope_ = rope_table(c.context, dk);
  kcache_.assign(static_cast<size_t>(c.layers), {});
  vcache_.assign(static_cast<size_t>(c.layers), {});
}

template <class S>
std::vector<S> DecoderCacheT<S>::step(int token) {
  const int t = length_, d = c_.d_model, h = c_.heads, dk = d / h, V = c_.vocab;
  if (t >= c_.context)
    bad(ErrorCode::invalid_field, "the sequence would pass the model's context of " + std::to_string(c_.context) + " tokens");
  if (token < 0 || token >= V)
    bad(ErrorCode::invalid_field, "token " + std::to_string(token) + " at position " + std::to_string(t) +
                                      " is outside the vocabulary 0.." + std::to_string(V - 1));
  const S* P = params_.data();
  std::vector<S> logits(static_cast<size_t>(V)), x(static_cast<size_t>(d)), heads(static_cast<size_t>(d)),
      w(static_cast<size_t>(t + 1)), scratch;
  DecoderActivationsT<S> one;  // the head's saved statistics, unused
  typename DecoderActivationsT<S>::Layer L;
  embed_rows(c_, layout_, P, &token, 1, t, pe_, x.data());
  for (int l = 0; l < c_.layers; ++l) {
    std::vector<S>& kc = kcache_[static_cast<size_t>(l)];
    std::vector<S>& vc = vcache_[static_cast<size_t>(l)];
    qkv_rows(c_, layout_, P, l, x.data(), 1, L);
    rope_rows(c_, rope_, L.qkv.data(), 1, t);
    kc.insert(kc.end(), L.qkv.begin() + d, L.qkv.begin() + 2 * d);
    vc.insert(vc.end(), L.qkv.begin() + 2 * d, L.qkv.end());
    AttentionShape s = head_shape(c_, 1, l);  // one query over the t + 1 cached keys: nothing to mask
    s.tk = t + 1;
    s.k_stride = s.v_stride = d;
    for (int hh = 0; hh < h; ++hh)
      attention_forward(heads.data() + hh * dk, w.data(), L.qkv.data() + hh * dk, kc.data() + hh * dk, vc.data() + hh * dk,
                        nullptr, s);
    attn_out_rows(c_, layout_, P, l, heads.data(), 1, x.data(), scratch);
    mlp_rows(c_, layout_, P, l, x.data(), 1, L, scratch);
  }
  head_rows(c_, layout_, P, x.data(), 1, one, logits.data());
  ++length_;
  return logits;
}
template class DecoderCacheT<double>;
template class DecoderCacheT<float>;

template <class S>
std::vector<S> decoder_incremental_logits(const DecoderConfig& c, const ParamLayout& layout,
                                          const std::vector<S>& params, const std::vector<int>& tokens) {
  const int T = static_cast<int>(tokens.size()), V = c.vocab;
  if (T < 1 || T > c.context)
    bad(ErrorCode::invalid_field, "the sequence must have 1.." + std::to_string(c.context) + " tokens, got " +
                                      std::to_string(T));
  for (int i = 0; i < T; ++i)
    if (tokens[static_cast<size_t>(i)] < 0 || tokens[static_cast<size_t>(i)] >= V)
      bad(ErrorCode::invalid_field, "tokens[" + std::to_string(i) + "] = " + std::to_string(tokens[static_cast<size_t>(i)]) +
                                        " is outside the vocabulary 0.." + std::to_string(V - 1));
  DecoderCacheT<S> cache(c, layout, params);
  std::vector<S> logits;
  logits.reserve(static_cast<size_t>(T) * V);
  for (int t = 0; t < T; ++t) {
    const std::vector<S> row = cache.step(tokens[static_cast<size_t>(t)]);
    logits.insert(logits.end(), row.begin(), row.end());
  }
  return logits;
}
template std::vector<double> decoder_incremental_logits<double>(const DecoderConfig&, const ParamLayout&,
                                                                const std::vector<double>&, const std::vector<int>&);
template std::vector<float> decoder_incremental_logits<float>(const DecoderConfig&, const ParamLayout&,
                                                              const std::vector<float>&, const std::vector<int>&);

template <class S>
int next_token(const std::vector<S>& logits, double temperature, Rng* rng) {
  const int V = static_cast<int>(logits.size());
  if (temperature <= 0.0) {  // greedy: the first maximum, as torch.argmax
    int best = 0;
    for (int j = 1; j < V; ++j)
      if (logits[static_cast<size_t>(j)] > logits[static_cast<size_t>(best)]) best = j;
    return best;
  }
  // softmax(logits / τ) by its largest term, then the inverse CDF of one uniform draw.
  double mx = static_cast<double>(logits[0]) / temperature;
  for (int j = 1; j < V; ++j) mx = std::max(mx, static_cast<double>(logits[static_cast<size_t>(j)]) / temperature);
  std::vector<double> p(static_cast<size_t>(V));
  double total = 0.0;
  for (int j = 0; j < V; ++j)
    total += (p[static_cast<size_t>(j)] = det::exp(static_cast<double>(logits[static_cast<size_t>(j)]) / temperature - mx));
  const double u = rng->uniform01() * total;
  double acc = 0.0;
  for (int j = 0; j < V; ++j) {
    acc += p[static_cast<size_t>(j)];
    if (u < acc) return j;
  }
  int last = V - 1;  // rounding left u at the total: the last token with any mass
  while (last > 0 && p[static_cast<size_t>(last)] == 0.0) --last;
  return last;
}

template <class S>
std::vector<int> decoder_generate(const DecoderConfig& c, const ParamLayout& layout, const std::vector<S>& params,
                                  const std::vector<int>& prompt, int steps, double temperature, std::uint64_t seed,
                                  int stop_token) {
  if (prompt.empty()) bad(ErrorCode::empty_sequence, "tokens: the prompt needs at least one token");
  if (steps < 0) bad(ErrorCode::invalid_field, "steps must be >= 0, got " + std::to_string(steps));
  if (static_cast<long>(prompt.size()) + steps > c.context)
    bad(ErrorCode::invalid_field, "the prompt's " + std::to_string(prompt.size()) + " tokens plus " + std::to_string(steps) +
                                      " steps pass the model's context of " + std::to_string(c.context) + " positions");
  if (!(temperature >= 0.0) || !std::isfinite(temperature))
    bad(ErrorCode::invalid_field, "temperature must be a finite number >= 0 (0 is greedy)");
  for (size_t i = 0; i < prompt.size(); ++i)
    if (prompt[i] < 0 || prompt[i] >= c.vocab)
      bad(ErrorCode::invalid_field, "tokens[" + std::to_string(i) + "] = " + std::to_string(prompt[i]) +
                                        " is outside the vocabulary 0.." + std::to_string(c.vocab - 1));
  DecoderCacheT<S> cache(c, layout, params);
  Rng rng(seed);
  std::vector<S> logits;
  for (int tok : prompt) logits = cache.step(tok);
  std::vector<int> out;
  for (int s = 0; s < steps; ++s) {
    const int next = next_token(logits, temperature, &rng);
    out.push_back(next);
    if (next == stop_token) break;
    if (s + 1 < steps) logits = cache.step(next);
  }
  return out;
}

template int next_token<double>(const std::vector<double>&, double, Rng*);
template int next_token<float>(const std::vector<float>&, double, Rng*);
template std::vector<int> decoder_generate<double>(const DecoderConfig&, const ParamLayout&, const std::vector<double>&,
                                                   const std::vector<int>&, int, double, std::uint64_t, int);
template std::vector<int> decoder_generate<float>(const DecoderConfig&, const ParamLayout&, const std::vector<float>&,
                                                  const std::vector<int>&, int, double, std::uint64_t, int);

}  // namespace attn::learn
