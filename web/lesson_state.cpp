#include "lesson_state.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "app_state.hpp"
#include "attn/error.hpp"
#include "attn/linalg.hpp"

namespace app {

using attn::Json;
using attn::Matrix;
using attn::Vector;

namespace {

[[noreturn]] void invalid(const std::string& message) { throw attn::Error(attn::ErrorCode::invalid_field, message); }

Matrix bool_to_matrix(const attn::BoolMatrix& b) { return b.cast<double>(); }

}  // namespace

// --- Masks ----------------------------------------------------------------------

bool set_masks_prefix(AppState& s, int from, double amount) {
  MasksState& m = s.lesson.masks;
  return guarded(m.error, [&] {
    attn::PrefixIsolationResult r = attn::prefix_isolation(s.lesson.model.x, s.lesson.model.weights, from, amount);
    m.from = from;
    m.amount = amount;
    m.prefix = std::move(r);
    ++s.generation;
  });
}

bool set_masks_padding(AppState& s, int valid_length) {
  MasksState& m = s.lesson.masks;
  return guarded(m.error, [&] {
    const int t = static_cast<int>(s.lesson.model.x.rows());
    attn::require_range("valid length", valid_length, 1, t);
    std::vector<bool> valid(static_cast<size_t>(t), false);
    for (int j = 0; j < valid_length; ++j) valid[static_cast<size_t>(j)] = true;
    attn::KeyPaddingResult r = attn::key_padding_experiment(s.lesson.model.x, s.lesson.model.weights, valid, 100.0);
    m.valid_length = valid_length;
    m.padding = std::move(r);
    ++s.generation;
  });
}

bool set_masks_empty_allowed(AppState& s, const attn::BoolMatrix& allowed) {
  MasksState& m = s.lesson.masks;
  const attn::SelfAttentionResult& a = s.lesson.model.attention;
  return guarded(m.error, [&] {
    attn::MaskSpec spec;
    spec.allowed = allowed;
    attn::EmptyRowDemo r = attn::empty_row_demo(a.query, a.key, a.value, spec);
    m.empty_allowed = allowed;
    m.empty = std::move(r);
    ++s.generation;
  });
}

bool toggle_masks_empty_cell(AppState& s, int row, int col) {
  MasksState& m = s.lesson.masks;
  if (row < 0 || col < 0 || row >= m.empty_allowed.rows() || col >= m.empty_allowed.cols()) {
    m.error = ErrorInfo{"invalid_field", "cell (" + std::to_string(row) + ", " + std::to_string(col) +
                                             ") is outside the " + std::to_string(m.empty_allowed.rows()) + "x" +
                                             std::to_string(m.empty_allowed.cols()) + " mask"};
    return false;
  }
  attn::BoolMatrix b = m.empty_allowed;
  b(row, col) = !b(row, col);
  return set_masks_empty_allowed(s, b);
}

void set_masks_zero_policy(AppState& s, bool zero) {
  s.lesson.masks.zero_policy = zero;
  ++s.generation;
}

bool set_masks_causal(AppState& s, int tq, int tk) {
  MasksState& m = s.lesson.masks;
  return guarded(m.error, [&] {
    attn::require_range("Tq", tq, 1, 16);
    attn::require_range("Tk", tk, 1, 16);
    attn::CausalAlignmentTable r = attn::causal_alignments(tq, tk);
    m.top_left = bool_to_matrix(r.top_left);
    m.bottom_right = bool_to_matrix(r.bottom_right);
    m.tq = tq;
    m.tk = tk;
    m.causal = std::move(r);
    ++s.generation;
  });
}

// --- Attribution ----------------------------------------------------------------

bool set_attribution(AppState& s, const std::vector<std::string>& keys, const Vector& weights, const Matrix& values) {
  AttributionState& a = s.lesson.attribution;
  return guarded(a.error, [&] {
    if (static_cast<attn::Index>(keys.size()) != weights.size())
      throw attn::Error(attn::ErrorCode::shape_mismatch,
                        std::to_string(keys.size()) + " key labels for " + std::to_string(weights.size()) + " weights");
    if (weights.size() > 8) throw attn::Error(attn::ErrorCode::too_large, "the panel draws at most 8 keys");
    attn::AttributionResult r = attn::attribution(weights, values);
    a.keys = keys;
    a.weights = weights;
    a.values = values;
    a.weight_row = r.weights.transpose();
    a.result = std::move(r);
    a.selected_key = std::max(0, std::min(static_cast<int>(weights.size()) - 1, a.selected_key));
    ++s.generation;
  });
}

bool set_attribution_weight(AppState& s, int key, double value) {
  AttributionState& a = s.lesson.attribution;
  Matrix row = a.weights.transpose();  // the core's rule works on a row of a weight matrix
  if (!guarded(a.error, [&] { attn::set_weight_keep_distribution(row, 0, key, value); })) return false;
  return set_attribution(s, a.keys, row.row(0).transpose(), a.values);
}

bool set_attribution_value(AppState& s, int key, int dim, double value) {
  AttributionState& a = s.lesson.attribution;
  if (key < 0 || key >= a.values.rows() || dim < 0 || dim >= a.values.cols()) {
    a.error = ErrorInfo{"invalid_field", "value (" + std::to_string(key) + ", " + std::to_string(dim) +
                                             ") is outside the " + attn::shape_str(a.values) + " value matrix"};
    return false;
  }
  Matrix v = a.values;
  v(key, dim) = value;
  return set_attribution(s, a.keys, a.weights, v);
}

void select_attribution_key(AppState& s, int key) {
  AttributionState& a = s.lesson.attribution;
  a.selected_key = std::max(0, std::min(static_cast<int>(a.weights.size()) - 1, key));
  ++s.generation;
}

bool attribution_preset(AppState& s, const std::string& name) {
  AttributionState& a = s.lesson.attribution;
  if (name == "chat") {
    Vector w(3);
    w << 0.1, 0.1, 0.8;
    Matrix v(3, 2);
    v << 1, 0, 0, 1, 2, 0;
    a.selected_key = 2;
    return set_attribution(s, {"the", "black", "cat"}, w, v);
  }
  if (name == "counterexample") {
    a.selected_key = 0;
    return set_attribution(s, {"zero value", "(10, 20)"}, a.counterexample.weights, a.counterexample.values);
  }
  a.error = ErrorInfo{"invalid_field", "unknown preset '" + name + "' (chat, counterexample)"};
  return false;
}

// --- Scaling --------------------------------------------------------------------

bool set_scaling(AppState& s, int d_k, std::uint64_t seed, int samples) {
  ScalingState& c = s.lesson.scaling;
  return guarded(c.error, [&] {
    attn::require_range("d_k", d_k, 1, 512);
    attn::ScalingInput base;  // d_k = 1, 2, 4, ..., 512
    base.seed = seed;
    base.samples = samples;
    // The curve depends on seed and samples only; keep it while only d_k moves.
    const bool same_curve = !c.curve.dot.empty() && c.curve.input.seed == seed && c.curve.input.samples == samples;
    attn::ScalingResult curve = same_curve ? c.curve : attn::scaling_study(base);
    attn::ScalingInput one = base;
    one.d_ks = {d_k};
    one.rows = 100;
    one.bins = 41;
    one.range = 4.0 * std::sqrt(static_cast<double>(d_k));  // display range: ±4 standard deviations of q·k
    attn::ScalingResult selected = attn::scaling_study(one);
    one.rows = 1;
    one.range = 4.0;  // ±4 standard deviations of q·k/sqrt(d_k)
    attn::ScalingResult selected_scaled = attn::scaling_study(one);
    c.d_k = d_k;
    c.d_k_edit = d_k;
    c.seed = seed;
    c.samples = samples;
    c.curve = std::move(curve);
    c.selected = std::move(selected);
    c.selected_scaled = std::move(selected_scaled);
    c.pending = false;
    ++s.generation;
  });
}

bool set_scaling_logits(AppState& s, const std::vector<double>& logits) {
  ScalingState& c = s.lesson.scaling;
  return guarded(c.error, [&] {
    attn::SoftmaxStability r = attn::softmax_stability(logits);
    if (logits != c.logits) c.logits_text = attn::dump(Json(logits));
    c.logits = logits;
    c.stability = std::move(r);
    ++s.generation;
  });
}

// --- Soft to hard, dropout ------------------------------------------------------

bool set_temperature(AppState& s, double temperature, bool hard) {
  TemperatureState& t = s.lesson.temperature;
  const attn::SelfAttentionResult& a = s.lesson.model.attention;
  return guarded(t.error, [&] {
    attn::TemperatureResult r = attn::temperature_attention(a.query, a.key, t.values2d, {}, temperature, hard);
    t.temperature = temperature;
    t.hard = hard;
    t.result = std::move(r);
    ++s.generation;
  });
}

bool set_dropout(AppState& s, double p, std::uint64_t seed) {
  DropoutState& d = s.lesson.dropout;
  const attn::SelfAttentionResult& a = s.lesson.model.attention;
  return guarded(d.error, [&] {
    attn::AttentionDropout r = attn::apply_attention_dropout(a.attention, a.value, p, seed);
    d.keep = bool_to_matrix(r.keep);
    const Matrix sums = attn::matmul(a.attention.weights, Matrix::Ones(a.attention.weights.cols(), 1), "weights·1");
    d.weight_row_sums.assign(sums.data(), sums.data() + sums.size());
    d.p = p;
    d.seed = seed;
    d.result = std::move(r);
    ++s.generation;
  });
}

// --- Additive -------------------------------------------------------------------

bool set_additive_input(AppState& s, const attn::AdditiveDecoderInput& in) {
  AdditiveState& a = s.lesson.additive;
  return guarded(a.error, [&] {
    attn::AdditiveDecoderDemo r = attn::additive_decoder_demo(in);
    a.input = in;
    a.source_text = in.source;
    a.target_text = in.target;
    a.step = std::max(0, std::min(static_cast<int>(r.steps.size()) - 1, a.step));
    a.result = std::move(r);
    ++s.generation;
  });
}

void set_additive_step(AppState& s, int step) {
  AdditiveState& a = s.lesson.additive;
  a.step = std::max(0, std::min(static_cast<int>(a.result.steps.size()) - 1, step));
  ++s.generation;
}

// --- Lesson script --------------------------------------------------------------

bool run_timing(AppState& s) {
  ScriptState& sc = s.lesson.script;
  return guarded(sc.error, [&] {
    attn::TimingFixture f = attn::timing_fixture(17);
    sc.timing = std::move(f);
    ++sc.runs;
    ++s.generation;
  });
}

// --- Recall ---------------------------------------------------------------------

namespace {
const attn::RecallTask* find_task(const AppState& s, const std::string& id) {
  for (const attn::RecallTask& t : s.lesson.recall.tasks)
    if (t.id == id) return &t;
  return nullptr;
}
}  // namespace

bool answer_recall(AppState& s, const std::string& task_id, int choice) {
  RecallState& r = s.lesson.recall;
  const attn::RecallTask* t = find_task(s, task_id);
  if (!t) {
    r.error = ErrorInfo{"invalid_field", "unknown recall task \"" + task_id + "\""};
    return false;
  }
  if (t->kind != attn::RecallKind::predict || choice < 0 || choice >= static_cast<int>(t->choices.size())) {
    r.error = ErrorInfo{"invalid_field", "task \"" + task_id + "\" takes a choice 0.." +
                                             std::to_string(static_cast<int>(t->choices.size()) - 1)};
    return false;
  }
  r.entries[task_id].choice = choice;
  return check_recall_task(s, task_id);
}

bool check_recall_task(AppState& s, const std::string& task_id) {
  RecallState& r = s.lesson.recall;
  return guarded(r.error, [&] {
    const attn::RecallTask* t = find_task(s, task_id);
    if (!t) invalid("unknown recall task \"" + task_id + "\"");
    RecallEntry& e = r.entries[task_id];
    attn::RecallAttempt attempt;
    if (e.choice >= 0) attempt.choice = e.choice;
    // Construct tasks read what the panel shows: the attribution row, the masks panel's grid.
    for (const std::string& field : t->reads) {
      if (field == "weights") attempt.weights = s.lesson.attribution.weights;
      if (field == "values") attempt.values = s.lesson.attribution.values;
      if (field == "query") attempt.query = s.lesson.model.attention.query;
      if (field == "key") attempt.key = s.lesson.model.attention.key;
      if (field == "value") attempt.value = s.lesson.model.attention.value;
      if (field == "mask") attempt.mask.allowed = s.lesson.masks.empty_allowed;
      if (field == "heads_model") {  // the Learned heads panel's model as it stands
        attempt.heads_model = s.learned_heads.trainer.get();
        attempt.heads_heldout = &s.learned_heads.heldout;
      }
    }
    attn::RecallVerdict v = attn::check_recall(task_id, attempt);
    e.verdict = std::move(v);
    ++s.generation;
  });
}

std::vector<int> recall_tasks_of(const AppState& s, const char* panel) {
  std::vector<int> out;
  const auto& tasks = s.lesson.recall.tasks;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].panel == panel) out.push_back(static_cast<int>(i));
  return out;
}

// --- Defaults -------------------------------------------------------------------

void init_lesson_state(AppState& s) {
  LessonState& l = s.lesson;
  l.model = attn::lesson_replica();
  const int t = static_cast<int>(l.model.x.rows());

  set_masks_prefix(s, 3, 100.0);
  set_masks_padding(s, 4);
  attn::BoolMatrix grid = attn::BoolMatrix::Constant(t, t, true);
  grid.row(1).setConstant(false);  // query "cat" may attend to nothing
  set_masks_empty_allowed(s, grid);
  set_masks_causal(s, 3, 5);

  l.attribution.counterexample = attn::attribution_counterexample();
  attribution_preset(s, "chat");

  set_scaling_logits(s, l.scaling.logits);  // the sampling study: show_scaling_panel

  l.temperature.values2d = l.model.attention.value.leftCols(2);
  set_temperature(s, 1.0, false);
  set_dropout(s, l.dropout.p, l.dropout.seed);
  set_additive_input(s, attn::AdditiveDecoderInput{});
  run_timing(s);

  l.recall.tasks = attn::recall_tasks();
  for (const attn::RecallTask& task : l.recall.tasks) l.recall.entries[task.id] = RecallEntry{};
}

void show_scaling_panel(AppState& s, bool now) {
  ScalingState& c = s.lesson.scaling;
  if (!c.curve.dot.empty()) return;
  c.pending = true;
  if (now) tick_scaling(s);
}

void tick_scaling(AppState& s) {
  ScalingState& c = s.lesson.scaling;
  if (!c.pending) return;
  c.pending = false;
  if (c.curve.dot.empty()) set_scaling(s, c.d_k, c.seed, c.samples);
}

// --- JSON -----------------------------------------------------------------------

namespace {

Json error_value(const std::optional<ErrorInfo>& e) {
  if (!e) return nullptr;
  return Json{{"code", e->code}, {"message", e->message}};
}

Json all_checks(std::initializer_list<const std::vector<attn::Check>*> lists) {
  Json out = Json::array();
  for (const auto* l : lists)
    for (const attn::Check& c : *l) out.push_back(attn::to_json(c));
  return out;
}

int get_int(const Json& j, const char* key, int lo, int hi) {
  if (!j.is_number()) invalid(std::string(key) + " must be a number");
  const double d = j.get<double>();
  if (!(d >= lo && d <= hi) || d != std::floor(d))
    invalid(std::string(key) + " must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi));
  return static_cast<int>(d);
}

double get_double(const Json& j, const char* key) {
  if (!j.is_number()) invalid(std::string(key) + " must be a number");
  return j.get<double>();  // finiteness is the core's business (non_finite)
}

bool get_bool(const Json& j, const char* key) {
  if (!j.is_boolean()) invalid(std::string(key) + " must be true or false");
  return j.get<bool>();
}

std::string get_string(const Json& j, const char* key) {
  if (!j.is_string()) invalid(std::string(key) + " must be a string");
  return j.get<std::string>();
}

std::uint64_t get_seed(const Json& j) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  if (!j.is_number() || j.get<double>() < 0 || j.get<double>() > 9007199254740992.0 ||
      j.get<double>() != std::floor(j.get<double>()))
    invalid("seed must be an integer between 0 and 2^53");
  return static_cast<std::uint64_t>(j.get<double>());
}

std::vector<double> get_numbers(const Json& j, const char* key) {
  if (!j.is_array()) invalid(std::string(key) + " must be an array of numbers");
  std::vector<double> out;
  for (const Json& x : j) out.push_back(get_double(x, key));
  return out;
}

template <typename F>
void each(const Json& patch, F&& f) {
  for (auto it = patch.begin(); it != patch.end(); ++it) f(it.key(), *it);
}

bool apply_masks(AppState& s, const Json& patch) {
  MasksState& m = s.lesson.masks;
  int from = m.from, valid = m.valid_length, tq = m.tq, tk = m.tk;
  double amount = m.amount;
  bool prefix = false, padding = false, causal = false;
  bool ok = true;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "from")
      from = get_int(v, "from", -1000000, 1000000), prefix = true;
    else if (k == "amount")
      amount = get_double(v, "amount"), prefix = true;
    else if (k == "valid_length")
      valid = get_int(v, "valid_length", -1000000, 1000000), padding = true;
    else if (k == "tq")
      tq = get_int(v, "tq", -1000000, 1000000), causal = true;
    else if (k == "tk")
      tk = get_int(v, "tk", -1000000, 1000000), causal = true;
    else if (k == "zero_policy")
      set_masks_zero_policy(s, get_bool(v, "zero_policy"));
    else if (k == "empty_allowed") {
      attn::MaskSpec spec = attn::mask_from_json(Json{{"allowed", v}});
      ok = ok && set_masks_empty_allowed(s, *spec.allowed);
    } else if (k == "toggle") {
      if (!v.is_array() || v.size() != 2) invalid("toggle takes [row, col]");
      ok = ok &&
           toggle_masks_empty_cell(s, get_int(v[0], "row", -1000000, 1000000), get_int(v[1], "col", -1000000, 1000000));
    } else
      invalid("unknown masks input '" + k + "'");
  });
  if (ok && prefix) ok = set_masks_prefix(s, from, amount);
  if (ok && padding) ok = set_masks_padding(s, valid);
  if (ok && causal) ok = set_masks_causal(s, tq, tk);
  return ok;
}

bool apply_attribution(AppState& s, const Json& patch) {
  AttributionState& a = s.lesson.attribution;
  std::vector<std::string> keys = a.keys;
  Vector w = a.weights;
  Matrix v = a.values;
  bool matrices = false, ok = true;
  each(patch, [&](const std::string& k, const Json& x) {
    if (k == "weights") {
      const std::vector<double> n = get_numbers(x, "weights");
      w = Eigen::Map<const Vector>(n.data(), static_cast<attn::Index>(n.size()));
      matrices = true;
    } else if (k == "values") {
      v = attn::matrix_from_json(x, "values");
      matrices = true;
    } else if (k == "keys") {
      if (!x.is_array()) invalid("keys must be an array of strings");
      keys.clear();
      for (const Json& t : x) keys.push_back(get_string(t, "keys"));
      matrices = true;
    } else if (k == "selected_key") {
      select_attribution_key(s, get_int(x, "selected_key", -1000000, 1000000));
    } else if (k == "preset") {
      ok = ok && attribution_preset(s, get_string(x, "preset"));
      keys = a.keys, w = a.weights, v = a.values;
    } else if (k == "set_weight") {
      if (!x.is_object() || !x.contains("key") || !x.contains("value")) invalid("set_weight needs {key, value}");
      ok =
          ok && set_attribution_weight(s, get_int(x["key"], "key", -1000000, 1000000), get_double(x["value"], "value"));
      w = a.weights;
    } else {
      invalid("unknown attribution input '" + k + "'");
    }
  });
  if (!ok) return false;
  if (matrices) {
    // Labels follow the number of keys when only the numbers were given.
    if (!patch.contains("keys") && static_cast<attn::Index>(keys.size()) != w.size()) {
      keys.clear();
      for (attn::Index j = 0; j < w.size(); ++j) keys.push_back("key " + std::to_string(j));
    }
    return set_attribution(s, keys, w, v);
  }
  return true;
}

bool apply_scaling(AppState& s, const Json& patch) {
  ScalingState& c = s.lesson.scaling;
  int d_k = c.d_k, samples = c.samples;
  std::uint64_t seed = c.seed;
  bool study = false, ok = true;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "d_k")
      d_k = get_int(v, "d_k", -1000000, 1000000), study = true;
    else if (k == "samples")
      samples = get_int(v, "samples", -100000000, 100000000), study = true;
    else if (k == "seed")
      seed = get_seed(v), study = true;
    else if (k == "logits")
      ok = ok && set_scaling_logits(s, get_numbers(v, "logits"));
    else
      invalid("unknown scaling input '" + k + "'");
  });
  // The same inputs again change nothing: the study stays as it is (and, before the panel was first
  // shown, not computed), so a link that repeats the defaults leaves state() as a fresh page has it.
  const bool same = d_k == c.d_k && seed == c.seed && samples == c.samples && !c.error;
  return ok && (!study || same || set_scaling(s, d_k, seed, samples));
}

bool apply_temperature(AppState& s, const Json& patch) {
  TemperatureState& t = s.lesson.temperature;
  double tau = t.temperature;
  bool hard = t.hard;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "temperature")
      tau = get_double(v, "temperature");
    else if (k == "hard")
      hard = get_bool(v, "hard");
    else
      invalid("unknown temperature input '" + k + "'");
  });
  return set_temperature(s, tau, hard);
}

bool apply_dropout(AppState& s, const Json& patch) {
  DropoutState& d = s.lesson.dropout;
  double p = d.p;
  std::uint64_t seed = d.seed;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "p")
      p = get_double(v, "p");
    else if (k == "seed")
      seed = get_seed(v);
    else
      invalid("unknown dropout input '" + k + "'");
  });
  return set_dropout(s, p, seed);
}

bool apply_additive(AppState& s, const Json& patch) {
  AdditiveState& a = s.lesson.additive;
  attn::AdditiveDecoderInput in = a.input;
  bool recompute = false, has_step = false;
  int step = 0;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "source")
      in.source = get_string(v, "source"), a.source_text = in.source, recompute = true;
    else if (k == "target")
      in.target = get_string(v, "target"), a.target_text = in.target, recompute = true;
    else if (k == "seed")
      in.seed = get_seed(v), recompute = true;
    else if (k == "d_h")
      in.d_h = get_int(v, "d_h", -1000000, 1000000), recompute = true;
    else if (k == "d_s")
      in.d_s = get_int(v, "d_s", -1000000, 1000000), recompute = true;
    else if (k == "d_a")
      in.d_a = get_int(v, "d_a", -1000000, 1000000), recompute = true;
    else if (k == "step")
      step = get_int(v, "step", -1000000, 1000000), has_step = true;
    else
      invalid("unknown additive input '" + k + "'");
  });
  if (recompute && !set_additive_input(s, in)) return false;
  if (has_step) set_additive_step(s, step);
  return true;
}

bool apply_script(AppState& s, const Json& patch) {
  bool ok = true;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "run_timing") {
      if (get_bool(v, "run_timing")) ok = ok && run_timing(s);
    } else {
      invalid("unknown script input '" + k + "'");
    }
  });
  return ok;
}

bool apply_recall(AppState& s, const Json& patch) {
  if (!patch.contains("task")) invalid("recall takes {task: id, choice?: n}");
  std::string task;
  int choice = -1;
  bool has_choice = false;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "task")
      task = get_string(v, "task");
    else if (k == "choice")
      choice = get_int(v, "choice", -1000000, 1000000), has_choice = true;
    else
      invalid("unknown recall input '" + k + "' (task, choice)");
  });
  return has_choice ? answer_recall(s, task, choice) : check_recall_task(s, task);
}

}  // namespace

// One function per panel: its inputs (what set() takes back, and what a link carries) and its whole state.

Json masks_inputs_json(const AppState& s) {
  const MasksState& m = s.lesson.masks;
  return Json{{"from", m.from},
              {"amount", m.amount},
              {"valid_length", m.valid_length},
              {"empty_allowed", attn::to_json(m.empty_allowed)},
              {"zero_policy", m.zero_policy},
              {"tq", m.tq},
              {"tk", m.tk}};
}

Json masks_state_json(const AppState& s) {
  const LessonState& l = s.lesson;
  const MasksState& m = l.masks;
  return Json{{"inputs", masks_inputs_json(s)},
              {"result",
               {{"tokens", l.model.tokens},
                {"prefix", attn::to_json(m.prefix)},
                {"padding", attn::to_json(m.padding)},
                {"empty_rows", attn::to_json(m.empty)},
                {"causal", attn::to_json(m.causal)},
                {"checks", all_checks({&m.prefix.checks, &m.padding.checks, &m.empty.checks, &m.causal.checks})}}},
              {"error", error_value(m.error)}};
}

Json attribution_inputs_json(const AppState& s) {
  const AttributionState& a = s.lesson.attribution;
  return Json{{"keys", a.keys},
              {"weights", attn::to_json(a.weights)},
              {"values", attn::to_json(a.values)},
              {"selected_key", a.selected_key}};
}

Json attribution_state_json(const AppState& s) {
  const AttributionState& a = s.lesson.attribution;
  return Json{{"inputs", attribution_inputs_json(s)},
              {"result",
               {{"counterexample", attn::to_json(a.counterexample)},
                {"row", attn::to_json(a.result)},
                {"checks", all_checks({&a.counterexample.checks, &a.result.checks})}}},
              {"error", error_value(a.error)}};
}

Json scaling_inputs_json(const AppState& s) {
  const ScalingState& c = s.lesson.scaling;
  return Json{{"d_k", c.d_k}, {"seed", c.seed}, {"samples", c.samples}, {"logits", c.logits}};
}

Json scaling_state_json(const AppState& s) {
  const ScalingState& c = s.lesson.scaling;
  Json out{{"inputs", scaling_inputs_json(s)},
           {"result",
            {{"curve", attn::to_json(c.curve)},
             {"selected", attn::to_json(c.selected)},
             {"selected_scaled", attn::to_json(c.selected_scaled)},
             {"stability", attn::to_json(c.stability)},
             {"checks", all_checks({&c.curve.checks, &c.selected.checks, &c.stability.checks})}}},
           {"error", error_value(c.error)}};
  if (c.pending) out["pending"] = true;  // the sampling study waits for the next frame (omitted once done)
  return out;
}

Json temperature_inputs_json(const AppState& s) {
  const TemperatureState& t = s.lesson.temperature;
  return Json{{"temperature", t.temperature}, {"hard", t.hard}};
}

Json temperature_state_json(const AppState& s) {
  const LessonState& l = s.lesson;
  const TemperatureState& t = l.temperature;
  Json r = attn::to_json(t.result);
  r["tokens"] = l.model.tokens;
  r["values"] = attn::to_json(t.values2d);
  return Json{{"inputs", temperature_inputs_json(s)}, {"result", std::move(r)}, {"error", error_value(t.error)}};
}

Json dropout_inputs_json(const AppState& s) {
  const DropoutState& d = s.lesson.dropout;
  return Json{{"p", d.p}, {"seed", d.seed}};
}

Json dropout_state_json(const AppState& s) {
  const LessonState& l = s.lesson;
  const DropoutState& d = l.dropout;
  Json r = attn::to_json(d.result);
  r["tokens"] = l.model.tokens;
  r["weights"] = attn::to_json(l.model.attention.attention.weights);
  return Json{{"inputs", dropout_inputs_json(s)}, {"result", std::move(r)}, {"error", error_value(d.error)}};
}

namespace {
Json additive_inputs_only(const AppState& s) {
  const AdditiveState& ad = s.lesson.additive;
  return Json{{"source", ad.input.source}, {"target", ad.input.target}, {"seed", ad.input.seed},
              {"d_h", ad.input.d_h},       {"d_s", ad.input.d_s},       {"d_a", ad.input.d_a}};
}
}  // namespace

Json additive_inputs_json(const AppState& s) {
  Json in = additive_inputs_only(s);
  in["step"] = s.lesson.additive.step;  // a link also carries the step spelled out
  return in;
}

Json additive_state_json(const AppState& s) {
  const AdditiveState& ad = s.lesson.additive;
  Json additive_checks = Json::array();
  for (const attn::Check& k : ad.result.checks) additive_checks.push_back(attn::to_json(k));
  if (ad.step >= 0 && ad.step < static_cast<int>(ad.result.steps.size())) {
    const attn::AdditiveDecoderStep& st = ad.result.steps[static_cast<size_t>(ad.step)];
    for (const attn::Check& k : st.attention.checks) additive_checks.push_back(attn::to_json(k));
    for (const attn::Check& k : st.comparison.checks) additive_checks.push_back(attn::to_json(k));
  }
  Json r = attn::to_json(ad.result);
  r["checks_shown"] = additive_checks;
  return Json{{"inputs", additive_inputs_only(s)}, {"step", ad.step}, {"result", std::move(r)}, {"error", error_value(ad.error)}};
}

Json script_state_json(const AppState& s) {
  const LessonState& l = s.lesson;
  const ScriptState& sc = l.script;
  return Json{{"inputs", {{"runs", sc.runs}}},
              {"result",
               {{"replica", attn::to_json(l.model)},
                {"timing", attn::to_json(sc.timing)},
                {"checks", all_checks({&l.model.checks, &sc.timing.checks})}}},
              {"error", error_value(sc.error)}};
}

Json recall_state_json(const AppState& s) {
  const LessonState& l = s.lesson;
  Json answers = Json::object();
  for (const auto& [id, e] : l.recall.entries)
    answers[id] = Json{{"choice", e.choice >= 0 ? Json(e.choice) : Json(nullptr)},
                       {"verdict", e.verdict ? attn::to_json(*e.verdict) : Json(nullptr)}};
  return Json{{"tasks", attn::to_json(l.recall.tasks)}, {"result", {{"answers", answers}}}, {"error", error_value(l.recall.error)}};
}

bool apply_masks_json(AppState& s, const Json& patch) { return apply_masks(s, patch); }
bool apply_attribution_json(AppState& s, const Json& patch) { return apply_attribution(s, patch); }
bool apply_scaling_json(AppState& s, const Json& patch) { return apply_scaling(s, patch); }
bool apply_temperature_json(AppState& s, const Json& patch) { return apply_temperature(s, patch); }
bool apply_dropout_json(AppState& s, const Json& patch) { return apply_dropout(s, patch); }
bool apply_additive_json(AppState& s, const Json& patch) { return apply_additive(s, patch); }
bool apply_script_json(AppState& s, const Json& patch) { return apply_script(s, patch); }
bool apply_recall_json(AppState& s, const Json& patch) { return apply_recall(s, patch); }

}  // namespace app
