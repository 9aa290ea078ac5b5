// Learned heads panel: state() and set() — the panel's inputs, its run and its results as JSON,
// and the set() patch forwarded to the setters in learned_heads.cpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/app_state.hpp"
#include "panels/learned_heads.hpp"
#include "learn/json_obj.hpp"

namespace app {

using attn::Json;
namespace lh = attn::lessons;

namespace {

Json eval_json(const lh::InductionEval& e) {
  return ::attn::obj({{"loss", e.loss}, {"accuracy", e.accuracy}, {"other_loss", e.other_loss}, {"counted", e.counted}});
}

Json snapshot_json(const lh::HeadsSnapshot& snap, int heads) {
  Json scores = Json::array();
  for (size_t i = 0; i < snap.scores.size(); ++i) {
    Json row = ::attn::obj({{"layer", static_cast<int>(i) / heads}, {"head", static_cast<int>(i) % heads}});
    for (const lh::HeadScoreDef& def : lh::head_score_table()) row[def.name] = snap.scores[i].*def.field;
    scores.push_back(std::move(row));
  }
  return ::attn::obj({{"step", snap.step}, {"heldout", eval_json(snap.eval)}, {"accuracy", snap.eval.accuracy}, {"scores", scores}});
}

Json sampled(const std::vector<double>& v, int stride) {
  Json out = Json::array();
  for (size_t i = 0; i < v.size(); i += static_cast<size_t>(stride)) out.push_back(v[i]);
  return out;
}

}  // namespace

Json learned_heads_inputs_json(const LearnedHeadsInput& in) {
  return ::attn::obj({{"seed", in.seed},     {"steps", in.steps},   {"lr", in.lr},
              {"heads", in.heads},   {"layers", in.layers}, {"positions", attn::learn::decoder_positions_name(in.positions)},
              {"mlp", in.mlp},       {"vocab", in.vocab},   {"prefix_max", in.prefix_max},
              {"run_min", in.run_min}, {"run_max", in.run_max}});
}

Json learned_heads_state_json(const AppState& s) {
  const LearnedHeadsState& h = s.learned_heads;
  Json out = Json::object();
  out["inputs"] = learned_heads_inputs_json(h.input);
  run_state_json(out, h.run, progress_of(h.trainer.get(), h.input.steps), kLearnedHeadsCheckpointUrl);
  out["params_fnv1a"] = h.trainer ? attn::learn::params_fnv1a(h.trainer->params()) : "";
  const int heads = h.trainer ? h.trainer->model().heads : h.input.heads;
  out["uniform_loss"] = h.trainer ? h.uniform_loss : std::log(static_cast<double>(h.input.vocab));
  if (h.trainer) {
    const int n = static_cast<int>(h.trainer->losses().size());
    const int stride = std::max(1, (n + 1999) / 2000);
    out["losses"] = ::attn::obj({{"stride", stride},
                         {"note", "train[k] is the loss of step k*stride + 1 (steps count from 1)"},
                         {"train", sampled(h.trainer->losses(), stride)},
                         {"other", sampled(h.trainer->other_losses(), stride)}});
  } else {
    out["losses"] = ::attn::obj({{"stride", 1}, {"train", Json::array()}, {"other", Json::array()}});
  }
  Json steps = Json::array();
  for (const lh::HeadsSnapshot& snap : h.snapshots) steps.push_back(snap.step);
  out["snapshot_steps"] = steps;
  out["shown"] = h.shown;
  // The display sequence the maps are drawn on (the first held-out sequence).
  out["sequence"] = h.trainer ? Json(std::vector<int>(h.heldout.batch.tokens.begin(),
                                                      h.heldout.batch.tokens.begin() + h.heldout.batch.t))
                              : Json::array();
  out["snapshot"] = h.snapshots.empty() ? Json(nullptr) : snapshot_json(h.snapshots[static_cast<size_t>(h.shown)], heads);
  out["latest"] = h.snapshots.empty() ? Json(nullptr) : snapshot_json(h.snapshots.back(), heads);
  if (h.interventions) {
    const LearnedHeadsInterventions& iv = *h.interventions;
    Json per = Json::array();
    const lh::AblationStudy& a = iv.ablation;
    for (size_t i = 0; i < a.zero.size(); ++i) {
      per.push_back(::attn::obj({{"layer", static_cast<int>(i) / heads},
                         {"head", static_cast<int>(i) % heads},
                         {"zero_delta_loss", a.zero[i].loss - a.base.loss},
                         {"zero_accuracy", a.zero[i].accuracy},
                         {"mean_delta_loss", a.mean[i].loss - a.base.loss},
                         {"mean_accuracy", a.mean[i].accuracy},
                         {"recovered", i < iv.patching.recovered.size() ? iv.patching.recovered[i] : 0.0}}));
    }
    out["interventions"] = ::attn::obj({{"step", iv.step},
                                {"base", eval_json(a.base)},
                                {"clean_loss", iv.patching.clean_loss},
                                {"corrupt_loss", iv.patching.corrupt_loss},
                                {"heads", per}});
    const lh::DecodeComparison& d = iv.decoding;
    out["decoding"] = ::attn::obj({{"step", iv.step},
                           {"max_logit_diff", d.max_logit_diff},
                           {"teacher_forced_positions", d.teacher_forced_positions},
                           {"generation", d.generation},
                           {"dependent_steps", d.dependent_steps},
                           {"sequential_steps", d.sequential_steps},
                           {"forced_earlier_max_diff", d.forced_earlier_max_diff},
                           {"forced_step_min_diff", d.forced_step_min_diff},
                           {"forced_at", d.forced_at},
                           {"later_steps", d.later_steps},
                           {"later_moved", d.later_moved},
                           {"prompt", d.prompt},
                           {"generated", d.generated},
                           {"expected", d.expected},
                           {"correct", d.correct},
                           {"batch", ::attn::obj({{"sequences", d.batch_sequences}, {"correct", d.batch_correct},
                                      {"expected", d.batch_expected}, {"complete", d.batch_complete}})},
                           {"future_edits", d.future_edits},
                           {"future_edit_max_diff", d.future_edit_max_diff},
                           {"target_edit_max_diff", d.target_edit_max_diff}});
  } else {
    out["interventions"] = nullptr;
    out["decoding"] = nullptr;
  }
  if (h.intervention_study) {  // while measured in slices: a big model, or a run past its last step
    const attn::lessons::HeadsInterventionStudy& st = *h.intervention_study;
    out["interventions_progress"] = ::attn::obj({{"step", h.intervention_study_step}, {"phase", st.phase()},
                                                 {"units_done", st.units_done()}, {"units_total", st.units_total()}});
  }
  Json combo = Json::array();
  for (size_t i = 0; i < h.combo.size(); ++i)
    if (h.combo[i]) combo.push_back(static_cast<int>(i));
  if (h.combined) {
    const double base = h.interventions ? h.interventions->ablation.base.loss : 0.0;
    out["combined"] = ::attn::obj({{"step", h.combined->step},
                           {"heads", h.combined->heads},
                           {"mode", h.combined->mean ? "mean" : "zero"},
                           {"loss", h.combined->eval.loss},
                           {"accuracy", h.combined->eval.accuracy},
                           {"delta_loss", h.combined->eval.loss - base}});
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
      signals.push_back(::attn::obj({{"positions", attn::learn::decoder_positions_name(r.positions)},
                             {"test_length", r.accuracy.test_length},
                             {"accuracy_within", r.accuracy.accuracy_within},
                             {"accuracy_beyond", r.accuracy.accuracy_beyond},
                             {"final_loss", r.final_loss},
                             {"accuracy_by_position", acc},
                             {"counted", r.accuracy.counted}}));
    }
    const lh::ExtrapolationConfig& c = st.config();
    out["extrapolation"] = ::attn::obj({{"status", st.done() ? "done" : (h.extrapolation_running ? "training" : "paused")},
                                {"step", st.steps_done()},
                                {"total", st.steps_total()},
                                {"progress", static_cast<double>(st.steps_done()) / std::max(1, st.steps_total())},
                                {"train_length", c.train_length},
                                {"test_length", c.test_length},
                                {"context", c.task.context},
                                {"steps_per_signal", c.steps},
                                {"signals", signals}});
  } else if (h.loaded_extrapolation) {
    // A loaded model measured by position (nothing trained): one signal, its own.
    const lh::PositionAccuracy& a = *h.loaded_extrapolation;
    Json acc = Json::array();
    for (size_t p = 0; p < a.counted.size(); ++p)
      acc.push_back(a.counted[p] ? Json(static_cast<double>(a.correct[p]) / a.counted[p]) : Json(nullptr));
    out["extrapolation"] = ::attn::obj({{"status", "done"},
                                {"model", "loaded"},
                                {"step", h.loaded_extrapolation_step},
                                {"train_length", a.train_length},
                                {"test_length", a.test_length},
                                {"signals", Json::array({::attn::obj({{"positions", attn::learn::decoder_positions_name(h.trainer->model().positions)},
                                                              {"test_length", a.test_length},
                                                              {"accuracy_within", a.accuracy_within},
                                                              {"accuracy_beyond", a.accuracy_beyond},
                                                              {"accuracy_by_position", acc},
                                                              {"counted", a.counted}})})}});
  } else {
    out["extrapolation"] = nullptr;
  }
  out["ablate"] = combo;
  out["ablate_mode"] = h.combo_mean ? "mean" : "zero";
  out["error"] = h.error ? ::attn::obj({{"code", h.error->code}, {"message", h.error->message}}) : Json(nullptr);
  return out;
}

bool apply_learned_heads_json(AppState& s, const Json& patch) {
  LearnedHeadsState& h = s.learned_heads;
  LearnedHeadsInput in = h.input;
  RunPatch run;
  bool inputs = false, interventions = false;
  bool architecture = false, unload = false;  // a loaded model has its own architecture
  bool has_snapshot = false, has_combo = false;
  std::string extrapolation;
  int snapshot = 0;
  std::vector<bool> combo = h.combo;
  bool combo_mean = h.combo_mean;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (read_run_patch(k, v, in.seed, in.steps, in.lr, run)) continue;
    if (k == "heads") in.heads = run_clamp_int(run_integer(v, k)), inputs = architecture = true;
    else if (k == "layers") in.layers = run_clamp_int(run_integer(v, k)), inputs = architecture = true;
    else if (k == "mlp") in.mlp = run_clamp_int(run_integer(v, k)), inputs = architecture = true;
    else if (k == "vocab") in.vocab = run_clamp_int(run_integer(v, k)), inputs = architecture = true;
    else if (k == "prefix_max") in.prefix_max = run_clamp_int(run_integer(v, k)), inputs = true;
    else if (k == "run_min") in.run_min = run_clamp_int(run_integer(v, k)), inputs = true;
    else if (k == "run_max") in.run_max = run_clamp_int(run_integer(v, k)), inputs = true;
    else if (k == "positions") {
      const std::string p = v.is_string() ? v.get<std::string>() : "";
      if (p == "learned") in.positions = attn::learn::DecoderPositions::learned;
      else if (p == "sinusoidal") in.positions = attn::learn::DecoderPositions::sinusoidal;
      else if (p == "rope") in.positions = attn::learn::DecoderPositions::rope;
      else if (p == "none") in.positions = attn::learn::DecoderPositions::none;
      else run_invalid("positions must be \"learned\", \"sinusoidal\", \"rope\" or \"none\"");
      inputs = architecture = true;
    } else if (k == "model") {
      if (!v.is_null()) run_invalid("model takes null (back to the lab's model); a file comes through the page (loadModel)");
      unload = true;
    } else if (k == "interventions") interventions = run_bool(v, k);
    else if (k == "snapshot") snapshot = run_clamp_int(run_integer(v, k)), has_snapshot = true;
    else if (k == "ablate") {
      if (!v.is_array()) run_invalid("ablate must be an array of head indices (layer-major)");
      const int n = h.trainer ? h.trainer->model().layers * h.trainer->model().heads : 0;
      combo.assign(static_cast<size_t>(n), false);
      for (const Json& x : v) {
        const std::int64_t i = run_integer(x, "ablate[]");
        if (i < 0 || i >= static_cast<std::int64_t>(combo.size()))
          run_invalid("ablate: head index " + std::to_string(i) + " is outside 0.." + std::to_string(combo.size() - 1));
        combo[static_cast<size_t>(i)] = true;
      }
      has_combo = true;
    } else if (k == "extrapolation") {
      const std::string a = v.is_string() ? v.get<std::string>() : "";
      if (a != "start" && a != "pause" && a != "continue")
        run_invalid("extrapolation must be \"start\", \"pause\" or \"continue\"");
      extrapolation = a;
    } else if (k == "ablate_mode") {
      const std::string m = v.is_string() ? v.get<std::string>() : "";
      if (m != "zero" && m != "mean") run_invalid("ablate_mode must be \"zero\" or \"mean\"");
      combo_mean = m == "mean", has_combo = true;
    } else {
      run_invalid("unknown learned_heads input '" + k +
              "' (seed, steps, lr, heads, layers, positions, mlp, vocab, prefix_max, run_min, run_max, train, pause, continue, reset, interventions, "
              "snapshot, ablate, ablate_mode, extrapolation, model)");
    }
  }
  if (unload || (architecture && h.loaded)) learned_heads_unload_model(s);
  if ((inputs || run.inputs) && !set_learned_heads_input(s, in)) return false;
  if (run.reset) learned_heads_reset(s);
  if (run.train) learned_heads_train(s);
  if (run.pause) learned_heads_pause(s);
  if (run.resume) learned_heads_continue(s);
  if (has_snapshot) select_learned_heads_snapshot(s, snapshot);
  if (interventions && !run_learned_heads_interventions(s)) {
    if (h.run.running) run_invalid("interventions run when training is paused or done");
    if (h.error) return false;
  }
  if (has_combo) set_learned_heads_combo(s, combo, combo_mean);
  if (extrapolation == "start") learned_heads_extrapolation_start(s);
  if (extrapolation == "pause") learned_heads_extrapolation_pause(s);
  if (extrapolation == "continue") learned_heads_extrapolation_continue(s);
  return true;
}

}  // namespace app
