// The decoder analyses (decoder_analysis.hpp): one template over the element type, instantiated for
// double (the lab's models) and float (a GPT-2-family model held in float32) at the end.
#include "learn/decoder_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

void require_index(const char* what, int i, int n) {
  if (i < 0 || i >= n)
    bad(std::string(what) + " " + std::to_string(i) + " is outside 0.." + std::to_string(n - 1));
}

// Max |a − b| over rows [r0, r1) of two row-major logit tables of width V.
template <class S>
double rows_max_diff(const std::vector<S>& a, const std::vector<S>& b, int r0, int r1, int V) {
  double m = 0.0;
  for (size_t i = static_cast<size_t>(r0) * V; i < static_cast<size_t>(r1) * V; ++i)
    m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

// One sequence as a batch of one, teacher-forced; only position 0 counts (a forward needs a target).
DecoderBatch one_sequence(const std::vector<int>& tokens) {
  DecoderBatch one;
  one.batch = 1;
  one.t = static_cast<int>(tokens.size());
  one.tokens = tokens;
  one.targets.assign(tokens.size(), kIgnoreIndex);
  one.targets[0] = tokens[1 % tokens.size()];
  return one;
}

}  // namespace

template <class S>
TargetScores decoder_target_scores(const DecoderActivationsT<S>& a, const std::vector<int>& targets, int v) {
  double total = 0.0;
  int n = 0, right = 0;
  for (size_t r = 0; r < targets.size(); ++r) {
    if (targets[r] == kIgnoreIndex) continue;
    const S* p = a.probs.data() + r * v;
    int best = 0;
    for (int j = 1; j < v; ++j)
      if (p[j] > p[best]) best = j;
    right += best == targets[r];
    // −log softmax from the logits (stable: the max subtracted)
    const S* z = a.logits.data() + r * v;
    double mx = z[0];
    for (int j = 1; j < v; ++j) mx = std::max(mx, static_cast<double>(z[j]));
    double se = 0.0;
    for (int j = 0; j < v; ++j) se += det::exp(z[j] - mx);
    total += det::log(se) - (z[targets[r]] - mx);
    ++n;
  }
  TargetScores s;
  s.loss = n ? total / n : 0.0;
  s.accuracy = n ? static_cast<double>(right) / n : 0.0;
  s.counted = n;
  return s;
}

template <class S>
std::vector<std::vector<S>> decoder_head_maps(const DecoderConfig& cfg, const DecoderActivationsT<S>& a, int sequence) {
  require_index("sequence", sequence, a.batch);
  const size_t T = static_cast<size_t>(a.t), h = static_cast<size_t>(cfg.heads);
  std::vector<std::vector<S>> maps;
  for (int l = 0; l < cfg.layers; ++l)
    for (size_t hh = 0; hh < h; ++hh) {
      const S* w = a.layers[static_cast<size_t>(l)].weights.data() + (static_cast<size_t>(sequence) * h + hh) * T * T;
      maps.emplace_back(w, w + T * T);
    }
  return maps;
}

template <class S>
std::vector<double> decoder_head_score_means(const DecoderConfig& cfg, const DecoderActivationsT<S>& a,
                                             const HeadMapScore<S>& score) {
  const int T = a.t, h = cfg.heads;
  std::vector<double> out(static_cast<size_t>(cfg.layers) * h, 0.0);
  for (int l = 0; l < cfg.layers; ++l)
    for (int hh = 0; hh < h; ++hh) {
      double& acc = out[static_cast<size_t>(l) * h + hh];
      for (int b = 0; b < a.batch; ++b)
        acc += score(a.layers[static_cast<size_t>(l)].weights.data() + (static_cast<size_t>(b) * h + hh) * T * T, T, b);
      acc /= a.batch;
    }
  return out;
}

template <class S>
double previous_token_score(const S* w, int t) {
  double s = 0.0;
  for (int i = 1; i < t; ++i) s += w[static_cast<long>(i) * t + i - 1];
  if (t > 1) s /= (t - 1);
  return s;
}

template <class S>
double diagonal_score(const S* w, int t) {
  double s = 0.0;
  for (int i = 0; i < t; ++i) s += w[static_cast<long>(i) * t + i];
  return s / t;
}

template <class S>
double first_token_score(const S* w, int t) {
  double s = 0.0;
  for (int i = 0; i < t; ++i) s += w[static_cast<long>(i) * t];
  return s / t;
}

template <class S>
double induction_score(const S* w, int t, int repeat_start, int period) {
  if (period < 1 || repeat_start < period || repeat_start + period > t)
    bad("the repeat (from " + std::to_string(repeat_start) + ", period " + std::to_string(period) +
        ") does not fit T = " + std::to_string(t));
  double s = 0.0;
  for (int i = repeat_start; i < repeat_start + period; ++i) s += w[static_cast<long>(i) * t + (i - period + 1)];
  return s / period;
}

template <class S>
std::vector<std::vector<S>> decoder_head_output_means(const DecoderConfig& cfg, const DecoderActivationsT<S>& a) {
  const int h = cfg.heads, d = cfg.d_model, dk = d / h, N = a.batch * a.t;
  std::vector<std::vector<S>> means(static_cast<size_t>(cfg.layers) * h, std::vector<S>(static_cast<size_t>(dk), S(0)));
  for (int l = 0; l < cfg.layers; ++l)
    for (int hh = 0; hh < h; ++hh) {
      std::vector<S>& m = means[static_cast<size_t>(l) * h + hh];
      const std::vector<S>& out = a.layers[static_cast<size_t>(l)].heads_out;
      for (int r = 0; r < N; ++r)
        for (int c = 0; c < dk; ++c) m[static_cast<size_t>(c)] += out[static_cast<size_t>(r) * d + hh * dk + c];
      for (S& x : m) x /= N;
    }
  return means;
}

template <class S>
HeadInterventionT<S> decoder_one_head_intervention(const DecoderConfig& cfg, int head,
                                                   typename HeadInterventionT<S>::Mode mode,
                                                   const std::vector<std::vector<S>>& means,
                                                   const DecoderActivationsT<S>* source) {
  const int lh = cfg.layers * cfg.heads;
  require_index("head", head, lh);
  if (mode == HeadInterventionT<S>::mean_of_batch && means.size() != static_cast<size_t>(lh))
    bad("mean ablation needs one mean per head (" + std::to_string(lh) + ")");
  if (mode == HeadInterventionT<S>::patch && !source) bad("patching needs the run to patch from");
  HeadInterventionT<S> iv;
  iv.mode.assign(static_cast<size_t>(lh), HeadInterventionT<S>::keep);
  iv.mode[static_cast<size_t>(head)] = mode;
  iv.means = means;
  iv.source = source;
  return iv;
}

double patching_recovered(double clean_loss, double corrupt_loss, double patched_loss) {
  const double gap = corrupt_loss - clean_loss;
  return gap != 0.0 ? (corrupt_loss - patched_loss) / gap : 0.0;
}

template <class S>
HeadContribution decoder_head_contribution(const DecoderConfig& cfg, const ParamLayout& layout,
                                           const std::vector<S>& params, const DecoderActivationsT<S>& a, int layer,
                                           int head, int sequence, int query) {
  require_index("layer", layer, cfg.layers);
  require_index("head", head, cfg.heads);
  require_index("sequence", sequence, a.batch);
  require_index("query", query, a.t);
  if (params.size() != layout.total()) throw Error(ErrorCode::shape_mismatch, "the parameters do not fit the model's layout");
  const int d = cfg.d_model, dk = d / cfg.heads, T = a.t;
  const typename DecoderActivationsT<S>::Layer& L = a.layers[static_cast<size_t>(layer)];
  const S* wo = tensor_in(layout, params.data(), decoder_param_name(layer, "attn.out_proj.weight"));  // d×d, out × in
  const S* row = L.weights.data() + ((static_cast<size_t>(sequence) * cfg.heads + head) * T + query) * T;
  HeadContribution out;
  out.weights.assign(static_cast<size_t>(T), 0.0);
  out.norms.assign(static_cast<size_t>(T), 0.0);
  for (int j = 0; j <= query; ++j) {
    const S* v = L.qkv.data() + (static_cast<size_t>(sequence) * T + j) * 3 * d + 2 * d + head * dk;
    double sq = 0.0;
    for (int o = 0; o < d; ++o) {  // (W_O,h · v_j,h)[o], then scaled by a_ij
      double y = 0.0;
      for (int c = 0; c < dk; ++c) y += static_cast<double>(wo[static_cast<size_t>(o) * d + head * dk + c]) * v[c];
      y *= row[j];
      sq += y * y;
    }
    out.weights[static_cast<size_t>(j)] = row[j];
    out.norms[static_cast<size_t>(j)] = std::sqrt(sq);
  }
  return out;
}

template <class S>
CacheCheck decoder_cache_check(const DecoderConfig& cfg, const ParamLayout& layout, const std::vector<S>& params,
                               const std::vector<int>& tokens, std::vector<S>* full_logits) {
  if (tokens.empty()) bad("the sequence needs at least one token");
  DecoderActivationsT<S> a;
  decoder_forward(cfg, layout, params.data(), one_sequence(tokens), a);
  CacheCheck c;
  c.positions = static_cast<int>(a.logits.size() / static_cast<size_t>(cfg.vocab));
  const std::vector<S> inc = decoder_incremental_logits(cfg, layout, params, tokens);
  for (size_t i = 0; i < inc.size(); ++i) c.max_diff = std::max(c.max_diff, static_cast<double>(std::fabs(inc[i] - a.logits[i])));
  if (full_logits) *full_logits = std::move(a.logits);
  return c;
}

template <class S>
std::vector<int> decoder_greedy(const DecoderConfig& cfg, const ParamLayout& layout, const std::vector<S>& params,
                                std::vector<int> prompt, int n) {
  if (prompt.empty()) bad("the sequence must have 1.." + std::to_string(cfg.context) + " tokens, got 0");
  const int room = std::min(n, cfg.context - static_cast<int>(prompt.size()));
  if (room <= 0) return prompt;
  // The cached logits of each step are those decoder_incremental_logits gives for the same prefix.
  const std::vector<int> out = decoder_generate(cfg, layout, params, prompt, room, 0.0, 0);
  prompt.insert(prompt.end(), out.begin(), out.end());
  return prompt;
}

template <class S>
GenerationDependency decoder_generation_dependency(const DecoderConfig& cfg, const ParamLayout& layout,
                                                   const std::vector<S>& params, int first, int T) {
  const int V = cfg.vocab;
  GenerationDependency d;
  d.generation = decoder_greedy(cfg, layout, params, {first}, T - 1);
  const std::vector<S> free_logits = decoder_incremental_logits(cfg, layout, params, d.generation);
  d.forced_step_min_diff = INFINITY;
  for (int j = 1; j < T; ++j) {
    std::vector<int> forced(d.generation.begin(), d.generation.begin() + j + 1);
    forced[static_cast<size_t>(j)] = (forced[static_cast<size_t>(j)] + 1) % V;  // not what step j − 1 chose
    const std::vector<S> lg = decoder_incremental_logits(cfg, layout, params, forced);
    d.forced_earlier_max_diff = std::max(d.forced_earlier_max_diff, rows_max_diff(lg, free_logits, 0, j, V));
    const double own = rows_max_diff(lg, free_logits, j, j + 1, V);
    d.forced_step_min_diff = std::min(d.forced_step_min_diff, own);
    d.dependent_steps += own > 0.0;
  }
  if (T < 2) d.forced_step_min_diff = 0.0;
  d.sequential_steps = 1 + d.dependent_steps;
  // Once, at the middle: the forced token's effect carried through the rest of the generation.
  d.forced_at = T / 2;
  if (d.forced_at >= 1 && d.forced_at < T) {
    std::vector<int> prefix(d.generation.begin(), d.generation.begin() + d.forced_at + 1);
    prefix.back() = (prefix.back() + 1) % V;
    const std::vector<int> carried = decoder_greedy(cfg, layout, params, prefix, T - static_cast<int>(prefix.size()));
    const std::vector<S> lg = decoder_incremental_logits(cfg, layout, params, carried);
    for (int j = d.forced_at + 1; j < T; ++j) {
      ++d.later_steps;
      d.later_moved += rows_max_diff(lg, free_logits, j, j + 1, V) > 0.0;
    }
  }
  return d;
}

template <class S>
FutureEditCheck decoder_future_edit_check(const DecoderConfig& cfg, const ParamLayout& layout,
                                          const std::vector<S>& params, const std::vector<int>& tokens,
                                          const std::vector<S>& reference) {
  const int T = static_cast<int>(tokens.size()), V = cfg.vocab;
  FutureEditCheck f;
  if (T == 0) return f;
  const DecoderBatch one = one_sequence(tokens);
  for (int c = 0; c + 1 < T; ++c) {
    DecoderBatch edited = one;
    for (int j = c + 1; j < T; ++j) edited.tokens[static_cast<size_t>(j)] = (edited.tokens[static_cast<size_t>(j)] + 1) % V;
    DecoderActivationsT<S> e;
    decoder_forward(cfg, layout, params.data(), edited, e);
    f.future_max_diff = std::max(f.future_max_diff, rows_max_diff(e.logits, reference, 0, c + 1, V));
    f.target_max_diff = std::max(f.target_max_diff, rows_max_diff(e.logits, reference, c + 1, c + 2, V));
    ++f.edits;
  }
  return f;
}

#define ATTN_DECODER_ANALYSIS(S)                                                                                        \
  template TargetScores decoder_target_scores<S>(const DecoderActivationsT<S>&, const std::vector<int>&, int);        \
  template std::vector<std::vector<S>> decoder_head_maps<S>(const DecoderConfig&, const DecoderActivationsT<S>&, int); \
  template std::vector<double> decoder_head_score_means<S>(const DecoderConfig&, const DecoderActivationsT<S>&,       \
                                                           const HeadMapScore<S>&);                                    \
  template double previous_token_score<S>(const S*, int);                                                               \
  template double diagonal_score<S>(const S*, int);                                                                     \
  template double first_token_score<S>(const S*, int);                                                                  \
  template double induction_score<S>(const S*, int, int, int);                                                          \
  template std::vector<std::vector<S>> decoder_head_output_means<S>(const DecoderConfig&, const DecoderActivationsT<S>&); \
  template HeadInterventionT<S> decoder_one_head_intervention<S>(const DecoderConfig&, int,                            \
                                                                 typename HeadInterventionT<S>::Mode,                  \
                                                                 const std::vector<std::vector<S>>&,                   \
                                                                 const DecoderActivationsT<S>*);                       \
  template HeadContribution decoder_head_contribution<S>(const DecoderConfig&, const ParamLayout&, const std::vector<S>&, \
                                                         const DecoderActivationsT<S>&, int, int, int, int);            \
  template CacheCheck decoder_cache_check<S>(const DecoderConfig&, const ParamLayout&, const std::vector<S>&,          \
                                             const std::vector<int>&, std::vector<S>*);                                \
  template std::vector<int> decoder_greedy<S>(const DecoderConfig&, const ParamLayout&, const std::vector<S>&,         \
                                              std::vector<int>, int);                                                  \
  template GenerationDependency decoder_generation_dependency<S>(const DecoderConfig&, const ParamLayout&,            \
                                                                 const std::vector<S>&, int, int);                     \
  template FutureEditCheck decoder_future_edit_check<S>(const DecoderConfig&, const ParamLayout&, const std::vector<S>&, \
                                                        const std::vector<int>&, const std::vector<S>&);

ATTN_DECODER_ANALYSIS(double)
ATTN_DECODER_ANALYSIS(float)
#undef ATTN_DECODER_ANALYSIS

}  // namespace attn::learn
