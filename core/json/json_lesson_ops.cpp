#include "json/json_lesson_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "json/lesson_json.hpp"
#include "attn/linalg.hpp"

namespace attn {
namespace {

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

bool has(const Json& obj, const char* field) {
  auto it = obj.find(field);
  return it != obj.end() && !it->is_null();
}

const Json& require(const Json& obj, const char* field) {
  if (!has(obj, field)) fail(ErrorCode::missing_field, std::string("missing field \"") + field + "\"");
  return obj.at(field);
}

void known_fields(const Json& obj, std::set<std::string> known, const std::string& op) {
  known.insert("op");
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!known.count(it.key())) fail(ErrorCode::invalid_field, "unknown field \"" + it.key() + "\" in " + op + " case");
}

long long integer(const Json& obj, const char* field, long long fallback, long long lo, long long hi) {
  if (!has(obj, field)) return fallback;
  const Json& j = obj.at(field);
  if (!j.is_number_integer()) fail(ErrorCode::invalid_field, std::string(field) + " must be an integer");
  const long long v = j.is_number_unsigned() && j.get<unsigned long long>() > static_cast<unsigned long long>(hi)
                          ? hi + 1
                          : j.get<long long>();
  if (v < lo || v > hi)
    fail(ErrorCode::invalid_field, std::string(field) + " must be between " + std::to_string(lo) + " and " +
                                       std::to_string(hi) + ", got " + j.dump());
  return v;
}

std::uint64_t seed_of(const Json& obj, const char* field, std::uint64_t fallback) {
  if (!has(obj, field)) return fallback;
  const Json& j = obj.at(field);
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (j.is_number_integer() && j.get<long long>() >= 0) return static_cast<std::uint64_t>(j.get<long long>());
  fail(ErrorCode::invalid_field, std::string(field) + " must be an integer >= 0");
}

double number(const Json& obj, const char* field, double fallback) {
  if (!has(obj, field)) return fallback;
  const Json& j = obj.at(field);
  if (!j.is_number()) fail(ErrorCode::invalid_field, std::string(field) + " must be a number");
  const double v = j.get<double>();
  if (!std::isfinite(v)) fail(ErrorCode::non_finite, std::string(field) + " must be finite");
  return v;
}

bool boolean(const Json& obj, const char* field, bool fallback) {
  if (!has(obj, field)) return fallback;
  if (!obj.at(field).is_boolean()) fail(ErrorCode::invalid_field, std::string(field) + " must be true or false");
  return obj.at(field).get<bool>();
}

std::string text(const Json& obj, const char* field, const std::string& fallback) {
  if (!has(obj, field)) return fallback;
  if (!obj.at(field).is_string()) fail(ErrorCode::invalid_field, std::string(field) + " must be a string");
  return obj.at(field).get<std::string>();
}

Vector vector_from_json(const Json& j, const std::string& field) {
  if (!j.is_array()) fail(ErrorCode::invalid_field, field + " must be an array of numbers");
  if (j.empty()) fail(ErrorCode::empty_sequence, field + " is empty");
  if (static_cast<Index>(j.size()) > kMaxWidth)
    fail(ErrorCode::too_large, field + " has " + std::to_string(j.size()) + " entries; the limit is " +
                                   std::to_string(kMaxWidth));
  Vector v(static_cast<Index>(j.size()));
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number())
      fail(ErrorCode::invalid_field, field + "[" + std::to_string(i) + "] is " + j[i].dump() + ", not a number");
    v(static_cast<Index>(i)) = j[i].get<double>();
    if (!std::isfinite(v(static_cast<Index>(i))))
      fail(ErrorCode::non_finite, field + "[" + std::to_string(i) + "] is not finite");
  }
  return v;
}

Matrix mat(const Json& req, const char* field) { return matrix_from_json(require(req, field), field); }
Vector vec(const Json& req, const char* field) { return vector_from_json(require(req, field), field); }

HeadWeights head_of(const Json& req) { return HeadWeights{mat(req, "w_q"), mat(req, "w_k"), mat(req, "w_v")}; }

AdditiveParams additive_of(const Json& req) {
  return AdditiveParams{mat(req, "w_s"), mat(req, "w_h"), vec(req, "bias"), vec(req, "v")};
}

std::vector<bool> optional_bools(const Json& req, const char* field) {
  return has(req, field) ? bools_from_json(req.at(field), field) : std::vector<bool>{};
}

using Op = std::function<Json(const Json&)>;

const std::map<std::string, Op>& ops() {
  static const std::map<std::string, Op> table = {
      {"prefix_isolation",
       [](const Json& r) {
         known_fields(r, {"x", "w_q", "w_k", "w_v", "from", "amount"}, "prefix_isolation");
         return to_json(prefix_isolation(mat(r, "x"), head_of(r), integer(r, "from", 3, 0, kMaxTokens),
                                         number(r, "amount", 100.0)));
       }},
      {"key_padding",
       [](const Json& r) {
         known_fields(r, {"x", "w_q", "w_k", "w_v", "key_valid", "amount"}, "key_padding");
         return to_json(key_padding_experiment(mat(r, "x"), head_of(r), bools_from_json(require(r, "key_valid"), "key_valid"),
                                               number(r, "amount", 100.0)));
       }},
      {"empty_rows",
       [](const Json& r) {
         known_fields(r, {"query", "key", "value", "mask"}, "empty_rows");
         return to_json(empty_row_demo(mat(r, "query"), mat(r, "key"), mat(r, "value"), mask_from_json(r.value("mask", Json()))));
       }},
      {"causal_alignments",
       [](const Json& r) {
         known_fields(r, {"tq", "tk"}, "causal_alignments");
         require(r, "tq");
         require(r, "tk");
         return to_json(causal_alignments(integer(r, "tq", 0, 0, kMaxTokens + 1), integer(r, "tk", 0, 0, kMaxTokens + 1)));
       }},
      {"attribution",
       [](const Json& r) {
         known_fields(r, {"weights", "value"}, "attribution");
         return to_json(attribution(vec(r, "weights"), mat(r, "value")));
       }},
      {"scaling",
       [](const Json& r) {
         known_fields(r, {"d_k", "samples", "seed", "bins", "range", "keys", "rows"}, "scaling");
         ScalingInput in;
         if (has(r, "d_k")) {
           const Json& d = r.at("d_k");
           if (!d.is_array()) fail(ErrorCode::invalid_field, "d_k must be an array of integers");
           in.d_ks.clear();
           for (size_t i = 0; i < d.size(); ++i) {
             if (!d[i].is_number_integer()) fail(ErrorCode::invalid_field, "d_k[" + std::to_string(i) + "] must be an integer");
             const long long v = d[i].get<long long>();
             if (v < 1 || v > 4096) fail(ErrorCode::invalid_field, "d_k[" + std::to_string(i) + "] must be between 1 and 4096");
             in.d_ks.push_back(static_cast<int>(v));
           }
         }
         in.samples = static_cast<int>(integer(r, "samples", in.samples, 2, 100000));
         in.seed = seed_of(r, "seed", in.seed);
         in.bins = static_cast<int>(integer(r, "bins", in.bins, 1, 1000));
         in.range = number(r, "range", in.range);
         in.keys = static_cast<int>(integer(r, "keys", in.keys, 2, 512));
         in.rows = static_cast<int>(integer(r, "rows", in.rows, 1, 10000));
         return to_json(scaling_study(in));
       }},
      {"softmax_stability",
       [](const Json& r) {
         known_fields(r, {"logits"}, "softmax_stability");
         const Vector l = vec(r, "logits");
         return to_json(softmax_stability(std::vector<double>(l.data(), l.data() + l.size())));
       }},
      {"additive",
       [](const Json& r) {
         known_fields(r, {"decoder_state", "encoder_states", "w_s", "w_h", "bias", "v", "key_valid"}, "additive");
         return to_json(additive_attention(vec(r, "decoder_state"), mat(r, "encoder_states"), additive_of(r),
                                           optional_bools(r, "key_valid")));
       }},
      {"score_functions",
       [](const Json& r) {
         known_fields(r, {"decoder_state", "encoder_states", "w_general", "w_s", "w_h", "bias", "v", "key_valid"},
                      "score_functions");
         return to_json(compare_score_functions(vec(r, "decoder_state"), mat(r, "encoder_states"), mat(r, "w_general"),
                                                additive_of(r), optional_bools(r, "key_valid")));
       }},
      {"additive_decoder",
       [](const Json& r) {
         known_fields(r, {"source", "target", "seed", "d_h", "d_s", "d_a"}, "additive_decoder");
         AdditiveDecoderInput in;
         in.source = text(r, "source", in.source);
         in.target = text(r, "target", in.target);
         in.seed = seed_of(r, "seed", in.seed);
         in.d_h = static_cast<int>(integer(r, "d_h", in.d_h, 1, 64));
         in.d_s = static_cast<int>(integer(r, "d_s", in.d_s, 1, 64));
         in.d_a = static_cast<int>(integer(r, "d_a", in.d_a, 1, 64));
         return to_json(additive_decoder_demo(in));
       }},
      {"rope",
       [](const Json& r) {
         known_fields(r, {"x", "positions", "base"}, "rope");
         std::vector<long long> pos;
         if (has(r, "positions")) {
           const Json& p = r.at("positions");
           if (!p.is_array()) fail(ErrorCode::invalid_field, "positions must be an array of integers");
           for (size_t i = 0; i < p.size(); ++i) {
             if (!p[i].is_number_integer())
               fail(ErrorCode::invalid_field, "positions[" + std::to_string(i) + "] must be an integer");
             pos.push_back(p[i].get<long long>());
           }
         }
         return Json{{"output", to_json(apply_rope(mat(r, "x"), pos, number(r, "base", 10000.0)))}};
       }},
      {"position_symmetry",
       [](const Json& r) {
         known_fields(r, {"sentence", "seed", "d_model", "permutation", "causal", "positions"}, "position_symmetry");
         PositionSymmetryInput in;
         in.sentence = text(r, "sentence", in.sentence);
         in.seed = seed_of(r, "seed", in.seed);
         in.d_model = static_cast<int>(integer(r, "d_model", in.d_model, 1, 512));
         in.causal = boolean(r, "causal", false);
         const std::string p = text(r, "positions", "none");
         if (p == "none") in.positions = PositionKind::none;
         else if (p == "sinusoidal") in.positions = PositionKind::sinusoidal;
         else if (p == "rope") in.positions = PositionKind::rope;
         else fail(ErrorCode::invalid_field, "positions must be \"none\", \"sinusoidal\" or \"rope\"");
         if (has(r, "permutation")) {
           const Json& p2 = r.at("permutation");
           if (!p2.is_array()) fail(ErrorCode::invalid_field, "permutation must be an array of integers");
           in.permutation.clear();
           for (size_t i = 0; i < p2.size(); ++i) {
             if (!p2[i].is_number_integer())
               fail(ErrorCode::invalid_field, "permutation[" + std::to_string(i) + "] must be an integer");
             const long long v = p2[i].get<long long>();
             in.permutation.push_back(v < -1 || v > kMaxTokens ? -1 : static_cast<int>(v));
           }
         } else {
           in.permutation.clear();  // default: the lesson's order for six tokens, else reversed
           const size_t t = tokenize(in.sentence).size();
           if (t == 6) in.permutation = PositionSymmetryInput{}.permutation;
           else
             for (size_t i = 0; i < t; ++i) in.permutation.push_back(static_cast<int>(t - 1 - i));
         }
         return to_json(position_symmetry(in));
       }},
      {"temperature",
       [](const Json& r) {
         known_fields(r, {"query", "key", "value", "mask", "scale", "empty_rows", "temperature", "hard"}, "temperature");
         return to_json(temperature_attention(mat(r, "query"), mat(r, "key"), mat(r, "value"), mask_from_json(r.value("mask", Json())),
                                              number(r, "temperature", 1.0), boolean(r, "hard", false), options_from_json(r)));
       }},
      {"lstm",
       [](const Json& r) {
         known_fields(r, {"x", "w_ih", "w_hh", "b_ih", "b_hh"}, "lstm");
         return to_json(lstm_forward(mat(r, "x"), LstmWeights{mat(r, "w_ih"), mat(r, "w_hh"), vec(r, "b_ih"), vec(r, "b_hh")}));
       }},
      {"timing",
       [](const Json& r) {
         known_fields(r, {"seed", "t", "d", "warmups", "repeats"}, "timing");
         return to_json(timing_fixture(seed_of(r, "seed", 17), static_cast<int>(integer(r, "t", 32, 1, 512)),
                                       static_cast<int>(integer(r, "d", 8, 1, 256)),
                                       static_cast<int>(integer(r, "warmups", 3, 0, 100)),
                                       static_cast<int>(integer(r, "repeats", 5, 1, 101))));
       }},
      {"cost",
       [](const Json& r) {
         known_fields(r, {"t", "d_model", "heads", "kv_groups", "layers", "context", "cache_dtype", "window"}, "cost");
         CostInput in;
         const long long big = std::numeric_limits<long long>::max() / 4;  // the core reports too_large
         in.t = integer(r, "t", in.t, -big, big);
         in.d_model = integer(r, "d_model", in.d_model, -big, big);
         in.heads = integer(r, "heads", in.heads, -big, big);
         in.kv_groups = integer(r, "kv_groups", in.kv_groups, -big, big);
         in.layers = integer(r, "layers", in.layers, -big, big);
         in.context = integer(r, "context", in.context, -big, big);
         in.window = integer(r, "window", in.window, -big, big);
         const std::string dt = text(r, "cache_dtype", dtype_name(in.cache_dtype));
         if (!dtype_from_name(dt, &in.cache_dtype))
           fail(ErrorCode::invalid_field, "cache_dtype must be float16, bfloat16, float32 or float64, got \"" + dt + "\"");
         return to_json(attention_cost(in));
       }},
      {"cost_timing",
       [](const Json& r) {
         known_fields(r, {"t", "d", "dtype", "seed", "warmups", "repeats"}, "cost_timing");
         KernelTimingInput in;
         in.t = static_cast<int>(integer(r, "t", in.t, -1000000, 1000000));
         in.d = static_cast<int>(integer(r, "d", in.d, -1000000, 1000000));
         in.seed = seed_of(r, "seed", in.seed);
         in.warmups = static_cast<int>(integer(r, "warmups", in.warmups, -1000, 1000));
         in.repeats = static_cast<int>(integer(r, "repeats", in.repeats, -1000, 1000));
         const std::string dt = text(r, "dtype", "float32");
         if (dt != "float32" && dt != "float64")
           fail(ErrorCode::invalid_field, "dtype must be float32 or float64, got \"" + dt + "\"");
         in.dtype = dt == "float32" ? KernelDtype::float32 : KernelDtype::float64;
         return to_json(time_dense_vs_tiled(in));
       }},
      {"lesson_replica",
       [](const Json& r) {
         known_fields(r, {"sentence", "seed", "d_model"}, "lesson_replica");
         return to_json(lesson_replica(text(r, "sentence", "The cat sat on the mat"), seed_of(r, "seed", 17),
                                       static_cast<int>(integer(r, "d_model", 8, 1, 512))));
       }},
      {"recall_tasks",
       [](const Json& r) {
         known_fields(r, {}, "recall_tasks");
         return Json{{"tasks", to_json(recall_tasks())}};
       }},
      {"recall",
       [](const Json& r) {
         known_fields(r, {"task", "choice", "weights", "values", "query", "key", "value", "mask"}, "recall");
         RecallAttempt a;
         if (has(r, "choice")) a.choice = static_cast<int>(integer(r, "choice", 0, -1, 1000));
         if (has(r, "weights")) a.weights = vec(r, "weights");
         if (has(r, "values")) a.values = mat(r, "values");
         if (has(r, "query")) a.query = mat(r, "query");
         if (has(r, "key")) a.key = mat(r, "key");
         if (has(r, "value")) a.value = mat(r, "value");
         a.mask = mask_from_json(r.value("mask", Json()));
         const Json& task = require(r, "task");
         if (!task.is_string()) fail(ErrorCode::invalid_field, "task must be a string (see recall_tasks)");
         return to_json(check_recall(task.get<std::string>(), a));
       }},
  };
  return table;
}

}  // namespace

const char* lesson_op_names() {
  return "prefix_isolation, key_padding, empty_rows, causal_alignments, attribution, scaling, softmax_stability, "
         "additive, score_functions, additive_decoder, rope, position_symmetry, temperature, lstm, timing, "
         "cost, cost_timing, lesson_replica, recall_tasks, recall";
}

std::optional<Json> run_lesson_op(const std::string& op, const Json& request) {
  const auto& table = ops();
  const auto it = table.find(op);
  if (it == table.end()) return std::nullopt;
  return it->second(request);
}

void add_attention_dropout(const Json& request, const AttentionResult& r, const Matrix& value, Json& out) {
  if (!has(request, "dropout")) return;
  const Json& d = request.at("dropout");
  if (!d.is_object()) fail(ErrorCode::invalid_field, "dropout must be an object {\"p\": number, \"seed\": integer}");
  for (auto it = d.begin(); it != d.end(); ++it)
    if (it.key() != "p" && it.key() != "seed") fail(ErrorCode::invalid_field, "unknown field \"" + it.key() + "\" in dropout");
  if (!has(d, "p")) fail(ErrorCode::missing_field, "missing field \"p\" in dropout");
  if (!d.at("p").is_number()) fail(ErrorCode::invalid_field, "dropout.p must be a number in [0, 1]");
  const AttentionDropout drop = apply_attention_dropout(r, value, d.at("p").get<double>(), seed_of(d, "seed", 0));
  out["dropout_keep"] = to_json(drop.keep);
  out["dropped_weights"] = to_json(drop.dropped_weights);
  out["output_dropped"] = to_json(drop.output_dropped);
  out["dropout_row_sums"] = to_json(drop.row_sums.empty() ? Vector() : Vector::Map(drop.row_sums.data(), static_cast<Index>(drop.row_sums.size())));
  out["dropout_checks"] = to_json(drop.checks);
}

}  // namespace attn
