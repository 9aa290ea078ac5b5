#include "lessons/translate.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "attn/detmath.hpp"
#include "attn/error.hpp"
#include "learn/layers.hpp"
#include "learn/json_obj.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

constexpr std::uint64_t kOrderSalt = 0x7a11b0a7d00dULL;  // the data order's stream, apart from the init's

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 3 || ids[i] >= vocab)
      bad(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(ids[i]) +
          " is not a word id (3.." + std::to_string(vocab - 1) + ")");
}

TranslateModel make_model(const TranslateConfig& cfg, bool attention) {
  TranslateModel m;
  m.config = translate_model_config(cfg, attention);
  m.layout = learn::seq2seq_layout(m.config);
  m.params = learn::init_params(m.layout, cfg.seed);
  return m;
}

double train_step(TranslateModel& m, learn::AdamState& adam, const TranslateConfig& cfg, const learn::Seq2SeqBatch& b) {
  learn::Seq2SeqActivations acts;
  std::vector<double> grads(m.layout.total(), 0.0);
  // Padded decoder steps left out: the same loss and gradient bits (learn::DecoderRows).
  const double loss = learn::seq2seq_forward(m.config, m.layout, m.params.data(), b, acts, learn::DecoderRows::valid);
  learn::seq2seq_backward(m.config, m.layout, m.params.data(), b, acts, grads.data());
  if (cfg.clip > 0.0) learn::clip_grad_norm(grads.data(), grads.size(), cfg.clip);
  learn::adam_step(m.params.data(), grads.data(), m.params.size(), adam, cfg.adam);
  return loss;
}

}  // namespace

void validate_translate_config(const TranslateConfig& c) {
  validate_translation_data(c.data);
  require_range("embed", c.embed, 1, 256);
  require_range("hidden", c.hidden, 1, 256);
  require_range("attn_dim", c.attn_dim, 1, 256);
  require_range("batch", c.batch, 1, 256);
  require_range("steps", c.steps, 0, 20000);
  require_range("eval_every", c.eval_every, 1, 10000);
  if (!(c.adam.lr > 0.0) || !(c.adam.lr <= 1.0)) bad("lr must be in (0, 1], got " + std::to_string(c.adam.lr));
  if (!(c.clip >= 0.0) || !std::isfinite(c.clip)) bad("clip must be finite and >= 0");
  if (c.batch > c.data.train) bad("batch must not exceed the training pairs (" + std::to_string(c.data.train) + ")");
}

learn::Seq2SeqConfig translate_model_config(const TranslateConfig& cfg, bool attention) {
  learn::Seq2SeqConfig m;
  m.src_vocab = english_vocab().size();
  m.tgt_vocab = french_vocab().size();
  m.embed = cfg.embed;
  m.hidden = cfg.hidden;
  m.attention = attention;
  m.attn_dim = cfg.attn_dim;
  m.bidirectional = cfg.bidirectional;
  return m;
}

learn::Seq2SeqBatch translation_batch(const std::vector<TranslationPair>& pairs, const std::vector<int>& idx) {
  if (idx.empty()) throw Error(ErrorCode::empty_sequence, "a batch needs at least one pair");
  learn::Seq2SeqBatch b;
  b.batch = static_cast<int>(idx.size());
  for (int i : idx) {
    if (i < 0 || i >= static_cast<int>(pairs.size())) bad("pair index " + std::to_string(i) + " is out of range");
    b.src_len = std::max(b.src_len, static_cast<int>(pairs[i].source.size()));
    b.tgt_len = std::max(b.tgt_len, static_cast<int>(pairs[i].target.size()) + 1);
  }
  const int S = b.src_len, U = b.tgt_len;
  b.source.assign(static_cast<size_t>(b.batch) * S, kTranslatePad);
  b.target_in.assign(static_cast<size_t>(b.batch) * U, kTranslatePad);
  b.target_out.assign(static_cast<size_t>(b.batch) * U, learn::kIgnoreIndex);
  for (int r = 0; r < b.batch; ++r) {
    const TranslationPair& p = pairs[static_cast<size_t>(idx[static_cast<size_t>(r)])];
    const int L = static_cast<int>(p.target.size());
    b.source_lengths.push_back(static_cast<int>(p.source.size()));
    for (size_t t = 0; t < p.source.size(); ++t) b.source[static_cast<size_t>(r) * S + t] = p.source[t];
    b.target_in[static_cast<size_t>(r) * U] = kTranslateBos;
    for (int t = 0; t < L; ++t) {
      b.target_in[static_cast<size_t>(r) * U + t + 1] = p.target[static_cast<size_t>(t)];
      b.target_out[static_cast<size_t>(r) * U + t] = p.target[static_cast<size_t>(t)];
    }
    b.target_out[static_cast<size_t>(r) * U + L] = kTranslateEos;
  }
  return b;
}

namespace {
constexpr size_t kLossBatch = 64;  // pairs per forward pass of a teacher-forced loss

// One forward pass of teacher_forced_loss: pairs [start, start + kLossBatch) added to its sums.
void teacher_forced_part(const TranslateModel& m, const std::vector<TranslationPair>& pairs, size_t start, double& total,
                         long& counted) {
  std::vector<int> idx;
  for (size_t i = start; i < std::min(pairs.size(), start + kLossBatch); ++i) idx.push_back(static_cast<int>(i));
  const learn::Seq2SeqBatch b = translation_batch(pairs, idx);
  learn::Seq2SeqActivations acts;
  const double loss = learn::seq2seq_forward(m.config, m.layout, m.params.data(), b, acts, learn::DecoderRows::valid);
  total += loss * acts.counted;
  counted += acts.counted;
}

// teacher_forced_loss's mean of its sums.
double teacher_forced_mean(double total, long counted) { return counted > 0 ? total / static_cast<double>(counted) : 0.0; }
}  // namespace

double teacher_forced_loss(const TranslateModel& m, const std::vector<TranslationPair>& pairs) {
  double total = 0.0;
  long counted = 0;
  for (size_t start = 0; start < pairs.size(); start += kLossBatch) teacher_forced_part(m, pairs, start, total, counted);
  return teacher_forced_mean(total, counted);
}

// ---------------------------------------------------------------- trainer

TranslateTrainer::TranslateTrainer(const TranslateConfig& cfg, StartValidation start)
    : cfg_(cfg), order_rng_(cfg.seed ^ kOrderSalt) {
  validate_translate_config(cfg);
  data_ = make_translation_dataset(cfg.data);
  none_ = make_model(cfg, false);
  additive_ = make_model(cfg, true);
  pending_ = PendingValidation{};
  if (start == StartValidation::now) record_validation();
}

void TranslateTrainer::record_validation() {
  pending_ = PendingValidation{};
  while (pending_) validation_part();
}

void TranslateTrainer::new_epoch() {
  // Fisher–Yates with the core's sampler, then pairs of similar length batched together (fewer
  // padded decoder steps): each run of kChunk batches is sorted by source length, cut into batches,
  // and the batches of the epoch are shuffled again.
  const size_t B = static_cast<size_t>(cfg_.batch), n = data_.train.size();
  std::vector<int> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = static_cast<int>(i);
  for (size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[order_rng_.below(i + 1)]);
  const size_t usable = n / B * B, chunk = kChunk * B;
  for (size_t c = 0; c < usable; c += chunk) {
    const auto first = perm.begin() + static_cast<long>(c);
    const auto last = perm.begin() + static_cast<long>(std::min(usable, c + chunk));
    std::stable_sort(first, last, [&](int a, int b) { return data_.train[a].source.size() < data_.train[b].source.size(); });
  }
  batches_.clear();
  for (size_t c = 0; c < usable; c += B)
    batches_.emplace_back(perm.begin() + static_cast<long>(c), perm.begin() + static_cast<long>(c + B));
  for (size_t i = batches_.size() - 1; i > 0; --i) std::swap(batches_[i], batches_[order_rng_.below(i + 1)]);
  cursor_ = 0;
}

void TranslateTrainer::train_one_step() {
  if (cursor_ >= batches_.size()) new_epoch();
  const learn::Seq2SeqBatch b = translation_batch(data_.train, batches_[cursor_++]);
  none_losses_.push_back(train_step(none_, none_adam_, cfg_, b));
  additive_losses_.push_back(train_step(additive_, additive_adam_, cfg_, b));
  ++step_;
  if (step_ % cfg_.eval_every == 0 || step_ == cfg_.steps) pending_ = PendingValidation{};
}

void TranslateTrainer::validation_part() {
  PendingValidation& p = *pending_;
  const std::vector<TranslationPair>& pairs = data_.validation;
  if (p.start < pairs.size()) {
    teacher_forced_part(p.attention ? additive_ : none_, pairs, p.start, p.total[p.attention], p.counted[p.attention]);
    p.start += kLossBatch;
  }
  if (p.start < pairs.size()) return;
  if (!p.attention) {  // the fixed summary measured: the attention model next
    p.attention = true;
    p.start = 0;
    return;
  }
  // teacher_forced_loss of each, from the same sums in the same order
  val_steps_.push_back(step_);
  none_val_.push_back(teacher_forced_mean(p.total[0], p.counted[0]));
  additive_val_.push_back(teacher_forced_mean(p.total[1], p.counted[1]));
  pending_.reset();
}

int TranslateTrainer::advance(int max_steps) {
  while (pending_) validation_part();
  int ran = 0;
  while (ran < max_steps && step_ < cfg_.steps) {
    train_one_step();
    while (pending_) validation_part();
    ++ran;
  }
  return ran;
}

int TranslateTrainer::advance_part() {
  if (pending_) {
    validation_part();
    return 1;
  }
  if (step_ >= cfg_.steps) return 0;
  train_one_step();
  return 1;
}

// The record carries its validation losses: none is measured (the pending one is dropped).
TranslateTrainer::TranslateTrainer(const TranslateRun& run) : TranslateTrainer(run.config, StartValidation::pending) {
  pending_.reset();
  learn::require_finished_run(run.step, cfg_.steps);
  if (run.none_params.size() != none_.params.size() || run.additive_params.size() != additive_.params.size())
    bad("the record's parameter counts do not fit the configuration (" + std::to_string(none_.params.size()) + ", " +
        std::to_string(additive_.params.size()) + ")");
  if (run.none_losses.size() != static_cast<size_t>(run.step) || run.additive_losses.size() != static_cast<size_t>(run.step))
    bad("the record needs one loss per step for each model (" + std::to_string(run.step) + ")");
  if (run.none_validation.size() != run.validation_steps.size() ||
      run.additive_validation.size() != run.validation_steps.size())
    bad("the record needs one validation loss per validation step for each model");
  none_.params = run.none_params;
  additive_.params = run.additive_params;
  none_losses_ = run.none_losses;
  additive_losses_ = run.additive_losses;
  val_steps_ = run.validation_steps;
  none_val_ = run.none_validation;
  additive_val_ = run.additive_validation;
  step_ = run.step;
}

// The seeded pair's step-0 validation is left pending and measured (or left pending) once the
// model from the file is in place.
TranslateTrainer::TranslateTrainer(const TranslateConfig& cfg, const learn::Seq2SeqConfig& model,
                                   const std::vector<double>& start, StartValidation validation)
    : TranslateTrainer(cfg, StartValidation::pending) {
  const int en = english_vocab().size(), fr = french_vocab().size();
  if (model.src_vocab != en || model.tgt_vocab != fr)
    bad("the model's vocabularies (" + std::to_string(model.src_vocab) + " source, " + std::to_string(model.tgt_vocab) +
        " target tokens) are not the lesson's (" + std::to_string(en) + " English, " + std::to_string(fr) +
        " French words)");
  learn::validate_seq2seq_config(model);
  TranslateModel& m = model.attention ? additive_ : none_;
  m.config = model;
  m.layout = learn::seq2seq_layout(model);
  learn::require_param_count("the model", start.size(), m.layout.total());
  m.params = start;
  if (validation == StartValidation::now) record_validation();
}

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

// ---------------------------------------------------------------- decoding

EncodedSource encode_source(const TranslateModel& m, const std::vector<int>& source) {
  // The lesson's word check first, then the model's own (empty, length, vocabulary).
  if (!source.empty() && source.size() <= 512) check_ids(source, m.config.src_vocab, "source");
  return learn::seq2seq_encode_source(m, source);
}

void decoder_step(const TranslateModel& m, const EncodedSource& enc, std::vector<double>& s, int previous,
                  std::vector<double>& probs, std::vector<double>& attention, const AttentionIntervention* iv,
                  int step) {
  learn::seq2seq_decoder_step(m, enc, s, previous, probs, attention, iv, step);
}

std::vector<double> next_distribution(const TranslateModel& m, const std::vector<int>& source,
                                      const std::vector<int>& prefix) {
  const EncodedSource enc = encode_source(m, source);
  std::vector<double> s = enc.s0, probs, att;
  learn::seq2seq_decoder_step(m, enc, s, kTranslateBos, probs, att);
  for (int y : prefix) learn::seq2seq_decoder_step(m, enc, s, y, probs, att);
  return probs;
}

GreedyDecode greedy_decode(const TranslateModel& m, const std::vector<int>& source, int max_steps) {
  return greedy_decode_under(m, source, max_steps, AttentionIntervention{});
}

TeacherForced teacher_forced(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target) {
  if (!source.empty() && source.size() <= 512) check_ids(source, m.config.src_vocab, "source");
  return learn::seq2seq_teacher_forced(m, source, target, kTranslateBos, kTranslateEos);
}

BeamResult beam_search(const TranslateModel& m, const std::vector<int>& source, int width, double alpha,
                       int max_steps) {
  learn::require_beam_arguments(width, alpha, max_steps);
  const EncodedSource enc = encode_source(m, source);
  return learn::seq2seq_beam_search(m, enc, kTranslateBos, kTranslateEos, width, alpha, max_steps);
}

namespace {

// max |a_i - b_i| (infinity when the sizes differ), and whether the bits are equal.
std::pair<double, bool> row_difference(const double* a, const std::vector<double>& b, size_t n) {
  if (b.size() != n) return {std::numeric_limits<double>::infinity(), false};
  double d = 0.0;
  for (size_t i = 0; i < n; ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return {d, std::memcmp(a, b.data(), n * sizeof(double)) == 0};
}

}  // namespace

std::vector<Check> beam_prefix_checks(const BeamPrefixCheck& pc, const std::string& unit) {
  return {check_at_most("the best hypothesis's " + std::to_string(pc.forced_rows) +
                            " step distributions vs the teacher-forced pass of its " + unit + ": max |p - q| (" +
                            std::to_string(pc.forced_same_bits) + " rows the same bits)",
                        pc.forced_max_diff, 0.0),
          check_at_most("hypotheses sharing a prefix, " + std::to_string(pc.shared_rows) + " shared steps: max |p - q| (" +
                            std::to_string(pc.shared_same_bits) + " the same bits)",
                        pc.shared_max_diff, 0.0)};
}

Check intervention_path_check(double path_max_diff) {
  return check_at_most("the intervention path with nothing changed is the model's teacher-forced pass: max |p - q|",
                       path_max_diff, 1e-12);
}

BeamPrefixCheck beam_prefix_check(const TranslateModel& m, const std::vector<int>& source, const BeamResult& beam) {
  BeamPrefixCheck c;
  if (beam.finished.empty()) return c;
  const size_t V = static_cast<size_t>(m.config.tgt_vocab);
  const BeamHypothesis& best = beam.finished[static_cast<size_t>(beam.best)];
  const TeacherForced tf = teacher_forced(m, source, best.tokens);
  for (size_t t = 0; t < best.distributions.size() && t < static_cast<size_t>(tf.rows); ++t) {
    const auto [d, same] = row_difference(tf.probs.data() + t * V, best.distributions[t], V);
    ++c.forced_rows;
    c.forced_same_bits += same;
    c.forced_max_diff = std::max(c.forced_max_diff, d);
  }
  for (size_t a = 0; a < beam.finished.size(); ++a) {
    for (size_t b = a + 1; b < beam.finished.size(); ++b) {
      const BeamHypothesis &x = beam.finished[a], &y = beam.finished[b];
      // step t's distribution depends on the first t tokens: shared while those agree
      for (size_t t = 0; t < x.distributions.size() && t < y.distributions.size(); ++t) {
        if (t > 0 && (t > x.tokens.size() || t > y.tokens.size() || x.tokens[t - 1] != y.tokens[t - 1])) break;
        const auto [d, same] = row_difference(x.distributions[t].data(), y.distributions[t], x.distributions[t].size());
        ++c.shared_rows;
        c.shared_same_bits += same;
        c.shared_max_diff = std::max(c.shared_max_diff, d);
      }
    }
  }
  return c;
}

// ---------------------------------------------------------------- evaluation

namespace {
// The test-set scores are sums over sentences in the pairs' order: each function below adds one
// sentence, so a study run one sentence per slice gives the bits of the loop run at once.

TranslateEval eval_start(const std::vector<LengthBucket>& buckets) {
  if (buckets.empty()) bad("evaluation needs at least one length bucket");
  TranslateEval ev;
  for (const LengthBucket& b : buckets) ev.buckets.push_back({b});
  ev.overall.bucket = {buckets.front().lo, buckets.back().hi};
  return ev;
}

void eval_add(TranslateEval& ev, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
              const TranslationPair& p) {
  const int k = bucket_of(buckets, static_cast<int>(p.source.size()));
  if (k < 0) return;
  const GreedyDecode g = greedy_decode(m, p.source, static_cast<int>(p.source.size()) + 10);
  int correct = 0;
  for (size_t i = 0; i < p.target.size() && i < g.tokens.size(); ++i) correct += g.tokens[i] == p.target[i];
  const bool exact = g.ended && g.tokens == p.target;
  for (BucketAccuracy* a : {&ev.buckets[static_cast<size_t>(k)], &ev.overall}) {
    ++a->sentences;
    a->exact += exact;
    a->tokens += static_cast<int>(p.target.size());
    a->correct += correct;
  }
}

void eval_finish(TranslateEval& ev) {
  auto finish = [](BucketAccuracy& a) {
    a.exact_match = a.sentences ? static_cast<double>(a.exact) / a.sentences : 0.0;
    a.token_accuracy = a.tokens ? static_cast<double>(a.correct) / a.tokens : 0.0;
  };
  for (BucketAccuracy& a : ev.buckets) finish(a);
  finish(ev.overall);
}

void removal_add(MostReadRemoval& r, const TranslateModel& m, const TranslationPair& p, bool decode_intact);
void removal_finish(MostReadRemoval& r, const TranslateEval* intact_eval);
AlignmentAgreement agreement_start(const std::vector<LengthBucket>& buckets);
void agreement_add(AlignmentAgreement& ag, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
                   const TranslationPair& p);
void agreement_finish(AlignmentAgreement& ag);
}  // namespace

TranslateEval evaluate_translation(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                   const std::vector<LengthBucket>& buckets) {
  TranslateEval ev = eval_start(buckets);
  for (const TranslationPair& p : pairs) eval_add(ev, buckets, m, p);
  eval_finish(ev);
  return ev;
}

TeacherForced teacher_forced_under(const TranslateModel& m, const std::vector<int>& source,
                                   const std::vector<int>& target, const AttentionIntervention& iv) {
  learn::require_target_ids(target, m.config.tgt_vocab);
  const EncodedSource enc = encode_source(m, source);
  return learn::seq2seq_teacher_forced_steps(m, enc, target, kTranslateBos, kTranslateEos, &iv);
}

GreedyDecode greedy_decode_under(const TranslateModel& m, const std::vector<int>& source, int max_steps,
                                 const AttentionIntervention& iv) {
  learn::require_decode_steps(max_steps);
  const EncodedSource enc = encode_source(m, source);
  // No intervention: none passed, so the fixed summary decodes here too.
  return learn::seq2seq_greedy_decode(m, enc, kTranslateBos, kTranslateEos, max_steps,
                                      iv.removed >= 0 || !iv.forced.empty() ? &iv : nullptr);
}

std::vector<std::vector<double>> lesson_constructed_weights() {
  return {{0.8, 0.1, 0.1}, {0.1, 0.1, 0.8}, {0.1, 0.8, 0.1}};
}

AttentionInterventions attention_interventions(const TranslateModel& m, const std::string& sentence) {
  if (!m.config.attention) bad("the fixed-summary model has no attention to intervene on");
  AttentionInterventions r;
  r.source = english_ids(sentence);
  r.reference = reference_translation(r.source);
  for (int id : r.source) r.source_words.push_back(english_vocab().words[static_cast<size_t>(id)]);
  const int S = static_cast<int>(r.source.size()), steps = S + 10;
  const TeacherForced base = teacher_forced(m, r.source, r.reference);
  const TeacherForced path = teacher_forced_under(m, r.source, r.reference, AttentionIntervention{});
  for (size_t i = 0; i < base.probs.size() && i < path.probs.size(); ++i)
    r.path_max_diff = std::max(r.path_max_diff, std::fabs(base.probs[i] - path.probs[i]));
  r.loss = path.loss;
  const GreedyDecode g = greedy_decode_under(m, r.source, steps, AttentionIntervention{});
  r.output = g.tokens;
  r.exact = g.ended && g.tokens == r.reference;
  for (int j = 0; S >= 2 && j < S; ++j) {
    AttentionIntervention iv;
    iv.removed = j;
    WordRemoval w;
    w.position = j;
    w.word = r.source_words[static_cast<size_t>(j)];
    w.loss = teacher_forced_under(m, r.source, r.reference, iv).loss;
    w.delta_loss = w.loss - r.loss;
    const GreedyDecode d = greedy_decode_under(m, r.source, steps, iv);
    w.output = d.tokens;
    w.exact = d.ended && d.tokens == r.reference;
    r.removals.push_back(std::move(w));
  }
  r.forced_applies = S == 3 && r.reference.size() == 3;
  if (r.forced_applies) {
    AttentionIntervention iv;
    iv.forced = lesson_constructed_weights();
    r.forced_loss = teacher_forced_under(m, r.source, r.reference, iv).loss;
    r.forced_delta_loss = r.forced_loss - r.loss;
    const GreedyDecode d = greedy_decode_under(m, r.source, steps, iv);
    r.forced_output = d.tokens;
    r.forced_exact = d.ended && d.tokens == r.reference;
  }
  return r;
}

namespace {
void removal_add(MostReadRemoval& r, const TranslateModel& m, const TranslationPair& p, bool decode_intact) {
  const int n = static_cast<int>(p.source.size());
  if (n < 2) return;
  // the source word the decoder reads most over the reference (teacher forced)
  const TeacherForced f = teacher_forced(m, p.source, p.target);
  std::vector<double> column(static_cast<size_t>(n), 0.0);
  for (int t = 0; t < f.rows; ++t)
    for (int j = 0; j < n; ++j) column[static_cast<size_t>(j)] += f.attention[static_cast<size_t>(t) * n + j];
  AttentionIntervention iv;
  iv.removed = static_cast<int>(std::max_element(column.begin(), column.end()) - column.begin());
  const GreedyDecode removed = greedy_decode_under(m, p.source, n + 10, iv);
  ++r.sentences;
  if (decode_intact) {
    const GreedyDecode intact = greedy_decode(m, p.source, n + 10);
    r.exact_intact += intact.ended && intact.tokens == p.target;
  }
  r.exact_removed += removed.ended && removed.tokens == p.target;
}

void removal_finish(MostReadRemoval& r, const TranslateEval* intact_eval) {
  if (intact_eval) r.exact_intact = intact_eval->overall.exact;
  if (r.sentences) {
    r.exact_match_intact = static_cast<double>(r.exact_intact) / r.sentences;
    r.exact_match_removed = static_cast<double>(r.exact_removed) / r.sentences;
  }
}

AlignmentAgreement agreement_start(const std::vector<LengthBucket>& buckets) {
  if (buckets.empty()) bad("the agreement needs at least one length bucket");
  AlignmentAgreement ag;
  for (const LengthBucket& b : buckets) ag.buckets.push_back({b});
  ag.overall.bucket = {buckets.front().lo, buckets.back().hi};
  return ag;
}

void agreement_add(AlignmentAgreement& ag, const std::vector<LengthBucket>& buckets, const TranslateModel& m,
                   const TranslationPair& p) {
  const int k = bucket_of(buckets, static_cast<int>(p.source.size()));
  if (k < 0) return;
  const std::vector<int> from = reference_alignment(p.source);
  if (from.size() != p.target.size()) bad("a pair's target is not the grammar's translation of its source");
  const TeacherForced f = teacher_forced(m, p.source, p.target);
  const int S = f.src_len;
  int on = 0;
  double weight = 0.0;
  for (size_t t = 0; t < from.size(); ++t) {  // the target words; the EOS row translates no word
    const double* row = f.attention.data() + t * static_cast<size_t>(S);
    int best = 0;
    for (int j = 1; j < S; ++j)
      if (row[j] > row[best]) best = j;
    on += best == from[t];
    weight += row[from[t]];
  }
  for (BucketAgreement* a : {&ag.buckets[static_cast<size_t>(k)], &ag.overall}) {
    ++a->sentences;
    a->targets += static_cast<int>(from.size());
    a->on_source += on;
    a->weight_sum += weight;
  }
}

void agreement_finish(AlignmentAgreement& ag) {
  auto finish = [](BucketAgreement& a) {
    a.share = a.targets ? static_cast<double>(a.on_source) / a.targets : 0.0;
    a.mean_weight = a.targets ? a.weight_sum / a.targets : 0.0;
  };
  for (BucketAgreement& a : ag.buckets) finish(a);
  finish(ag.overall);
}
}  // namespace

MostReadRemoval most_read_removal(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                  const TranslateEval* intact_eval) {
  if (!m.config.attention) bad("the fixed-summary model has no attention to intervene on");
  MostReadRemoval r;
  for (const TranslationPair& p : pairs) removal_add(r, m, p, intact_eval == nullptr);
  removal_finish(r, intact_eval);
  return r;
}

AlignmentAgreement alignment_agreement(const TranslateModel& m, const std::vector<TranslationPair>& pairs,
                                       const std::vector<LengthBucket>& buckets) {
  if (!m.config.attention) bad("the fixed-summary model has no alignment (attention \"none\")");
  AlignmentAgreement ag = agreement_start(buckets);
  for (const TranslationPair& p : pairs) agreement_add(ag, buckets, m, p);
  agreement_finish(ag);
  return ag;
}

// ---------------------------------------------------------------- the test-set scores in slices

TranslateScoresStudy::TranslateScoresStudy(const TranslateModel& none, const TranslateModel& additive,
                                           std::vector<TranslationPair> pairs, std::vector<LengthBucket> buckets)
    : none_(none), additive_(additive), pairs_(std::move(pairs)), buckets_(std::move(buckets)) {
  if (none_.config.attention) bad("the scores' first model is the fixed summary (attention \"none\")");
  if (!additive_.config.attention) bad("the scores' second model is the attention model (attention \"additive\")");
  none_eval_ = eval_start(buckets_);
  additive_eval_ = eval_start(buckets_);
  agreement_ = agreement_start(buckets_);
  if (pairs_.empty()) removal_finish(removal_, &additive_eval_);  // nothing to measure: the figures are final
}

const char* TranslateScoresStudy::phase() const {
  static const char* names[] = {"fixed summary", "attention", "agreement", "most-read removal"};
  return done() ? "done" : names[unit_ / static_cast<int>(pairs_.size())];
}

int TranslateScoresStudy::advance(int max_units) {
  const int n = static_cast<int>(pairs_.size()), total = units_total();
  int ran = 0;
  for (; ran < max_units && unit_ < total; ++ran) {
    const int phase = unit_ / n;
    const TranslationPair& p = pairs_[static_cast<size_t>(unit_ % n)];
    switch (phase) {
      case 0: eval_add(none_eval_, buckets_, none_, p); break;
      case 1: eval_add(additive_eval_, buckets_, additive_, p); break;
      case 2: agreement_add(agreement_, buckets_, additive_, p); break;
      default: removal_add(removal_, additive_, p, false); break;
    }
    ++unit_;
    if (unit_ == total) {
      eval_finish(none_eval_);
      eval_finish(additive_eval_);
      agreement_finish(agreement_);
      removal_finish(removal_, &additive_eval_);
    }
  }
  return ran;
}

namespace {

// Two claims about a teacher-forced alignment: each row sums to 1 (largest error), and the same
// pass with two PAD columns after the source gives them weight 0 (largest weight found there).
struct AlignmentClaims {
  double max_row_sum_error = 0.0, max_padded_weight = 0.0;
  std::vector<Check> checks() const {
    return {check_at_most("rows sum to 1: max |sum - 1|", max_row_sum_error, 1e-9),
            check_at_most("padding gets 0: max weight on 2 appended PAD positions", max_padded_weight, 0.0)};
  }
};

AlignmentClaims alignment_claims(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target,
                                 const TeacherForced& forced) {
  AlignmentClaims c;
  const int S = forced.src_len;
  for (int t = 0; t < forced.rows; ++t) {
    double sum = 0.0;
    for (int j = 0; j < S; ++j) sum += forced.attention[static_cast<size_t>(t) * S + j];
    c.max_row_sum_error = std::max(c.max_row_sum_error, std::fabs(sum - 1.0));
  }
  const std::vector<TranslationPair> one{{source, target}};
  learn::Seq2SeqBatch b = translation_batch(one, {0});
  std::vector<int> padded(static_cast<size_t>(S + 2), kTranslatePad);
  std::copy(source.begin(), source.end(), padded.begin());
  b.source = padded;
  b.src_len = S + 2;
  learn::Seq2SeqActivations acts;
  learn::seq2seq_forward(m.config, m.layout, m.params.data(), b, acts);
  for (int t = 0; t < b.tgt_len; ++t)
    for (int j = S; j < S + 2; ++j)
      c.max_padded_weight = std::max(c.max_padded_weight, std::fabs(acts.weights[t][static_cast<size_t>(j)]));
  return c;
}

}  // namespace

TranslateAlignment translate_alignment(const TranslateModel& m, const std::string& sentence) {
  if (!m.config.attention) bad("the fixed-summary model has no alignment (attention \"none\")");
  TranslateAlignment a;
  a.source = english_ids(sentence);
  a.reference = reference_translation(a.source);
  a.bidirectional = m.config.bidirectional;
  for (int id : a.source) a.source_words.push_back(english_vocab().words[static_cast<size_t>(id)]);
  for (int id : a.reference) a.target_words.push_back(french_vocab().words[static_cast<size_t>(id)]);
  a.target_words.push_back("<eos>");
  a.forced = teacher_forced(m, a.source, a.reference);
  a.greedy = greedy_decode(m, a.source, static_cast<int>(a.source.size()) + 10);
  const AlignmentClaims claims = alignment_claims(m, a.source, a.reference, a.forced);
  a.max_row_sum_error = claims.max_row_sum_error;
  a.max_padded_weight = claims.max_padded_weight;
  a.checks = claims.checks();
  return a;
}

// ---------------------------------------------------------------- tokens as numbers

bool lesson_vocabularies(const learn::Seq2SeqConfig& cfg) {
  return cfg.src_vocab == english_vocab().size() && cfg.tgt_vocab == french_vocab().size();
}

std::vector<std::string> lesson_word_analyses() {
  return {"accuracy by sentence length: the test set's English sentences and their French references",
          "alignment agreement: the grammar's word-for-word correspondence",
          "the most-read word removed over the test set: the test set's sentences",
          "the lesson's constructed weights forced into the decoder: \"the black cat\", three English words",
          "training: the lesson's sentence pairs are the data",
          "the width table and the reproduction check: the lab's own pair"};
}

std::vector<int> default_token_source(const learn::Seq2SeqConfig& cfg) {
  std::vector<int> ids;
  for (int k = 0; cfg.src_vocab > 3 && k < 4; ++k) ids.push_back(3 + k % (cfg.src_vocab - 3));
  return ids;
}

TokenAnalysis token_analysis(const TranslateModel& m, const std::vector<int>& source, const std::vector<int>& target,
                             int beam_width, double alpha) {
  if (m.config.tgt_vocab <= kTranslateEos)
    bad("decoding needs BOS (id 1) and EOS (id 2) in the target vocabulary; this one has " +
        std::to_string(m.config.tgt_vocab) + " ids");
  if (target.size() > 511) bad("the target is limited to 511 tokens (512 rows with EOS)");
  if (m.config.src_vocab <= 3) bad("the source vocabulary has no word ids: ids 0-2 are PAD, BOS and EOS, this one has " +
                                   std::to_string(m.config.src_vocab) + " ids");
  TokenAnalysis r;
  r.source = source;
  const int S = static_cast<int>(source.size()), steps = std::min(512, S + 10);
  r.greedy = greedy_decode(m, source, steps);
  r.target_given = !target.empty();
  r.target = r.target_given ? target : r.greedy.tokens;
  if (r.target.size() > 511) r.target.resize(511);
  r.forced = teacher_forced(m, source, r.target);
  r.beam = beam_search(m, source, beam_width, alpha, steps);
  r.beam_prefix = beam_prefix_check(m, source, r.beam);
  if (!m.config.attention) {
    r.checks = beam_prefix_checks(r.beam_prefix, "tokens");
    return r;
  }
  const AlignmentClaims claims = alignment_claims(m, source, r.target, r.forced);
  r.max_row_sum_error = claims.max_row_sum_error;
  r.max_padded_weight = claims.max_padded_weight;
  r.checks = claims.checks();
  const TeacherForced path = teacher_forced_under(m, source, r.target, AttentionIntervention{});
  for (size_t i = 0; i < r.forced.probs.size() && i < path.probs.size(); ++i)
    r.path_max_diff = std::max(r.path_max_diff, std::fabs(r.forced.probs[i] - path.probs[i]));
  for (int j = 0; S >= 2 && j < S; ++j) {
    AttentionIntervention iv;
    iv.removed = j;
    TokenRemoval w;
    w.position = j;
    w.token = source[static_cast<size_t>(j)];
    w.loss = teacher_forced_under(m, source, r.target, iv).loss;
    w.delta_loss = w.loss - path.loss;
    const GreedyDecode d = greedy_decode_under(m, source, steps, iv);
    w.output = d.tokens;
    w.ended = d.ended;
    w.same_output = d.tokens == r.greedy.tokens && d.ended == r.greedy.ended;
    r.removals.push_back(std::move(w));
  }
  r.checks.push_back(intervention_path_check(r.path_max_diff));
  for (Check& c : beam_prefix_checks(r.beam_prefix, "tokens")) r.checks.push_back(std::move(c));
  return r;
}

// ---------------------------------------------------------------- record and checkpoint

Json translate_config_json(const TranslateConfig& c) {
  Json buckets = Json::array();
  for (const LengthBucket& b : c.data.buckets) buckets.push_back({b.lo, b.hi});
  Json j = ::attn::obj({{"data", ::attn::obj({{"seed", c.data.seed}, {"train", c.data.train},
                        {"validation_per_bucket", c.data.validation_per_bucket},
                        {"test_per_bucket", c.data.test_per_bucket}, {"max_length", c.data.max_length},
                        {"buckets", buckets}})},
              {"embed", c.embed}, {"hidden", c.hidden}, {"attn_dim", c.attn_dim}, {"batch", c.batch},
              {"adam", ::attn::obj({{"lr", c.adam.lr}, {"beta1", c.adam.beta1}, {"beta2", c.adam.beta2}, {"eps", c.adam.eps},
                        {"weight_decay", c.adam.weight_decay}})},
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
  const Json& a = j.is_object() && j.contains("adam") ? j["adam"] : Json();
  c.adam = {num(a, "lr").get<double>(), num(a, "beta1").get<double>(), num(a, "beta2").get<double>(),
            num(a, "eps").get<double>(), num(a, "weight_decay").get<double>()};
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

// ---------------------------------------------------------------- the H control's table

TranslateConfig translate_width_config(const TranslateConfig& base, int hidden) {
  TranslateConfig c = base;
  c.embed = c.hidden = c.attn_dim = hidden;
  return c;
}

namespace {

TranslateWidthResult width_result(const TranslateTrainer& tr) {
  TranslateWidthResult r;
  r.config = tr.config();
  r.hidden = r.config.hidden;
  const TranslationDataset& d = tr.data();
  r.none = evaluate_translation(tr.model(false), d.test, d.config.buckets);
  r.additive = evaluate_translation(tr.model(true), d.test, d.config.buckets);
  r.agreement = alignment_agreement(tr.model(true), d.test, d.config.buckets);
  if (!tr.losses(false).empty()) r.none_final_loss = tr.losses(false).back();
  if (!tr.losses(true).empty()) r.additive_final_loss = tr.losses(true).back();
  r.none_fnv1a = learn::params_fnv1a(tr.model(false).params);
  r.additive_fnv1a = learn::params_fnv1a(tr.model(true).params);
  return r;
}

Json counts_json(const BucketAccuracy& a) {
  return ::attn::obj({{"lo", a.bucket.lo}, {"hi", a.bucket.hi}, {"sentences", a.sentences},
              {"exact", a.exact}, {"tokens", a.tokens}, {"correct", a.correct}});
}

int count_field(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer() || j[key].get<long long>() < 0 ||
      j[key].get<long long>() > 1000000000)
    bad(where + ": needs a non-negative integer \"" + key + "\"");
  return j[key].get<int>();
}

BucketAccuracy counts_from_json(const Json& j, const std::string& where) {
  BucketAccuracy a;
  a.bucket = {count_field(j, "lo", where), count_field(j, "hi", where)};
  a.sentences = count_field(j, "sentences", where);
  a.exact = count_field(j, "exact", where);
  a.tokens = count_field(j, "tokens", where);
  a.correct = count_field(j, "correct", where);
  if (a.exact > a.sentences || a.correct > a.tokens)
    bad(where + ": more exact sentences or correct words than it has");
  a.exact_match = a.sentences ? static_cast<double>(a.exact) / a.sentences : 0.0;
  a.token_accuracy = a.tokens ? static_cast<double>(a.correct) / a.tokens : 0.0;
  return a;
}

Json agreement_counts_json(const BucketAgreement& a) {
  return ::attn::obj({{"lo", a.bucket.lo}, {"hi", a.bucket.hi}, {"sentences", a.sentences}, {"targets", a.targets},
                      {"on_source", a.on_source}, {"weight_sum", a.weight_sum}});
}

BucketAgreement agreement_counts_from_json(const Json& j, const std::string& where) {
  BucketAgreement a;
  a.bucket = {count_field(j, "lo", where), count_field(j, "hi", where)};
  a.sentences = count_field(j, "sentences", where);
  a.targets = count_field(j, "targets", where);
  a.on_source = count_field(j, "on_source", where);
  if (!j.contains("weight_sum") || !j["weight_sum"].is_number()) bad(where + ": needs the number \"weight_sum\"");
  a.weight_sum = j["weight_sum"].get<double>();
  if (a.on_source > a.targets || !(a.weight_sum >= 0.0) || a.weight_sum > a.targets)
    bad(where + ": more words on their source, or more weight, than it has target words");
  a.share = a.targets ? static_cast<double>(a.on_source) / a.targets : 0.0;
  a.mean_weight = a.targets ? a.weight_sum / a.targets : 0.0;
  return a;
}

Json eval_counts_json(const TranslateEval& e) {
  Json rows = Json::array();
  for (const BucketAccuracy& b : e.buckets) rows.push_back(counts_json(b));
  return ::attn::obj({{"buckets", rows}, {"overall", counts_json(e.overall)}});
}

TranslateEval eval_counts_from_json(const Json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("buckets") || !j["buckets"].is_array() || j["buckets"].empty() ||
      !j.contains("overall"))
    bad(where + ": needs \"buckets\" (a non-empty array) and \"overall\"");
  TranslateEval e;
  for (size_t i = 0; i < j["buckets"].size(); ++i)
    e.buckets.push_back(counts_from_json(j["buckets"][i], where + ".buckets[" + std::to_string(i) + "]"));
  e.overall = counts_from_json(j["overall"], where + ".overall");
  return e;
}

}  // namespace

TranslateWidthResult translate_width_result(const TranslateConfig& base, int hidden) {
  const TranslateConfig cfg = translate_width_config(base, hidden);
  TranslateTrainer tr(cfg);
  tr.advance(cfg.steps);
  return width_result(tr);
}

TranslateWidthResult translate_width_result_of(const TranslateRun& run) { return width_result(TranslateTrainer(run)); }

Json translate_widths_json(const TranslateConfig& base, const std::vector<TranslateWidthResult>& rows) {
  Json widths = Json::array();
  for (const TranslateWidthResult& r : rows)
    widths.push_back(::attn::obj({{"hidden", r.hidden}, {"config", translate_config_json(r.config)},
                          {"none", eval_counts_json(r.none)}, {"additive", eval_counts_json(r.additive)},
                          {"agreement", [&] {
                             Json rows = Json::array();
                             for (const BucketAgreement& b : r.agreement.buckets) rows.push_back(agreement_counts_json(b));
                             return ::attn::obj({{"buckets", rows}, {"overall", agreement_counts_json(r.agreement.overall)}});
                           }()},
                          {"none_final_loss", r.none_final_loss}, {"additive_final_loss", r.additive_final_loss},
                          {"none_fnv1a", r.none_fnv1a}, {"additive_fnv1a", r.additive_fnv1a}}));
  return ::attn::obj({{"table", "translate_widths"},
              {"generated_by", "attn table translate_widths (core/cli/attn_main.cpp; lessons/translate.hpp "
                               "translate_width_result): each width trained from its seed natively"},
              {"base", translate_config_json(base)},
              {"widths", widths}});
}

std::vector<TranslateWidthResult> translate_widths_from_json(const Json& j) {
  if (!j.is_object() || j.value("table", "") != "translate_widths" || !j.contains("widths") || !j["widths"].is_array())
    bad("translate widths table: needs \"table\": \"translate_widths\" and a \"widths\" array");
  std::vector<TranslateWidthResult> out;
  for (size_t i = 0; i < j["widths"].size(); ++i) {
    const Json& w = j["widths"][i];
    const std::string where = "translate widths table: widths[" + std::to_string(i) + "]";
    if (!w.is_object() || !w.contains("config")) bad(where + ": needs a \"config\"");
    TranslateWidthResult r;
    r.hidden = count_field(w, "hidden", where);
    r.config = translate_config_from_json(w["config"]);
    if (r.config.hidden != r.hidden) bad(where + ": its config's hidden differs from \"hidden\"");
    r.none = eval_counts_from_json(w.value("none", Json()), where + ".none");
    r.additive = eval_counts_from_json(w.value("additive", Json()), where + ".additive");
    const Json ag = w.value("agreement", Json());
    if (!ag.is_object() || !ag.contains("buckets") || !ag["buckets"].is_array() || !ag.contains("overall"))
      bad(where + ": needs \"agreement\" with \"buckets\" and \"overall\"");
    for (size_t k = 0; k < ag["buckets"].size(); ++k)
      r.agreement.buckets.push_back(
          agreement_counts_from_json(ag["buckets"][k], where + ".agreement.buckets[" + std::to_string(k) + "]"));
    r.agreement.overall = agreement_counts_from_json(ag["overall"], where + ".agreement.overall");
    if (!w.contains("none_final_loss") || !w["none_final_loss"].is_number() || !w.contains("additive_final_loss") ||
        !w["additive_final_loss"].is_number())
      bad(where + ": needs the numbers none_final_loss and additive_final_loss");
    r.none_final_loss = w["none_final_loss"].get<double>();
    r.additive_final_loss = w["additive_final_loss"].get<double>();
    r.none_fnv1a = w.value("none_fnv1a", "");
    r.additive_fnv1a = w.value("additive_fnv1a", "");
    out.push_back(r);
  }
  return out;
}

}  // namespace attn::lessons
