// json/lesson_json.hpp — JSON views of the lesson's experiment structs, for the page's state() and the JSON ops.
//
// Conventions (as json/json_case.hpp): matrices are arrays of rows, vectors arrays of numbers,
// boolean matrices arrays of rows of true/false; numbers round-trip exactly; a NaN or infinity
// is written as null (JSON has neither) — fields where that can happen say so.
#pragma once

#include "attn/additive.hpp"
#include "lessons/additive_checks.hpp"
#include "lessons/additive_decoder.hpp"
#include "lessons/additive_trained.hpp"
#include "lessons/attribution.hpp"
#include "lessons/cost.hpp"
#include "lessons/dropout.hpp"
#include "json/json_case.hpp"
#include "lessons/masking_claims.hpp"
#include "lessons/recall.hpp"
#include "attn/rope.hpp"
#include "lessons/position_symmetry.hpp"
#include "lessons/scaling.hpp"
#include "lessons/temperature.hpp"
#include "lessons/timing.hpp"
#include "lessons/torch_replica.hpp"

namespace attn {

Json to_json(const Vector& v);             ///< array of numbers (NaN/inf → null)
Json to_json(const BoolMatrix& m);         ///< array of rows of booleans
Json to_json(const PrefixIsolationResult& r);
Json to_json(const KeyPaddingResult& r);
Json to_json(const EmptyRowDemo& r);
Json to_json(const CausalAlignmentTable& r);
Json to_json(const AttributionResult& r);  ///< remove_key_change: null where impossible
Json to_json(const ScalingResult& r);
/// {lo, hi, y_max, sd, scaled_sd, narrowing, caption}; the study itself is serialised on its own.
Json to_json(const ScalingHistograms& r);
Json to_json(const SoftmaxStability& r);   ///< naive_exp / naive_weights: null where inf / NaN
/// scores: null where invalid; checks: the claims measured on r (lessons/additive_checks.hpp)
Json to_json(const AdditiveResult& r, const std::vector<Check>& checks);
/// scores: null where invalid; checks: as above
Json to_json(const ScoringComparison& r, const std::vector<Check>& checks);
Json to_json(const AdditiveDecoderDemo& r);
/// {source_words, target_words, steps, step, feed, previous_word, target_word, model_word,
///  model_probability, encoder_states, state, w_s, w_h, bias, v, attention (as AdditiveResult),
///  model_weights, note, checks}.
Json to_json(const lessons::TrainedAdditiveStep& r, lessons::DecoderFeed feed);
Json to_json(const PositionSymmetryResult& r);
Json to_json(const TemperatureResult& r);
Json to_json(const TemperatureGradientTrend& r);
Json to_json(const AttentionDropout& r);
Json to_json(const LstmResult& r);
Json to_json(const TimingFixture& r);
Json to_json(const LessonReplica& r);
Json to_json(const RecallTask& t);
Json to_json(const std::vector<RecallTask>& tasks);
Json to_json(const RecallVerdict& v);
Json to_json(const CostResult& r);    ///< counts as exact integers (uint64)
Json to_json(const KernelTiming& r);

}  // namespace attn
