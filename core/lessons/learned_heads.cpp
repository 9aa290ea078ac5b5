#include "lessons/learned_heads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "attn/positions.hpp"
#include "learn/layers.hpp"
#include "learn/params.hpp"
#include "learn/json_obj.hpp"

namespace attn::lessons {
namespace {

using learn::kIgnoreIndex;

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

int draw(Rng& rng, int lo, int hi) { return lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1))); }

/// Cross-entropy and argmax accuracy of the saved probabilities against a target list.
void score_targets(const learn::DecoderActivations& a, const std::vector<int>& targets, int v, double* loss,
                   double* acc, int* counted) {
  double total = 0.0;
  int n = 0, right = 0;
  for (size_t r = 0; r < targets.size(); ++r) {
    if (targets[r] == kIgnoreIndex) continue;
    const double* p = a.probs.data() + r * v;
    int best = 0;
    for (int j = 1; j < v; ++j)
      if (p[j] > p[best]) best = j;
    right += best == targets[r];
    // −log softmax from the logits (stable: the max subtracted)
    const double* z = a.logits.data() + r * v;
    double mx = z[0];
    for (int j = 1; j < v; ++j) mx = std::max(mx, z[j]);
    double se = 0.0;
    for (int j = 0; j < v; ++j) se += det::exp(z[j] - mx);
    total += det::log(se) - (z[targets[r]] - mx);
    ++n;
  }
  *loss = n ? total / n : 0.0;
  *acc = n ? static_cast<double>(right) / n : 0.0;
  *counted = n;
}

// The decoding comparison's parts (defined with compare_decoding below).
namespace decode_parts {
void teacher(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
             const InductionBatch& heldout, DecodeComparison& d, std::vector<double>& teacher_logits);
void dependency(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
                const InductionBatch& heldout, DecodeComparison& d);
void batch(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
           const InductionBatch& heldout, int b0, int b1, DecodeComparison& d);
void edits(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
           const std::vector<double>& teacher_logits, DecodeComparison& d);
}  // namespace decode_parts

}  // namespace

void validate_task(const InductionTask& t) {
  if (t.vocab < 2 || t.vocab > 4096) bad("vocab must be between 2 and 4096, got " + std::to_string(t.vocab));
  if (t.run_min < 1 || t.run_max < t.run_min) bad("run lengths need 1 <= run_min <= run_max");
  if (t.prefix_min < 0 || t.prefix_max < t.prefix_min) bad("prefix lengths need 0 <= prefix_min <= prefix_max");
  if (t.context > 1024 || t.prefix_max + 2 * t.run_max > t.context)
    bad("the longest layout (prefix_max + 2 run_max = " + std::to_string(t.prefix_max + 2 * t.run_max) +
        ") must fit the context (" + std::to_string(t.context) + ", at most 1024)");
}

InductionBatch make_induction_batch(const InductionTask& t, Rng& rng, int batch) {
  validate_task(t);
  InductionBatch out;
  learn::DecoderBatch& b = out.batch;
  b.batch = batch;
  b.t = t.context;
  b.tokens.assign(static_cast<size_t>(batch) * t.context, 0);
  b.targets.assign(b.tokens.size(), kIgnoreIndex);
  out.other_targets.assign(b.tokens.size(), kIgnoreIndex);
  for (int s = 0; s < batch; ++s) {
    InductionLayout lay{draw(rng, t.prefix_min, t.prefix_max), draw(rng, t.run_min, t.run_max)};
    int* tok = b.tokens.data() + static_cast<size_t>(s) * t.context;
    for (int i = 0; i < t.context; ++i) tok[i] = static_cast<int>(rng.below(static_cast<std::uint64_t>(t.vocab)));
    for (int k = 0; k < lay.run; ++k) tok[lay.repeat_start() + k] = tok[lay.prefix + k];
    for (int i = 0; i + 1 < t.context; ++i) {
      // position i predicts token i + 1; predictable when token i + 1 is in the repeat after its first token
      const bool predictable = i >= lay.repeat_start() && i <= lay.repeat_start() + lay.run - 2;
      (predictable ? b.targets : out.other_targets)[static_cast<size_t>(s) * t.context + i] = tok[i + 1];
    }
    out.layouts.push_back(lay);
  }
  return out;
}

InductionBatch corrupt_first_copy(const InductionBatch& clean, int vocab, Rng& rng) {
  InductionBatch c = clean;
  const int T = clean.batch.t;
  for (size_t s = 0; s < clean.layouts.size(); ++s) {
    const InductionLayout& lay = clean.layouts[s];
    int* tok = c.batch.tokens.data() + s * T;
    for (int k = 0; k < lay.run; ++k) {
      const int old = tok[lay.prefix + k];
      tok[lay.prefix + k] = (old + 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(vocab - 1)))) % vocab;
    }
    // targets stay those of the clean run: the repeat is unchanged, and that is what is scored
    for (int i = 0; i + 1 < T; ++i)
      if (c.other_targets[s * T + i] != kIgnoreIndex) c.other_targets[s * T + i] = tok[i + 1];
  }
  return c;
}

HeadScores head_scores(const double* w, int t, const InductionLayout& lay) {
  if (lay.prefix < 0 || lay.run < 1 || lay.prefix + 2 * lay.run > t)
    bad("the layout (prefix " + std::to_string(lay.prefix) + ", run " + std::to_string(lay.run) +
        ") does not fit T = " + std::to_string(t));
  HeadScores s;
  for (int i = 0; i < t; ++i) {
    const double* row = w + static_cast<long>(i) * t;
    if (i >= 1) s.previous_token += row[i - 1];
    s.diagonal += row[i];
    s.first_token += row[0];
  }
  if (t > 1) s.previous_token /= (t - 1);
  s.diagonal /= t;
  s.first_token /= t;
  for (int i = lay.repeat_start(); i < lay.repeat_start() + lay.run; ++i)
    s.induction += w[static_cast<long>(i) * t + (i - lay.run + 1)];
  s.induction /= lay.run;
  return s;
}

std::vector<HeadScores> batch_head_scores(const learn::DecoderConfig& cfg, const learn::DecoderActivations& a,
                                          const std::vector<InductionLayout>& layouts) {
  const int T = a.t, h = cfg.heads;
  std::vector<HeadScores> out(static_cast<size_t>(cfg.layers) * h);
  for (int l = 0; l < cfg.layers; ++l)
    for (int hh = 0; hh < h; ++hh) {
      HeadScores& acc = out[static_cast<size_t>(l) * h + hh];
      for (int b = 0; b < a.batch; ++b) {
        const HeadScores s = head_scores(
            a.layers[static_cast<size_t>(l)].weights.data() + (static_cast<size_t>(b) * h + hh) * T * T, T,
            layouts[static_cast<size_t>(b)]);
        acc.previous_token += s.previous_token;
        acc.induction += s.induction;
        acc.diagonal += s.diagonal;
        acc.first_token += s.first_token;
      }
      acc.previous_token /= a.batch;
      acc.induction /= a.batch;
      acc.diagonal /= a.batch;
      acc.first_token /= a.batch;
    }
  return out;
}

InductionEval evaluate(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                       const std::vector<double>& params, const InductionBatch& batch,
                       const learn::HeadIntervention* iv, learn::DecoderActivations* acts_out) {
  learn::DecoderActivations local;
  learn::DecoderActivations& a = acts_out ? *acts_out : local;
  learn::decoder_forward(cfg, layout, params.data(), batch.batch, a, iv);
  InductionEval e;
  score_targets(a, batch.batch.targets, cfg.vocab, &e.loss, &e.accuracy, &e.counted);
  double acc_other = 0.0;
  int n_other = 0;
  score_targets(a, batch.other_targets, cfg.vocab, &e.other_loss, &acc_other, &n_other);
  return e;
}

HeadsInterventionStudy::HeadsInterventionStudy(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                               const std::vector<double>& params, const InductionBatch& clean,
                                               const InductionBatch& corrupt, Parts parts)
    : cfg_(cfg), layout_(layout), params_(params), clean_(clean), corrupt_(corrupt) {
  const int heads = cfg.layers * cfg.heads;
  plan_.push_back({Unit::clean, 0});
  if (parts.ablation)
    for (int id = 0; id < heads; ++id) {
      plan_.push_back({Unit::ablate_zero, id});
      plan_.push_back({Unit::ablate_mean, id});
    }
  if (parts.patching) {
    plan_.push_back({Unit::corrupt, 0});
    for (int id = 0; id < heads; ++id) plan_.push_back({Unit::patch, id});
  }
  if (parts.decoding) {  // compare_decoding's parts; greedy continuations a few sequences per unit
    plan_.push_back({Unit::decode_teacher, 0});
    plan_.push_back({Unit::decode_dependency, 0});
    for (int b = 0; b < clean.batch.batch; b += kDecodeSequencesPerUnit) plan_.push_back({Unit::decode_batch, b});
    plan_.push_back({Unit::decode_edits, 0});
  }
}

const char* HeadsInterventionStudy::phase() const {
  if (done()) return "done";
  switch (plan_[static_cast<size_t>(unit_)].first) {
    case Unit::clean:
    case Unit::ablate_zero:
    case Unit::ablate_mean: return "ablation";
    case Unit::corrupt:
    case Unit::patch: return "patching";
    default: break;
  }
  return "decoding";
}

int HeadsInterventionStudy::advance(int max_units) {
  int ran = 0;
  const size_t lh = static_cast<size_t>(cfg_.layers) * cfg_.heads;
  for (; ran < max_units && !done(); ++ran, ++unit_) {
    const auto [kind, id] = plan_[static_cast<size_t>(unit_)];
    if (kind == Unit::clean) {  // its head outputs give the means and the patches
      ablation_.base = evaluate(cfg_, layout_, params_, clean_, nullptr, &clean_acts_);
      patching_.clean_loss = ablation_.base.loss;
      const int h = cfg_.heads, dk = cfg_.d_model / cfg_.heads, N = clean_acts_.batch * clean_acts_.t;
      ablation_.head_means.assign(lh, std::vector<double>(static_cast<size_t>(dk), 0.0));
      for (int l = 0; l < cfg_.layers; ++l)
        for (int hh = 0; hh < h; ++hh) {
          std::vector<double>& m = ablation_.head_means[static_cast<size_t>(l) * h + hh];
          const std::vector<double>& out = clean_acts_.layers[static_cast<size_t>(l)].heads_out;
          for (int r = 0; r < N; ++r)
            for (int c = 0; c < dk; ++c) m[static_cast<size_t>(c)] += out[static_cast<size_t>(r) * cfg_.d_model + hh * dk + c];
          for (double& x : m) x /= N;
        }
    } else if (kind == Unit::ablate_zero || kind == Unit::ablate_mean) {  // one head alone
      learn::HeadIntervention iv;
      iv.mode.assign(lh, learn::HeadIntervention::keep);
      iv.means = ablation_.head_means;
      const bool zero = kind == Unit::ablate_zero;
      iv.mode[static_cast<size_t>(id)] = zero ? learn::HeadIntervention::zero : learn::HeadIntervention::mean_of_batch;
      (zero ? ablation_.zero : ablation_.mean).push_back(evaluate(cfg_, layout_, params_, clean_, &iv, &scratch_));
    } else if (kind == Unit::corrupt) {
      patching_.corrupt_loss = evaluate(cfg_, layout_, params_, corrupt_, nullptr, &scratch_).loss;
    } else if (kind == Unit::patch) {  // the corrupted run with one head patched from the clean run
      learn::HeadIntervention iv;
      iv.mode.assign(lh, learn::HeadIntervention::keep);
      iv.mode[static_cast<size_t>(id)] = learn::HeadIntervention::patch;
      iv.source = &clean_acts_;
      const double lp = evaluate(cfg_, layout_, params_, corrupt_, &iv, &scratch_).loss;
      patching_.patched_loss.push_back(lp);
      const double gap = patching_.corrupt_loss - patching_.clean_loss;
      patching_.recovered.push_back(gap != 0.0 ? (patching_.corrupt_loss - lp) / gap : 0.0);
    } else if (kind == Unit::decode_teacher) {
      decode_parts::teacher(cfg_, layout_, params_, clean_, decoding_, teacher_logits_);
    } else if (kind == Unit::decode_dependency) {
      decode_parts::dependency(cfg_, layout_, params_, clean_, decoding_);
    } else if (kind == Unit::decode_batch) {
      decode_parts::batch(cfg_, layout_, params_, clean_, id, std::min(id + kDecodeSequencesPerUnit, clean_.batch.batch),
                          decoding_);
    } else {
      decode_parts::edits(cfg_, layout_, params_, teacher_logits_, decoding_);
    }
  }
  return ran;
}

AblationStudy ablate_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                               const std::vector<double>& params, const InductionBatch& batch) {
  HeadsInterventionStudy st(cfg, layout, params, batch, batch, {true, false, false});
  st.advance(st.units_total());
  return st.ablation();
}

PatchingStudy patch_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                              const std::vector<double>& params, const InductionBatch& clean,
                              const InductionBatch& corrupt) {
  HeadsInterventionStudy st(cfg, layout, params, clean, corrupt, {false, true, false});
  st.advance(st.units_total());
  return st.patching();
}

HeadsTrainer::HeadsTrainer(const HeadsTrainingConfig& cfg)
    : cfg_(cfg), train_task_(cfg.task), data_rng_(cfg.seed ^ 0x5eedda7aULL) {
  validate_task(cfg.task);
  model_ = cfg.model;
  model_.vocab = cfg.task.vocab;
  model_.context = cfg.task.context;
  learn::validate_decoder_config(model_);
  if (cfg.batch < 1 || cfg.batch > 256) bad("batch must be between 1 and 256");
  if (cfg.steps < 0 || cfg.steps > 100000) bad("steps must be between 0 and 100000");
  if (!(cfg.adam.lr > 0.0) || !(cfg.adam.lr <= 1.0)) bad("the learning rate must be in (0, 1]");
  if (cfg.train_length != 0) {
    if (cfg.train_length < cfg.task.prefix_max + 2 * cfg.task.run_max || cfg.train_length > cfg.task.context)
      bad("train_length must fit the longest layout (" + std::to_string(cfg.task.prefix_max + 2 * cfg.task.run_max) +
          ") and the context (" + std::to_string(cfg.task.context) + ")");
    train_task_.context = cfg.train_length;
  }
  layout_ = learn::decoder_layout(model_);
  params_ = learn::init_params(layout_, cfg.seed);
  initial_ = params_;
}

double HeadsTrainer::uniform_loss() const { return std::log(static_cast<double>(model_.vocab)); }

int HeadsTrainer::advance(int max_steps) {
  int ran = 0;
  while (ran < max_steps && step_ < cfg_.steps) {
    const InductionBatch b = make_induction_batch(train_task_, data_rng_, cfg_.batch);
    learn::DecoderActivations a;
    grads_.assign(layout_.total(), 0.0);
    const double loss = learn::decoder_forward(model_, layout_, params_.data(), b.batch, a);
    learn::decoder_backward(model_, layout_, params_.data(), b.batch, a, grads_.data());
    double other = 0.0, acc = 0.0;
    int n = 0;
    score_targets(a, b.other_targets, model_.vocab, &other, &acc, &n);
    if (cfg_.clip > 0.0) learn::clip_grad_norm(grads_.data(), grads_.size(), cfg_.clip);
    learn::adam_step(params_.data(), grads_.data(), params_.size(), adam_, cfg_.adam);
    losses_.push_back(loss);
    other_losses_.push_back(other);
    ++step_;
    ++ran;
  }
  return ran;
}

PositionAccuracy accuracy_by_position(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                      const std::vector<double>& params, const InductionTask& task,
                                      int train_length, int test_length, std::uint64_t seed, int sequences) {
  if (test_length < task.run_max * 2 || test_length > 1024) bad("test_length must fit a repeated run and be <= 1024");
  learn::DecoderConfig c = cfg;
  if (test_length > cfg.context) {
    if (cfg.positions == learn::DecoderPositions::learned)
      bad("learned positions have no row beyond the context (" + std::to_string(cfg.context) +
          "): test_length must be <= context");
    c.context = test_length;  // sinusoidal, RoPE and none have no table to run out of
  }
  PositionAccuracy out;
  out.test_length = test_length;
  out.train_length = train_length;
  out.counted.assign(static_cast<size_t>(test_length), 0);
  out.correct.assign(static_cast<size_t>(test_length), 0);
  Rng rng(seed ^ 0xe7a401a7ULL);
  InductionBatch b;
  b.batch.batch = sequences;
  b.batch.t = test_length;
  b.batch.tokens.resize(static_cast<size_t>(sequences) * test_length);
  b.batch.targets.assign(b.batch.tokens.size(), learn::kIgnoreIndex);
  for (int s = 0; s < sequences; ++s) {
    const int run = draw(rng, task.run_min, task.run_max);
    InductionLayout lay{draw(rng, 0, test_length - 2 * run), run};
    int* tok = b.batch.tokens.data() + static_cast<size_t>(s) * test_length;
    for (int i = 0; i < test_length; ++i) tok[i] = static_cast<int>(rng.below(static_cast<std::uint64_t>(task.vocab)));
    for (int k = 0; k < run; ++k) tok[lay.repeat_start() + k] = tok[lay.prefix + k];
    for (int i = lay.repeat_start(); i <= lay.repeat_start() + run - 2; ++i)
      b.batch.targets[static_cast<size_t>(s) * test_length + i] = tok[i + 1];
    b.layouts.push_back(lay);
  }
  learn::DecoderActivations a;
  learn::decoder_forward(c, layout, params.data(), b.batch, a);
  int within = 0, within_ok = 0, beyond = 0, beyond_ok = 0;
  for (size_t r = 0; r < b.batch.targets.size(); ++r) {
    const int tg = b.batch.targets[r];
    if (tg == learn::kIgnoreIndex) continue;
    const double* p = a.probs.data() + r * cfg.vocab;
    int best = 0;
    for (int j = 1; j < cfg.vocab; ++j)
      if (p[j] > p[best]) best = j;
    const int pos = static_cast<int>(r % test_length);
    out.counted[static_cast<size_t>(pos)]++;
    out.correct[static_cast<size_t>(pos)] += best == tg;
    // the target sits at pos + 1: "within" when the whole input and target were seen in training
    if (pos + 1 < train_length) {
      ++within;
      within_ok += best == tg;
    } else {
      ++beyond;
      beyond_ok += best == tg;
    }
  }
  out.accuracy_within = within ? static_cast<double>(within_ok) / within : 0.0;
  out.accuracy_beyond = beyond ? static_cast<double>(beyond_ok) / beyond : 0.0;
  return out;
}

InductionBatch heldout_batch(const InductionTask& task, std::uint64_t seed, int batch) {
  Rng rng(seed ^ 0x4e1d0a7ULL);  // a stream no trainer draws from
  return make_induction_batch(task, rng, batch);
}

HeadsSnapshot take_snapshot(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                            const std::vector<double>& params, int step, const InductionBatch& heldout) {
  HeadsSnapshot snap;
  snap.step = step;
  learn::DecoderActivations a;
  snap.eval = evaluate(cfg, layout, params, heldout, nullptr, &a);
  snap.scores = batch_head_scores(cfg, a, heldout.layouts);
  const int T = a.t, h = cfg.heads;
  for (int l = 0; l < cfg.layers; ++l)
    for (int hh = 0; hh < h; ++hh) {
      const double* w = a.layers[static_cast<size_t>(l)].weights.data() + static_cast<size_t>(hh) * T * T;  // sequence 0
      snap.maps.emplace_back(w, w + static_cast<size_t>(T) * T);
    }
  return snap;
}

namespace {
int argmax_row(const double* row, int n) {
  int best = 0;
  for (int j = 1; j < n; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}

// Max |a − b| over rows [r0, r1) of two row-major logit tables of width V.
double rows_max_diff(const std::vector<double>& a, const std::vector<double>& b, int r0, int r1, int V) {
  double m = 0.0;
  for (size_t i = static_cast<size_t>(r0) * V; i < static_cast<size_t>(r1) * V; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

// Greedy from `prefix` until T tokens: each step feeds the previous step's argmax.
std::vector<int> greedy_to(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                           const std::vector<double>& params, std::vector<int> prefix, int T) {
  while (static_cast<int>(prefix.size()) < T) {
    const std::vector<double> lg = decoder_incremental_logits(cfg, layout, params, prefix);
    prefix.push_back(argmax_row(lg.data() + (prefix.size() - 1) * cfg.vocab, cfg.vocab));
  }
  return prefix;
}

// The dependency of generation, measured (DecodeComparison's fields generation..later_moved).
void measure_generation_dependency(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                   const std::vector<double>& params, DecodeComparison& d) {
  const int T = static_cast<int>(d.tokens.size()), V = cfg.vocab;
  d.generation = greedy_to(cfg, layout, params, {d.tokens[0]}, T);
  const std::vector<double> free_logits = decoder_incremental_logits(cfg, layout, params, d.generation);
  d.forced_step_min_diff = INFINITY;
  for (int j = 1; j < T; ++j) {
    std::vector<int> forced(d.generation.begin(), d.generation.begin() + j + 1);
    forced[static_cast<size_t>(j)] = (forced[static_cast<size_t>(j)] + 1) % V;  // not what step j − 1 chose
    const std::vector<double> lg = decoder_incremental_logits(cfg, layout, params, forced);
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
    const std::vector<int> carried = greedy_to(cfg, layout, params, prefix, T);
    const std::vector<double> lg = decoder_incremental_logits(cfg, layout, params, carried);
    for (int j = d.forced_at + 1; j < T; ++j) {
      ++d.later_steps;
      d.later_moved += rows_max_diff(lg, free_logits, j, j + 1, V) > 0.0;
    }
  }
}
namespace decode_parts {
// compare_decoding in parts, in its order: the study runs one part per unit, so that no unit is
// much longer than one evaluation of the held-out batch.

// The display sequence as a batch of one, teacher-forced.
learn::DecoderBatch display_batch(const std::vector<int>& tokens) {
  learn::DecoderBatch one;
  one.batch = 1;
  one.t = static_cast<int>(tokens.size());
  one.tokens = tokens;
  one.targets.assign(tokens.size(), learn::kIgnoreIndex);
  one.targets[0] = tokens[1 % tokens.size()];
  return one;
}

// The teacher-forced forward of the display sequence (its logits kept for the edits) against the
// K/V-cached pass.
void teacher(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
             const InductionBatch& heldout, DecodeComparison& d, std::vector<double>& teacher_logits) {
  const int T = heldout.batch.t;
  d.tokens.assign(heldout.batch.tokens.begin(), heldout.batch.tokens.begin() + T);
  learn::DecoderActivations a;
  learn::decoder_forward(cfg, layout, params.data(), display_batch(d.tokens), a);
  d.teacher_forced_positions = static_cast<int>(a.logits.size() / static_cast<size_t>(cfg.vocab));
  const std::vector<double> inc = decoder_incremental_logits(cfg, layout, params, d.tokens);
  for (size_t i = 0; i < inc.size(); ++i) d.max_logit_diff = std::max(d.max_logit_diff, std::fabs(inc[i] - a.logits[i]));
  teacher_logits = std::move(a.logits);
}

// Generation's dependency, and the display sequence's greedy continuation.
void dependency(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
                const InductionBatch& heldout, DecodeComparison& d) {
  measure_generation_dependency(cfg, layout, params, d);
  const InductionLayout& lay = heldout.layouts[0];
  d.prompt.assign(d.tokens.begin(), d.tokens.begin() + lay.repeat_start() + 1);
  d.expected.assign(d.tokens.begin() + lay.repeat_start() + 1, d.tokens.begin() + lay.repeat_start() + lay.run);
  const std::vector<int> out =
      decoder_greedy(cfg, layout, params, d.prompt, static_cast<int>(d.expected.size()));
  d.generated.assign(out.begin() + static_cast<long>(d.prompt.size()), out.end());
  for (size_t i = 0; i < d.generated.size() && i < d.expected.size(); ++i) d.correct += d.generated[i] == d.expected[i];
}

// The greedy continuation of held-out sequences [b0, b1).
void batch(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
           const InductionBatch& heldout, int b0, int b1, DecodeComparison& d) {
  const int T = heldout.batch.t;
  for (int b = b0; b < b1; ++b) {
    const InductionLayout& L = heldout.layouts[static_cast<size_t>(b)];
    const int* tok = heldout.batch.tokens.data() + static_cast<size_t>(b) * T;
    const std::vector<int> prompt(tok, tok + L.repeat_start() + 1);
    const std::vector<int> expected(tok + L.repeat_start() + 1, tok + L.repeat_start() + L.run);
    const std::vector<int> gen = decoder_greedy(cfg, layout, params, prompt, static_cast<int>(expected.size()));
    int right = 0;
    for (size_t i = 0; i < expected.size() && prompt.size() + i < gen.size(); ++i) right += gen[prompt.size() + i] == expected[i];
    d.batch_correct += right;
    d.batch_expected += static_cast<int>(expected.size());
    d.batch_complete += right == static_cast<int>(expected.size());
    ++d.batch_sequences;
  }
}

// Shifted targets: position i is trained on token i + 1. Edit every token after position c
// (the targets of positions c.. and beyond) and compare the logits of positions 0..c.
void edits(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout, const std::vector<double>& params,
           const std::vector<double>& teacher_logits, DecodeComparison& d) {
  const int T = static_cast<int>(d.tokens.size()), V = cfg.vocab;
  const learn::DecoderBatch one = display_batch(d.tokens);
  for (int c = 0; c + 1 < T; ++c) {
    learn::DecoderBatch edited = one;
    for (int j = c + 1; j < T; ++j) edited.tokens[static_cast<size_t>(j)] = (edited.tokens[static_cast<size_t>(j)] + 1) % V;
    learn::DecoderActivations e;
    learn::decoder_forward(cfg, layout, params.data(), edited, e);
    for (size_t i = 0; i < static_cast<size_t>(c + 1) * V; ++i)
      d.future_edit_max_diff = std::max(d.future_edit_max_diff, std::fabs(e.logits[i] - teacher_logits[i]));
    for (size_t i = static_cast<size_t>(c + 1) * V; i < static_cast<size_t>(c + 2) * V; ++i)
      d.target_edit_max_diff = std::max(d.target_edit_max_diff, std::fabs(e.logits[i] - teacher_logits[i]));
    ++d.future_edits;
  }
}
}  // namespace decode_parts
}  // namespace

DecodeComparison compare_decoding(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                  const std::vector<double>& params, const InductionBatch& heldout) {
  DecodeComparison d;
  std::vector<double> teacher_logits;
  decode_parts::teacher(cfg, layout, params, heldout, d, teacher_logits);
  decode_parts::dependency(cfg, layout, params, heldout, d);
  decode_parts::batch(cfg, layout, params, heldout, 0, heldout.batch.batch, d);
  decode_parts::edits(cfg, layout, params, teacher_logits, d);
  return d;
}

std::vector<int> decoder_greedy(const learn::DecoderConfig& c, const learn::ParamLayout& layout,
                                const std::vector<double>& params, std::vector<int> prompt, int n) {
  for (int k = 0; k < n && static_cast<int>(prompt.size()) < c.context; ++k) {
    const std::vector<double> lg = decoder_incremental_logits(c, layout, params, prompt);
    const double* last = lg.data() + (prompt.size() - 1) * c.vocab;
    int best = 0;
    for (int j = 1; j < c.vocab; ++j)
      if (last[j] > last[best]) best = j;
    prompt.push_back(best);
  }
  return prompt;
}

}  // namespace attn::lessons

namespace attn::lessons {

HeadsTrainer::HeadsTrainer(const HeadsRun& run) : HeadsTrainer(run.config) {
  learn::require_finished_run(run.step, cfg_.steps);
  learn::require_param_count("the record", run.params.size(), layout_.total());
  if (run.losses.size() != static_cast<size_t>(run.step) || run.other_losses.size() != run.losses.size())
    bad("the record needs one loss per step (" + std::to_string(run.step) + ")");
  params_ = run.params;
  losses_ = run.losses;
  other_losses_ = run.other_losses;
  step_ = run.step;
}

HeadsTrainer::HeadsTrainer(const HeadsTrainingConfig& cfg, const learn::DecoderConfig& model,
                           const std::vector<double>& start)
    : HeadsTrainer(cfg) {
  if (model.vocab != cfg.task.vocab)
    bad("the model's vocabulary (" + std::to_string(model.vocab) + " tokens) is not the task's (" +
        std::to_string(cfg.task.vocab) + ")");
  if (model.context < cfg.task.context)
    bad("the model's context (" + std::to_string(model.context) + " tokens) is shorter than the task's sequences (" +
        std::to_string(cfg.task.context) + ")");
  learn::validate_decoder_config(model);
  cfg_.model = model;
  model_ = model;
  layout_ = learn::decoder_layout(model_);
  learn::require_param_count("the model", start.size(), layout_.total());
  params_ = start;
  initial_ = start;
}

namespace {
HeadsTrainingConfig config_from_json(const Json& j);  // below, with the checkpoint readers

// What a trainer state's meta says of its model beyond the configuration: the vocabulary and
// context (a model read from a file keeps its own).
void require_state_meta(const Json& m) {
  if (!m.is_object() || m.value("model", "") != "decoder" || m.value("task", "") != "induction" ||
      m.value("kind", "") != "trainer_state")
    bad("trainer state: not the state of a decoder trained on the induction task");
  for (const char* k : {"model_vocab", "model_context", "step", "adam_step"})
    if (!m.contains(k) || !m[k].is_number_integer()) bad(std::string("trainer state: '") + k + "' missing");
  if (!m.contains("config") || !m.contains("data_rng") || !m["data_rng"].is_string())
    bad("trainer state: the meta needs a config and a data_rng");
}
}  // namespace

learn::Checkpoint HeadsTrainer::state_checkpoint() const {
  learn::Checkpoint c;
  c.meta = ::attn::obj({{"model", "decoder"},
                        {"task", "induction"},
                        {"kind", "trainer_state"},
                        {"config", heads_config_json(cfg_)},
                        {"model_vocab", model_.vocab},
                        {"model_context", model_.context},
                        {"step", step_},
                        {"adam_step", adam_.step},
                        {"data_rng", data_rng_.state()}});
  c.add("params", params_);
  c.add("initial", initial_);
  c.add("adam_m", adam_.m);
  c.add("adam_v", adam_.v);
  c.add("losses", losses_);
  c.add("other_losses", other_losses_);
  return c;
}

HeadsTrainer HeadsTrainer::from_state(const learn::Checkpoint& ck) {
  require_state_meta(ck.meta);
  const HeadsTrainingConfig cfg = config_from_json(ck.meta["config"]);
  learn::DecoderConfig model = cfg.model;
  model.vocab = ck.meta["model_vocab"].get<int>();
  model.context = ck.meta["model_context"].get<int>();
  HeadsTrainer seeded(cfg);
  if (seeded.model_.vocab == model.vocab && seeded.model_.context == model.context) {
    seeded.load_state(ck);
    return seeded;
  }
  // A model read from a file: its own context; the initial parameters come with the state.
  HeadsTrainer t(cfg, model, ck.array("initial"));
  t.load_state(ck);
  return t;
}

void HeadsTrainer::load_state(const learn::Checkpoint& ck) {
  const Json& m = ck.meta;
  require_state_meta(m);
  if (m["config"] != heads_config_json(cfg_) || m["model_vocab"].get<int>() != model_.vocab ||
      m["model_context"].get<int>() != model_.context)
    bad("trainer state: of another run (configuration or model)");
  const int step = m["step"].get<int>();
  const long adam_step = m["adam_step"].get<long>();
  if (step < 0 || step > cfg_.steps) bad("trainer state: step " + std::to_string(step) + " is outside 0.." + std::to_string(cfg_.steps));
  const std::size_t n = layout_.total();
  const std::vector<double>& params = ck.array("params");
  const std::vector<double>& initial = ck.array("initial");
  const std::vector<double>& am = ck.array("adam_m");
  const std::vector<double>& av = ck.array("adam_v");
  const std::vector<double>& losses = ck.array("losses");
  const std::vector<double>& other = ck.array("other_losses");
  learn::require_param_count("the state's params", params.size(), n);
  learn::require_param_count("the state's initial params", initial.size(), n);
  // Adam sizes its moments on the first step: none before it, one per parameter after.
  const std::size_t moments = adam_step == 0 ? 0 : n;
  if (am.size() != moments || av.size() != moments || adam_step < 0)
    bad("trainer state: Adam's moments do not fit " + std::to_string(n) + " parameters at Adam step " + std::to_string(adam_step));
  if (losses.size() != static_cast<std::size_t>(step) || other.size() != losses.size())
    bad("trainer state: one loss per step needed (" + std::to_string(step) + ")");
  Rng rng(0);
  rng.set_state(m["data_rng"].get<std::string>());
  params_ = params;
  initial_ = initial;
  adam_.m = am;
  adam_.v = av;
  adam_.step = adam_step;
  data_rng_ = rng;
  step_ = step;
  losses_ = losses;
  other_losses_ = other;
}

HeadsTrainingConfig heads_config_for_model(const learn::DecoderConfig& model, HeadsTrainingConfig base) {
  if (model.vocab < 2) bad("the model's vocabulary has " + std::to_string(model.vocab) + " token(s); the task needs 2");
  InductionTask& t = base.task;
  if (model.context < t.prefix_max + 2 * t.run_max) {
    // Shorter runs and prefix, so that the longest layout fills the model's context.
    t.run_max = std::min(t.run_max, model.context / 2);
    if (t.run_max < 2)
      bad("the model's context (" + std::to_string(model.context) +
          " tokens) is too short for the task: a run of 2 tokens seen twice needs 4");
    t.run_min = std::min(t.run_min, t.run_max);
    t.prefix_max = std::min(t.prefix_max, model.context - 2 * t.run_max);
    t.prefix_min = std::min(t.prefix_min, t.prefix_max);
  }
  t.vocab = model.vocab;
  t.context = std::min(t.context, model.context);
  base.model = model;
  validate_task(t);
  return base;
}

Json heads_config_json(const HeadsTrainingConfig& c) {
  return ::attn::obj({{"task", ::attn::obj({{"vocab", c.task.vocab}, {"context", c.task.context}, {"prefix_min", c.task.prefix_min},
                        {"prefix_max", c.task.prefix_max}, {"run_min", c.task.run_min}, {"run_max", c.task.run_max}})},
              {"model", ::attn::obj({{"d_model", c.model.d_model}, {"heads", c.model.heads}, {"layers", c.model.layers},
                         {"mlp", c.model.mlp}, {"positions", learn::decoder_positions_name(c.model.positions)},
                         {"layer_norm", c.model.layer_norm}})},
              {"batch", c.batch},
              {"adam", ::attn::obj({{"lr", c.adam.lr}, {"beta1", c.adam.beta1}, {"beta2", c.adam.beta2}, {"eps", c.adam.eps},
                        {"weight_decay", c.adam.weight_decay}})},
              {"clip", c.clip},
              {"seed", c.seed},
              {"steps", c.steps},
              {"train_length", c.train_length}});
}

namespace {

HeadsTrainingConfig config_from_json(const Json& j) {
  auto num = [](const Json& o, const char* key) -> const Json& {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number()) bad(std::string("checkpoint config: '") + key + "' missing");
    return o[key];
  };
  HeadsTrainingConfig c;
  const Json& t = j.contains("task") ? j["task"] : Json();
  c.task.vocab = num(t, "vocab").get<int>();
  c.task.context = num(t, "context").get<int>();
  c.task.prefix_min = num(t, "prefix_min").get<int>();
  c.task.prefix_max = num(t, "prefix_max").get<int>();
  c.task.run_min = num(t, "run_min").get<int>();
  c.task.run_max = num(t, "run_max").get<int>();
  const Json& m = j.contains("model") ? j["model"] : Json();
  c.model.d_model = num(m, "d_model").get<int>();
  c.model.heads = num(m, "heads").get<int>();
  c.model.layers = num(m, "layers").get<int>();
  c.model.mlp = num(m, "mlp").get<int>();
  const std::string pos = m.is_object() && m.contains("positions") && m["positions"].is_string() ? m["positions"].get<std::string>() : "";
  bool found = false;
  for (learn::DecoderPositions p : {learn::DecoderPositions::learned, learn::DecoderPositions::sinusoidal,
                                    learn::DecoderPositions::rope, learn::DecoderPositions::none})
    if (pos == learn::decoder_positions_name(p)) c.model.positions = p, found = true;
  if (!found) bad("checkpoint config: unknown positions '" + pos + "'");
  c.model.layer_norm = m.contains("layer_norm") && m["layer_norm"].is_boolean() && m["layer_norm"].get<bool>();
  c.batch = num(j, "batch").get<int>();
  const Json& a = j.contains("adam") ? j["adam"] : Json();
  c.adam = {num(a, "lr").get<double>(), num(a, "beta1").get<double>(), num(a, "beta2").get<double>(),
            num(a, "eps").get<double>(), num(a, "weight_decay").get<double>()};
  c.clip = num(j, "clip").get<double>();
  c.seed = num(j, "seed").get<std::uint64_t>();
  c.steps = num(j, "steps").get<int>();
  c.train_length = num(j, "train_length").get<int>();
  return c;
}

}  // namespace

HeadsRun record_heads_run(const HeadsTrainingConfig& cfg) {
  HeadsTrainer tr(cfg);
  const InductionBatch heldout = heldout_batch(cfg.task, cfg.seed, kHeadsHeldout);
  HeadsRun run;
  run.config = cfg;
  run.snapshots.push_back(take_snapshot(tr.model(), tr.layout(), tr.params(), 0, heldout));
  while (!tr.done()) {
    tr.advance(1);
    if (tr.step() % kHeadsSnapshotEvery == 0 || tr.done())
      run.snapshots.push_back(take_snapshot(tr.model(), tr.layout(), tr.params(), tr.step(), heldout));
  }
  run.step = tr.step();
  run.params = tr.params();
  run.losses = tr.losses();
  run.other_losses = tr.other_losses();
  return run;
}

learn::Checkpoint heads_run_checkpoint(const HeadsRun& run) {
  learn::Checkpoint c;
  c.meta = ::attn::obj({{"model", "decoder"},
                {"task", "induction"},
                {"config", heads_config_json(run.config)},
                {"step", run.step},
                {"params_fnv1a", learn::params_fnv1a(run.params)}});
  c.add("params", run.params);
  c.add("losses", run.losses);
  c.add("other_losses", run.other_losses);
  std::vector<double> steps, evals, scores;
  for (const HeadsSnapshot& s : run.snapshots) {
    steps.push_back(s.step);
    evals.insert(evals.end(), {s.eval.loss, s.eval.accuracy, s.eval.other_loss, static_cast<double>(s.eval.counted)});
    for (const HeadScores& h : s.scores)
      scores.insert(scores.end(), {h.previous_token, h.induction, h.diagonal, h.first_token});
  }
  c.add("snapshot_steps", steps);
  c.add("snapshot_eval", evals);
  c.add("snapshot_scores", scores);
  return c;
}

HeadsRun heads_run_from_checkpoint(const learn::Checkpoint& ck) {
  const Json& m = ck.meta;
  if (!m.is_object() || m.value("model", "") != "decoder" || m.value("task", "") != "induction")
    bad("checkpoint: not a decoder trained on the induction task");
  if (!m.contains("config") || !m.contains("step") || !m["step"].is_number_integer())
    bad("checkpoint: the meta needs a config and a step");
  HeadsRun run;
  run.config = config_from_json(m["config"]);
  run.step = m["step"].get<int>();
  run.params = ck.array("params");
  run.losses = ck.array("losses");
  run.other_losses = ck.array("other_losses");
  if (m.value("params_fnv1a", "") != learn::params_fnv1a(run.params))
    bad("checkpoint: the parameters' hash differs from the one recorded");
  const HeadsTrainer check(run);  // config, sizes and step
  const int n_heads = check.model().layers * check.model().heads;
  const std::vector<double>& steps = ck.array("snapshot_steps");
  const std::vector<double>& evals = ck.array("snapshot_eval");
  const std::vector<double>& scores = ck.array("snapshot_scores");
  if (evals.size() != steps.size() * 4 || scores.size() != steps.size() * 4 * static_cast<size_t>(n_heads))
    bad("checkpoint: the snapshot arrays do not fit " + std::to_string(steps.size()) + " snapshots of " +
        std::to_string(n_heads) + " heads");
  for (size_t i = 0; i < steps.size(); ++i) {
    HeadsSnapshot s;
    s.step = static_cast<int>(steps[i]);
    s.eval = {evals[4 * i], evals[4 * i + 1], evals[4 * i + 2], static_cast<int>(evals[4 * i + 3])};
    for (int h = 0; h < n_heads; ++h) {
      const double* x = scores.data() + (i * static_cast<size_t>(n_heads) + static_cast<size_t>(h)) * 4;
      s.scores.push_back({x[0], x[1], x[2], x[3]});
    }
    run.snapshots.push_back(std::move(s));
  }
  return run;
}

}  // namespace attn::lessons

namespace attn::lessons {

ExtrapolationStudy::ExtrapolationStudy(const ExtrapolationConfig& cfg) : cfg_(cfg) {
  if (cfg.signals.empty() || cfg.signals.size() > 4) bad("the extrapolation study needs 1 to 4 position signals");
  if (cfg.test_length < 2 * cfg.task.run_max || cfg.test_length > 1024)
    bad("test_length must hold a repeated run (>= " + std::to_string(2 * cfg.task.run_max) + ") and be <= 1024");
  if (cfg.train_length == 0 || cfg.train_length >= cfg.task.context)
    bad("train_length must be below the context (" + std::to_string(cfg.task.context) + ") to test longer sequences");
  if (cfg.sequences < 1 || cfg.sequences > 1024) bad("sequences must be between 1 and 1024");
  for (learn::DecoderPositions p : cfg.signals) HeadsTrainer probe(model_config(p));  // the trainer's own checks
  trainer_ = std::make_shared<HeadsTrainer>(model_config(cfg.signals.front()));
}

HeadsTrainingConfig ExtrapolationStudy::model_config(learn::DecoderPositions p) const {
  HeadsTrainingConfig c;
  c.task = cfg_.task;
  c.model = cfg_.model;
  c.model.positions = p;
  c.batch = cfg_.batch;
  c.adam.lr = cfg_.lr;
  c.seed = cfg_.seed;
  c.steps = cfg_.steps;
  c.train_length = cfg_.train_length;
  return c;
}

int ExtrapolationStudy::test_length(learn::DecoderPositions p) const {
  return p == learn::DecoderPositions::learned ? std::min(cfg_.test_length, cfg_.task.context) : cfg_.test_length;
}

int ExtrapolationStudy::advance(int max_steps) {
  int ran = 0;
  while (!done() && ran < max_steps) {
    ran += trainer_->advance(max_steps - ran);
    if (!trainer_->done()) break;
    const learn::DecoderPositions p = cfg_.signals[results_.size()];
    ExtrapolationResult r;
    r.positions = p;
    r.accuracy = accuracy_by_position(trainer_->model(), trainer_->layout(), trainer_->params(), cfg_.task,
                                      cfg_.train_length, test_length(p), cfg_.seed, cfg_.sequences);
    const std::vector<double>& l = trainer_->losses();
    const size_t k = std::min<size_t>(50, l.size());
    double sum = 0.0;
    for (size_t i = l.size() - k; i < l.size(); ++i) sum += l[i];
    r.final_loss = k ? sum / static_cast<double>(k) : 0.0;
    results_.push_back(std::move(r));
    if (!done()) trainer_ = std::make_shared<HeadsTrainer>(model_config(cfg_.signals[results_.size()]));
  }
  steps_done_ += ran;
  return ran;
}

std::string loss_curve_caption(double uniform_loss, const std::vector<double>& other_curve, int stride,
                               double heldout_other, int heldout_step) {
  auto g3 = [](double x) {
    char b[40];
    std::snprintf(b, sizeof b, "%.3g", x);
    return std::string(b);
  };
  std::string s = "Training loss of each step's batch at the predictable positions (the second copy of the run) and "
                  "at the other positions, against log V = " + g3(uniform_loss) + ", the loss of a uniform guess" +
                  (stride > 1 ? ", averaged over " + std::to_string(stride) + " steps" : std::string()) +
                  ". The other positions hold random tokens that nothing predicts, and no loss is taken there.";
  if (other_curve.empty()) return s;
  const double last = other_curve.back();
  s += " Their loss ends at " + g3(last);
  if (std::fabs(last - uniform_loss) <= 0.1 * uniform_loss)
    s += ", near log V: the model stays close to a uniform guess there.";
  else if (last > uniform_loss)
    s += ", above log V: the model grows confident at those positions and is wrong, which a uniform guess "
         "never is.";
  else
    s += ", below log V: something at those positions was predictable in these batches.";
  if (heldout_step >= 0 && std::isfinite(heldout_other))
    s += " Held out at step " + std::to_string(heldout_step) + ": " + g3(heldout_other) + ".";
  return s;
}

}  // namespace attn::lessons
