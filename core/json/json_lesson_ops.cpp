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

#include "json/fields.hpp"
#include "json/case_files.hpp"
#include "json/lesson_json.hpp"
#include "json/ops.hpp"
#include "attn/linalg.hpp"
#include "learn/checkpoint.hpp"
#include "lessons/additive_trained.hpp"
#include "lessons/translate/translate.hpp"

#include <cstring>
#include <memory>

namespace attn {

namespace {
// The one installed reader of each kind (CaseFileReader, CaseFileRanges), empty until set.
template <class Reader>
Reader& installed() {
  static Reader reader;
  return reader;
}
}  // namespace

void set_case_file_reader(CaseFileReader reader) { installed<CaseFileReader>() = std::move(reader); }
void set_case_file_ranges(CaseFileRanges ranges) { installed<CaseFileRanges>() = std::move(ranges); }

NamedFile open_named_file(const std::string& path, const char* field) {
  NamedFile f;
  const std::string what = field;
  const CaseFileRanges r = installed<CaseFileRanges>();
  if (r.size && r.read) {
    try {
      f.size = r.size(path);
    } catch (const Error& e) {
      throw Error(e.code(), what + ": " + e.what());
    }
    f.read = [r, path, what](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
      try {
        r.read(path, offset, length, dst);
      } catch (const Error& e) {
        throw Error(e.code(), what + ": " + e.what());
      }
    };
    return f;
  }
  // Only a whole-file reader (or none, which read_named_file reports): the bytes in memory.
  auto bytes = std::make_shared<std::string>(read_named_file(path, field));
  f.size = bytes->size();
  f.read = [bytes](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
    if (offset > bytes->size() || length > bytes->size() - offset)
      throw Error(ErrorCode::invalid_field, "bytes past the end of the file");
    std::memcpy(dst, bytes->data() + offset, length);
  };
  return f;
}

std::string read_named_file(const std::string& path, const char* field) {
  if (!installed<CaseFileReader>())
    throw Error(ErrorCode::invalid_field, std::string(field) + ": this build has no file access (the page has no "
                                          "file system; use the attn tool)");
  try {
    return installed<CaseFileReader>()(path);
  } catch (const Error& e) {
    throw Error(e.code(), std::string(field) + ": " + e.what());
  }
}
namespace {

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

HeadWeights head_of(const Fields& f) { return HeadWeights{f.matrix("w_q"), f.matrix("w_k"), f.matrix("w_v")}; }

AdditiveParams additive_of(const Fields& f) {
  return AdditiveParams{f.matrix("w_s"), f.matrix("w_h"), f.vector("bias"), f.vector("v")};
}

// An optional array of integers, read as they are (no range: the op judges them); empty when
// absent. Errors: invalid_field "NAME must be an array of integers", "NAME[i] must be an integer".
std::vector<long long> integer_list(const Fields& f, const char* field) {
  std::vector<long long> out;
  const Json* p = f.optional(field);
  if (!p) return out;
  const std::string n = f.name(field);
  if (!p->is_array()) fail(ErrorCode::invalid_field, n + " must be an array of integers");
  for (size_t i = 0; i < p->size(); ++i) {
    if (!(*p)[i].is_number_integer())
      fail(ErrorCode::invalid_field, n + "[" + std::to_string(i) + "] must be an integer");
    out.push_back((*p)[i].get<long long>());
  }
  return out;
}

// Every lesson op: name, the fields it reads, its function (the unknown-field check and the
// op list derive from this table, json/ops.hpp).
const std::vector<OpSpec>& lesson_op_table() {
  static const std::vector<OpSpec> table = {
      {"prefix_isolation",
       {"x", "w_q", "w_k", "w_v", "from", "amount"},
       [](const Fields& f) -> Json {
         return to_json(prefix_isolation(f.matrix("x"), head_of(f), f.integer("from", 3, 0, kMaxTokens),
                                         f.number("amount", 100.0)));
       }},
      {"key_padding",
       {"x", "w_q", "w_k", "w_v", "key_valid", "amount"},
       [](const Fields& f) -> Json {
         return to_json(key_padding_experiment(f.matrix("x"), head_of(f), f.flags("key_valid"),
                                               f.number("amount", 100.0)));
       }},
      {"empty_rows",
       {"query", "key", "value", "mask"},
       [](const Fields& f) -> Json {
         return to_json(empty_row_demo(f.matrix("query"), f.matrix("key"), f.matrix("value"), mask_from_json(f.json().value("mask", Json()))));
       }},
      {"causal_alignments",
       {"tq", "tk"},
       [](const Fields& f) -> Json {
         f.required("tq");
         f.required("tk");
         return to_json(causal_alignments(f.integer("tq", 0, 0, kMaxTokens + 1), f.integer("tk", 0, 0, kMaxTokens + 1)));
       }},
      {"attribution",
       {"weights", "value"},
       [](const Fields& f) -> Json {
         return to_json(attribution(f.vector("weights"), f.matrix("value")));
       }},
      {"scaling",
       {"d_k", "samples", "seed", "bins", "range", "keys", "rows"},
       [](const Fields& f) -> Json {
         ScalingInput in;
         if (f.has("d_k")) {
           in.d_ks.clear();
           for (long long v : f.integers("d_k", {}, 1, 4096)) in.d_ks.push_back(static_cast<int>(v));
         }
         in.samples = static_cast<int>(f.integer("samples", in.samples, 2, 100000));
         in.seed = f.seed("seed", in.seed);
         in.bins = static_cast<int>(f.integer("bins", in.bins, 1, 1000));
         in.range = f.number("range", in.range);
         in.keys = static_cast<int>(f.integer("keys", in.keys, 2, 512));
         in.rows = static_cast<int>(f.integer("rows", in.rows, 1, 10000));
         return to_json(scaling_study(in));
       }},
      {"softmax_stability",
       {"logits"},
       [](const Fields& f) -> Json {
         const Vector l = f.vector("logits");
         return to_json(softmax_stability(std::vector<double>(l.data(), l.data() + l.size())));
       }},
      {"additive",
       {"decoder_state", "encoder_states", "w_s", "w_h", "bias", "v", "key_valid"},
       [](const Fields& f) -> Json {
         const Matrix h = f.matrix("encoder_states");
         const AdditiveResult r = additive_attention(f.vector("decoder_state"), h, additive_of(f),
                                                     f.optional_flags("key_valid"));
         return to_json(r, additive_checks(r, h));
       }},
      {"score_functions",
       {"decoder_state", "encoder_states", "w_general", "w_s", "w_h", "bias", "v", "key_valid"},
       [](const Fields& f) -> Json {
         const Matrix h = f.matrix("encoder_states");
         const ScoringComparison r = compare_score_functions(f.vector("decoder_state"), h, f.matrix("w_general"),
                                                             additive_of(f), f.optional_flags("key_valid"));
         return to_json(r, scoring_checks(r, h));
       }},
      {"additive_decoder",
       {"source", "target", "seed", "d_h", "d_s", "d_a"},
       [](const Fields& f) -> Json {
         AdditiveDecoderInput in;
         in.source = f.text("source", in.source);
         in.target = f.text("target", in.target);
         in.seed = f.seed("seed", in.seed);
         in.d_h = static_cast<int>(f.integer("d_h", in.d_h, 1, 64));
         in.d_s = static_cast<int>(f.integer("d_s", in.d_s, 1, 64));
         in.d_a = static_cast<int>(f.integer("d_a", in.d_a, 1, 64));
         return to_json(additive_decoder_demo(in));
       }},
      // The trained variant reads the Translate lesson's attention model from a checkpoint file
      // (`attn checkpoint translate FILE`, shipped as checkpoints/translate.ckpt): a model is too
      // large to pass inline, and the untrained op above keeps its seeded form.
      {"additive_decoder_trained",
       {"checkpoint", "sentence", "step", "feed"},
       [](const Fields& f) -> Json {
         const Json& path_j = f.required("checkpoint");
         if (!path_j.is_string())
           fail(ErrorCode::invalid_field, "checkpoint must be the path of a translate checkpoint file");
         const std::string b = read_named_file(path_j.get<std::string>(), "checkpoint");
         const lessons::TranslateModel m = lessons::translate_attention_model(lessons::translate_run_from_checkpoint(
             learn::decode_checkpoint(reinterpret_cast<const std::uint8_t*>(b.data()), b.size())));
         lessons::TrainedAdditiveInput in;
         in.sentence = f.text("sentence", in.sentence);
         in.step = static_cast<int>(f.integer("step", in.step, -1000000, 1000000));  // the core names the range
         const std::string feed = f.text("feed", "teacher_forced");
         if (feed == "teacher_forced") in.feed = lessons::DecoderFeed::teacher_forced;
         else if (feed == "greedy") in.feed = lessons::DecoderFeed::greedy;
         else fail(ErrorCode::invalid_field, "feed must be \"teacher_forced\" or \"greedy\"");
         return to_json(lessons::trained_additive_step(m, in), in.feed);
       }},
      {"rope",
       {"x", "positions", "base"},
       [](const Fields& f) -> Json {
         const std::vector<long long> pos = integer_list(f, "positions");
         return Json{{"output", to_json(apply_rope(f.matrix("x"), pos, f.number("base", 10000.0)))}};
       }},
      {"position_symmetry",
       {"sentence", "seed", "d_model", "permutation", "causal", "positions"},
       [](const Fields& f) -> Json {
         PositionSymmetryInput in;
         in.sentence = f.text("sentence", in.sentence);
         in.seed = f.seed("seed", in.seed);
         in.d_model = static_cast<int>(f.integer("d_model", in.d_model, 1, 512));
         in.causal = f.boolean("causal", false);
         const std::string p = f.text("positions", "none");
         if (p == "none") in.positions = PositionKind::none;
         else if (p == "sinusoidal") in.positions = PositionKind::sinusoidal;
         else if (p == "rope") in.positions = PositionKind::rope;
         else fail(ErrorCode::invalid_field, "positions must be \"none\", \"sinusoidal\" or \"rope\"");
         if (f.has("permutation")) {
           in.permutation.clear();
           for (const long long v : integer_list(f, "permutation"))
             in.permutation.push_back(v < -1 || v > kMaxTokens ? -1 : static_cast<int>(v));
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
       {"query", "key", "value", "mask", "scale", "empty_rows", "temperature", "hard"},
       [](const Fields& f) -> Json {
         return to_json(temperature_attention(f.matrix("query"), f.matrix("key"), f.matrix("value"), mask_from_json(f.json().value("mask", Json())),
                                              f.number("temperature", 1.0), f.boolean("hard", false), options_from_json(f.json())));
       }},
      {"lstm",
       {"x", "w_ih", "w_hh", "b_ih", "b_hh"},
       [](const Fields& f) -> Json {
         return to_json(lstm_forward(f.matrix("x"), LstmWeights{f.matrix("w_ih"), f.matrix("w_hh"), f.vector("b_ih"), f.vector("b_hh")}));
       }},
      {"timing",
       {"seed", "t", "d", "warmups", "repeats"},
       [](const Fields& f) -> Json {
         return to_json(timing_fixture(f.seed("seed", 17), static_cast<int>(f.integer("t", 32, 1, 512)),
                                       static_cast<int>(f.integer("d", 8, 1, 256)),
                                       static_cast<int>(f.integer("warmups", 3, 0, 100)),
                                       static_cast<int>(f.integer("repeats", 5, 1, 101))));
       }},
      {"cost",
       {"t", "d_model", "heads", "kv_groups", "layers", "context", "cache_dtype", "causal_width", "window"},
       [](const Fields& f) -> Json {
         CostInput in;
         const long long big = std::numeric_limits<long long>::max() / 4;  // the core reports too_large
         in.t = f.integer("t", in.t, -big, big);
         in.d_model = f.integer("d_model", in.d_model, -big, big);
         in.heads = f.integer("heads", in.heads, -big, big);
         in.kv_groups = f.integer("kv_groups", in.kv_groups, -big, big);
         in.layers = f.integer("layers", in.layers, -big, big);
         in.context = f.integer("context", in.context, -big, big);
         // The causal window's width; "window" is its former spelling, still accepted.
         if (f.has("causal_width") && f.has("window"))
           fail(ErrorCode::invalid_field, "give causal_width or its former spelling window, not both");
         in.causal_width = f.integer(f.has("window") ? "window" : "causal_width", in.causal_width, -big, big);
         const std::string dt = f.text("cache_dtype", dtype_name(in.cache_dtype));
         if (!dtype_from_name(dt, &in.cache_dtype))
           fail(ErrorCode::invalid_field, "cache_dtype must be float16, bfloat16, float32 or float64, got \"" + dt + "\"");
         return to_json(attention_cost(in));
       }},
      {"cost_timing",
       {"t", "d", "dtype", "seed", "warmups", "repeats"},
       [](const Fields& f) -> Json {
         KernelTimingInput in;
         in.t = static_cast<int>(f.integer("t", in.t, -1000000, 1000000));
         in.d = static_cast<int>(f.integer("d", in.d, -1000000, 1000000));
         in.seed = f.seed("seed", in.seed);
         in.warmups = static_cast<int>(f.integer("warmups", in.warmups, -1000, 1000));
         in.repeats = static_cast<int>(f.integer("repeats", in.repeats, -1000, 1000));
         const std::string dt = f.text("dtype", "float32");
         if (dt != "float32" && dt != "float64")
           fail(ErrorCode::invalid_field, "dtype must be float32 or float64, got \"" + dt + "\"");
         in.dtype = dt == "float32" ? KernelDtype::float32 : KernelDtype::float64;
         return to_json(time_dense_vs_tiled(in));
       }},
      {"lesson_replica",
       {"sentence", "seed", "d_model"},
       [](const Fields& f) -> Json {
         return to_json(lesson_replica(f.text("sentence", "The cat sat on the mat"), f.seed("seed", 17),
                                       static_cast<int>(f.integer("d_model", 8, 1, 512))));
       }},
      {"translation_data",
       {"seed", "sentence"},
       [](const Fields& f) -> Json {
         lessons::TranslationDataConfig cfg;
         cfg.seed = f.seed("seed", cfg.seed);
         const lessons::TranslationDataset d = lessons::make_translation_dataset(cfg);
         Json buckets = Json::array();
         for (size_t b = 0; b < cfg.buckets.size(); ++b)
           buckets.push_back({{"lo", cfg.buckets[b].lo}, {"hi", cfg.buckets[b].hi}, {"train", d.train_per_bucket[b]},
                              {"validation", d.validation_per_bucket_count[b]}, {"test", d.test_per_bucket_count[b]}});
         Json out{{"english", lessons::english_vocab().words}, {"french", lessons::french_vocab().words},
                  {"pad", lessons::kTranslatePad}, {"bos", lessons::kTranslateBos}, {"eos", lessons::kTranslateEos},
                  {"max_length", cfg.max_length}, {"buckets", buckets}, {"train", d.train.size()},
                  {"validation", d.validation.size()}, {"test", d.test.size()}, {"drawn", d.drawn},
                  {"dropped", d.dropped}, {"held_out", lessons::words_of(lessons::english_vocab(), d.test[0].source)}};
         if (f.has("sentence")) {
           const std::vector<int> src = lessons::english_ids(f.text("sentence", ""));
           const std::vector<int> ref = lessons::reference_translation(src);
           out["sentence"] = {{"source", src}, {"reference", ref},
                              {"reference_words", lessons::words_of(lessons::french_vocab(), ref)},
                              {"bucket", lessons::bucket_of(cfg.buckets, static_cast<int>(src.size()))}};
         }
         return out;
       }},
      {"recall_tasks",
       {},
       [](const Fields&) -> Json {
         return Json{{"tasks", to_json(recall_tasks())}};
       }},
      {"recall",
       {"task", "choice", "weights", "values", "query", "key", "value", "mask"},
       [](const Fields& f) -> Json {
         RecallAttempt a;
         if (f.has("choice")) a.choice = static_cast<int>(f.integer("choice", 0, -1, 1000));
         if (f.has("weights")) a.weights = f.vector("weights");
         if (f.has("values")) a.values = f.matrix("values");
         if (f.has("query")) a.query = f.matrix("query");
         if (f.has("key")) a.key = f.matrix("key");
         if (f.has("value")) a.value = f.matrix("value");
         a.mask = mask_from_json(f.json().value("mask", Json()));
         const Json& task = f.required("task");
         if (!task.is_string()) fail(ErrorCode::invalid_field, "task must be a string (see recall_tasks)");
         return to_json(check_recall(task.get<std::string>(), a));
       }},
  };
  return table;
}

}  // namespace

const std::vector<OpSpec>& lesson_ops() { return lesson_op_table(); }

const char* lesson_op_names() {
  static const std::string names = op_names(lesson_ops());
  return names.c_str();
}

std::optional<Json> run_lesson_op(const std::string& op, const Json& request) {
  return run_op(lesson_ops(), op, request);
}

void add_attention_dropout(const Json& request, const AttentionResult& r, const Matrix& value, Json& out) {
  const Fields req(request, "case");
  const Json* d = req.optional("dropout");
  if (!d) return;
  if (!d->is_object()) fail(ErrorCode::invalid_field, "dropout must be an object {\"p\": number, \"seed\": integer}");
  const Fields f(*d, "dropout");  // messages spell dropout.p by hand, and "seed" as before
  f.check_known({"p", "seed"});
  if (!f.has("p")) fail(ErrorCode::missing_field, "missing field \"p\" in dropout");
  if (!f.json().at("p").is_number()) fail(ErrorCode::invalid_field, "dropout.p must be a number in [0, 1]");
  const AttentionDropout drop = apply_attention_dropout(r, value, f.json().at("p").get<double>(), f.seed("seed", 0));
  out["dropout_keep"] = to_json(drop.keep);
  out["dropped_weights"] = to_json(drop.dropped_weights);
  out["output_dropped"] = to_json(drop.output_dropped);
  out["dropout_row_sums"] = to_json(drop.row_sums.empty() ? Vector() : Vector::Map(drop.row_sums.data(), static_cast<Index>(drop.row_sums.size())));
  out["dropout_checks"] = to_json(drop.checks);
}

}  // namespace attn
