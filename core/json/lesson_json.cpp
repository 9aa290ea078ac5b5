#include "json/lesson_json.hpp"
#include "learn/json_obj.hpp"

#include <cmath>

namespace attn {
namespace {

Json num(double x) { return std::isfinite(x) ? Json(x) : Json(); }

Json nums(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push_back(num(x));
  return a;
}

Json bools(const std::vector<bool>& v) {
  Json a = Json::array();
  for (bool b : v) a.push_back(b);
  return a;
}

// Vector with null where !valid.
Json masked_vector(const Vector& v, const std::vector<bool>& valid) {
  Json a = Json::array();
  for (Index i = 0; i < v.size(); ++i) a.push_back(valid[static_cast<size_t>(i)] ? num(v(i)) : Json());
  return a;
}

}  // namespace

Json to_json(const Vector& v) {
  Json a = Json::array();
  for (Index i = 0; i < v.size(); ++i) a.push_back(num(v(i)));
  return a;
}

Json to_json(const BoolMatrix& m) {
  Json rows = Json::array();
  for (Index i = 0; i < m.rows(); ++i) {
    Json row = Json::array();
    for (Index j = 0; j < m.cols(); ++j) row.push_back(static_cast<bool>(m(i, j)));
    rows.push_back(std::move(row));
  }
  return rows;
}

Json to_json(const PrefixIsolationResult& r) {
  return ::attn::obj({{"from", r.from},
              {"amount", r.amount},
              {"x", to_json(r.x)},
              {"x_changed", to_json(r.x_changed)},
              {"causal_output", to_json(r.causal_output)},
              {"causal_output_changed", to_json(r.causal_output_changed)},
              {"unmasked_output", to_json(r.unmasked_output)},
              {"unmasked_output_changed", to_json(r.unmasked_output_changed)},
              {"causal_row_change", nums(r.causal_row_change)},
              {"unmasked_row_change", nums(r.unmasked_row_change)},
              {"causal_prefix_change", r.causal_prefix_change},
              {"unmasked_prefix_change", r.unmasked_prefix_change},
              {"checks", to_json(r.checks)}});
}

Json to_json(const KeyPaddingResult& r) {
  return ::attn::obj({{"key_valid", bools(r.key_valid)},
              {"ignored_by_loss", bools(r.ignored_by_loss)},
              {"output", to_json(r.attention.output)},
              {"weights", to_json(r.attention.weights)},
              {"scores", scores_to_json(r.attention.scores, r.attention.allowed)},
              {"output_changed", to_json(r.output_changed)},
              {"max_padded_weight", r.max_padded_weight},
              {"valid_rows_change", r.valid_rows_change},
              {"padded_rows_change", r.padded_rows_change},
              {"checks", to_json(r.checks)}});
}

Json to_json(const EmptyRowDemo& r) {
  return ::attn::obj({{"allowed", to_json(r.allowed)},
              {"empty_row", bools(r.empty_row)},
              {"rejected", r.rejected},
              {"error", r.rejected ? ::attn::obj({{"code", r.error_code}, {"message", r.error_message}}) : Json()},
              {"zero_policy", to_json(r.zero_policy)},
              {"checks", to_json(r.checks)}});
}

Json to_json(const CausalAlignmentTable& r) {
  return ::attn::obj({{"tq", r.tq},
              {"tk", r.tk},
              {"top_left", to_json(r.top_left)},
              {"bottom_right", to_json(r.bottom_right)},
              {"top_left_last_key", r.top_left_last_key},
              {"bottom_right_last_key", r.bottom_right_last_key},
              {"square_refused", r.square_refused},
              {"square_message", r.square_message},
              {"checks", to_json(r.checks)}});
}

Json to_json(const AttributionResult& r) {
  return ::attn::obj({{"weights", to_json(r.weights)},
              {"values", to_json(r.values)},
              {"contributions", to_json(r.contributions)},
              {"contribution_norms", to_json(r.contribution_norms)},
              {"output", to_json(r.output)},
              {"zero_value_change", to_json(r.zero_value_change)},
              {"remove_key_change", masked_vector(r.remove_key_change, r.remove_key_possible)},
              {"top_weight_key", r.top_weight_key},
              {"top_contribution_key", r.top_contribution_key},
              {"checks", to_json(r.checks)}});
}

Json to_json(const ScalingHistograms& r) {
  return ::attn::obj({{"lo", r.lo},
              {"hi", r.hi},
              {"y_max", r.y_max},
              {"sd", r.sd},
              {"scaled_sd", r.scaled_sd},
              {"narrowing", r.narrowing},
              {"caption", r.caption}});
}

Json to_json(const ScalingResult& r) {
  Json dot = Json::array(), sat = Json::array();
  for (const DotProductStats& s : r.dot)
    dot.push_back(::attn::obj({{"d_k", s.d_k},
                       {"mean", s.mean},
                       {"variance", s.variance},
                       {"scaled_mean", s.scaled_mean},
                       {"scaled_variance", s.scaled_variance},
                       {"variance_tolerance", s.variance_tolerance},
                       {"histogram", s.histogram},
                       {"scaled_histogram", s.scaled_histogram},
                       {"below", s.below},
                       {"above", s.above},
                       {"scaled_below", s.scaled_below},
                       {"scaled_above", s.scaled_above},
                       {"tied_mean", s.tied_mean},
                       {"tied_scaled_mean", s.tied_scaled_mean},
                       {"tied_tolerance", s.tied_tolerance}}));
  for (const SaturationStats& s : r.saturation)
    sat.push_back(::attn::obj({{"d_k", s.d_k},
                       {"max_weight", s.max_weight},
                       {"entropy", s.entropy},
                       {"scaled_max_weight", s.scaled_max_weight},
                       {"scaled_entropy", s.scaled_entropy},
                       {"gradient_norm_unscaled", s.gradient_norm_unscaled},
                       {"gradient_norm_scaled", s.gradient_norm_scaled}}));
  return ::attn::obj({{"samples", r.input.samples}, {"seed", r.input.seed},   {"keys", r.input.keys},
              {"rows", r.input.rows},       {"bin_edges", r.bin_edges}, {"dot", dot},
              {"saturation", sat},          {"uniform_entropy", r.uniform_entropy},
              {"uniform_gradient_norm", r.uniform_gradient_norm},
              {"checks", to_json(r.checks)}});
}

Json to_json(const SoftmaxStability& r) {
  return ::attn::obj({{"logits", r.logits},
              {"row_max", r.row_max},
              {"naive_exp", nums(r.naive_exp)},
              {"naive_weights", nums(r.naive_weights)},
              {"naive_overflowed", r.naive_overflowed},
              {"stable_weights", nums(r.stable_weights)},
              {"naive_stable_difference", num(r.naive_stable_difference)},
              {"max_weight", r.max_weight},
              {"entropy", r.entropy},
              {"saturated", ::attn::obj({{"d_k", r.saturated.d_k}, {"keys", r.saturated.keys}, {"rows", r.saturated.rows},
                             {"seed", r.saturated.seed}, {"largest_abs_logit", r.saturated.largest_abs_logit},
                             {"max_abs_difference", num(r.saturated.max_abs_difference)},
                             {"mean_max_weight_naive", r.saturated.mean_max_weight_naive},
                             {"mean_max_weight_stable", r.saturated.mean_max_weight_stable}})},
              {"caption", r.caption},
              {"checks", to_json(r.checks)}});
}

Json to_json(const AdditiveResult& r, const std::vector<Check>& checks) {
  return ::attn::obj({{"scores", masked_vector(r.scores, r.key_valid)},
              {"weights", to_json(r.weights)},
              {"context", to_json(r.context)},
              {"key_valid", bools(r.key_valid)},
              {"query_part", to_json(r.query_part)},
              {"hidden", to_json(r.hidden)},
              {"checks", to_json(checks)}});
}

Json to_json(const ScoringComparison& r, const std::vector<Check>& checks) {
  Json scores = Json::array();
  for (Index f = 0; f < r.scores.rows(); ++f) scores.push_back(masked_vector(r.scores.row(f).transpose(), r.key_valid));
  return ::attn::obj({{"names", r.names},
              {"scores", scores},
              {"weights", to_json(r.weights)},
              {"contexts", to_json(r.contexts)},
              {"key_valid", bools(r.key_valid)},
              {"checks", to_json(checks)}});
}

Json to_json(const AdditiveDecoderDemo& r) {
  Json steps = Json::array();
  for (const AdditiveDecoderStep& s : r.steps)
    steps.push_back(::attn::obj({{"target_token", s.target_token},
                         {"state", to_json(s.state)},
                         {"attention", to_json(s.attention, s.attention_checks)},
                         {"comparison", s.comparison.names.empty() ? Json() : to_json(s.comparison, s.comparison_checks)}}));
  return ::attn::obj({{"source_tokens", r.source_tokens},
              {"target_tokens", r.target_tokens},
              {"encoder_states", to_json(r.encoder_states)},
              {"w_s", to_json(r.params.w_s)},
              {"w_h", to_json(r.params.w_h)},
              {"bias", to_json(r.params.bias)},
              {"v", to_json(r.params.v)},
              {"w_general", to_json(r.w_general)},
              {"alignment", to_json(r.alignment)},
              {"steps", steps},
              {"note", r.note},
              {"checks", to_json(r.checks)}});
}

Json to_json(const lessons::TrainedAdditiveStep& r, lessons::DecoderFeed feed) {
  return ::attn::obj({{"source_words", r.source_words},
              {"target_words", r.target_words},
              {"steps", r.steps},
              {"step", r.step},
              {"feed", feed == lessons::DecoderFeed::greedy ? "greedy" : "teacher_forced"},
              {"previous_word", r.previous_word},
              {"target_word", r.target_word},
              {"model_word", r.model_word},
              {"model_probability", r.model_probability},
              {"encoder_states", to_json(r.encoder_states)},
              {"state", to_json(r.state)},
              {"w_s", to_json(r.params.w_s)},
              {"w_h", to_json(r.params.w_h)},
              {"bias", to_json(r.params.bias)},
              {"v", to_json(r.params.v)},
              {"attention", to_json(r.attention, {})},
              {"model_weights", to_json(r.model_weights)},
              {"note", r.note},
              {"checks", to_json(r.checks)}});
}

Json to_json(const PositionSymmetryResult& r) {
  return ::attn::obj({{"tokens", r.tokens},
              {"permuted_tokens", r.permuted_tokens},
              {"x", to_json(r.x)},
              {"px", to_json(r.px)},
              {"f_x", to_json(r.f_x)},
              {"f_px", to_json(r.f_px)},
              {"p_f_x", to_json(r.p_f_x)},
              {"max_diff", r.max_diff},
              {"pooled_x", to_json(r.pooled_x)},
              {"pooled_px", to_json(r.pooled_px)},
              {"pooled_diff", r.pooled_diff},
              {"weights_x", to_json(r.weights_x)},
              {"weights_px", to_json(r.weights_px)},
              {"rope_relative_diff", r.rope_relative_diff},
              {"checks", to_json(r.checks)}});
}

Json to_json(const TemperatureResult& r) {
  Json j = to_json(r.attention);
  j["temperature"] = r.temperature;
  j["hard"] = r.hard;
  j["max_weight"] = nums(r.max_weight);
  j["entropy"] = nums(r.entropy);
  j["gradient_norm"] = nums(r.gradient_norm);
  j["gradient_probed"] = bools(r.gradient_probed);
  j["hull"] = to_json(r.hull);
  j["hull_excess"] = nums(r.hull_excess);
  j["gradient_note"] = r.gradient_note;
  j["checks"] = to_json(r.checks);
  return j;
}

Json to_json(const TemperatureGradientTrend& r) {
  return ::attn::obj({{"temperature", r.temperature},
              {"reference_temperature", r.reference_temperature},
              {"mean_norm", r.mean_norm},
              {"reference_mean_norm", r.reference_mean_norm},
              {"max_norm", r.max_norm},
              {"ratio", r.ratio},
              {"factor_ratio", r.factor_ratio},
              {"bracket_ratio", r.bracket_ratio},
              {"caption", r.caption}});
}

Json to_json(const AttentionDropout& r) {
  return ::attn::obj({{"p", r.p},
              {"seed", r.seed},
              {"dropout_keep", to_json(r.keep)},
              {"dropped_weights", to_json(r.dropped_weights)},
              {"output_dropped", to_json(r.output_dropped)},
              {"dropout_row_sums", nums(r.row_sums)},
              {"checks", to_json(r.checks)}});
}

Json to_json(const LstmResult& r) {
  return ::attn::obj({{"h", to_json(r.h)}, {"h_last", to_json(r.h_last)}, {"c_last", to_json(r.c_last)}});
}

Json to_json(const TimingFixture& r) {
  return ::attn::obj({{"t", r.t},
              {"d", r.d},
              {"warmups", r.warmups},
              {"repeats", r.repeats},
              {"lstm_seconds", nums(r.lstm_seconds)},
              {"attention_seconds", nums(r.attention_seconds)},
              {"lstm_median", r.lstm_median},
              {"attention_median", r.attention_median},
              {"ran", r.ran},
              {"clock", r.clock},
              {"caveat", r.caveat},
              {"checks", to_json(r.checks)}});
}

Json to_json(const LessonReplica& r) {
  return ::attn::obj({{"tokens", r.tokens},
              {"vocab", r.vocab.tokens},
              {"embedding", to_json(r.embedding_table)},
              {"x", to_json(r.x)},
              {"W_q", to_json(r.torch_w_q)},
              {"W_k", to_json(r.torch_w_k)},
              {"W_v", to_json(r.torch_w_v)},
              {"w_q", to_json(r.weights.w_q)},
              {"w_k", to_json(r.weights.w_k)},
              {"w_v", to_json(r.weights.w_v)},
              {"weights", to_json(r.attention.attention.weights)},
              {"output", to_json(r.attention.attention.output)},
              {"checks", to_json(r.checks)}});
}

Json to_json(const RecallTask& t) {
  return ::attn::obj({{"id", t.id},
              {"panel", t.panel},
              {"kind", t.kind == RecallKind::predict ? "predict" : "construct"},
              {"prompt", t.prompt},
              {"choices", t.choices},
              {"reads", t.reads},
              {"lesson_ref", t.lesson_ref}});
}

Json to_json(const std::vector<RecallTask>& tasks) {
  Json a = Json::array();
  for (const RecallTask& t : tasks) a.push_back(to_json(t));
  return a;
}

Json to_json(const RecallVerdict& v) {
  return ::attn::obj({{"task", v.task_id}, {"pass", v.pass}, {"feedback", v.feedback}, {"checks", to_json(v.checks)}});
}

Json to_json(const CostResult& r) {
  Json cache = Json::array();
  for (const KvCacheCost& c : r.kv_cache)
    cache.push_back({{"name", c.name}, {"kv_heads", c.kv_heads}, {"bytes", c.bytes}, {"window_bytes", c.window_bytes}});
  const CostInput& in = r.input;
  return ::attn::obj({{"input",
               ::attn::obj({{"t", in.t}, {"d_model", in.d_model}, {"heads", in.heads}, {"kv_groups", in.kv_groups},
                {"layers", in.layers}, {"context", in.context}, {"cache_dtype", dtype_name(in.cache_dtype)},
                {"window", in.causal_width}})},
              {"d_k", r.d_k},
              {"pairwise_flops", r.pairwise_flops},
              {"pairwise_flops_per_head", r.pairwise_flops_per_head},
              {"projection_flops", r.projection_flops},
              {"pairwise_share", r.pairwise_share},
              {"crossover_t", r.crossover_t},
              {"scores_bytes_f32", r.scores_bytes_f32},
              {"scores_bytes_f64", r.scores_bytes_f64},
              {"scores_bytes_all_f32", r.scores_bytes_all_f32},
              {"scores_bytes_all_f64", r.scores_bytes_all_f64},
              {"tile_q", r.tile_q},
              {"tile_k", r.tile_k},
              {"tiled_bytes_f32", r.tiled_bytes_f32},
              {"tiled_bytes_f64", r.tiled_bytes_f64},
              {"kv_cache", cache},
              {"window",
               ::attn::obj({{"t", r.window.t}, {"w", r.window.w}, {"causal_pairs", r.window.causal_pairs},
                {"visible_pairs", r.window.visible_pairs}, {"hidden_pairs", r.window.hidden_pairs},
                {"hidden_fraction", r.window.hidden_fraction}})},
              {"conventions", r.conventions}});
}

Json to_json(const KernelTiming& r) {
  const KernelTimingInput& in = r.input;
  return ::attn::obj({{"input",
               ::attn::obj({{"t", in.t}, {"d", in.d}, {"dtype", in.dtype == KernelDtype::float32 ? "float32" : "float64"},
                {"seed", in.seed}, {"warmups", in.warmups}, {"repeats", in.repeats}})},
              {"dense_seconds", nums(r.dense_seconds)},
              {"tiled_seconds", nums(r.tiled_seconds)},
              {"dense_median", r.dense_median},
              {"tiled_median", r.tiled_median},
              {"flops", r.flops},
              {"dense_gflops", r.dense_gflops},
              {"tiled_gflops", r.tiled_gflops},
              {"dense_extra_bytes", r.dense_extra_bytes},
              {"tiled_extra_bytes", r.tiled_extra_bytes},
              {"max_output_diff", r.max_output_diff},
              {"isa", r.isa},
              {"clock", r.clock},
              {"caveat", r.caveat},
              {"checks", to_json(r.checks)}});
}

}  // namespace attn
