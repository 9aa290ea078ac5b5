#include "lessons/learned_heads/scores.hpp"

#include <string>

#include "attn/error.hpp"
#include "learn/decoder_analysis.hpp"

namespace attn::lessons {
namespace {

double previous_token(const double* w, int t, const InductionLayout&) { return learn::previous_token_score(w, t); }
double diagonal(const double* w, int t, const InductionLayout&) { return learn::diagonal_score(w, t); }
double first_token(const double* w, int t, const InductionLayout&) { return learn::first_token_score(w, t); }

double induction(const double* w, int t, const InductionLayout& lay) {
  if (lay.prefix < 0 || lay.run < 1 || lay.prefix + 2 * lay.run > t)
    throw Error(ErrorCode::invalid_field, "the layout (prefix " + std::to_string(lay.prefix) + ", run " +
                                              std::to_string(lay.run) + ") does not fit T = " + std::to_string(t));
  return learn::induction_score(w, t, lay.repeat_start(), lay.run);
}

}  // namespace

const std::vector<HeadScoreDef>& head_score_table() {
  static const std::vector<HeadScoreDef> table = {
      {"previous_token", "prev", "mean weight on the previous token", &HeadScores::previous_token, previous_token},
      {"induction", "ind",
       "over the repeat, mean weight on the token after the earlier copy of the current token",
       &HeadScores::induction, induction},
      {"diagonal", "diag", "mean weight on itself", &HeadScores::diagonal, diagonal},
      {"first_token", "first", "mean weight on position 0", &HeadScores::first_token, first_token},
  };
  return table;
}

std::vector<std::string> head_score_names() {
  std::vector<std::string> names;
  for (const HeadScoreDef& s : head_score_table()) names.emplace_back(s.name);
  return names;
}

HeadScores head_scores(const double* w, int t, const InductionLayout& lay) {
  HeadScores s;
  for (const HeadScoreDef& def : head_score_table()) s.*def.field = def.of_map(w, t, lay);
  return s;
}

std::vector<HeadScores> batch_head_scores(const learn::DecoderConfig& cfg, const learn::DecoderActivations& a,
                                          const std::vector<InductionLayout>& layouts) {
  std::vector<HeadScores> out(static_cast<size_t>(cfg.layers) * cfg.heads);
  for (const HeadScoreDef& def : head_score_table()) {
    const std::vector<double> means = learn::decoder_head_score_means<double>(
        cfg, a, [&](const double* w, int t, int b) { return def.of_map(w, t, layouts[static_cast<size_t>(b)]); });
    for (size_t i = 0; i < out.size(); ++i) out[i].*def.field = means[i];
  }
  return out;
}

HeadsSnapshot take_snapshot(const learn::DecoderConfig& cfg, const learn::ParamLayout& layout,
                            const std::vector<double>& params, int step, const InductionBatch& heldout) {
  HeadsSnapshot snap;
  snap.step = step;
  learn::DecoderActivations a;
  snap.eval = evaluate(cfg, layout, params, heldout, nullptr, &a);
  snap.scores = batch_head_scores(cfg, a, heldout.layouts);
  snap.maps = learn::decoder_head_maps(cfg, a, 0);  // the display sequence
  return snap;
}

}  // namespace attn::lessons
