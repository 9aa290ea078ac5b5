#include "lessons/translate/format.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "learn/json_obj.hpp"
#include "learn/params.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

}  // namespace

// ---------------------------------------------------------------- the trainer's state

namespace {
Json model_config_json(const learn::Seq2SeqConfig& c) {
  return ::attn::obj({{"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab}, {"embed", c.embed}, {"hidden", c.hidden},
                      {"attention", c.attention}, {"attn_dim", c.attn_dim}, {"bidirectional", c.bidirectional}});
}

learn::Seq2SeqConfig model_config_from_json(const Json& j) {
  auto num = [&](const char* k) {
    if (!j.is_object() || !j.contains(k) || !j[k].is_number_integer()) bad(std::string("trainer state: model '") + k + "' missing");
    return j[k].get<int>();
  };
  auto flag = [&](const char* k) {
    if (!j.contains(k) || !j[k].is_boolean()) bad(std::string("trainer state: model '") + k + "' missing");
    return j[k].get<bool>();
  };
  learn::Seq2SeqConfig c;
  c.src_vocab = num("src_vocab");
  c.tgt_vocab = num("tgt_vocab");
  c.embed = num("embed");
  c.hidden = num("hidden");
  c.attn_dim = num("attn_dim");
  c.attention = flag("attention");
  c.bidirectional = flag("bidirectional");
  return c;
}

// The state's arrays and meta fields beside the generic ones (learn/run_record.hpp).
learn::TrainerStateKind translate_state_kind() {
  learn::TrainerStateKind k;
  k.model = "seq2seq pair";
  k.task = "translate";
  k.what = "the state of the translation pair";
  k.params = {"none", "additive"};
  k.arrays = {"batches", "batch_sizes", "none_losses", "additive_losses", "validation_steps", "none_validation",
              "additive_validation", "pending_total"};
  k.meta_integers = {"cursor"};
  k.meta_values = {"none_model", "additive_model", "pending"};
  k.meta_strings = {"order_rng"};
  return k;
}

// The epoch's batches from their flat form (pair indices, then each batch's size).
std::vector<std::vector<int>> read_batches(const std::vector<double>& flat, const std::vector<double>& sizes,
                                           size_t train_pairs) {
  std::vector<std::vector<int>> batches;
  std::size_t at = 0;
  for (double sz : sizes) {
    if (!(sz >= 1 && sz <= 4096) || at + static_cast<std::size_t>(sz) > flat.size()) bad("trainer state: the batches do not fit their sizes");
    std::vector<int> b;
    for (std::size_t i = 0; i < static_cast<std::size_t>(sz); ++i, ++at) {
      const double x = flat[at];
      if (!(x >= 0 && x < static_cast<double>(train_pairs)) || x != std::floor(x))
        bad("trainer state: a batch names a pair outside the training set");
      b.push_back(static_cast<int>(x));
    }
    batches.push_back(std::move(b));
  }
  if (at != flat.size()) bad("trainer state: the batches do not fit their sizes");
  return batches;
}

std::vector<int> read_validation_steps(const std::vector<double>& vs, int step) {
  std::vector<int> val_steps;
  for (double v : vs) {
    if (!(v >= 0 && v <= step) || v != std::floor(v)) bad("trainer state: a validation step is outside 0..step");
    val_steps.push_back(static_cast<int>(v));
  }
  return val_steps;
}
}  // namespace

learn::Checkpoint TranslateTrainer::state_checkpoint() const {
  learn::TrainerState st;
  st.model = "seq2seq pair";
  st.task = "translate";
  st.config = translate_config_json(cfg_);
  st.step = step_;
  Json pending = nullptr;
  std::vector<double> pending_total;
  if (pending_) {
    pending = ::attn::obj({{"attention", pending_->attention}, {"start", pending_->start},
                           {"counted", Json::array({pending_->counted[0], pending_->counted[1]})}});
    pending_total = {pending_->total[0], pending_->total[1]};
  }
  st.meta = ::attn::obj({{"none_model", model_config_json(none_.config)},
                         {"additive_model", model_config_json(additive_.config)},
                         {"cursor", cursor_},
                         {"order_rng", order_rng_.state()},
                         {"pending", pending}});
  std::vector<double> batches, sizes, val_steps;
  for (const std::vector<int>& b : batches_) {
    sizes.push_back(static_cast<double>(b.size()));
    for (int i : b) batches.push_back(i);
  }
  for (int v : val_steps_) val_steps.push_back(v);
  st.params = {{"none", none_.params}, {"additive", additive_.params}};
  st.adam = {{"none", none_adam_}, {"additive", additive_adam_}};
  st.arrays = {{"batches", batches},
               {"batch_sizes", sizes},
               {"none_losses", none_losses_},
               {"additive_losses", additive_losses_},
               {"validation_steps", val_steps},
               {"none_validation", none_val_},
               {"additive_validation", additive_val_},
               {"pending_total", pending_total}};
  return learn::trainer_state_checkpoint(st);
}

TranslateTrainer TranslateTrainer::from_state(const learn::Checkpoint& ck) {
  const learn::TrainerState st = learn::trainer_state_from_checkpoint(ck, translate_state_kind());
  const TranslateConfig cfg = translate_config_from_json(st.config);
  const learn::Seq2SeqConfig none = model_config_from_json(st.meta["none_model"]);
  const learn::Seq2SeqConfig additive = model_config_from_json(st.meta["additive_model"]);
  if (none.attention || !additive.attention) bad("trainer state: the pair is a fixed-summary model and an attention model");
  const bool none_seeded = model_config_json(none) == model_config_json(translate_model_config(cfg, false));
  const bool additive_seeded = model_config_json(additive) == model_config_json(translate_model_config(cfg, true));
  if (!none_seeded && !additive_seeded) bad("trainer state: at most one model of the pair can be one read from a file");
  const learn::Seq2SeqConfig& loaded = none_seeded ? additive : none;
  TranslateTrainer t = none_seeded && additive_seeded
                           ? TranslateTrainer(cfg, StartValidation::pending)
                           : TranslateTrainer(cfg, loaded, std::vector<double>(learn::seq2seq_layout(loaded).total(), 0.0),
                                              StartValidation::pending);
  t.take_state(st);
  return t;
}

void TranslateTrainer::load_state(const learn::Checkpoint& ck) {
  take_state(learn::trainer_state_from_checkpoint(ck, translate_state_kind()));
}

// A validation under way as the state records it: meta "pending" (null when none) and its sums.
std::optional<TranslateTrainer::PendingValidation> TranslateTrainer::read_pending(const Json& p,
                                                                                const std::vector<double>& total,
                                                                                size_t validation_pairs) {
  if (p.is_null()) return std::nullopt;
  if (!p.is_object() || !p.contains("attention") || !p["attention"].is_boolean() || !p.contains("start") ||
      !p["start"].is_number_integer() || !p.contains("counted") || !p["counted"].is_array() || p["counted"].size() != 2 ||
      !p["counted"][0].is_number_integer() || !p["counted"][1].is_number_integer() || total.size() != 2)
    bad("trainer state: the validation under way is malformed");
  PendingValidation v;
  v.attention = p["attention"].get<bool>();
  const long start = p["start"].get<long>();
  if (start < 0 || static_cast<std::size_t>(start) > validation_pairs) bad("trainer state: the validation under way is past the validation set");
  v.start = static_cast<std::size_t>(start);
  v.total[0] = total[0];
  v.total[1] = total[1];
  v.counted[0] = p["counted"][0].get<long>();
  v.counted[1] = p["counted"][1].get<long>();
  return v;
}

void TranslateTrainer::take_state(const learn::TrainerState& st) {
  const Json& m = st.meta;
  if (st.config != translate_config_json(cfg_) || m["none_model"] != model_config_json(none_.config) ||
      m["additive_model"] != model_config_json(additive_.config))
    bad("trainer state: of another run (configuration or models)");
  const int step = st.step;
  learn::require_state_step(step, cfg_.steps);
  const std::vector<double>& np = st.param("none");
  const std::vector<double>& ap = st.param("additive");
  learn::require_param_count("the state's fixed-summary params", np.size(), none_.layout.total());
  learn::require_param_count("the state's attention params", ap.size(), additive_.layout.total());
  std::vector<std::vector<int>> batches = read_batches(st.array("batches"), st.array("batch_sizes"), data_.train.size());
  const long cursor = m["cursor"].get<long>();
  if (cursor < 0 || static_cast<std::size_t>(cursor) > batches.size()) bad("trainer state: the batch cursor is outside the epoch");
  const std::vector<double>& nl = st.array("none_losses");
  const std::vector<double>& al = st.array("additive_losses");
  if (nl.size() != static_cast<std::size_t>(step) || al.size() != nl.size()) bad("trainer state: one loss per step needed (" + std::to_string(step) + ")");
  const std::vector<double>& vs = st.array("validation_steps");
  const std::vector<double>& nv = st.array("none_validation");
  const std::vector<double>& av = st.array("additive_validation");
  if (nv.size() != vs.size() || av.size() != vs.size()) bad("trainer state: one validation loss per validation step needed");
  std::vector<int> val_steps = read_validation_steps(vs, step);
  const std::optional<PendingValidation> pending = read_pending(m["pending"], st.array("pending_total"), data_.validation.size());
  Rng rng(0);
  rng.set_state(m["order_rng"].get<std::string>());
  none_.params = np;
  additive_.params = ap;
  none_adam_ = st.adam_state("none");
  additive_adam_ = st.adam_state("additive");
  order_rng_ = rng;
  batches_ = std::move(batches);
  cursor_ = static_cast<std::size_t>(cursor);
  step_ = step;
  none_losses_ = nl;
  additive_losses_ = al;
  val_steps_ = std::move(val_steps);
  none_val_ = nv;
  additive_val_ = av;
  pending_ = pending;
}

// ---------------------------------------------------------------- the record and its checkpoint

Json translate_config_json(const TranslateConfig& c) {
  Json buckets = Json::array();
  for (const LengthBucket& b : c.data.buckets) buckets.push_back({b.lo, b.hi});
  Json j = ::attn::obj({{"data", ::attn::obj({{"seed", c.data.seed}, {"train", c.data.train},
                        {"validation_per_bucket", c.data.validation_per_bucket},
                        {"test_per_bucket", c.data.test_per_bucket}, {"max_length", c.data.max_length},
                        {"buckets", buckets}})},
              {"embed", c.embed}, {"hidden", c.hidden}, {"attn_dim", c.attn_dim}, {"batch", c.batch},
              {"adam", learn::adam_config_json(c.adam)},
              {"clip", c.clip}, {"seed", c.seed}, {"steps", c.steps}, {"eval_every", c.eval_every}});
  j["encoder"] = c.bidirectional ? "bidirectional" : "forward";
  return j;
}

TranslateConfig translate_config_from_json(const Json& j) {
  auto num = [](const Json& o, const char* key) -> const Json& {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number()) bad(std::string("translate config: '") + key + "' missing");
    return o[key];
  };
  TranslateConfig c;
  const Json& d = j.is_object() && j.contains("data") ? j["data"] : Json();
  c.data.seed = num(d, "seed").get<std::uint64_t>();
  c.data.train = num(d, "train").get<int>();
  c.data.validation_per_bucket = num(d, "validation_per_bucket").get<int>();
  c.data.test_per_bucket = num(d, "test_per_bucket").get<int>();
  c.data.max_length = num(d, "max_length").get<int>();
  if (!d.contains("buckets") || !d["buckets"].is_array()) bad("translate config: 'buckets' missing");
  c.data.buckets.clear();
  for (const Json& b : d["buckets"]) {
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer())
      bad("translate config: each bucket is [lo, hi]");
    c.data.buckets.push_back({b[0].get<int>(), b[1].get<int>()});
  }
  c.embed = num(j, "embed").get<int>();
  c.hidden = num(j, "hidden").get<int>();
  c.attn_dim = num(j, "attn_dim").get<int>();
  c.batch = num(j, "batch").get<int>();
  c.adam = learn::adam_config_from_json(j.is_object() && j.contains("adam") ? j["adam"] : Json(), "translate config");
  c.clip = num(j, "clip").get<double>();
  c.seed = num(j, "seed").get<std::uint64_t>();
  c.steps = num(j, "steps").get<int>();
  c.eval_every = num(j, "eval_every").get<int>();
  c.bidirectional = false;  // absent: a record made before the choice, whose encoder was forward
  if (j.contains("encoder")) {
    if (j["encoder"] == "bidirectional") c.bidirectional = true;
    else if (j["encoder"] != "forward") bad("translate config: 'encoder' must be \"forward\" or \"bidirectional\"");
  }
  return c;
}

TranslateRun translate_run_of(const TranslateTrainer& tr) {
  TranslateRun r;
  r.config = tr.config();
  r.step = tr.step();
  r.none_params = tr.model(false).params;
  r.additive_params = tr.model(true).params;
  r.none_losses = tr.losses(false);
  r.additive_losses = tr.losses(true);
  r.validation_steps = tr.validation_steps();
  r.none_validation = tr.validation_losses(false);
  r.additive_validation = tr.validation_losses(true);
  return r;
}

TranslateRun record_translate_run(const TranslateConfig& cfg) {
  TranslateTrainer tr(cfg);
  tr.advance(cfg.steps);
  return translate_run_of(tr);
}

namespace {
const learn::RunRecordKind& translate_run_kind() {
  static const learn::RunRecordKind kind{"seq2seq", "translate", "a translate run", {"none", "additive"},
                                         {"none.losses", "additive.losses", "validation_steps", "none.validation_losses",
                                          "additive.validation_losses"}};
  return kind;
}
}  // namespace

learn::RunRecord translate_run_record(const TranslateRun& run) {
  learn::RunRecord r;
  r.model = "seq2seq";
  r.task = "translate";
  r.config = translate_config_json(run.config);
  r.step = run.step;
  r.params = {{"none", run.none_params}, {"additive", run.additive_params}};
  r.curves = {{"none.losses", run.none_losses},
              {"additive.losses", run.additive_losses},
              {"validation_steps", std::vector<double>(run.validation_steps.begin(), run.validation_steps.end())},
              {"none.validation_losses", run.none_validation},
              {"additive.validation_losses", run.additive_validation}};
  return r;
}

TranslateRun translate_run_of_record(const learn::RunRecord& rec) {
  TranslateRun r;
  r.config = translate_config_from_json(rec.config);
  validate_translate_config(r.config);
  r.step = rec.step;
  r.none_params = rec.param("none");
  r.additive_params = rec.param("additive");
  r.none_losses = rec.curve("none.losses");
  r.additive_losses = rec.curve("additive.losses");
  for (double s : rec.curve("validation_steps")) r.validation_steps.push_back(static_cast<int>(s));
  r.none_validation = rec.curve("none.validation_losses");
  r.additive_validation = rec.curve("additive.validation_losses");
  const size_t nn = learn::seq2seq_layout(translate_model_config(r.config, false)).total();
  const size_t na = learn::seq2seq_layout(translate_model_config(r.config, true)).total();
  if (r.none_params.size() != nn || r.additive_params.size() != na)
    bad("checkpoint: parameter counts " + std::to_string(r.none_params.size()) + ", " +
        std::to_string(r.additive_params.size()) + " do not fit the configuration (" + std::to_string(nn) + ", " +
        std::to_string(na) + ")");
  return r;
}

learn::Checkpoint translate_run_checkpoint(const TranslateRun& run) {
  return learn::run_record_checkpoint(translate_run_record(run));
}

TranslateRun translate_run_from_checkpoint(const learn::Checkpoint& ck) {
  return translate_run_of_record(learn::run_record_from_checkpoint(ck, translate_run_kind()));
}

}  // namespace attn::lessons
