#include "learned_heads_state.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>

#include "app_state.hpp"
#include "attn/error.hpp"
#include "attn/masks.hpp"

namespace app {

using attn::Json;
namespace lh = attn::lessons;

namespace {

constexpr int kSnapshotEvery = lh::kHeadsSnapshotEvery;
constexpr int kHeldout = lh::kHeadsHeldout;
constexpr int kCurvePoints = 300;

[[noreturn]] void invalid(const std::string& message) { throw attn::Error(attn::ErrorCode::invalid_field, message); }

double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

std::int64_t get_integer(const Json& j, const std::string& key) {
  if (!j.is_number()) invalid(key + " must be an integer");
  const double d = j.get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) invalid(key + " must be an integer");
  if (d > 4e18 || d < -4e18) invalid(key + " is out of range");
  return j.is_number_integer() ? j.get<std::int64_t>() : static_cast<std::int64_t>(d);
}

int clamp_int(std::int64_t v) { return static_cast<int>(std::max<std::int64_t>(-1000000000, std::min<std::int64_t>(v, 1000000000))); }

bool get_bool(const Json& j, const std::string& key) {
  if (!j.is_boolean()) invalid(key + " must be true or false");
  return j.get<bool>();
}

void validate(const LearnedHeadsInput& in) {
  if (in.steps < 1 || in.steps > 20000) invalid("steps must be between 1 and 20000, got " + std::to_string(in.steps));
  if (in.heads != 1 && in.heads != 2 && in.heads != 4 && in.heads != 8)
    invalid("heads must be 1, 2, 4 or 8 (dividing d_model 32), got " + std::to_string(in.heads));
  if (in.layers < 1 || in.layers > 3) invalid("layers must be between 1 and 3, got " + std::to_string(in.layers));
  if (in.mlp != 0 && in.mlp != 64) invalid("mlp must be 0 (attention only) or 64, got " + std::to_string(in.mlp));
  if (!(in.lr > 0.0) || !(in.lr <= 1.0) || !std::isfinite(in.lr)) invalid("the learning rate must be in (0, 1]");
  if (in.vocab < 2 || in.vocab > 64) invalid("vocab must be between 2 and 64, got " + std::to_string(in.vocab));
  if (in.run_min < 2) invalid("run_min must be at least 2 (a run of 1 has nothing to predict), got " + std::to_string(in.run_min));
}

// Like guarded(), but a success leaves an earlier input error on show: training slices, snapshots
// and interventions must not clear the message of a refused input.
template <typename F>
bool computed(std::optional<ErrorInfo>& error, F&& compute) {
  std::optional<ErrorInfo> e;
  if (guarded(e, std::forward<F>(compute))) return true;
  error = e;
  return false;
}

const char* status(const LearnedHeadsState& h) {
  if (!h.trainer) return "idle";
  if (h.running) return "training";
  if (h.trainer->done()) return "done";
  return h.trainer->step() > 0 ? "paused" : "idle";
}

void rebuild_maps(LearnedHeadsState& h) {
  h.maps.clear();
  h.maps_initial.clear();
  ++h.maps_version;
  if (h.snapshots.empty()) return;
  const int t = h.heldout.batch.t;
  auto to_matrices = [t](const lh::HeadsSnapshot& snap, std::vector<attn::Matrix>& out) {
    for (const std::vector<double>& m : snap.maps) {
      attn::Matrix a(t, t);
      for (int i = 0; i < t * t; ++i) a.data()[i] = m[static_cast<size_t>(i)];
      out.push_back(std::move(a));
    }
  };
  h.shown = std::max(0, std::min(h.shown, static_cast<int>(h.snapshots.size()) - 1));
  to_matrices(h.snapshots[static_cast<size_t>(h.shown)], h.maps);  // none for a restored run's middle steps
  to_matrices(h.snapshots.front(), h.maps_initial);
}

void add_snapshot(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const lh::HeadsTrainer& tr = *h.trainer;
  if (!h.snapshots.empty() && h.snapshots.back().step == tr.step()) return;
  h.snapshots.push_back(lh::take_snapshot(tr.model(), tr.layout(), tr.params(), tr.step(), h.heldout));
  if (h.follow) h.shown = static_cast<int>(h.snapshots.size()) - 1;
  rebuild_maps(h);
}

void rebuild_curve(LearnedHeadsState& h) {
  h.curve_x.clear();
  h.curve_train.clear();
  h.curve_other.clear();
  if (!h.trainer) return;
  const std::vector<double>& a = h.trainer->losses();
  const std::vector<double>& b = h.trainer->other_losses();
  const int n = static_cast<int>(a.size());
  const int total = std::max(1, h.trainer->config().steps);
  h.curve_stride = std::max(1, (total + kCurvePoints - 1) / kCurvePoints);
  for (int i0 = 0; i0 < n; i0 += h.curve_stride) {
    const int i1 = std::min(n, i0 + h.curve_stride);
    double sa = 0, sb = 0;
    for (int i = i0; i < i1; ++i) sa += a[static_cast<size_t>(i)], sb += b[static_cast<size_t>(i)];
    h.curve_x.push_back(i1);  // the bucket's last step (steps count from 1)
    h.curve_train.push_back(sa / (i1 - i0));
    h.curve_other.push_back(sb / (i1 - i0));
  }
}

// A new trainer at step 0 for the current inputs (they were validated).
void start_over(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const lh::HeadsTrainingConfig cfg = learned_heads_config(h.input);
  h.trainer = std::make_shared<lh::HeadsTrainer>(cfg);
  h.heldout = lh::heldout_batch(cfg.task, cfg.seed, kHeldout);
  h.running = false;
  h.from_checkpoint = false;
  h.snapshots.clear();
  h.shown = 0;
  h.follow = true;
  h.interventions.reset();
  h.combined.reset();
  h.combo.assign(static_cast<size_t>(h.input.layers * h.input.heads), false);
  h.steps_per_second = 0.0;
  const int t = cfg.task.context;
  h.allowed = attn::causal_mask(t, t, attn::Causal::square);
  h.tokens.clear();
  for (int i = 0; i < t; ++i) h.tokens.push_back(std::to_string(h.heldout.batch.tokens[static_cast<size_t>(i)]));
  add_snapshot(s);
  rebuild_curve(h);
  ++s.generation;
}

void update_combined(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  h.combined.reset();
  if (!h.trainer || h.running) return;
  std::vector<int> picked;
  for (size_t i = 0; i < h.combo.size(); ++i)
    if (h.combo[i]) picked.push_back(static_cast<int>(i));
  if (picked.empty()) return;
  if (!h.interventions || h.interventions->step != h.trainer->step()) run_learned_heads_interventions(s);
  if (!h.interventions) return;
  const lh::HeadsTrainer& tr = *h.trainer;
  computed(h.error, [&] {
    attn::learn::HeadIntervention iv;
    iv.mode.assign(h.combo.size(), attn::learn::HeadIntervention::keep);
    for (int i : picked)
      iv.mode[static_cast<size_t>(i)] =
          h.combo_mean ? attn::learn::HeadIntervention::mean_of_batch : attn::learn::HeadIntervention::zero;
    iv.means = h.interventions->ablation.head_means;
    LearnedHeadsCombined c;
    c.step = tr.step();
    c.heads = picked;
    c.mean = h.combo_mean;
    c.eval = lh::evaluate(tr.model(), tr.layout(), tr.params(), h.heldout, &iv);
    h.combined = std::move(c);
  });
  ++s.generation;
}

Json eval_json(const lh::InductionEval& e) {
  return Json{{"loss", e.loss}, {"accuracy", e.accuracy}, {"other_loss", e.other_loss}, {"counted", e.counted}};
}

Json snapshot_json(const lh::HeadsSnapshot& snap, int heads) {
  Json scores = Json::array();
  for (size_t i = 0; i < snap.scores.size(); ++i) {
    const lh::HeadScores& sc = snap.scores[i];
    scores.push_back(Json{{"layer", static_cast<int>(i) / heads}, {"head", static_cast<int>(i) % heads},
                          {"previous_token", sc.previous_token}, {"induction", sc.induction},
                          {"diagonal", sc.diagonal}, {"first_token", sc.first_token}});
  }
  return Json{{"step", snap.step}, {"heldout", eval_json(snap.eval)}, {"accuracy", snap.eval.accuracy}, {"scores", scores}};
}

Json sampled(const std::vector<double>& v, int stride) {
  Json out = Json::array();
  for (size_t i = 0; i < v.size(); i += static_cast<size_t>(stride)) out.push_back(v[i]);
  return out;
}

}  // namespace

namespace {
// The panel's architecture (d_model 32); the position signal is the caller's.
attn::learn::DecoderConfig panel_model(const LearnedHeadsInput& in) {
  attn::learn::DecoderConfig m;
  m.d_model = 32;
  m.heads = in.heads;
  m.layers = in.layers;
  m.mlp = in.mlp;
  return m;
}
}  // namespace

lh::HeadsTrainingConfig learned_heads_config(const LearnedHeadsInput& in) {
  lh::HeadsTrainingConfig cfg;
  cfg.model = panel_model(in);
  cfg.model.positions = in.positions;
  cfg.task.vocab = in.vocab;
  cfg.task.prefix_max = in.prefix_max;
  cfg.task.run_min = in.run_min;
  cfg.task.run_max = in.run_max;
  cfg.adam.lr = in.lr;
  cfg.seed = in.seed;
  cfg.steps = in.steps;
  return cfg;
}

void init_learned_heads(AppState& s) { start_over(s); }

bool set_learned_heads_input(AppState& s, const LearnedHeadsInput& in) {
  LearnedHeadsState& h = s.learned_heads;
  if (in == h.input && h.trainer) {
    h.error.reset();
    return true;
  }
  const bool ok = guarded(h.error, [&] {
    validate(in);
    lh::HeadsTrainer probe(learned_heads_config(in));  // the core's own validation
    (void)probe;
  });
  if (!ok) return false;
  h.input = in;
  h.extrapolation.reset();
  h.extrapolation_running = false;
  start_over(s);
  return true;
}

lh::ExtrapolationConfig learned_heads_extrapolation_config(const LearnedHeadsInput& in) {
  lh::ExtrapolationConfig c;
  c.model = panel_model(in);
  c.lr = in.lr;
  c.seed = in.seed;
  c.task.vocab = in.vocab;  // its own lengths: layouts must fit the 20-token training sequences
  return c;
}

void learned_heads_extrapolation_start(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  computed(h.error, [&] {
    h.extrapolation = std::make_shared<lh::ExtrapolationStudy>(learned_heads_extrapolation_config(h.input));
    h.extrapolation_running = true;
  });
  ++s.generation;
}

void learned_heads_extrapolation_pause(AppState& s) {
  s.learned_heads.extrapolation_running = false;
  ++s.generation;
}

void learned_heads_extrapolation_continue(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (h.extrapolation && !h.extrapolation->done()) h.extrapolation_running = true;
  ++s.generation;
}

void learned_heads_train(AppState& s) {
  start_over(s);
  LearnedHeadsState& h = s.learned_heads;
  h.running = true;
  ++h.runs;
  h.rate_t0 = now_seconds();
  h.rate_step0 = 0;
}

void learned_heads_pause(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.running) return;
  h.running = false;
  // The maps and scores of the step it stopped at (besides the every-100-steps ones).
  computed(h.error, [&] { add_snapshot(s); });
  ++s.generation;
}

void learned_heads_continue(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.trainer || h.running || h.trainer->done()) return;
  h.running = true;
  h.combined.reset();
  h.rate_t0 = now_seconds();
  h.rate_step0 = h.trainer->step();
  ++s.generation;
}

void learned_heads_reset(AppState& s) { start_over(s); }

bool learned_heads_wants_checkpoint(const AppState& s, bool shown) {
  const LearnedHeadsState& h = s.learned_heads;
  return shown && h.checkpoint.status == LearnedHeadsCheckpoint::Status::not_requested &&
         h.input == LearnedHeadsInput{} && h.trainer && h.trainer->step() == 0 && !h.running;
}

void learned_heads_checkpoint_requested(AppState& s) {
  s.learned_heads.checkpoint.status = LearnedHeadsCheckpoint::Status::requested;
  ++s.generation;
}

void learned_heads_checkpoint_failed(AppState& s, const std::string& message) {
  LearnedHeadsCheckpoint& c = s.learned_heads.checkpoint;
  c.status = LearnedHeadsCheckpoint::Status::failed;
  c.message = message;
  ++s.generation;
}

bool learned_heads_install_checkpoint(AppState& s, const std::uint8_t* data, std::size_t size) {
  LearnedHeadsState& h = s.learned_heads;
  LearnedHeadsCheckpoint& c = h.checkpoint;
  c.bytes = size;
  ++s.generation;
  try {
    lh::HeadsRun run = lh::heads_run_from_checkpoint(attn::learn::decode_checkpoint(data, size));
    if (lh::heads_config_json(run.config) != lh::heads_config_json(learned_heads_config(LearnedHeadsInput{})))
      throw attn::Error(attn::ErrorCode::invalid_field, "the checkpoint is of another configuration than the default run");
    if (run.snapshots.size() < 2 || run.snapshots.front().step != 0 || run.snapshots.back().step != run.step)
      throw attn::Error(attn::ErrorCode::invalid_field, "the checkpoint lacks the snapshots of step 0 and its last step");
    if (!(h.input == LearnedHeadsInput{}) || !h.trainer || h.trainer->step() != 0 || h.running) {
      c.status = LearnedHeadsCheckpoint::Status::declined;
      c.message = "not installed: the inputs changed or a run started before it arrived";
      return false;
    }
    auto trainer = std::make_shared<lh::HeadsTrainer>(run);
    // The first and last snapshots again, from parameters, with their maps; this build must give
    // the recorded figures to the bit, or the checkpoint is not this page's run.
    const lh::HeadsSnapshot first = lh::take_snapshot(trainer->model(), trainer->layout(), trainer->initial_params(), 0, h.heldout);
    const lh::HeadsSnapshot last = lh::take_snapshot(trainer->model(), trainer->layout(), trainer->params(), run.step, h.heldout);
    const auto same = [](const lh::HeadsSnapshot& a, const lh::HeadsSnapshot& b) {
      if (a.eval.loss != b.eval.loss || a.eval.accuracy != b.eval.accuracy || a.scores.size() != b.scores.size()) return false;
      for (size_t i = 0; i < a.scores.size(); ++i)
        if (a.scores[i].induction != b.scores[i].induction || a.scores[i].previous_token != b.scores[i].previous_token)
          return false;
      return true;
    };
    if (!same(first, run.snapshots.front()) || !same(last, run.snapshots.back()))
      throw attn::Error(attn::ErrorCode::invalid_field,
                        "this build computes other held-out figures than the checkpoint records");
    run.snapshots.front() = first;
    run.snapshots.back() = last;
    h.trainer = std::move(trainer);
    h.snapshots = std::move(run.snapshots);
    h.shown = static_cast<int>(h.snapshots.size()) - 1;
    h.follow = true;
    h.from_checkpoint = true;
    rebuild_maps(h);
    rebuild_curve(h);
    c.status = LearnedHeadsCheckpoint::Status::installed;
    c.params_fnv1a = attn::learn::hex64(attn::learn::fnv1a_doubles(h.trainer->params()));
    c.message.clear();
    run_learned_heads_interventions(s);
    return true;
  } catch (const attn::Error& e) {
    c.status = LearnedHeadsCheckpoint::Status::failed;
    c.message = e.what();
    return false;
  }
}

namespace {
// The study's slice, when the main run is not training (one slice per frame in all).
bool tick_extrapolation(AppState& s, double budget_seconds) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.extrapolation_running || !h.extrapolation) return false;
  lh::ExtrapolationStudy& st = *h.extrapolation;
  const double t0 = now_seconds();
  const bool ok = computed(h.error, [&] {
    do {
      if (st.advance(1) == 0) break;
    } while (!st.done() && now_seconds() - t0 < budget_seconds);
  });
  if (!ok || st.done()) h.extrapolation_running = false;
  ++s.generation;
  return true;
}
}  // namespace

bool tick_learned_heads(AppState& s, double budget_seconds) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.running || !h.trainer) return tick_extrapolation(s, budget_seconds);
  lh::HeadsTrainer& tr = *h.trainer;
  const double t0 = now_seconds();
  const bool ok = computed(h.error, [&] {
    do {
      if (tr.advance(1) == 0) break;
      if (tr.step() % kSnapshotEvery == 0 || tr.done()) add_snapshot(s);
    } while (!tr.done() && now_seconds() - t0 < budget_seconds);
  });
  const double t1 = now_seconds();
  if (t1 - h.rate_t0 >= 1.0) {
    h.steps_per_second = (tr.step() - h.rate_step0) / (t1 - h.rate_t0);
    h.rate_t0 = t1;
    h.rate_step0 = tr.step();
  } else if (h.steps_per_second == 0.0 && t1 > h.rate_t0 && tr.step() > h.rate_step0) {
    h.steps_per_second = (tr.step() - h.rate_step0) / (t1 - h.rate_t0);
  }
  rebuild_curve(h);
  if (!ok || tr.done()) {
    h.running = false;
    if (tr.done()) run_learned_heads_interventions(s);  // once, at the end of the run
  }
  ++s.generation;
  return true;
}

bool run_learned_heads_interventions(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.trainer || h.running) return false;
  const lh::HeadsTrainer& tr = *h.trainer;
  const bool ok = computed(h.error, [&] {
    LearnedHeadsInterventions iv;
    iv.step = tr.step();
    iv.ablation = lh::ablate_each_head(tr.model(), tr.layout(), tr.params(), h.heldout);
    attn::Rng rng(h.input.seed ^ 0xc0ffee5ULL);
    const lh::InductionBatch corrupt = lh::corrupt_first_copy(h.heldout, tr.model().vocab, rng);
    iv.patching = lh::patch_each_head(tr.model(), tr.layout(), tr.params(), h.heldout, corrupt);
    iv.decoding = lh::compare_decoding(tr.model(), tr.layout(), tr.params(), h.heldout);
    h.interventions = std::move(iv);
  });
  ++s.generation;
  if (ok && !h.combined) {
    bool any = false;
    for (bool b : h.combo) any = any || b;
    if (any) update_combined(s);
  }
  return ok;
}

void select_learned_heads_snapshot(AppState& s, int index) {
  LearnedHeadsState& h = s.learned_heads;
  if (h.snapshots.empty()) return;
  const int last = static_cast<int>(h.snapshots.size()) - 1;
  h.shown = std::max(0, std::min(index, last));
  h.follow = h.shown == last;
  rebuild_maps(h);
  ++s.generation;
}

void set_learned_heads_combo(AppState& s, const std::vector<bool>& heads, bool mean) {
  LearnedHeadsState& h = s.learned_heads;
  h.combo = heads;
  h.combo.resize(static_cast<size_t>(h.input.layers * h.input.heads), false);
  h.combo_mean = mean;
  update_combined(s);
  ++s.generation;
}

Json learned_heads_inputs_json(const LearnedHeadsInput& in) {
  return Json{{"seed", in.seed},     {"steps", in.steps},   {"lr", in.lr},
              {"heads", in.heads},   {"layers", in.layers}, {"positions", attn::learn::decoder_positions_name(in.positions)},
              {"mlp", in.mlp},       {"vocab", in.vocab},   {"prefix_max", in.prefix_max},
              {"run_min", in.run_min}, {"run_max", in.run_max}};
}

Json learned_heads_state_json(const AppState& s) {
  const LearnedHeadsState& h = s.learned_heads;
  Json out = Json::object();
  out["inputs"] = learned_heads_inputs_json(h.input);
  out["status"] = status(h);
  out["running"] = h.running;
  out["runs"] = h.runs;
  const int step = h.trainer ? h.trainer->step() : 0;
  const int total = h.trainer ? h.trainer->config().steps : h.input.steps;
  out["step"] = step;
  out["total"] = total;
  out["progress"] = total > 0 ? static_cast<double>(step) / total : 0.0;
  out["steps_per_second"] = h.steps_per_second;
  out["source"] = h.from_checkpoint ? "checkpoint" : (step > 0 ? "trained here" : "untrained");
  out["params_fnv1a"] = h.trainer ? attn::learn::hex64(attn::learn::fnv1a_doubles(h.trainer->params())) : "";
  {
    const char* names[] = {"not_requested", "requested", "installed", "declined", "failed"};
    out["checkpoint"] = Json{{"url", kLearnedHeadsCheckpointUrl},
                             {"status", names[static_cast<int>(h.checkpoint.status)]},
                             {"bytes", h.checkpoint.bytes},
                             {"params_fnv1a", h.checkpoint.params_fnv1a},
                             {"message", h.checkpoint.message}};
  }
  const int heads = h.trainer ? h.trainer->model().heads : h.input.heads;
  const int vocab = h.trainer ? h.trainer->model().vocab : 16;
  out["uniform_loss"] = std::log(static_cast<double>(vocab));
  if (h.trainer) {
    const int n = static_cast<int>(h.trainer->losses().size());
    const int stride = std::max(1, (n + 1999) / 2000);
    out["losses"] = Json{{"stride", stride},
                         {"note", "train[k] is the loss of step k*stride + 1 (steps count from 1)"},
                         {"train", sampled(h.trainer->losses(), stride)},
                         {"other", sampled(h.trainer->other_losses(), stride)}};
  } else {
    out["losses"] = Json{{"stride", 1}, {"train", Json::array()}, {"other", Json::array()}};
  }
  Json steps = Json::array();
  for (const lh::HeadsSnapshot& snap : h.snapshots) steps.push_back(snap.step);
  out["snapshot_steps"] = steps;
  out["shown"] = h.shown;
  out["snapshot"] = h.snapshots.empty() ? Json(nullptr) : snapshot_json(h.snapshots[static_cast<size_t>(h.shown)], heads);
  out["latest"] = h.snapshots.empty() ? Json(nullptr) : snapshot_json(h.snapshots.back(), heads);
  if (h.interventions) {
    const LearnedHeadsInterventions& iv = *h.interventions;
    Json per = Json::array();
    const lh::AblationStudy& a = iv.ablation;
    for (size_t i = 0; i < a.zero.size(); ++i) {
      per.push_back(Json{{"layer", static_cast<int>(i) / heads},
                         {"head", static_cast<int>(i) % heads},
                         {"zero_delta_loss", a.zero[i].loss - a.base.loss},
                         {"zero_accuracy", a.zero[i].accuracy},
                         {"mean_delta_loss", a.mean[i].loss - a.base.loss},
                         {"mean_accuracy", a.mean[i].accuracy},
                         {"recovered", i < iv.patching.recovered.size() ? iv.patching.recovered[i] : 0.0}});
    }
    out["interventions"] = Json{{"step", iv.step},
                                {"base", eval_json(a.base)},
                                {"clean_loss", iv.patching.clean_loss},
                                {"corrupt_loss", iv.patching.corrupt_loss},
                                {"heads", per}};
    const lh::DecodeComparison& d = iv.decoding;
    out["decoding"] = Json{{"step", iv.step},
                           {"max_logit_diff", d.max_logit_diff},
                           {"parallel_passes", d.parallel_passes},
                           {"sequential_steps", d.sequential_steps},
                           {"prompt", d.prompt},
                           {"generated", d.generated},
                           {"expected", d.expected},
                           {"correct", d.correct},
                           {"batch", {{"sequences", d.batch_sequences}, {"correct", d.batch_correct},
                                      {"expected", d.batch_expected}, {"complete", d.batch_complete}}},
                           {"future_edits", d.future_edits},
                           {"future_edit_max_diff", d.future_edit_max_diff},
                           {"target_edit_max_diff", d.target_edit_max_diff}};
  } else {
    out["interventions"] = nullptr;
    out["decoding"] = nullptr;
  }
  Json combo = Json::array();
  for (size_t i = 0; i < h.combo.size(); ++i)
    if (h.combo[i]) combo.push_back(static_cast<int>(i));
  if (h.combined) {
    const double base = h.interventions ? h.interventions->ablation.base.loss : 0.0;
    out["combined"] = Json{{"step", h.combined->step},
                           {"heads", h.combined->heads},
                           {"mode", h.combined->mean ? "mean" : "zero"},
                           {"loss", h.combined->eval.loss},
                           {"accuracy", h.combined->eval.accuracy},
                           {"delta_loss", h.combined->eval.loss - base}};
  } else {
    out["combined"] = nullptr;
  }
  if (h.extrapolation) {
    const lh::ExtrapolationStudy& st = *h.extrapolation;
    Json signals = Json::array();
    for (const lh::ExtrapolationResult& r : st.results()) {
      Json acc = Json::array();
      for (size_t p = 0; p < r.accuracy.counted.size(); ++p)
        acc.push_back(r.accuracy.counted[p] ? Json(static_cast<double>(r.accuracy.correct[p]) / r.accuracy.counted[p])
                                            : Json(nullptr));
      signals.push_back(Json{{"positions", attn::learn::decoder_positions_name(r.positions)},
                             {"test_length", r.accuracy.test_length},
                             {"accuracy_within", r.accuracy.accuracy_within},
                             {"accuracy_beyond", r.accuracy.accuracy_beyond},
                             {"final_loss", r.final_loss},
                             {"accuracy_by_position", acc},
                             {"counted", r.accuracy.counted}});
    }
    const lh::ExtrapolationConfig& c = st.config();
    out["extrapolation"] = Json{{"status", st.done() ? "done" : (h.extrapolation_running ? "training" : "paused")},
                                {"step", st.steps_done()},
                                {"total", st.steps_total()},
                                {"progress", static_cast<double>(st.steps_done()) / std::max(1, st.steps_total())},
                                {"train_length", c.train_length},
                                {"test_length", c.test_length},
                                {"context", c.task.context},
                                {"steps_per_signal", c.steps},
                                {"signals", signals}};
  } else {
    out["extrapolation"] = nullptr;
  }
  out["ablate"] = combo;
  out["ablate_mode"] = h.combo_mean ? "mean" : "zero";
  out["error"] = h.error ? Json{{"code", h.error->code}, {"message", h.error->message}} : Json(nullptr);
  return out;
}

bool apply_learned_heads_json(AppState& s, const Json& patch) {
  LearnedHeadsState& h = s.learned_heads;
  LearnedHeadsInput in = h.input;
  bool inputs = false, train = false, pause = false, resume = false, reset = false, interventions = false;
  bool has_snapshot = false, has_combo = false;
  std::string extrapolation;
  int snapshot = 0;
  std::vector<bool> combo = h.combo;
  bool combo_mean = h.combo_mean;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (k == "seed") {
      const std::int64_t seed = get_integer(v, k);
      if (seed < 0) invalid("seed must be an integer >= 0");
      in.seed = static_cast<std::uint64_t>(seed), inputs = true;
    } else if (k == "steps") in.steps = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "heads") in.heads = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "layers") in.layers = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "mlp") in.mlp = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "vocab") in.vocab = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "prefix_max") in.prefix_max = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "run_min") in.run_min = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "run_max") in.run_max = clamp_int(get_integer(v, k)), inputs = true;
    else if (k == "lr") {
      if (!v.is_number() || !std::isfinite(v.get<double>())) invalid("lr must be a number");
      in.lr = v.get<double>(), inputs = true;
    } else if (k == "positions") {
      const std::string p = v.is_string() ? v.get<std::string>() : "";
      if (p == "learned") in.positions = attn::learn::DecoderPositions::learned;
      else if (p == "sinusoidal") in.positions = attn::learn::DecoderPositions::sinusoidal;
      else if (p == "rope") in.positions = attn::learn::DecoderPositions::rope;
      else if (p == "none") in.positions = attn::learn::DecoderPositions::none;
      else invalid("positions must be \"learned\", \"sinusoidal\", \"rope\" or \"none\"");
      inputs = true;
    } else if (k == "train") train = get_bool(v, k);
    else if (k == "pause") pause = get_bool(v, k);
    else if (k == "continue" || k == "resume") resume = get_bool(v, k);
    else if (k == "reset") reset = get_bool(v, k);
    else if (k == "interventions") interventions = get_bool(v, k);
    else if (k == "snapshot") snapshot = clamp_int(get_integer(v, k)), has_snapshot = true;
    else if (k == "ablate") {
      if (!v.is_array()) invalid("ablate must be an array of head indices (layer-major)");
      const int n = in.layers * in.heads;
      combo.assign(static_cast<size_t>(h.input.layers * h.input.heads), false);
      for (const Json& x : v) {
        const std::int64_t i = get_integer(x, "ablate[]");
        if (i < 0 || i >= static_cast<std::int64_t>(combo.size()))
          invalid("ablate: head index " + std::to_string(i) + " is outside 0.." + std::to_string(combo.size() - 1));
        combo[static_cast<size_t>(i)] = true;
      }
      (void)n;
      has_combo = true;
    } else if (k == "extrapolation") {
      const std::string a = v.is_string() ? v.get<std::string>() : "";
      if (a != "start" && a != "pause" && a != "continue")
        invalid("extrapolation must be \"start\", \"pause\" or \"continue\"");
      extrapolation = a;
    } else if (k == "ablate_mode") {
      const std::string m = v.is_string() ? v.get<std::string>() : "";
      if (m != "zero" && m != "mean") invalid("ablate_mode must be \"zero\" or \"mean\"");
      combo_mean = m == "mean", has_combo = true;
    } else {
      invalid("unknown learned_heads input '" + k +
              "' (seed, steps, lr, heads, layers, positions, mlp, vocab, prefix_max, run_min, run_max, train, pause, continue, reset, interventions, "
              "snapshot, ablate, ablate_mode, extrapolation)");
    }
  }
  if (inputs && !set_learned_heads_input(s, in)) return false;
  if (reset) learned_heads_reset(s);
  if (train) learned_heads_train(s);
  if (pause) learned_heads_pause(s);
  if (resume) learned_heads_continue(s);
  if (has_snapshot) select_learned_heads_snapshot(s, snapshot);
  if (interventions && !run_learned_heads_interventions(s)) {
    if (h.running) invalid("interventions run when training is paused or done");
    if (h.error) return false;
  }
  if (has_combo) set_learned_heads_combo(s, combo, combo_mean);
  if (extrapolation == "start") learned_heads_extrapolation_start(s);
  if (extrapolation == "pause") learned_heads_extrapolation_pause(s);
  if (extrapolation == "continue") learned_heads_extrapolation_continue(s);
  return true;
}

}  // namespace app
