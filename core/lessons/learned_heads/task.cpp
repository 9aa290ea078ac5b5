#include "lessons/learned_heads/task.hpp"

#include <string>

#include "attn/error.hpp"
#include "learn/decoder_analysis.hpp"

namespace attn::lessons {
namespace {

using learn::kIgnoreIndex;

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

int draw_between(Rng& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

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
    InductionLayout lay{draw_between(rng, t.prefix_min, t.prefix_max), draw_between(rng, t.run_min, t.run_max)};
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

InductionBatch heldout_batch(const InductionTask& task, std::uint64_t seed, int batch) {
  Rng rng(seed ^ 0x4e1d0a7ULL);  // a stream no trainer draws from
  return make_induction_batch(task, rng, batch);
}

InductionEval evaluate(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                       const std::vector<double>& params, const InductionBatch& batch,
                       const learn::HeadIntervention* iv, learn::DecoderActivations* acts_out) {
  learn::DecoderActivations local;
  learn::DecoderActivations& a = acts_out ? *acts_out : local;
  learn::decoder_forward(cfg, layout, params.data(), batch.batch, a, iv);
  const learn::TargetScores predictable = learn::decoder_target_scores(a, batch.batch.targets, cfg.vocab);
  InductionEval e;
  e.loss = predictable.loss;
  e.accuracy = predictable.accuracy;
  e.counted = predictable.counted;
  e.other_loss = learn::decoder_target_scores(a, batch.other_targets, cfg.vocab).loss;
  return e;
}

}  // namespace attn::lessons
