// lessons/learned_heads/interventions.hpp — a map alone is not an explanation: interventions test it.
//
// Zero ablation replaces a head's output by zeros, mean ablation by its mean over a held-out batch;
// activation patching copies one head's output from a clean run into a corrupted run (the first
// copy of the run replaced by other tokens) and reports the recovered fraction
// (L_corrupt − L_patched) / (L_corrupt − L_clean) (Heimersheim & Nanda 2024). Decoding compares
// the teacher-forced forward with K/V-cached generation. The measurements are core/learn's
// (learn/decoder_analysis.hpp); this file runs them on the task's held-out batches, in slices.
#pragma once

#include <utility>
#include <vector>

#include "learn/decoder_analysis.hpp"
#include "lessons/learned_heads/task.hpp"

namespace attn::lessons {

struct AblationStudy {
  InductionEval base;
  std::vector<InductionEval> zero, mean;  ///< one per head (layer-major): that head alone ablated
  std::vector<std::vector<double>> head_means;  ///< layers·heads × d_k, from the held-out batch
};

/// Ablates each head alone (zero, then mean over `batch`'s positions and sequences).
AblationStudy ablate_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                               const std::vector<double>& params, const InductionBatch& batch);

struct PatchingStudy {
  double clean_loss = 0.0, corrupt_loss = 0.0;
  std::vector<double> patched_loss;  ///< per head: the corrupted run with that head patched from the clean run
  std::vector<double> recovered;     ///< (L_corrupt − L_patched) / (L_corrupt − L_clean); NaN-free: 0 when the two runs tie
};

/// Patches each head alone from the clean run into the corrupted one.
PatchingStudy patch_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                              const std::vector<double>& params, const InductionBatch& clean,
                              const InductionBatch& corrupt);

/// Training is parallel, generation is sequential, measured. The teacher-forced forward computes
/// every position of the display sequence from known tokens; the K/V-cache pass reproduces each
/// position's logits one step at a time. Generation's dependency is measured on a greedy run
/// from the display sequence's first token to T tokens: at each step j >= 1 the token fed (step
/// j − 1's argmax) is replaced by another, and step j's logits must move while every earlier
/// step's stay to the bit; and once, at the middle step, the forced run continues greedily to the
/// end and every later step must move. Greedy generation from the sequence cut after the first
/// token of the repeat continues the run (or not), token by token.
/// The generation fields (generation, dependent_steps, sequential_steps, forced_*, later_*) are
/// learn::GenerationDependency's, measured on a free greedy run of T tokens from tokens[0].
struct DecodeComparison : learn::GenerationDependency {
  std::vector<int> tokens;          ///< the display sequence
  double max_logit_diff = 0.0;      ///< parallel vs cached, over all positions and logits
  int teacher_forced_positions = 0; ///< logit rows one teacher-forced forward returned (T)
  std::vector<int> prompt, generated;  ///< greedy: prompt = up to the repeat's first token; then the model's tokens
  std::vector<int> expected;        ///< the run's continuation the generation should reproduce
  int correct = 0;                  ///< generated tokens equal to expected
  /// The same greedy generation for every held-out sequence: tokens generated equal to the run's
  /// continuation, out of all expected, and sequences whose whole continuation was right.
  int batch_correct = 0, batch_expected = 0, batch_complete = 0, batch_sequences = 0;
  /// Shifting targets by one makes the diagonal legal: query i may see key i (its own token)
  /// because it is trained on token i + 1, which the causal mask hides. Measured: for each cut c,
  /// every token after c is edited (each is the target of the position before it) and the logits of
  /// positions 0..c must not move (future_edit_max_diff, exactly 0 in exact causal attention), while
  /// position c + 1, which now reads an edited token, may (target_edit_max_diff: the first
  /// edited token is read by its own position).
  double future_edit_max_diff = 0.0, target_edit_max_diff = 0.0;
  int future_edits = 0;
};

/// The whole comparison at once (HeadsInterventionStudy with only its decoding part).
DecodeComparison compare_decoding(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                  const std::vector<double>& params, const InductionBatch& heldout);

/// Ablation, patching and decoding of one model, measured in slices: each advance() unit is one
/// pass over the held-out batch (the clean run and head means; one head zero- or mean-ablated;
/// the corrupted run; one head patched; the decoding comparison), so a model too big for one frame
/// is measured across frames with progress. Run to the end, the results are the same bits as
/// ablate_each_head, patch_each_head and compare_decoding, which are this study run at once.
/// The parameters are copied (a later training step does not change what is measured).
class HeadsInterventionStudy {
 public:
  struct Parts {
    bool ablation = true, patching = true, decoding = true;
  };
  /// clean: the held-out batch; corrupt: the same batch with its first copies corrupted
  /// (corrupt_first_copy). The clean run is always the first unit; then, as `parts` asks, two
  /// units per head (layers·heads: zero, then mean ablation), the corrupted run and one unit per
  /// head of patching, and the decoding comparison in parts (the teacher-forced and cached passes;
  /// generation's dependency with the display sequence's continuation; the held-out sequences'
  /// greedy continuations, kDecodeSequencesPerUnit per unit; the edited futures), each about one
  /// evaluation of the batch or less. advance() throws as evaluate does.
  HeadsInterventionStudy(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                         const std::vector<double>& params, const InductionBatch& clean, const InductionBatch& corrupt,
                         Parts parts);
  int advance(int max_units);  ///< returns the units run (0 once done)
  bool done() const { return unit_ >= units_total(); }
  int units_done() const { return unit_; }
  int units_total() const { return static_cast<int>(plan_.size()); }
  /// What unit units_done() measures next: "ablation", "patching", "decoding" or "done".
  const char* phase() const;
  const AblationStudy& ablation() const { return ablation_; }
  const PatchingStudy& patching() const { return patching_; }
  const DecodeComparison& decoding() const { return decoding_; }

 private:
  learn::DecoderConfig cfg_;
  learn::ParamLayout layout_;
  std::vector<double> params_;
  InductionBatch clean_, corrupt_;
  learn::DecoderActivations clean_acts_;
  /// The other passes' activations, reused: a pass then allocates and clears nothing (its buffers
  /// already have the batch's sizes), which was most of its time.
  learn::DecoderActivations scratch_;
  AblationStudy ablation_;
  PatchingStudy patching_;
  DecodeComparison decoding_;
  enum class Unit { clean, ablate_zero, ablate_mean, corrupt, patch, decode_teacher, decode_dependency, decode_batch, decode_edits };
  static constexpr int kDecodeSequencesPerUnit = 4;
  std::vector<double> teacher_logits_;  ///< the display sequence's teacher-forced logits (the edits compare to them)
  std::vector<std::pair<Unit, int>> plan_;  ///< each unit and its head (layer-major)
  int unit_ = 0;
};

/// K/V-cached decoding and greedy generation live with the model they decode (learn/).
using learn::decoder_greedy;
using learn::decoder_incremental_logits;

}  // namespace attn::lessons
