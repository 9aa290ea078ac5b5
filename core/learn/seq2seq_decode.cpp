#include "learn/seq2seq_decode.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "learn/layers.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

// The weights an intervention uses at `step` (forced row, then the removal renormalised), and the
// context Σ_j w_j h_j of them in additive_forward's order.
void intervene(const AttentionIntervention& iv, int step, const Seq2SeqEncoded& enc, int C,
               std::vector<double>& attention, std::vector<double>& ctx) {
  const int S = static_cast<int>(enc.source.size());
  const bool force = step >= 0 && static_cast<size_t>(step) < iv.forced.size();
  if (iv.removed < 0 && !force) return;
  if (force) {
    const std::vector<double>& w = iv.forced[static_cast<size_t>(step)];
    if (static_cast<int>(w.size()) != S)
      bad("forced weights at step " + std::to_string(step) + ": " + std::to_string(w.size()) + " weights for " +
          std::to_string(S) + " source words");
    double sum = 0.0;
    for (double x : w) {
      if (!(x >= 0.0) || !std::isfinite(x)) bad("forced weights at step " + std::to_string(step) + " must be finite and >= 0");
      sum += x;
    }
    if (std::fabs(sum - 1.0) > 1e-9) bad("forced weights at step " + std::to_string(step) + " sum to " + std::to_string(sum) + ", not 1");
    attention = w;
  }
  if (iv.removed >= 0) {
    if (iv.removed >= S) bad("removed position " + std::to_string(iv.removed) + " is outside the source (" + std::to_string(S) + " words)");
    if (S < 2) bad("removing the only source word leaves no weight to renormalise");
    attention[static_cast<size_t>(iv.removed)] = 0.0;
    double rest = 0.0;
    for (double x : attention) rest += x;
    if (!(rest > 0.0)) bad("the other source words have no weight left to renormalise");
    for (double& x : attention) x /= rest;
  }
  for (int k = 0; k < C; ++k) ctx[static_cast<size_t>(k)] = 0.0;
  for (int j = 0; j < S; ++j) {
    const double* hj = enc.states.data() + static_cast<size_t>(j) * C;
    for (int k = 0; k < C; ++k) ctx[static_cast<size_t>(k)] += attention[static_cast<size_t>(j)] * hj[k];
  }
}

}  // namespace

namespace {
void require_source(const Seq2SeqConfig& c, const std::vector<int>& source) {
  if (source.empty()) throw Error(ErrorCode::empty_sequence, "the source has no words");
  if (source.size() > 512) bad("the source is limited to 512 tokens");
  for (size_t i = 0; i < source.size(); ++i)
    if (source[i] < 0 || source[i] >= c.src_vocab)
      bad("source[" + std::to_string(i) + "] = " + std::to_string(source[i]) + " is outside the source vocabulary (0.." +
          std::to_string(c.src_vocab - 1) + ")");
}
}  // namespace

Seq2SeqEncoded seq2seq_encode_source(const Seq2SeqModel& m, const std::vector<int>& source) {
  const Seq2SeqConfig& c = m.config;
  require_source(c, source);
  Seq2SeqEncoded e;
  e.source = source;
  seq2seq_encode(c, m.layout, m.params.data(), source.data(), static_cast<int>(source.size()), e);
  return e;
}

void seq2seq_decoder_step(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, std::vector<double>& s, int previous,
                          std::vector<double>& probs, std::vector<double>& attention, const AttentionIntervention* iv,
                          int step) {
  const Seq2SeqConfig& c = m.config;
  const int S = static_cast<int>(enc.source.size()), E = c.embed, H = c.hidden, A = c.attn_dim, V = c.tgt_vocab;
  const int C = c.context_dim(), I = E + C;
  if (previous < 0 || previous >= V) bad("previous token " + std::to_string(previous) + " is outside the target vocabulary");
  if (iv && !c.attention) bad("the fixed-summary model has no attention to intervene on");
  const double* P = m.params.data();
  std::vector<double> ctx(static_cast<size_t>(C), 0.0);
  if (c.attention) {
    attention.assign(static_cast<size_t>(S), 0.0);
    std::vector<double> tanh_out(static_cast<size_t>(S) * A, 0.0);
    seq2seq_attend(c, m.layout, P, enc.states.data(), enc.whh.data(), S, s.data(), ctx.data(), attention.data(),
                   tanh_out.data());
    if (iv) intervene(*iv, step, enc, C, attention, ctx);
  } else {
    attention.clear();
    ctx = enc.summary;
  }
  std::vector<double> in(static_cast<size_t>(I)), gates(static_cast<size_t>(3 * H)), hn(static_cast<size_t>(H)),
      s_next(static_cast<size_t>(H));
  seq2seq_cell(c, m.layout, P, 1, &previous, ctx.data(), s.data(), in.data(), gates.data(), hn.data(), s_next.data());
  s = s_next;
  std::vector<double> out_in(static_cast<size_t>(H + C)), logits(static_cast<size_t>(V));
  for (int j = 0; j < H; ++j) out_in[static_cast<size_t>(j)] = s[static_cast<size_t>(j)];
  for (int j = 0; j < C; ++j) out_in[static_cast<size_t>(H + j)] = ctx[static_cast<size_t>(j)];
  seq2seq_output(c, m.layout, P, 1, out_in.data(), logits.data());
  probs.resize(static_cast<size_t>(V));
  const int ignore = kIgnoreIndex;
  cross_entropy_forward(probs.data(), logits.data(), &ignore, 1, V, nullptr);
}

void require_decode_steps(int max_steps) {
  if (max_steps < 1 || max_steps > 512) bad("max_steps must be between 1 and 512, got " + std::to_string(max_steps));
}

GreedyDecode seq2seq_greedy_decode(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, int bos, int eos, int max_steps,
                                   const AttentionIntervention* iv) {
  require_decode_steps(max_steps);
  GreedyDecode g;
  std::vector<double> s = enc.s0;
  int prev = bos;
  for (int t = 0; t < max_steps; ++t) {
    DecodeStep st;
    seq2seq_decoder_step(m, enc, s, prev, st.probs, st.attention, iv, t);
    // The first of equal maxima (the lowest id), as the header says.
    st.token = static_cast<int>(std::max_element(st.probs.begin(), st.probs.end()) - st.probs.begin());
    st.probability = st.probs[static_cast<size_t>(st.token)];
    prev = st.token;
    g.steps.push_back(std::move(st));
    if (prev == eos) {
      g.ended = true;
      break;
    }
    g.tokens.push_back(prev);
  }
  return g;
}

// Targets: any id of the vocabulary (a decoded output may hold padding or a begin token; teacher
// forcing feeds it as given).
void require_target_ids(const std::vector<int>& ids, int vocab) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      bad("target[" + std::to_string(i) + "] = " + std::to_string(ids[i]) + " is outside the target vocabulary (0.." +
          std::to_string(vocab - 1) + ")");
}

TeacherForced seq2seq_teacher_forced(const Seq2SeqModel& m, const std::vector<int>& source,
                                     const std::vector<int>& target, int bos, int eos) {
  require_source(m.config, source);
  require_target_ids(target, m.config.tgt_vocab);
  // One pair: no padding, S = |source|, U = |target| + 1.
  Seq2SeqBatch b;
  b.batch = 1;
  b.src_len = static_cast<int>(source.size());
  b.tgt_len = static_cast<int>(target.size()) + 1;
  b.source = source;
  b.source_lengths = {b.src_len};
  b.target_in.push_back(bos);
  b.target_in.insert(b.target_in.end(), target.begin(), target.end());
  b.target_out = target;
  b.target_out.push_back(eos);
  Seq2SeqActivations acts;
  TeacherForced tf;
  tf.loss = seq2seq_forward(m.config, m.layout, m.params.data(), b, acts);
  tf.rows = b.tgt_len;
  tf.src_len = b.src_len;
  tf.probs = acts.probs;
  const int V = m.config.tgt_vocab;
  for (int t = 0; t < tf.rows; ++t) {
    const double* p = acts.probs.data() + static_cast<size_t>(t) * V;
    int best = 0;
    for (int k = 1; k < V; ++k)
      if (p[k] > p[best]) best = k;
    tf.argmax.push_back(best);
    if (m.config.attention) tf.attention.insert(tf.attention.end(), acts.weights[t].begin(), acts.weights[t].end());
  }
  return tf;
}

TeacherForced seq2seq_teacher_forced_steps(const Seq2SeqModel& m, const Seq2SeqEncoded& enc,
                                           const std::vector<int>& target, int bos, int eos,
                                           const AttentionIntervention* iv) {
  require_target_ids(target, m.config.tgt_vocab);
  TeacherForced tf;
  tf.rows = static_cast<int>(target.size()) + 1;
  tf.src_len = static_cast<int>(enc.source.size());
  std::vector<double> s = enc.s0, probs, att;
  int prev = bos;
  double loss = 0.0;
  for (int t = 0; t < tf.rows; ++t) {
    seq2seq_decoder_step(m, enc, s, prev, probs, att, iv, t);
    const int want = t < static_cast<int>(target.size()) ? target[static_cast<size_t>(t)] : eos;
    loss -= det::log(probs[static_cast<size_t>(want)]);
    tf.probs.insert(tf.probs.end(), probs.begin(), probs.end());
    tf.attention.insert(tf.attention.end(), att.begin(), att.end());
    tf.argmax.push_back(static_cast<int>(std::max_element(probs.begin(), probs.end()) - probs.begin()));
    prev = want;
  }
  tf.loss = loss / tf.rows;
  return tf;
}

double gnmt_length_penalty(int length, double alpha) { return det::pow((5.0 + length) / 6.0, alpha); }

void require_beam_arguments(int width, double alpha, int max_steps) {
  if (width < 1 || width > 16) bad("width must be between 1 and 16, got " + std::to_string(width));
  if (!(alpha >= 0.0) || !(alpha <= 2.0)) bad("alpha must be between 0 and 2");
  require_decode_steps(max_steps);
}

namespace {
struct LiveBeam {
  BeamHypothesis h;
  std::vector<double> s;
};
struct BeamCandidate {
  double log_prob;
  int beam, token;
};

// One step of the search: every live prefix's next distribution and state, its candidates ranked.
std::vector<BeamCandidate> beam_candidates(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, int bos,
                                           const std::vector<LiveBeam>& live, std::vector<std::vector<double>>& dists,
                                           std::vector<std::vector<double>>& states) {
  std::vector<BeamCandidate> cands;
  dists.assign(live.size(), {});
  states.assign(live.size(), {});
  for (size_t b = 0; b < live.size(); ++b) {
    std::vector<double> att;
    states[b] = live[b].s;
    const int prev = live[b].h.tokens.empty() ? bos : live[b].h.tokens.back();
    seq2seq_decoder_step(m, enc, states[b], prev, dists[b], att);
    for (size_t k = 0; k < dists[b].size(); ++k) {
      // every token, as greedy decoding's argmax ranges over them all
      cands.push_back({live[b].h.log_prob + det::log(dists[b][k]), static_cast<int>(b), static_cast<int>(k)});
    }
  }
  std::stable_sort(cands.begin(), cands.end(), [](const BeamCandidate& a, const BeamCandidate& b) {
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    if (a.beam != b.beam) return a.beam < b.beam;
    return a.token < b.token;
  });
  return cands;
}
}  // namespace

BeamResult seq2seq_beam_search(const Seq2SeqModel& m, const Seq2SeqEncoded& enc, int bos, int eos, int width,
                               double alpha, int max_steps) {
  require_beam_arguments(width, alpha, max_steps);
  BeamResult r;
  r.width = width;
  r.alpha = alpha;
  std::vector<LiveBeam> live(1);
  live[0].s = enc.s0;
  std::vector<std::vector<double>> dists, states;
  for (int t = 0; t < max_steps && !live.empty() && static_cast<int>(r.finished.size()) < width; ++t) {
    const std::vector<BeamCandidate> cands = beam_candidates(m, enc, bos, live, dists, states);
    std::vector<LiveBeam> next;
    const int keep = std::min(width, static_cast<int>(cands.size()));
    for (int i = 0; i < keep; ++i) {
      const BeamCandidate& c = cands[static_cast<size_t>(i)];
      LiveBeam n;
      n.h = live[static_cast<size_t>(c.beam)].h;
      n.h.log_prob = c.log_prob;
      n.h.distributions.push_back(dists[static_cast<size_t>(c.beam)]);
      n.s = states[static_cast<size_t>(c.beam)];
      if (c.token == eos) {
        n.h.ended = true;
        n.h.score = n.h.log_prob / gnmt_length_penalty(static_cast<int>(n.h.tokens.size()) + 1, alpha);
        r.finished.push_back(std::move(n.h));
      } else {
        n.h.tokens.push_back(c.token);
        next.push_back(std::move(n));
      }
    }
    live = std::move(next);
    std::vector<std::pair<std::vector<int>, double>> kept;
    for (const LiveBeam& l : live) kept.emplace_back(l.h.tokens, l.h.log_prob);
    r.beams.push_back(std::move(kept));
  }
  if (r.finished.empty())
    for (LiveBeam& l : live) {
      l.h.score = l.h.log_prob / gnmt_length_penalty(static_cast<int>(l.h.tokens.size()), alpha);
      r.finished.push_back(std::move(l.h));
    }
  r.best = 0;
  for (size_t i = 1; i < r.finished.size(); ++i)
    if (r.finished[i].score > r.finished[static_cast<size_t>(r.best)].score) r.best = static_cast<int>(i);
  return r;
}

}  // namespace attn::learn
