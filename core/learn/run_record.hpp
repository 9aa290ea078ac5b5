// learn/run_record.hpp — what a trained lesson keeps of a run, as checkpoints (learn/checkpoint.hpp).
//
// Two forms, one protocol for every trainer:
// - RunRecord, a finished run: the configuration as JSON, the step, named parameter vectors (each
//   hashed in the meta, FNV-1a of its bits) and named curves (losses, validation steps, figures).
//   The shipped checkpoints and a panel's Save are this form; reading one back checks every hash.
// - TrainerState, a run under way: the same, plus each model's Adam state and the trainer's own
//   fields (its data order, a measurement part-way). A trainer restored from it and advanced gives
//   the bits the original would have: how a run moves to a Web Worker and back.
// The lesson names its arrays and says what its configuration JSON is; everything written and
// checked here is the same for every lesson.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "learn/checkpoint.hpp"
#include "learn/optim.hpp"

namespace attn::learn {

/// A named float64 array: a parameter vector, a loss curve, a list of steps.
using NamedArray = std::pair<std::string, std::vector<double>>;

/// The array of `arrays` called `name`. Throws Error(invalid_field) "`whose`: no array `name`".
const std::vector<double>& named_array(const std::vector<NamedArray>& arrays, const std::string& name,
                                       const char* whose);

// ---------------------------------------------------------------- a finished run

struct RunRecord {
  std::string model, task;  ///< meta "model" and "task": which lesson trained what
  Json config;              ///< the lesson's configuration; two runs are the same run iff equal
  int step = 0;             ///< steps trained
  /// Parameter vectors by name: array "<name>.params" and meta hash "<name>_fnv1a" ("params" and
  /// "params_fnv1a" for the name ""), in file order.
  std::vector<NamedArray> params;
  std::vector<NamedArray> curves;  ///< arrays by their own names, in file order, after the parameters

  /// Throws Error(invalid_field) naming an absent vector or curve.
  const std::vector<double>& param(const std::string& name) const { return named_array(params, name, "run record"); }
  const std::vector<double>& curve(const std::string& name) const { return named_array(curves, name, "run record"); }
};

/// What a lesson's record holds: its meta identity, how an error names it ("a translate run"),
/// and the names of its parameter vectors and curves.
struct RunRecordKind {
  std::string model, task, what;
  std::vector<std::string> params, curves;
};

/// The checkpoint of a run: meta {model, task, config, step, one params_fnv1a hash per parameter
/// vector (learn::params_fnv1a)}; arrays: the parameter vectors, then the curves.
Checkpoint run_record_checkpoint(const RunRecord& run);

/// Reads run_record_checkpoint back, keeping the arrays `kind` names. Throws Error(invalid_field):
/// "checkpoint: not <what> (model M, task T)", a meta without a config or an integer step, an
/// absent array, "a parameter hash differs from the meta's" (a damaged or edited file). The
/// configuration and the sizes are the lesson's to check.
RunRecord run_record_from_checkpoint(const Checkpoint& ckpt, const RunRecordKind& kind);

// ---------------------------------------------------------------- a run under way

struct TrainerState {
  std::string model, task;
  Json config;  ///< as RunRecord::config
  int step = 0;
  /// The trainer's own meta fields (models read from files, data order, generator states, a
  /// measurement part-way), written beside model, task, kind "trainer_state", config and step.
  Json meta = Json::object();
  /// Parameter vectors by name: arrays "<name>_params" ("params" for the name "").
  std::vector<NamedArray> params;
  /// Adam's state of each model, by its parameter vector's name: meta "<name>_adam_step", arrays
  /// "<name>_adam_m" and "<name>_adam_v" ("adam_step", "adam_m", "adam_v" for the name "").
  std::vector<std::pair<std::string, AdamState>> adam;
  std::vector<NamedArray> arrays;  ///< curves and the trainer's own arrays, in file order

  const std::vector<double>& param(const std::string& name) const { return named_array(params, name, "trainer state"); }
  const std::vector<double>& array(const std::string& name) const { return named_array(arrays, name, "trainer state"); }
  /// Throws Error(invalid_field) naming an absent Adam state.
  const AdamState& adam_state(const std::string& name) const;
};

/// What a lesson's state holds: identity ("trainer state: not <what>" otherwise), the names of its
/// parameter vectors (each with an Adam state), its arrays, and the meta fields it needs: integers,
/// strings and any value.
struct TrainerStateKind {
  std::string model, task, what;
  std::vector<std::string> params, arrays;
  std::vector<std::string> meta_integers, meta_strings, meta_values;
};

/// The checkpoint of a state: meta {model, task, kind: "trainer_state", config, step, the Adam
/// steps, and state.meta's fields}; arrays: the parameter vectors, each model's Adam moments (m then
/// v), then state.arrays.
Checkpoint trainer_state_checkpoint(const TrainerState& state);

/// Reads trainer_state_checkpoint back. Throws Error(invalid_field) naming what does not fit:
/// another model, task or kind; a meta field absent or of the wrong type ("trainer state: 'k'
/// missing"); an absent array; Adam moments that are neither empty (Adam step 0) nor one per
/// parameter of their vector, or a negative Adam step.
TrainerState trainer_state_from_checkpoint(const Checkpoint& ckpt, const TrainerStateKind& kind);

// ---------------------------------------------------------------- configuration fields every trainer has

/// Adam's configuration as a record's configuration holds it: {lr, beta1, beta2, eps, weight_decay}.
Json adam_config_json(const AdamConfig& adam);
/// Reads adam_config_json back. Throws Error(invalid_field) "`where`: 'key' missing" for a field
/// that is absent or not a number (a null `adam` misses every field).
AdamConfig adam_config_from_json(const Json& adam, const std::string& where);

/// A state's step must lie in 0..steps. Throws Error(invalid_field) giving both.
void require_state_step(int step, int steps);

}  // namespace attn::learn
