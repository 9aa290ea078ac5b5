// lessons/learned_heads/task.hpp — the Learned heads lesson's task: random runs seen twice.
//
// Each sequence is a random-length prefix of random tokens, then a random run of random length l,
// then the same run again, then random filler up to the context. Only the repeat after its first
// token is predictable (position i predicts token i + 1), so the loss counts only those positions.
// Random layouts matter: with a fixed layout a model can copy from a fixed offset with no induction
// head at all.
#pragma once

#include <cstdint>
#include <vector>

#include "attn/random.hpp"
#include "learn/decoder.hpp"

namespace attn::lessons {

struct InductionTask {
  int vocab = 16;      ///< tokens 0..vocab−1, all random
  int context = 32;    ///< sequence length T
  int prefix_min = 0, prefix_max = 7;
  int run_min = 6, run_max = 11;
};

/// Checks 2 <= vocab <= 4096, 1 <= run_min <= run_max, 0 <= prefix_min <= prefix_max, and that the
/// longest layout fits: prefix_max + 2·run_max <= context <= 1024. Throws Error(invalid_field).
void validate_task(const InductionTask& task);

/// Where the run sits in one sequence: tokens prefix..prefix+run−1, repeated at prefix+run...
struct InductionLayout {
  int prefix = 0, run = 0;
  int repeat_start() const { return prefix + run; }
};

struct InductionBatch {
  learn::DecoderBatch batch;             ///< tokens B×T, targets at the predictable positions only
  std::vector<InductionLayout> layouts;  ///< B
  std::vector<int> other_targets;        ///< B×T: next tokens at the other positions (−100 elsewhere)
};

/// A uniform draw from lo..hi (inclusive) of rng.
int draw_between(Rng& rng, int lo, int hi);

/// B sequences drawn with rng: prefix length, run length, then every token uniformly at random.
InductionBatch make_induction_batch(const InductionTask& task, Rng& rng, int batch);

/// The same sequences with the first copy of each run replaced by other random tokens (each
/// position gets a token different from the original), for activation patching.
InductionBatch corrupt_first_copy(const InductionBatch& clean, int vocab, Rng& rng);

/// Held-out data for a task: `batch` sequences for scores and accuracy, and one display sequence
/// (the first of them), from a stream seeded apart from any training stream.
InductionBatch heldout_batch(const InductionTask& task, std::uint64_t seed, int batch = 32);

struct InductionEval {
  double loss = 0.0;        ///< mean cross-entropy on the predictable positions
  double accuracy = 0.0;    ///< fraction of predictable positions whose argmax is the target
  double other_loss = 0.0;  ///< mean cross-entropy at the other positions (not trained on)
  int counted = 0;
};

/// Loss and accuracy of params on a batch, optionally under a head intervention
/// (learn::decoder_target_scores on the predictable and on the other positions).
InductionEval evaluate(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                       const std::vector<double>& params, const InductionBatch& batch,
                       const learn::HeadIntervention* intervention = nullptr,
                       learn::DecoderActivations* acts_out = nullptr);

}  // namespace attn::lessons
