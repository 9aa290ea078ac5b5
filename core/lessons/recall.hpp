// lessons/recall.hpp — "check yourself" tasks per panel, checked live by the core.
//
// The lesson's recall questions (section e) turned into actions. Two kinds:
//   construct — the learner builds an input (weights and values, a mask, ...) and the core checks
//               that it has the asked-for property by running the real experiment on it;
//   predict   — the learner picks an answer before looking; the core computes the truth on a
//               fixed seeded example and compares.
// Tasks are data (id, panel, prompt, choices); the page draws them and calls check_recall().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lessons/check.hpp"
#include "attn/masks.hpp"
#include "attn/types.hpp"

namespace attn {

namespace lessons {
class HeadsTrainer;
class TranslateTrainer;
struct InductionBatch;
}  // namespace lessons

enum class RecallKind { construct, predict };

struct RecallTask {
  std::string id;                    ///< stable, e.g. "attribution.zero_top"
  std::string panel;                 ///< the panel that shows it, e.g. "attribution"
  RecallKind kind = RecallKind::predict;
  std::string prompt;                ///< what to do or to predict
  std::vector<std::string> choices;  ///< predict: the answers offered (index = choice)
  std::vector<std::string> reads;    ///< construct: the RecallAttempt fields the checker reads
  std::string lesson_ref;            ///< e.g. "recall 6"
};

/// Every task, grouped by panel in page order.
std::vector<RecallTask> recall_tasks();

/// What the learner hands in; each task reads only the fields named in its `reads`.
struct RecallAttempt {
  std::optional<int> choice;       ///< predict tasks: index into choices
  std::optional<Vector> weights;   ///< one attention row (a distribution)
  std::optional<Matrix> values;    ///< Tk×d_v
  std::optional<Matrix> query, key, value;
  MaskSpec mask;                   ///< allowed mask (true = may attend)
  /// The Learned heads panel's model as it stands and its held-out batch ("heads_model"): the
  /// truth of a task that reads them is measured on that model (not owned; must outlive the call).
  const lessons::HeadsTrainer* heads_model = nullptr;
  const lessons::InductionBatch* heads_heldout = nullptr;
  /// The Translate panel's pair as it stands ("translate_model"), for the tasks measured on it.
  const lessons::TranslateTrainer* translate_model = nullptr;
};

struct RecallVerdict {
  std::string task_id;
  bool pass = false;
  std::string feedback;      ///< what the core found, in words
  std::vector<Check> checks; ///< the measured facts behind the verdict
};

/// Checks one attempt. A malformed construct attempt (say, weights that are not a distribution)
/// is a failed verdict carrying the core's error message, not an exception.
/// Errors (thrown): invalid_field (unknown task id; a predict task without a choice, or a
/// choice out of range), missing_field (a task without a field it reads, e.g. "heads_model").
RecallVerdict check_recall(const std::string& task_id, const RecallAttempt& attempt);

}  // namespace attn
