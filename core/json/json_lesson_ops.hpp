// json/json_lesson_ops.hpp — the lesson's JSON ops (its claims as experiments).
//
// run_case (json/json_case.cpp) dispatches through the op table (json/ops.hpp); these ops are its
// lesson part (attn::lesson_ops()).
// Each op reads one object and answers with the to_json of its struct (json/lesson_json.hpp);
// unknown fields are refused (invalid_field), as the core ops do. Matrices are arrays of rows.
//
//   prefix_isolation  {x, w_q, w_k, w_v, from=3, amount=100}
//   key_padding       {x, w_q, w_k, w_v, key_valid:[bool×T], amount=100}
//   empty_rows        {query, key, value, mask}             both policies; refusal as data
//   causal_alignments {tq, tk}
//   attribution       {weights:[Tk], value:Tk×d_v}
//   scaling           {d_k:[..], samples, seed, bins, range, keys, rows}   (defaults: ScalingInput)
//   softmax_stability {logits:[..]}
//   additive          {decoder_state:[d_s], encoder_states:Tk×d_h, w_s:d_a×d_s, w_h:d_a×d_h,
//                      bias:[d_a], v:[d_a], key_valid:[bool×Tk]?} → {scores (null where invalid),
//                      weights, context, ...}
//   score_functions   {decoder_state, encoder_states, w_general:d_s×d_h, w_s, w_h, bias, v, key_valid?}
//   additive_decoder  {source, target, seed, d_h, d_s, d_a}
//   rope              {x:T×d, positions:[T]?, base=10000} → {output}
//   position_symmetry {sentence, seed, d_model, permutation, causal, positions:"none"|"sinusoidal"|"rope"}
//   temperature       {query, key, value, mask, scale, empty_rows, temperature=1, hard=false}
//   lstm              {x:T×D, w_ih:4H×D, w_hh:4H×H, b_ih:[4H], b_hh:[4H]} → {h, h_last, c_last}
//   timing            {seed, t, d, warmups, repeats}        (timings vary run to run)
//   cost              {t, d_model, heads, kv_groups, layers, context, cache_dtype, causal_width}
//                     (causal_width: the causal sliding window; "window" is its former spelling)
//                     → attn::attention_cost's exact counts (cost.hpp)
//   cost_timing       {t, d, dtype: "float32"|"float64", seed, warmups, repeats}
//                     dense vs tiled kernel timings (vary run to run)
//   lesson_replica    {sentence, seed, d_model}             torch's generator replayed
//   translation_data  {seed=2026, sentence?}                the Translate lesson's mini-language:
//                     vocabularies, split counts per bucket; a sentence's ids and reference
//   recall_tasks      {}                                    → {tasks}
//   recall            {task, choice?, weights?, values?, query?, key?, value?, mask?}
#pragma once

#include <optional>
#include <string>

#include "attn/attention.hpp"
#include "json/json_case.hpp"

namespace attn {

/// Runs one of the ops above; std::nullopt for an op it does not know (run_case then reports
/// unknown_op). Throws attn::Error with the codes of the underlying functions.
std::optional<Json> run_lesson_op(const std::string& op, const Json& request);

/// Names of the ops above (for run_case's unknown_op message and the README).
const char* lesson_op_names();

/// For the "attention" op: if `request` has "dropout": {"p": number in [0, 1], "seed": integer
/// >= 0 (default 0)}, applies attn::apply_attention_dropout(r, value, p, seed) and adds
/// "dropout_keep", "dropped_weights", "output_dropped", "dropout_row_sums" and "dropout_checks"
/// to `out`. No "dropout" field (or null): `out` is untouched. Errors: invalid_field (not an
/// object, unknown member, p outside [0, 1], seed not a non-negative integer), missing_field (p).
void add_attention_dropout(const Json& request, const AttentionResult& r, const Matrix& value, Json& out);

}  // namespace attn
