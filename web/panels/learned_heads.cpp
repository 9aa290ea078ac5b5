// Learned heads panel: a tiny decoder trained here, in slices, on sequences that repeat a random
// run of tokens; its loss curve, every head's attention map (trained beside step 0) with four
// scores, zero/mean ablation and activation patching per head, any set of heads ablated
// together, and the parallel teacher-forced pass against K/V-cache generation.
// Every number comes from core/lessons/learned_heads.hpp through the setters in this file (the
// training slice runs before the frame is drawn); this file only formats and forwards edits.
#include "panels/learned_heads.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "lesson_ui.hpp"
#include "panels/ui.hpp"
#include "widgets/plots.hpp"

namespace app {

// --- state: inputs, setters, state() and set() ---------------------------------------------

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

// --- drawing -------------------------------------------------------------------------------

namespace {

namespace lh = attn::lessons;
using attn::learn::DecoderPositions;

std::string head_name(int index, int heads) {
  return "L" + std::to_string(index / heads + 1) + " H" + std::to_string(index % heads + 1);
}

// "0.07", "1.00": two decimals, for the small score lines under each map.
std::string two(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string pct(double v) { return short_number(100.0 * v, 3) + " %"; }

std::string tokens_text(const std::vector<int>& t) {
  std::string s;
  for (size_t i = 0; i < t.size(); ++i) s += (i ? " " : "") + std::to_string(t[i]);
  return s;
}

// A grid of layers × heads maps, each with its label and four scores.
void map_grid(const char* id, const std::vector<attn::Matrix>& maps, const std::vector<lh::HeadScores>& scores,
              const LearnedHeadsState& h, int heads, float width, HeatmapGpu& gpu, ImFont* small) {
  const float fs = ImGui::GetFontSize();
  const float gap = fs * 0.6f;
  const int n = static_cast<int>(maps.size());
  int cols = heads;
  while (cols > 1 && (width - gap * (cols - 1)) / cols < fs * 4.5f) cols = (cols + 1) / 2;
  const float cell_w = std::floor((width - gap * (cols - 1)) / cols);
  ImGui::PushID(id);
  for (int i = 0; i < n; ++i) {
    if (i % cols != 0) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + cell_w);
    ImGui::TextUnformatted(head_name(i, heads).c_str());
    HeatmapSpec spec;
    spec.values = &maps[static_cast<size_t>(i)];
    spec.allowed = &h.allowed;
    if (cell_w >= fs * 11) {
      spec.row_labels = &h.tokens;
      spec.col_labels = &h.tokens;
    }
    spec.version = h.maps_version;
    spec.vmin = 0.0;
    spec.vmax = 1.0;
    spec.legend = false;
    spec.width = cell_w;
    spec.max_cell = 12.0f;
    ImGui::PushID(i);
    heatmap((std::string(id) + " " + head_name(i, heads)).c_str(), spec, gpu);
    ImGui::PopID();
    if (i < static_cast<int>(scores.size())) {
      const lh::HeadScores& sc = scores[static_cast<size_t>(i)];
      ImGui::PushFont(small);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      // Two scores on a line when they fit the map's width, else one per line (never cut mid-number).
      const auto pair_line = [cell_w](const std::string& a, const std::string& b) {
        const std::string both = a + "  " + b;
        if (ImGui::CalcTextSize(both.c_str()).x <= cell_w) {
          ImGui::TextUnformatted(both.c_str());
        } else {
          ImGui::TextUnformatted(a.c_str());
          ImGui::TextUnformatted(b.c_str());
        }
      };
      pair_line("prev " + two(sc.previous_token), "ind " + two(sc.induction));
      pair_line("diag " + two(sc.diagonal), "first " + two(sc.first_token));
      ImGui::PopStyleColor();
      ImGui::PopFont();
    }
    ImGui::PopTextWrapPos();
    ImGui::Dummy(ImVec2(cell_w, 0));
    ImGui::EndGroup();
  }
  ImGui::PopID();
}

bool int_field(const char* label, int* v, float width) {
  ImGui::SetNextItemWidth(width);
  ImGui::InputInt(label, v, 0, 0);
  return ImGui::IsItemDeactivatedAfterEdit();
}

// Positions do not guarantee extrapolation: one model per position signal trained on shorter
// sequences, accuracy by target position past the training length.
void draw_extrapolation(AppState& s, Ui& ui) {
  LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  style::heading(ui.fonts, "Do positions extrapolate?");
  const lh::ExtrapolationConfig cfg = h.extrapolation ? h.extrapolation->config() : learned_heads_extrapolation_config(h.input);
  txt::note(("Three models with this panel's heads, layers, MLP, seed and learning rate, one per position signal "
             "(learned, sinusoidal, RoPE), each trained " + std::to_string(cfg.steps) + " steps on sequences of " +
             std::to_string(cfg.train_length) + " tokens (runs of " + std::to_string(cfg.task.run_min) + " to " +
             std::to_string(cfg.task.run_max) + "), then tested on " + std::to_string(cfg.sequences) +
             " held-out sequences with the repeat placed anywhere: up to the context (" +
             std::to_string(cfg.task.context) + ") for learned positions, whose table rows from " +
             std::to_string(cfg.train_length) + " on never got a gradient, and up to " +
             std::to_string(cfg.test_length) + " tokens for the others.")
                .c_str());
  const lh::ExtrapolationStudy* st = h.extrapolation.get();
  if (ImGui::Button(st ? "Run the study again" : "Run the extrapolation study")) learned_heads_extrapolation_start(s);
  st = h.extrapolation.get();
  if (st && !st->done()) {
    ImGui::SameLine();
    if (h.extrapolation_running) {
      if (ImGui::Button("Pause##extrapolation")) learned_heads_extrapolation_pause(s);
    } else if (ImGui::Button("Continue##extrapolation")) {
      learned_heads_extrapolation_continue(s);
    }
  }
  if (!st) return;
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "step %d / %d (%zu of %zu models done)", st->steps_done(), st->steps_total(),
                st->results().size(), st->config().signals.size());
  widgets::same_line_if_fits(fs * 14, fs);
  ImGui::ProgressBar(static_cast<float>(st->steps_done()) / std::max(1, st->steps_total()),
                     ImVec2(std::max(fs * 12, ImGui::GetContentRegionAvail().x), 0), overlay);
  if (h.running) widgets::dim_wrapped("Waits while the main run trains.");
  if (st->results().empty()) return;
  const int n = cfg.test_length;
  std::vector<double> xs;
  for (int p = 0; p < n; ++p) xs.push_back(p);
  const ImU32 colors[] = {IM_COL32(31, 111, 178, 255), IM_COL32(214, 120, 20, 255), IM_COL32(60, 150, 60, 255),
                          IM_COL32(150, 60, 160, 255)};
  std::vector<plot::Series> series;
  std::string summary;
  for (size_t k = 0; k < st->results().size(); ++k) {
    const lh::ExtrapolationResult& r = st->results()[k];
    std::vector<double> y(static_cast<size_t>(n), std::nan(""));
    for (size_t p = 0; p < r.accuracy.counted.size() && p < y.size(); ++p)
      if (r.accuracy.counted[p] > 0) y[p] = static_cast<double>(r.accuracy.correct[p]) / r.accuracy.counted[p];
    const char* name = attn::learn::decoder_positions_name(r.positions);
    series.push_back(plot::Series{name, y, colors[k % 4], false});
    summary += std::string(summary.empty() ? "" : "; ") + name + " " + pct(r.accuracy.accuracy_within) + " within, " +
               pct(r.accuracy.accuracy_beyond) + " beyond (tested to " + std::to_string(r.accuracy.test_length) + ")";
  }
  plot::line_plot("extrapolation", xs, series, false, 0.0, 1.0, ImGui::GetContentRegionAvail().x, fs * 13,
                  "target position", "accuracy", 9, false);
  ImGui::TextWrapped("Accuracy on the predictable positions: %s.", summary.c_str());
  txt::note(("\"Within\" counts targets inside the first " + std::to_string(cfg.train_length) +
             " positions, the length every model was trained on; \"beyond\" the rest. Positions with no "
             "predictable target are gaps. What a signal does here is what this small model learned in " +
             std::to_string(cfg.steps) + " steps on this task, not a law of that signal.")
                .c_str());
}

void draw_body(AppState& s, Ui& ui);

}  // namespace

void draw_learned_heads_panel(AppState& s, Ui& ui) {
  // Every line wraps at the panel's right edge (narrow frames, phones) unless a column sets its own.
  ImGui::PushTextWrapPos(0.0f);
  draw_body(s, ui);
  ImGui::PopTextWrapPos();
}

namespace {

void draw_body(AppState& s, Ui& ui) {
  LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  const LearnedHeadsInput& cur = h.input;
  const lh::HeadsTrainer* tr = h.trainer.get();
  const int heads = tr ? tr->model().heads : cur.heads;

  txt::para(
      "A tiny decoder (d_model 32, attention only unless you add an MLP) is trained here, in this page, on "
      "sequences of random tokens that contain a random run twice: the loss counts only the positions of the "
      "second copy, the only predictable ones. Looking at each head's attention map, and then removing heads, is "
      "the diagnostic Olsson et al. (2022) used for induction heads, which they studied in models trained on "
      "text. A map suggests what a head does; an ablation tests it. The page shows what this model measurably "
      "does, whatever it does.");
  style::error_box(h.error);

  // --- inputs (a change starts over at step 0)
  {
    LearnedHeadsInput e = cur;
    bool changed = false;
    const auto next = [&](float w) { widgets::same_line_if_fits(w, fs); };
    int seed = static_cast<int>(std::min<std::uint64_t>(e.seed, 2000000000));
    if (int_field("seed", &seed, fs * 4.5f)) e.seed = static_cast<std::uint64_t>(std::max(0, seed)), changed = true;
    next(widgets::labeled_width(fs * 4.5f, "steps"));
    if (int_field("steps", &e.steps, fs * 4.5f)) changed = true;
    next(widgets::labeled_width(fs * 5.0f, "learning rate"));
    ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.0f, "learning rate"));
    ImGui::InputDouble("learning rate", &e.lr, 0, 0, "%.4g");
    if (ImGui::IsItemDeactivatedAfterEdit()) changed = true;

    ImGui::AlignTextToFramePadding();
    widgets::dim_wrapped("heads:");
    for (int v : {1, 2, 4, 8}) {
      widgets::same_line_if_fits(widgets::check_width(std::to_string(v).c_str()));
      ImGui::PushID(v);
      if (ImGui::RadioButton(std::to_string(v).c_str(), e.heads == v)) e.heads = v, changed = true;
      ImGui::PopID();
    }
    next(ImGui::CalcTextSize("layers:").x + 3 * widgets::check_width("3") + fs);
    ImGui::AlignTextToFramePadding();
    widgets::dim_wrapped("layers:");
    for (int v : {1, 2, 3}) {
      widgets::same_line_if_fits(widgets::check_width(std::to_string(v).c_str()));
      ImGui::PushID(100 + v);
      if (ImGui::RadioButton(std::to_string(v).c_str(), e.layers == v)) e.layers = v, changed = true;
      ImGui::PopID();
    }
    next(ImGui::CalcTextSize("MLP:").x + widgets::check_width("none") + widgets::check_width("64") + fs);
    ImGui::AlignTextToFramePadding();
    widgets::dim_wrapped("MLP:");
    widgets::same_line_if_fits(widgets::check_width("none"), -1.0f);
    if (ImGui::RadioButton("none", e.mlp == 0)) e.mlp = 0, changed = true;
    widgets::same_line_if_fits(widgets::check_width("64"), -1.0f);
    if (ImGui::RadioButton("64", e.mlp == 64)) e.mlp = 64, changed = true;

    ImGui::AlignTextToFramePadding();
    widgets::dim_wrapped("positions:");
    for (const auto& [kind, label] :
         {std::pair{DecoderPositions::learned, "learned"}, std::pair{DecoderPositions::sinusoidal, "sinusoidal"},
          std::pair{DecoderPositions::rope, "RoPE"}, std::pair{DecoderPositions::none, "no positions"}}) {
      widgets::same_line_if_fits(widgets::check_width(label));
      if (ImGui::RadioButton(label, e.positions == kind)) e.positions = kind, changed = true;
    }
    ImGui::AlignTextToFramePadding();
    widgets::dim_wrapped("task:");
    ImGui::SameLine();
    if (int_field("vocab", &e.vocab, fs * 3.0f)) changed = true;
    next(widgets::labeled_width(fs * 3.0f, "prefix up to"));
    if (int_field("prefix up to", &e.prefix_max, fs * 3.0f)) changed = true;
    next(widgets::labeled_width(fs * 3.0f, "run from"));
    if (int_field("run from", &e.run_min, fs * 3.0f)) changed = true;
    next(widgets::labeled_width(fs * 3.0f, "to"));
    if (int_field("to", &e.run_max, fs * 3.0f)) changed = true;
    if (changed) set_learned_heads_input(s, e);
  }

  // --- Train / Pause / Continue / Reset, progress
  {
    const bool running = h.running;
    const bool can_continue = tr && !running && !tr->done() && tr->step() > 0;
    if (ImGui::Button("Train")) learned_heads_train(s);
    widgets::same_line_if_fits(widgets::button_width("Pause"), -1.0f);
    ImGui::BeginDisabled(!running);
    if (ImGui::Button("Pause")) learned_heads_pause(s);
    ImGui::EndDisabled();
    widgets::same_line_if_fits(widgets::button_width("Continue"), -1.0f);
    ImGui::BeginDisabled(!can_continue);
    if (ImGui::Button("Continue")) learned_heads_continue(s);
    ImGui::EndDisabled();
    widgets::same_line_if_fits(widgets::button_width("Reset"), -1.0f);
    if (ImGui::Button("Reset")) learned_heads_reset(s);
    tr = h.trainer.get();
    const int step = tr ? tr->step() : 0, total = tr ? tr->config().steps : cur.steps;
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "step %d / %d", step, total);
    widgets::same_line_if_fits(fs * 12, fs);
    ImGui::ProgressBar(total > 0 ? static_cast<float>(step) / total : 0.0f,
                       ImVec2(std::max(fs * 10, ImGui::GetContentRegionAvail().x), 0), overlay);
    const char* state = h.running ? "training" : (tr && tr->done() ? "done" : (step > 0 ? "paused" : "not started"));
    txt::note((std::string(h.from_checkpoint ? "done (the shipped run)" : state) + "; " +
               (h.steps_per_second > 0 ? short_number(h.steps_per_second, 3) : std::string("-")) +
               " steps/s; batch 16 sequences of 32 tokens (a random prefix of 0 to " + std::to_string(cur.prefix_max) +
               " tokens, a run of " + std::to_string(cur.run_min) + " to " + std::to_string(cur.run_max) +
               " tokens twice, then filler; " + std::to_string(cur.vocab) + " token values), Adam, clip 1; run " +
               std::to_string(h.runs))
                  .c_str());
    using CS = LearnedHeadsCheckpoint::Status;
    if (h.from_checkpoint) {
      txt::note(("Opened trained: the default run's weights after " + std::to_string(tr ? tr->step() : 0) +
                 " steps, from the shipped checkpoint (" + short_number(h.checkpoint.bytes / 1000.0, 3) +
                 " kB, fetched when this panel opened; parameters' FNV-1a " + h.checkpoint.params_fnv1a +
                 "). Train runs the same seed here and gives the same bits.")
                    .c_str());
    } else if (h.checkpoint.status == CS::requested) {
      txt::note("Fetching the trained checkpoint of the default run...");
    } else if (h.checkpoint.status == CS::failed) {
      txt::note(("The trained checkpoint is not available (" + h.checkpoint.message +
                 "); press Train to train the default run here.")
                    .c_str());
    }
  }
  if (!tr) return;

  const txt::TwoColumns col = txt::two_columns(0.55f);
  // --- loss curve
  txt::begin_column(col.left_w);
  style::heading(ui.fonts, "Loss while training");
  {
    const double uniform = std::log(static_cast<double>(tr->model().vocab));
    double ymax = uniform * 1.15;
    for (double v : h.curve_other) ymax = std::max(ymax, v * 1.05);
    for (double v : h.curve_train) ymax = std::max(ymax, v * 1.05);
    std::vector<plot::Series> series;
    series.push_back(plot::Series{"predictable", h.curve_train, IM_COL32(31, 111, 178, 255), false});
    series.push_back(plot::Series{"other", h.curve_other, IM_COL32(214, 120, 20, 255), false});
    std::vector<double> xs = h.curve_x;
    if (xs.empty()) xs.push_back(0);
    series.push_back(plot::Series{"log V", std::vector<double>(xs.size(), uniform),
                                  IM_COL32(120, 120, 120, 255), true});
    if (h.curve_x.size() < 2) {
      xs = {0.0, static_cast<double>(tr->config().steps)};
      series.resize(1);
      series[0] = plot::Series{"log V", {uniform, uniform}, IM_COL32(120, 120, 120, 255), true};
    }
    plot::line_plot("loss", xs, series, false, 0.0, ymax, col.left_w, fs * 13, "step", "cross-entropy", 6, false);
    txt::note(("Training loss of each step's batch at the predictable positions (the second copy of the run) and "
               "at the other positions, against log V, the loss of a uniform guess" +
               std::string(h.curve_stride > 1 ? ", averaged over " + std::to_string(h.curve_stride) + " steps" : "") +
               ". The other positions are random tokens: nothing there can be predicted, so their loss should stay "
               "near log V = " + short_number(uniform, 3) + ".")
                  .c_str());
  }
  txt::end_column(col.left_w);
  if (col.two) ImGui::SameLine(col.x0 + col.left_w + col.gap);
  txt::begin_column(col.right_w);
  style::heading(ui.fonts, "Held-out data");
  const lh::HeadsSnapshot* snap = h.snapshots.empty() ? nullptr : &h.snapshots[static_cast<size_t>(h.shown)];
  if (!h.snapshots.empty()) {
    int idx = h.shown;
    ImGui::SetNextItemWidth(std::max(fs * 8, col.right_w - widgets::labeled_width(0, "snapshot")));
    char fmt[64];
    std::snprintf(fmt, sizeof fmt, "step %d", snap->step);
    if (ImGui::SliderInt("snapshot", &idx, 0, static_cast<int>(h.snapshots.size()) - 1, fmt))
      select_learned_heads_snapshot(s, idx);
    snap = &h.snapshots[static_cast<size_t>(h.shown)];
    ImGui::Text("At step %d: accuracy %s, loss %s", snap->step, pct(snap->eval.accuracy).c_str(),
                short_number(snap->eval.loss, 3).c_str());
    ImGui::TextDisabled("%d predictable positions in 32 held-out sequences; other positions' loss %s", snap->eval.counted,
                        short_number(snap->eval.other_loss, 3).c_str());
    txt::note("Snapshots every 100 steps (and at step 0 and the last step), on sequences the training never "
              "draws. Drag the slider to see the maps and scores of that step.");
    // When each pattern appears, and whether the accuracy comes with it.
    std::vector<double> xs, acc, ind, prev;
    for (const lh::HeadsSnapshot& sn : h.snapshots) {
      double bi = 0, bp = 0;
      for (const lh::HeadScores& sc : sn.scores) bi = std::max(bi, sc.induction), bp = std::max(bp, sc.previous_token);
      xs.push_back(sn.step);
      acc.push_back(sn.eval.accuracy);
      ind.push_back(bi);
      prev.push_back(bp);
    }
    if (xs.size() >= 2) {
      std::vector<plot::Series> series{
          plot::Series{"accuracy", acc, IM_COL32(31, 111, 178, 255), false},
          plot::Series{"ind", ind, IM_COL32(200, 60, 40, 255), false},
          plot::Series{"prev", prev, IM_COL32(60, 150, 60, 255), true}};
      plot::line_plot("scores by step", xs, series, false, 0.0, 1.0, col.right_w, fs * 10, "step", "held-out", 5, false);
      txt::note("Held-out accuracy and the best head's induction (ind) and previous-token (prev) scores at each "
                "snapshot: when each pattern appears, and whether the accuracy comes with it.");
    }
  }
  const lh::InductionLayout& lay = h.heldout.layouts.front();
  txt::note(("The display sequence (" + std::to_string(h.tokens.size()) + " tokens): the run of " +
             std::to_string(lay.run) + " starts at position " + std::to_string(lay.prefix) +
             " and repeats at position " + std::to_string(lay.repeat_start()) + ".")
                .c_str());
  ImGui::TextWrapped("%s", tokens_text(std::vector<int>(h.heldout.batch.tokens.begin(),
                                                        h.heldout.batch.tokens.begin() + h.heldout.batch.t))
                               .c_str());
  txt::end_column(col.right_w);

  // --- every head's map: trained beside step 0
  if (snap) {
    style::heading(ui.fonts, "Every head's map");
    const txt::TwoColumns mc = txt::two_columns(0.5f);
    txt::begin_column(mc.left_w);
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("Step %d", snap->step);
    ImGui::PopFont();
    if (!h.maps.empty()) {
      map_grid("trained", h.maps, snap->scores, h, heads, mc.left_w, ui.gpu, ui.fonts.small);
    } else {
      txt::note(("The shipped checkpoint records every snapshot's scores and accuracy, but the maps only of step 0 "
                 "and step " + std::to_string(h.snapshots.back().step) +
                 " (their weights are known). Train records the maps of every saved step (the same run, bit for "
                 "bit). Scores at step " + std::to_string(snap->step) + ":")
                    .c_str());
      for (size_t i = 0; i < snap->scores.size(); ++i) {
        const lh::HeadScores& sc = snap->scores[i];
        ImGui::TextDisabled("%s  prev %s  ind %s  diag %s  first %s", head_name(static_cast<int>(i), heads).c_str(),
                            two(sc.previous_token).c_str(), two(sc.induction).c_str(), two(sc.diagonal).c_str(),
                            two(sc.first_token).c_str());
      }
    }
    txt::end_column(mc.left_w);
    if (mc.two) ImGui::SameLine(mc.x0 + mc.left_w + mc.gap);
    txt::begin_column(mc.right_w);
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted("Step 0 (initial weights)");
    ImGui::PopFont();
    map_grid("initial", h.maps_initial, h.snapshots.front().scores, h, heads, mc.right_w, ui.gpu, ui.fonts.small);
    txt::end_column(mc.right_w);
    txt::note("Rows are queries, columns keys; weights from 0 (dark) to 1 (yellow), hatched cells are masked "
              "(causal). Scores on the 32 held-out sequences: prev = mean weight on the previous token, ind = over "
              "the repeat, mean weight on the token after the earlier copy of the current token, diag = on itself, "
              "first = on position 0.");

    // --- per-head table
    style::heading(ui.fonts, "Scores and interventions");
    const lh::HeadsTrainer& t = *tr;
    const bool fresh = h.interventions && h.interventions->step == t.step();
    if (!h.running) {
      if (ImGui::Button(fresh ? "Run interventions again" : "Run interventions at this step"))
        run_learned_heads_interventions(s);
    } else {
      widgets::dim_wrapped("Interventions run when training is paused or done (and once at the end).");
    }
    if (h.interventions) {
      ImGui::SameLine();
      ImGui::TextDisabled("ablation and patching at step %d, held-out loss %s, accuracy %s", h.interventions->step,
                          short_number(h.interventions->ablation.base.loss, 3).c_str(),
                          pct(h.interventions->ablation.base.accuracy).c_str());
    }
    const int n = static_cast<int>(snap->scores.size());
    // Narrow screens: the table scrolls sideways (ScrollX, which needs an explicit height)
    // instead of squeezing its columns.
    const bool narrow = ImGui::GetContentRegionAvail().x < fs * 46;
    const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp |
                               (narrow ? ImGuiTableFlags_ScrollX : 0);
    const float row_h = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y;
    const float table_h = row_h * (n + 1) + (narrow ? ImGui::GetStyle().ScrollbarSize + 2.0f : 0.0f);
    if (ImGui::BeginTable("##scores", 10, tf, ImVec2(0, narrow ? table_h : 0.0f))) {
      ImGui::TableSetupColumn("head", ImGuiTableColumnFlags_WidthFixed, fs * 3.5f);
      for (const char* c : {"prev", "ind", "diag", "first", "\xCE\x94loss zero", "acc zero", "\xCE\x94loss mean",
                            "acc mean", "patch recov."})
        ImGui::TableSetupColumn(c, ImGuiTableColumnFlags_WidthFixed, fs * (std::string(c).size() > 6 ? 5.2f : 3.4f));
      ImGui::TableHeadersRow();
      const LearnedHeadsInterventions* iv = h.interventions ? &*h.interventions : nullptr;
      for (int i = 0; i < n; ++i) {
        const lh::HeadScores& sc = snap->scores[static_cast<size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(head_name(i, heads).c_str());
        for (double v : {sc.previous_token, sc.induction, sc.diagonal, sc.first_token}) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(short_number(v, 2).c_str());
        }
        if (iv && i < static_cast<int>(iv->ablation.zero.size())) {
          const double base = iv->ablation.base.loss;
          const size_t k = static_cast<size_t>(i);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(short_number(iv->ablation.zero[k].loss - base, 3).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(pct(iv->ablation.zero[k].accuracy).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(short_number(iv->ablation.mean[k].loss - base, 3).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(pct(iv->ablation.mean[k].accuracy).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(
              k < iv->patching.recovered.size() ? short_number(iv->patching.recovered[k], 3).c_str() : "-");
        } else {
          for (int c = 0; c < 5; ++c) {
            ImGui::TableNextColumn();
            widgets::dim_wrapped("-");
          }
        }
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("scores at step %d%s", snap->step,
                        h.interventions && h.interventions->step != snap->step
                            ? (", interventions at step " + std::to_string(h.interventions->step)).c_str()
                            : "");
    txt::note("\xCE\x94loss: held-out loss with that head alone removed minus the loss with every head "
              "(zero: its output replaced by zeros; mean: by its mean output over the held-out batch). Patching: "
              "the first copy of each run is replaced by other tokens, then that head's output is copied from the "
              "clean run; recovered = (L_corrupt \xE2\x88\x92 L_patched) / (L_corrupt \xE2\x88\x92 L_clean).");

    if (h.interventions) {
      const LearnedHeadsInterventions& iv = *h.interventions;
      // Scores of the snapshot the interventions ran at (the last one at or before that step).
      const lh::HeadsSnapshot* at = &h.snapshots.front();
      for (const lh::HeadsSnapshot& sn : h.snapshots)
        if (sn.step <= iv.step) at = &sn;
      std::vector<double> xs, ys;
      std::vector<std::string> labels;
      for (size_t i = 0; i < iv.ablation.zero.size() && i < at->scores.size(); ++i) {
        xs.push_back(at->scores[i].induction);
        ys.push_back(iv.ablation.zero[i].loss - iv.ablation.base.loss);
        labels.push_back(head_name(static_cast<int>(i), heads));
      }
      const txt::TwoColumns sc = txt::two_columns(0.5f);
      txt::begin_column(sc.left_w);
      plot::scatter("induction vs ablation", xs, ys, labels, sc.left_w, fs * 13, "induction score",
                    "\xCE\x94loss when zero-ablated");
      txt::note(("One point per head (induction score at step " + std::to_string(at->step) +
                 ", ablation at step " + std::to_string(iv.step) +
                 "). A head whose map looks like induction need not be the one whose removal costs most, and a "
                 "large \xCE\x94loss says the model relies on that head here, not what the head computes.")
                    .c_str());
      txt::end_column(sc.left_w);
      if (sc.two) ImGui::SameLine(sc.x0 + sc.left_w + sc.gap);
      txt::begin_column(sc.right_w);
      ImGui::PushFont(ui.fonts.bold);
      ImGui::TextUnformatted("Ablate several heads together");
      ImGui::PopFont();
      std::vector<bool> combo = h.combo;
      combo.resize(static_cast<size_t>(n), false);
      bool mean = h.combo_mean, changed = false;
      ImGui::BeginDisabled(h.running);
      if (ImGui::RadioButton("zero", !mean)) mean = false, changed = true;
      widgets::same_line_if_fits(widgets::check_width("mean"), -1.0f);
      if (ImGui::RadioButton("mean", mean)) mean = true, changed = true;
      for (int i = 0; i < n; ++i) {
        if (i % heads != 0) widgets::same_line_if_fits(widgets::check_width("L1 H1"));
        bool on = combo[static_cast<size_t>(i)];
        if (ImGui::Checkbox(head_name(i, heads).c_str(), &on)) combo[static_cast<size_t>(i)] = on, changed = true;
      }
      ImGui::EndDisabled();
      if (changed) set_learned_heads_combo(s, combo, mean);
      if (h.combined) {
        const double base = h.interventions ? h.interventions->ablation.base.loss : 0.0;
        ImGui::Text("%zu heads %s-ablated: loss %s (\xCE\x94 %s), accuracy %s", h.combined->heads.size(),
                    h.combined->mean ? "mean" : "zero", short_number(h.combined->eval.loss, 3).c_str(),
                    short_number(h.combined->eval.loss - base, 3).c_str(), pct(h.combined->eval.accuracy).c_str());
        ImGui::TextDisabled("at step %d, on the held-out batch", h.combined->step);
      } else {
        txt::note(h.running ? "Pause to ablate." : "Tick heads to remove them together.");
      }
      txt::end_column(sc.right_w);

      // --- parallel vs sequential
      style::heading(ui.fonts, "Parallel vs sequential");
      ImGui::PushFont(ui.fonts.bold);
      ImGui::TextWrapped("Training is parallel, generation is sequential.");
      ImGui::PopFont();
      const lh::DecodeComparison& d = iv.decoding;
      ImGui::TextWrapped("1 parallel pass vs %d sequential steps: max |logit difference| %s", d.sequential_steps,
                         exact_number(d.max_logit_diff).c_str());
      txt::note("The teacher-forced forward computes all positions of the display sequence at once (that is why "
                "training is parallel); generation with a K/V cache must produce one position after another, "
                "each new query attending to the cached keys. Both give the same logits up to rounding.");
      ImGui::TextWrapped("prompt (up to the repeat's first token): %s", tokens_text(d.prompt).c_str());
      ImGui::TextWrapped("greedy continuation: %s", tokens_text(d.generated).c_str());
      ImGui::TextWrapped("the run's continuation:  %s", tokens_text(d.expected).c_str());
      txt::note((std::to_string(d.correct) + " of " + std::to_string(d.expected.size()) +
                 " generated tokens equal the run (model at step " + std::to_string(iv.step) + "). Over all " +
                 std::to_string(d.batch_sequences) + " held-out sequences: " + std::to_string(d.batch_correct) +
                 " of " + std::to_string(d.batch_expected) + " generated tokens right (" +
                 pct(d.batch_expected ? static_cast<double>(d.batch_correct) / d.batch_expected : 0.0) + "), " +
                 std::to_string(d.batch_complete) + " continuations right to the end. Generation feeds back its "
                 "own tokens, so one wrong token can derail the rest.").c_str());

      ImGui::PushFont(ui.fonts.bold);
      ImGui::TextWrapped("Shifting the targets by one makes the diagonal legal.");
      ImGui::PopFont();
      txt::note("Position i is trained to predict token i + 1: the input is the sequence, the target the same "
                "sequence shifted left by one. So query i may attend to key i, its own token (the diagonal of the "
                "causal mask), because its answer sits at key i + 1, which the mask hides. Without the shift the "
                "answer would be on the diagonal and the model could copy it.");
      ImGui::TextWrapped("Measured on the display sequence: for each cut c (%d cuts), every token after c was edited; "
                         "the logits of positions 0..c moved by at most %s (the targets never reach their own "
                         "prediction), while position c + 1, which reads the first edited token, moved by up to %s.",
                         d.future_edits, exact_number(d.future_edit_max_diff).c_str(),
                         short_number(d.target_edit_max_diff, 3).c_str());
    } else {
      txt::note("No interventions yet: they run once at the end of a run, or with the button when paused.");
    }
  }
  draw_extrapolation(s, ui);
  draw_recall_strip(s, ui, "learned_heads");
}

}  // namespace

}  // namespace app
