// lessons/learned_heads/scores.hpp — what is measured about each head, as one table.
//
// Each score reads one head's attention weights on one sequence (row = query, column = key) and is
// averaged over the held-out batch:
//   previous-token — mean weight of query i on key i − 1 (i >= 1);
//   induction      — over the repeat, mean weight of query i on key i − l + 1, the token after the
//                    earlier copy of the current token (Olsson et al. 2022, "In-context learning and
//                    induction heads", who studied models trained on text);
//   diagonal       — mean weight on key i; first-token — mean weight on key 0.
// head_score_table() lists them once: the checkpoint (format.hpp), the panel's JSON and its table
// iterate it, so a new score is a field of HeadScores and a row of the table (docs/ARCHITECTURE.md,
// "Adding a per-head score").
#pragma once

#include <string>
#include <vector>

#include "lessons/learned_heads/task.hpp"

namespace attn::lessons {

/// One head's scores, a field per row of head_score_table().
struct HeadScores {
  double previous_token = 0.0, induction = 0.0, diagonal = 0.0, first_token = 0.0;
};

/// One per-head score.
struct HeadScoreDef {
  const char* name;     ///< key in the JSON and name in the checkpoint: "previous_token"
  const char* label;    ///< the panel's column and line label: "prev"
  const char* caption;  ///< what it measures, one phrase: "mean weight on the previous token"
  double HeadScores::*field;
  /// The score of one T×T map (row-major) of a sequence laid out as `layout`; may throw
  /// Error(invalid_field) when the layout does not fit t.
  double (*of_map)(const double* weights, int t, const InductionLayout& layout);
};

/// Every score, in the order of the checkpoint's arrays and the JSON.
const std::vector<HeadScoreDef>& head_score_table();

/// The table's names in order (what a checkpoint records in its meta "scores").
std::vector<std::string> head_score_names();

/// Scores of one head on one sequence from its T×T weights (row-major). Throws Error(invalid_field)
/// when the layout does not fit T.
HeadScores head_scores(const double* weights, int t, const InductionLayout& layout);

/// Mean scores of every head (layers × heads, layer-major) over a forward's batch
/// (learn::decoder_head_score_means of each row of the table).
std::vector<HeadScores> batch_head_scores(const learn::DecoderConfig& cfg, const learn::DecoderActivations& acts,
                                          const std::vector<InductionLayout>& layouts);

/// What the panel shows at one step of a run, computed from the parameters on held-out data that
/// the trainer never draws (its own seeded stream): maps of every head on one display sequence,
/// mean head scores and the accuracy on a held-out batch.
struct HeadsSnapshot {
  int step = 0;
  InductionEval eval;                    ///< on the held-out batch
  std::vector<HeadScores> scores;        ///< layers·heads, on the held-out batch
  std::vector<std::vector<double>> maps; ///< layers·heads maps T×T (row-major) of the display sequence
};

HeadsSnapshot take_snapshot(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                            const std::vector<double>& params, int step, const InductionBatch& heldout);

}  // namespace attn::lessons
