// lessons/learned_heads.hpp — a tiny transformer trained on repeated runs, and what its heads do.
//
// The task: each sequence is a random-length prefix of random tokens, then a random run of random
// length l, then the same run again, then random filler up to the context. Only the repeat after
// its first token is predictable (position i predicts token i + 1), so the loss counts only those
// positions. Random layouts matter: with a fixed layout a model can copy from a fixed offset with
// no induction head at all.
//
// What is measured about each head (on its attention weights, row = query, column = key):
//   previous-token score — mean weight of query i on key i − 1 (i >= 1);
//   induction score      — over the repeat, mean weight of query i on key i − l + 1, the token after
//                          the earlier copy of the current token (Olsson et al. 2022, "In-context
//                          learning and induction heads", who studied models trained on text);
//   diagonal score       — mean weight on key i; first-token score — mean weight on key 0.
// A map alone is not an explanation: interventions test it. Zero ablation replaces a head's output
// by zeros, mean ablation by its mean over a held-out batch; activation patching copies one head's
// output from a clean run into a corrupted run (the first copy of the run replaced by other
// tokens) and reports the recovered fraction (L_corrupt − L_patched) / (L_corrupt − L_clean).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attn/random.hpp"
#include "learn/checkpoint.hpp"
#include "learn/decoder.hpp"
#include "learn/optim.hpp"

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

/// B sequences drawn with rng: prefix length, run length, then every token uniformly at random.
InductionBatch make_induction_batch(const InductionTask& task, Rng& rng, int batch);

/// The same sequences with the first copy of each run replaced by other random tokens (each
/// position gets a token different from the original), for activation patching.
InductionBatch corrupt_first_copy(const InductionBatch& clean, int vocab, Rng& rng);

struct HeadScores {
  double previous_token = 0.0, induction = 0.0, diagonal = 0.0, first_token = 0.0;
};

/// Scores of one head on one sequence from its T×T weights (row-major). Throws Error(invalid_field)
/// when the layout does not fit T.
HeadScores head_scores(const double* weights, int t, const InductionLayout& layout);

/// Mean scores of every head (layers × heads, layer-major) over a forward's batch.
std::vector<HeadScores> batch_head_scores(const learn::DecoderConfig& cfg, const learn::DecoderActivations& acts,
                                          const std::vector<InductionLayout>& layouts);

struct InductionEval {
  double loss = 0.0;        ///< mean cross-entropy on the predictable positions
  double accuracy = 0.0;    ///< fraction of predictable positions whose argmax is the target
  double other_loss = 0.0;  ///< mean cross-entropy at the other positions (not trained on)
  int counted = 0;
};

/// Loss and accuracy of params on a batch, optionally under a head intervention.
InductionEval evaluate(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                       const std::vector<double>& params, const InductionBatch& batch,
                       const learn::HeadIntervention* intervention = nullptr,
                       learn::DecoderActivations* acts_out = nullptr);

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

PatchingStudy patch_each_head(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                              const std::vector<double>& params, const InductionBatch& clean,
                              const InductionBatch& corrupt);

/// Training on the task in slices: advance(n) runs up to n Adam steps and can be called any number
/// of times; the batches come from the trainer's own seeded stream, so the weights after k steps are
/// the same bits however the k steps were sliced.
struct HeadsTrainingConfig {
  InductionTask task;
  learn::DecoderConfig model;  ///< vocab and context are taken from the task
  int batch = 16;
  learn::AdamConfig adam{3e-3, 0.9, 0.999, 1e-8, 0.0};
  double clip = 1.0;
  std::uint64_t seed = 17;
  int steps = 1800;
  int train_length = 0;  ///< training sequences' length (0 = the task's context); layouts fit it
};

/// The run configuration for training and measuring a given decoder (a loaded model) on `base`'s
/// task: the task's vocab becomes the model's and its context the shorter of the two; a model
/// whose context is shorter than the longest layout (prefix_max + 2·run_max) gets shorter runs
/// (run_max = min(run_max, context / 2), run_min at most that) and prefix (at most context −
/// 2·run_max). The model is `model`. Throws Error(invalid_field) for a vocabulary under 2 or a
/// context under 4 (a run of 2 seen twice).
HeadsTrainingConfig heads_config_for_model(const learn::DecoderConfig& model, HeadsTrainingConfig base);

/// Positions do not guarantee extrapolation. Accuracy on the predictable positions of held-out
/// sequences whose repeat is placed anywhere up to test_length (prefix uniform in
/// 0..test_length − 2·run), counted per target position. Train on shorter sequences
/// (HeadsTrainingConfig::train_length) and the rows of a learned position table beyond that length
/// never get a gradient; sinusoidal and RoPE positions can be evaluated beyond the model's context
/// (test_length > context), learned ones cannot (Error(invalid_field)).
struct PositionAccuracy {
  int test_length = 0, train_length = 0;
  std::vector<int> counted, correct;  ///< per target position 0..test_length−1
  double accuracy_within = 0.0;       ///< over positions < train_length
  double accuracy_beyond = 0.0;       ///< over positions >= train_length (0 if none counted)
};

PositionAccuracy accuracy_by_position(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                      const std::vector<double>& params, const InductionTask& task,
                                      int train_length, int test_length, std::uint64_t seed, int sequences = 64);

struct HeadsRun;

class HeadsTrainer {
 public:
  /// Validates the configuration (Error(invalid_field)) and draws the initial parameters.
  explicit HeadsTrainer(const HeadsTrainingConfig& cfg);
  /// A finished run restored from its record (a checkpoint): parameters, losses and step. Adam's
  /// moments are not recorded, so a restored run cannot continue; its step must equal its
  /// configuration's steps. Throws Error(invalid_field) when the record does not fit its config.
  explicit HeadsTrainer(const HeadsRun& run);
  /// A run that starts from `start` (a model read from a file, learn/model_file.hpp) instead of
  /// the seeded initial draw; Adam starts afresh. `model` is that model's configuration, kept as
  /// it is: its vocab must be the task's and its context at least the task's (the task's
  /// sequences are fed as they are; a longer context is not used). config().model is `model`.
  /// Throws Error(invalid_field) naming the vocab or context that does not fit, or when start is
  /// not the layout's size.
  HeadsTrainer(const HeadsTrainingConfig& cfg, const learn::DecoderConfig& model, const std::vector<double>& start);
  /// Runs at most max_steps more steps (never beyond cfg.steps); returns how many ran.
  int advance(int max_steps);
  int step() const { return step_; }
  bool done() const { return step_ >= cfg_.steps; }
  const HeadsTrainingConfig& config() const { return cfg_; }
  const learn::DecoderConfig& model() const { return model_; }
  /// log V (nats): the cross-entropy of a uniform guess over the model's vocabulary.
  double uniform_loss() const;
  const learn::ParamLayout& layout() const { return layout_; }
  const std::vector<double>& params() const { return params_; }
  const std::vector<double>& initial_params() const { return initial_; }
  /// Per step: the training loss on the predictable positions, and at the other positions.
  const std::vector<double>& losses() const { return losses_; }
  const std::vector<double>& other_losses() const { return other_losses_; }

  /// The run's whole state — configuration, model, parameters (and the initial ones), Adam's
  /// moments and step count, the data generator, step and losses — as a checkpoint (meta {model:
  /// "decoder", task: "induction", kind: "trainer_state", config, model_vocab, model_context,
  /// step, adam_step, data_rng}; arrays params, initial, adam_m, adam_v, losses, other_losses).
  /// A trainer restored from it and advanced gives the bits this one would have: how a run
  /// moves to a Web Worker and back.
  learn::Checkpoint state_checkpoint() const;
  /// A trainer at the state `ckpt` records (state_checkpoint). Throws Error(invalid_field) naming
  /// what does not fit: another kind of checkpoint, a configuration the trainer refuses, an array
  /// of the wrong size, a step beyond the configuration's or without one loss per step.
  static HeadsTrainer from_state(const learn::Checkpoint& ckpt);
  /// Takes over the state `ckpt` records, which must be of this run (the same configuration and
  /// model): the same checks as from_state, the trainer unchanged when one fails.
  void load_state(const learn::Checkpoint& ckpt);

 private:
  HeadsTrainingConfig cfg_;
  InductionTask train_task_;  ///< the task with context = train_length
  learn::DecoderConfig model_;
  learn::ParamLayout layout_;
  std::vector<double> params_, initial_, grads_;
  learn::AdamState adam_;
  Rng data_rng_;
  int step_ = 0;
  std::vector<double> losses_, other_losses_;
};

/// Positions do not guarantee extrapolation, measured per position signal: the same task, seed and
/// architecture trained once per signal on sequences of train_length tokens (runs short enough to
/// fit), then accuracy_by_position on sequences of test_length tokens — capped at the context for
/// learned positions, whose table ends there (its rows from train_length on never got a gradient);
/// sinusoidal, RoPE and no positions are evaluated up to test_length. Runs in slices like
/// HeadsTrainer: the results after k steps are the same bits however the steps were sliced.
struct ExtrapolationConfig {
  InductionTask task{16, 32, 0, 4, 3, 7};  ///< vocab, context, prefix 0–4, runs 3–7
  learn::DecoderConfig model;              ///< d_model, heads, layers, mlp (positions: each signal in turn)
  std::vector<learn::DecoderPositions> signals{learn::DecoderPositions::learned, learn::DecoderPositions::sinusoidal,
                                               learn::DecoderPositions::rope};
  int train_length = 20;
  int test_length = 48;
  int steps = 1000;  ///< per signal
  int batch = 16;
  double lr = 3e-3;
  std::uint64_t seed = 17;
  int sequences = 128;  ///< held-out sequences per signal
};

struct ExtrapolationResult {
  learn::DecoderPositions positions = learn::DecoderPositions::learned;
  PositionAccuracy accuracy;
  double final_loss = 0.0;  ///< mean training loss of the last 50 steps
};

class ExtrapolationStudy {
 public:
  /// Validates (Error(invalid_field)): at least one signal, test_length within 2·run_max..1024,
  /// and what HeadsTrainer checks for each model.
  explicit ExtrapolationStudy(const ExtrapolationConfig& cfg);
  /// Up to max_steps Adam steps of the model in training; a finished model is evaluated and the
  /// next one starts. Returns the steps run.
  int advance(int max_steps);
  bool done() const { return results_.size() == cfg_.signals.size(); }
  int steps_done() const { return steps_done_; }
  int steps_total() const { return cfg_.steps * static_cast<int>(cfg_.signals.size()); }
  const ExtrapolationConfig& config() const { return cfg_; }
  const std::vector<ExtrapolationResult>& results() const { return results_; }
  /// The test length used for a signal (the context for learned positions).
  int test_length(learn::DecoderPositions p) const;

 private:
  HeadsTrainingConfig model_config(learn::DecoderPositions p) const;
  ExtrapolationConfig cfg_;
  std::shared_ptr<HeadsTrainer> trainer_;
  std::vector<ExtrapolationResult> results_;
  int steps_done_ = 0;
};

/// What the panel shows at one step of a run, computed from the parameters on held-out data that
/// the trainer never draws (its own seeded stream): maps of every head on one display sequence,
/// mean head scores and the accuracy on a held-out batch.
struct HeadsSnapshot {
  int step = 0;
  InductionEval eval;                    ///< on the held-out batch
  std::vector<HeadScores> scores;        ///< layers·heads, on the held-out batch
  std::vector<std::vector<double>> maps; ///< layers·heads maps T×T (row-major) of the display sequence
};

/// Held-out data for a task: `batch` sequences for scores and accuracy, and one display sequence
/// (the first of them), from a stream seeded apart from any training stream.
InductionBatch heldout_batch(const InductionTask& task, std::uint64_t seed, int batch = 32);

HeadsSnapshot take_snapshot(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                            const std::vector<double>& params, int step, const InductionBatch& heldout);

/// Training is parallel, generation is sequential, measured. The teacher-forced forward computes
/// every position of the display sequence from known tokens; the K/V-cache pass reproduces each
/// position's logits one step at a time. Generation's dependency is measured on a greedy run
/// from the display sequence's first token to T tokens: at each step j >= 1 the token fed (step
/// j − 1's argmax) is replaced by another, and step j's logits must move while every earlier
/// step's stay to the bit; and once, at the middle step, the forced run continues greedily to the
/// end and every later step must move. Greedy generation from the sequence cut after the first
/// token of the repeat continues the run (or not), token by token.
struct DecodeComparison {
  std::vector<int> tokens;          ///< the display sequence
  double max_logit_diff = 0.0;      ///< parallel vs cached, over all positions and logits
  int teacher_forced_positions = 0; ///< logit rows one teacher-forced forward returned (T)
  /// Free greedy generation of T tokens from tokens[0]: generation[j] is the token fed at step j.
  std::vector<int> generation;
  /// Steps j (1..T−1) whose logits moved when the token fed at j was forced to another: each
  /// needs the previous step's output. sequential_steps = 1 + dependent_steps.
  int dependent_steps = 0, sequential_steps = 0;
  double forced_earlier_max_diff = 0.0;  ///< max change of any step before the forced one (0 exactly)
  double forced_step_min_diff = 0.0;     ///< min over j of the forced step's own max change (> 0)
  /// The middle step's forcing carried on greedily: later steps, and how many of them moved.
  int forced_at = 0, later_steps = 0, later_moved = 0;
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

/// K/V-cached decoding lives with the model it decodes (learn/decoder.hpp).
using learn::decoder_incremental_logits;

/// The record of a run as the panel keeps it: snapshots (held-out loss, accuracy and head scores)
/// at step 0, at every kHeadsSnapshotEvery steps and at the last step, on
/// heldout_batch(task, seed, kHeadsHeldout). A checkpoint stores the parameters, the per-step
/// losses and the snapshots' figures, not their maps (take_snapshot recomputes any map from
/// parameters; only step 0's and the last step's parameters are known after a restore).
constexpr int kHeadsSnapshotEvery = 100;
constexpr int kHeadsHeldout = 32;

struct HeadsRun {
  HeadsTrainingConfig config;
  int step = 0;
  std::vector<double> params, losses, other_losses;
  std::vector<HeadsSnapshot> snapshots;
};

/// Every field of a training configuration; two configurations are the same run iff their JSON
/// is equal.
Json heads_config_json(const HeadsTrainingConfig& cfg);

/// Trains cfg from its seed to its last step, taking the snapshots of the record (what the
/// panel's Train does, in one call). Throws Error(invalid_field) on a bad configuration.
HeadsRun record_heads_run(const HeadsTrainingConfig& cfg);

/// The run as a checkpoint: meta {model: "decoder", task: "induction", config, step,
/// params_fnv1a}, arrays "params", "losses", "other_losses", "snapshot_steps", "snapshot_eval"
/// (loss, accuracy, other_loss, counted per snapshot) and "snapshot_scores" (previous_token,
/// induction, diagonal, first_token per head per snapshot).
learn::Checkpoint heads_run_checkpoint(const HeadsRun& run);

/// Reads a run back (snapshots without maps). Throws Error(invalid_field) naming what does not
/// fit: another model or task, a configuration the trainer refuses, array sizes that do not match
/// the configuration, a parameter hash that differs from the meta's.
HeadsRun heads_run_from_checkpoint(const learn::Checkpoint& ckpt);

/// Greedy generation: appends n tokens, each the argmax of the cached forward's last logits.
std::vector<int> decoder_greedy(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                                const std::vector<double>& params, std::vector<int> prompt, int n);

/// The loss plot's caption, worded from its curve: what is plotted (averaged over `stride` steps
/// when > 1) against log V = uniform_loss, the loss of a uniform guess; then where the other
/// positions' training loss ends (other_curve.back()) against log V — within 10% of it "near",
/// above "confidently wrong" (nothing predicts those tokens and no loss is taken there), below
/// "something there was predictable" — and `heldout_other`'s held-out figure at `heldout_step`
/// when heldout_step >= 0. Never throws.
std::string loss_curve_caption(double uniform_loss, const std::vector<double>& other_curve, int stride,
                               double heldout_other, int heldout_step);

}  // namespace attn::lessons
