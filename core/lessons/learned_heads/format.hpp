// lessons/learned_heads/format.hpp — the Learned heads run written down: its configuration as
// JSON, the run record the panel keeps, its checkpoint, and the trainer's state bytes
// (HeadsTrainer::state_checkpoint / from_state / load_state are defined in format.cpp). Kept in
// one file so that the record can move to a shared run-record type as one piece.
#pragma once

#include <vector>

#include "learn/checkpoint.hpp"
#include "lessons/learned_heads/scores.hpp"
#include "lessons/learned_heads/trainer.hpp"

namespace attn::lessons {

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
/// params_fnv1a, scores: head_score_names()}, arrays "params", "losses", "other_losses",
/// "snapshot_steps", "snapshot_eval" (loss, accuracy, other_loss, counted per snapshot) and
/// "snapshot_scores" (per snapshot, per head, one number per name of meta "scores").
learn::Checkpoint heads_run_checkpoint(const HeadsRun& run);

/// Reads a run back (snapshots without maps). A score of head_score_table() that the checkpoint
/// does not record (an older or shorter list) is recomputed: the run is replayed from its seed
/// (record_heads_run, the same bits) and accepted only when the replay's parameters hash to the
/// recorded ones. Throws Error(invalid_field) naming what does not fit: another model or task, a
/// configuration the trainer refuses, array sizes that do not match the configuration and the
/// score list, a parameter hash that differs from the meta's, or the missing score when the
/// replay does not reproduce the run.
HeadsRun heads_run_from_checkpoint(const learn::Checkpoint& ckpt);

}  // namespace attn::lessons
