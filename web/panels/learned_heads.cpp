// Learned heads panel: a tiny decoder trained here, in slices, on sequences that repeat a random
// run of tokens; its loss curve, every head's attention map (trained beside step 0) with four
// scores, zero/mean ablation and activation patching per head, any set of heads ablated
// together, and the parallel teacher-forced pass against K/V-cache generation.
// Every number comes from core/lessons/learned_heads/ through the setters in this file (the
// training slice runs before the frame is drawn); this file only formats and forwards edits.
#include "panels/learned_heads.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state
#include "panels/registry.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/masks.hpp"
#include "learn/model.hpp"
#include "panels/lesson_ui.hpp"
#include "learn/checkpoint.hpp"
#include "lessons/model_export.hpp"
#include "panels/train_worker.hpp"
#include "panels/ui.hpp"
#include "widgets/plots.hpp"

namespace app {

namespace lh = attn::lessons;

namespace {

constexpr int kSnapshotEvery = lh::kHeadsSnapshotEvery;
constexpr int kHeldout = lh::kHeadsHeldout;
constexpr int kCurvePoints = 300;

[[noreturn]] void invalid(const std::string& message) { run_invalid(message); }

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

void rebuild_score_curves(LearnedHeadsState& h) {
  h.score_steps.clear(), h.score_accuracy.clear(), h.score_induction.clear(), h.score_previous.clear();
  for (const lh::HeadsSnapshot& sn : h.snapshots) {
    double bi = 0, bp = 0;
    for (const lh::HeadScores& sc : sn.scores) bi = std::max(bi, sc.induction), bp = std::max(bp, sc.previous_token);
    h.score_steps.push_back(sn.step);
    h.score_accuracy.push_back(sn.eval.accuracy);
    h.score_induction.push_back(bi);
    h.score_previous.push_back(bp);
  }
}

void rebuild_extrapolation_accuracy(LearnedHeadsState& h) {
  h.extrapolation_accuracy.clear();
  if (!h.extrapolation) return;
  const int n = h.extrapolation->config().test_length;
  for (const lh::ExtrapolationResult& r : h.extrapolation->results()) {
    std::vector<double> y(static_cast<size_t>(n), std::nan(""));
    for (size_t p = 0; p < r.accuracy.counted.size() && p < y.size(); ++p)
      if (r.accuracy.counted[p] > 0) y[p] = static_cast<double>(r.accuracy.correct[p]) / r.accuracy.counted[p];
    h.extrapolation_accuracy.push_back(std::move(y));
  }
}

void add_snapshot(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const lh::HeadsTrainer& tr = *h.trainer;
  if (!h.snapshots.empty() && h.snapshots.back().step == tr.step()) return;
  h.snapshots.push_back(lh::take_snapshot(tr.model(), tr.layout(), tr.params(), tr.step(), h.heldout));
  if (h.follow) h.shown = static_cast<int>(h.snapshots.size()) - 1;
  rebuild_maps(h);
  rebuild_score_curves(h);
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
  const lh::HeadsSnapshot* last = h.snapshots.empty() ? nullptr : &h.snapshots.back();
  h.loss_caption = lh::loss_curve_caption(h.uniform_loss, h.curve_other, h.curve_stride,
                                          last ? last->eval.other_loss : 0.0, last ? last->step : -1);
}

// A trainer at step 0 for `in`: the lab's seeded model, or the loaded one on the inputs' task.
std::shared_ptr<lh::HeadsTrainer> make_trainer(const LearnedHeadsInput& in, const LearnedHeadsLoaded* loaded) {
  if (!loaded) return std::make_shared<lh::HeadsTrainer>(learned_heads_config(in));
  const lh::HeadsTrainingConfig cfg = lh::heads_config_for_model(loaded->model, learned_heads_config(in));
  return std::make_shared<lh::HeadsTrainer>(cfg, loaded->model, loaded->params);
}

// A new trainer at step 0 for the current inputs (they were validated).
void start_over(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  h.trainer = make_trainer(h.input, h.loaded.get());
  const lh::HeadsTrainingConfig& cfg = h.trainer->config();
  h.heldout = lh::heldout_batch(cfg.task, cfg.seed, kHeldout);
  h.uniform_loss = h.trainer->uniform_loss();
  run_start_over(h.run);
  h.snapshots.clear();
  h.shown = 0;
  h.follow = true;
  h.interventions.reset();
  h.intervention_study.reset();
  h.combined.reset();
  h.loaded_extrapolation.reset();
  h.loaded_extrapolation_curve.clear();
  h.combo.assign(static_cast<size_t>(h.trainer->model().layers * h.trainer->model().heads), false);
  const int t = cfg.task.context;
  h.allowed = attn::causal_mask(t, t, attn::Causal::square);
  h.tokens.clear();
  for (int i = 0; i < t; ++i) h.tokens.push_back(std::to_string(h.heldout.batch.tokens[static_cast<size_t>(i)]));
  add_snapshot(s);
  rebuild_curve(h);
  changed();
}

void update_combined(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  h.combined.reset();
  if (!h.trainer || h.run.running) return;
  std::vector<int> picked;
  for (size_t i = 0; i < h.combo.size(); ++i)
    if (h.combo[i]) picked.push_back(static_cast<int>(i));
  if (picked.empty()) return;
  if (h.intervention_study) return;  // a big model still being measured: this runs when it ends
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
  changed();
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

void init_learned_heads(AppState& s) {
  CheckpointFetch& c = s.learned_heads.run.checkpoint;
  if (!c.params_fnv1a) c.params_fnv1a = std::string();  // state() reports the installed parameters' hash
  start_over(s);
}

bool set_learned_heads_input(AppState& s, const LearnedHeadsInput& in) {
  LearnedHeadsState& h = s.learned_heads;
  if (in == h.input && h.trainer) {
    h.error.reset();
    return true;
  }
  const bool ok = guarded(h.error, [&] {
    validate(in);
    (void)make_trainer(in, h.loaded.get());  // the core's own validation
  });
  if (!ok) return false;
  h.input = in;
  h.extrapolation.reset();
  h.extrapolation_running = false;
  h.extrapolation_accuracy.clear();
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
  if (h.loaded && h.trainer) {
    const lh::HeadsTrainer& tr = *h.trainer;
    const attn::learn::DecoderConfig& m = tr.model();
    const int test = m.positions == attn::learn::DecoderPositions::learned ? std::min(m.context, 48) : 48;
    computed(h.error, [&] {
      h.loaded_extrapolation = lh::accuracy_by_position(m, tr.layout(), tr.params(), tr.config().task,
                                                        tr.config().task.context, test, h.input.seed);
      h.loaded_extrapolation_step = tr.step();
      const lh::PositionAccuracy& a = *h.loaded_extrapolation;
      h.loaded_extrapolation_curve.assign(static_cast<size_t>(a.test_length), std::nan(""));
      for (size_t p = 0; p < a.counted.size() && p < h.loaded_extrapolation_curve.size(); ++p)
        if (a.counted[p] > 0) h.loaded_extrapolation_curve[p] = static_cast<double>(a.correct[p]) / a.counted[p];
    });
    changed();
    return;
  }
  computed(h.error, [&] {
    h.extrapolation = std::make_shared<lh::ExtrapolationStudy>(learned_heads_extrapolation_config(h.input));
    h.extrapolation_running = true;
    rebuild_extrapolation_accuracy(h);
  });
  changed();
}

void learned_heads_extrapolation_pause(AppState& s) {
  s.learned_heads.extrapolation_running = false;
  changed();
}

void learned_heads_extrapolation_continue(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (h.extrapolation && !h.extrapolation->done()) h.extrapolation_running = true;
  changed();
}

void learned_heads_train(AppState& s) {
  start_over(s);
  run_started(s.learned_heads.run);
}

void learned_heads_pause(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!run_paused(h.run, h.trainer && h.trainer->done())) return;
  // The maps and scores of the step it stopped at (besides the every-100-steps ones).
  computed(h.error, [&] { add_snapshot(s); });
  changed();
}

void learned_heads_continue(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.trainer || h.run.running || h.trainer->done()) return;
  run_resumed(h.run, h.trainer->step());
  h.intervention_study.reset();  // a big model's study of the paused step: its step is left behind
  h.combined.reset();
  changed();
}

void learned_heads_reset(AppState& s) { start_over(s); }

void learned_heads_unload_model(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.loaded) return;
  h.loaded.reset();
  h.run.model.reset();
  h.extrapolation.reset();
  h.extrapolation_running = false;
  h.extrapolation_accuracy.clear();
  start_over(s);
}

static bool learned_heads_wants_checkpoint(const AppState& s, bool shown) {
  const LearnedHeadsState& h = s.learned_heads;
  return run_wants_checkpoint(h.run, shown,
                              !h.loaded && h.input == LearnedHeadsInput{} && h.trainer && h.trainer->step() == 0);
}

static void learned_heads_checkpoint_failed(AppState& s, const std::string& message) {
  run_checkpoint_failed(s.learned_heads.run, message);
  changed();
}

static bool learned_heads_install_checkpoint(AppState& s, const std::uint8_t* data, std::size_t size) {
  LearnedHeadsState& h = s.learned_heads;
  changed();
  const auto take = [&] {
    lh::HeadsRun run = default_run_from_checkpoint(data, size, lh::heads_run_from_checkpoint, lh::heads_config_json,
                                                   learned_heads_config(LearnedHeadsInput{}));
    if (run.snapshots.size() < 2 || run.snapshots.front().step != 0 || run.snapshots.back().step != run.step)
      throw attn::Error(attn::ErrorCode::invalid_field, "the checkpoint lacks the snapshots of step 0 and its last step");
    if (h.loaded || !(h.input == LearnedHeadsInput{}) || !h.trainer || h.trainer->step() != 0 || h.run.running)
      return false;
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
    return true;
  };
  return run_install_checkpoint(h.run, size, take, [&] {
    h.shown = static_cast<int>(h.snapshots.size()) - 1;
    h.follow = true;
    h.uniform_loss = h.trainer->uniform_loss();
    rebuild_maps(h);
    rebuild_score_curves(h);
    rebuild_curve(h);
    h.run.checkpoint.params_fnv1a = attn::learn::params_fnv1a(h.trainer->params());
    run_learned_heads_interventions(s);
    host_trained_event(s, "learned_heads", h.trainer->step(), "checkpoint");
  });
}

namespace {
// The study's slice, when the main run is not training (one slice per frame in all).
bool tick_extrapolation(AppState& s, double budget_seconds) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.extrapolation_running || !h.extrapolation) return false;
  lh::ExtrapolationStudy& st = *h.extrapolation;
  const bool ok = run_slice(h.error, budget_seconds, [&] { return st.advance(1) != 0; }, [&] { return st.done(); });
  if (!ok || st.done()) h.extrapolation_running = false;
  // Only a signal that finished adds a curve; the plotted ones do not change while the next trains.
  if (h.extrapolation_accuracy.size() != st.results().size()) rebuild_extrapolation_accuracy(h);
  changed();
  return true;
}
}  // namespace

namespace {
bool tick_interventions(AppState& s, double budget_seconds);
}  // namespace

namespace {
bool begin_interventions(AppState& s, bool at_once);
void finish_interventions(AppState& s);

// The run's last part, after its last step: the interventions at that step (run_end_slice).
void tick_run_end(AppState& s, double budget_seconds) {
  LearnedHeadsState& h = s.learned_heads;
  const int step = h.trainer->step();
  run_end_slice(
      h.error, h.run, h.intervention_study, h.intervention_study_step, step, budget_seconds,
      [&] { return begin_interventions(s, false) && h.intervention_study; },  // measured at once: installed, dropped
      [&] { finish_interventions(s); }, [&] { host_trained_event(s, "learned_heads", step, "trained here"); });
}
}  // namespace

bool tick_learned_heads(AppState& s, double budget_seconds) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.run.running || !h.trainer) return tick_interventions(s, budget_seconds) || tick_extrapolation(s, budget_seconds);
  lh::HeadsTrainer& tr = *h.trainer;
  if (run_in_worker(h.run, tr.done())) {
    // Every snapshot step is one of the states (the Worker stops there): the snapshots are the
    // ones the page's own steps take.
    // The frame changes only when a state came: otherwise nothing is redrawn (platform/damage.hpp).
    if (run_worker_tick(h.error, h.run, tr, kSnapshotEvery, kHeadsWorkerPace, [&] {
          if (tr.step() % kSnapshotEvery == 0 || tr.done()) add_snapshot(s);
        }, [&] { rebuild_curve(h); }))
      changed();
    return true;
  }
  h.run.steps_in = tr.done() ? h.run.steps_in : "page";
  const auto step_once = [&] {
    if (tr.advance(1) == 0) return false;
    if (tr.step() % kSnapshotEvery == 0 || tr.done()) add_snapshot(s);
    return true;
  };
  if (run_tick(h.error, h.run, tr, budget_seconds, step_once, [&] { tick_run_end(s, budget_seconds); })) rebuild_curve(h);
  changed();
  return true;
}

namespace {
// The study's results become the panel's interventions (and the ticked heads' combined ablation).
void finish_interventions(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const lh::HeadsInterventionStudy& st = *h.intervention_study;
  LearnedHeadsInterventions iv;
  iv.step = h.intervention_study_step;
  iv.ablation = st.ablation();
  iv.patching = st.patching();
  iv.decoding = st.decoding();
  h.interventions = std::move(iv);
  h.intervention_study.reset();
  changed();
  if (!h.combined) {
    bool any = false;
    for (bool b : h.combo) any = any || b;
    if (any) update_combined(s);
  }
}

// One frame's slice of a big model's interventions; false when none is under way.
bool tick_interventions(AppState& s, double budget_seconds) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.intervention_study) return false;
  if (run_study_slice(h.error, budget_seconds, h.intervention_study) && h.intervention_study->done())
    finish_interventions(s);
  changed();
  return true;
}
}  // namespace

bool run_learned_heads_interventions(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  if (!h.trainer || h.run.running) return false;
  // A model the lab can train measures in a fraction of a second: at once, when asked. A bigger
  // one (only a loaded model can be) in slices.
  return begin_interventions(s, h.trainer->layout().total() <= attn::learn::kMaxParams);
}

namespace {
// The interventions at the trainer's step: measured in this call when `at_once`, else begun, for
// tick_interventions / tick_run_end to measure a slice per frame. False on an error (shown).
bool begin_interventions(AppState& s, bool at_once) {
  LearnedHeadsState& h = s.learned_heads;
  const lh::HeadsTrainer& tr = *h.trainer;
  if (h.intervention_study && h.intervention_study_step == tr.step()) return true;  // under way
  const bool ok = computed(h.error, [&] {
    attn::Rng rng(h.input.seed ^ 0xc0ffee5ULL);
    const lh::InductionBatch corrupt = lh::corrupt_first_copy(h.heldout, tr.model().vocab, rng);
    h.intervention_study = std::make_shared<lh::HeadsInterventionStudy>(tr.model(), tr.layout(), tr.params(), h.heldout,
                                                                       corrupt, lh::HeadsInterventionStudy::Parts{});
    h.intervention_study_step = tr.step();
    if (at_once) h.intervention_study->advance(h.intervention_study->units_total());
  });
  changed();
  if (!ok) {
    h.intervention_study.reset();
    return false;
  }
  if (h.intervention_study->done())
    finish_interventions(s);
  else
    h.interventions.reset();  // no figures of another step beside a study under way
  return true;
}
}  // namespace

void select_learned_heads_snapshot(AppState& s, int index) {
  LearnedHeadsState& h = s.learned_heads;
  if (h.snapshots.empty()) return;
  const int last = static_cast<int>(h.snapshots.size()) - 1;
  h.shown = std::max(0, std::min(index, last));
  h.follow = h.shown == last;
  rebuild_maps(h);
  changed();
}

void set_learned_heads_combo(AppState& s, const std::vector<bool>& heads, bool mean) {
  LearnedHeadsState& h = s.learned_heads;
  h.combo = heads;
  h.combo.resize(h.trainer ? static_cast<size_t>(h.trainer->model().layers * h.trainer->model().heads) : 0, false);
  h.combo_mean = mean;
  update_combined(s);
  changed();
}

namespace {

std::string decoder_summary(const attn::learn::DecoderConfig& m) {
  return "decoder, vocab " + std::to_string(m.vocab) + ", context " + std::to_string(m.context) + ", d_model " +
         std::to_string(m.d_model) + ", " + std::to_string(m.layers) + " layer(s) x " + std::to_string(m.heads) +
         " head(s), " + attn::learn::decoder_positions_name(m.positions) + " positions, MLP " + std::to_string(m.mlp) +
         (m.layer_norm ? ", layer norm" : "");
}

bool learned_heads_install_model(AppState& s, const std::string& name, std::size_t bytes, attn::learn::ModelFile&& file) {
  LearnedHeadsState& h = s.learned_heads;
  changed();
  auto loaded = std::make_shared<LearnedHeadsLoaded>(LearnedHeadsLoaded{file.model.decoder, std::move(file.params)});
  std::optional<ErrorInfo> e;
  if (!guarded(e, [&] { (void)make_trainer(h.input, loaded.get()); })) {  // the task must fit the model
    run_model_refused(h.run, h.error, e->code, name + ": " + e->message);
    return false;
  }
  run_model_loaded(h.run, name, bytes, decoder_summary(loaded->model), loaded->params);
  h.loaded = std::move(loaded);
  h.error.reset();
  h.extrapolation.reset();
  h.extrapolation_running = false;
  h.extrapolation_accuracy.clear();
  start_over(s);
  run_learned_heads_interventions(s);  // every analysis, on the model as it came
  return true;
}

void learned_heads_model_refused(AppState& s, const std::string& code, const std::string& message) {
  run_model_refused(s.learned_heads.run, s.learned_heads.error, code, message);
  changed();
}

std::string learned_heads_export(const AppState& s, const std::string& which, std::string& file_name) {
  const LearnedHeadsState& h = s.learned_heads;
  if (!which.empty()) throw attn::Error(attn::ErrorCode::invalid_field, "the Learned heads panel has one model, not \"" + which + "\"");
  if (!h.trainer) throw attn::Error(attn::ErrorCode::invalid_field, "the Learned heads panel has no model yet");
  const lh::HeadsTrainer& tr = *h.trainer;
  file_name = "learned_heads_step" + std::to_string(tr.step()) + ".safetensors";
  return attn::lessons::heads_model_safetensors(tr.config(), tr.model(), tr.step(), tr.params());
}

const ModelHooks kModel = {attn::learn::ModelKind::decoder, learned_heads_install_model, learned_heads_model_refused,
                           learned_heads_export,
                           [](const AppState& s) { return s.learned_heads.run.model ? &*s.learned_heads.run.model : nullptr; }};

const CheckpointHooks kCheckpoint = {kLearnedHeadsCheckpointUrl, learned_heads_wants_checkpoint,
                                     checkpoint_requested_hook<&AppState::learned_heads>, learned_heads_install_checkpoint,
                                     learned_heads_checkpoint_failed};

}  // namespace

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"learned_heads", "Learned heads", "trained here: maps, ablations", "Learned heads, trained here",
    learned_heads_state_json, apply_learned_heads_json, error_of<&AppState::learned_heads>,
    [](const AppState& s) { return learned_heads_inputs_json(s.learned_heads.input); },  // never the run
    draw_learned_heads_panel, nullptr,
    [](AppState& s, bool shown) {
      // The Worker's script and wasm load, and it rehearses the run, while the panel is read,
      // not when Train is pressed.
      if (shown)
        train_worker::warm("learned_heads", [&s] {
          const LearnedHeadsState& h = s.learned_heads;
          return attn::learn::encode_checkpoint(make_trainer(h.input, h.loaded.get())->state_checkpoint());
        });
      tick_learned_heads(s);  // the training slice, before anything is drawn
    },
    [](const AppState& s) {
      const LearnedHeadsState& h = s.learned_heads;
      return run_needs_frames(h.run) || h.extrapolation_running || h.intervention_study != nullptr;
    },
    &kCheckpoint, &kModel, [](const AppState& s) { return s.learned_heads.run.running; }};
const PanelDef& learned_heads_panel() { return kPanel; }

}  // namespace app
