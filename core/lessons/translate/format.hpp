// lessons/translate/format.hpp — the Translate run as data: its configuration as JSON, its record
// (learn::RunRecord) and checkpoint. The trainer's state (TranslateTrainer::state_checkpoint,
// learn::TrainerState) is written and read in format.cpp too.
#pragma once

#include <vector>

#include "learn/checkpoint.hpp"
#include "learn/run_record.hpp"
#include "lessons/translate/task.hpp"
#include "lessons/translate/trainer.hpp"

namespace attn::lessons {

/// A finished run as the panel keeps it: configuration, step, both models' parameters, their
/// per-step training losses and their validation losses at validation_steps.
struct TranslateRun {
  TranslateConfig config;
  int step = 0;
  std::vector<double> none_params, additive_params, none_losses, additive_losses;
  std::vector<int> validation_steps;
  std::vector<double> none_validation, additive_validation;
};

/// Every field of a configuration; two configurations are the same run iff their JSON is equal.
Json translate_config_json(const TranslateConfig& cfg);
/// Reads translate_config_json back. Throws Error(invalid_field) naming a missing field.
TranslateConfig translate_config_from_json(const Json& j);

/// Trains cfg to its last step (what Train does, in one call).
TranslateRun record_translate_run(const TranslateConfig& cfg);
TranslateRun translate_run_of(const TranslateTrainer& trainer);

/// The run as the generic record (learn/run_record.hpp): model "seq2seq", task "translate", the
/// configuration's JSON, parameter vectors "none" and "additive", and the five curves below.
learn::RunRecord translate_run_record(const TranslateRun& run);
/// Reads a record back. Throws Error(invalid_field) naming what does not fit (a configuration field,
/// the parameter counts).
TranslateRun translate_run_of_record(const learn::RunRecord& record);

/// meta {model: "seq2seq", task: "translate", config, step, none_fnv1a, additive_fnv1a}; arrays
/// "none.params", "additive.params", "none.losses", "additive.losses", "validation_steps",
/// "none.validation_losses", "additive.validation_losses" (float64 bits).
learn::Checkpoint translate_run_checkpoint(const TranslateRun& run);
/// Throws Error(invalid_field) naming what does not fit (another task, sizes, a hash mismatch).
TranslateRun translate_run_from_checkpoint(const learn::Checkpoint& ckpt);

}  // namespace attn::lessons
