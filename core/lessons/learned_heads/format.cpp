#include "lessons/learned_heads/format.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "attn/error.hpp"
#include "learn/json_obj.hpp"
#include "learn/params.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

// What a trainer state's meta says of its model beyond the configuration: the vocabulary and
// context (a model read from a file keeps its own).
void require_state_meta(const Json& m) {
  const bool of_this_lesson = m.is_object() && m.value("kind", "") == "trainer_state" &&
                              m.value("model", "") == "decoder" && m.value("task", "") == "induction";
  if (!of_this_lesson) bad("trainer state: not the state of a decoder trained on the induction task");
  for (const char* k : {"model_vocab", "model_context", "step", "adam_step"})
    if (!m.contains(k) || !m[k].is_number_integer()) bad(std::string("trainer state: '") + k + "' missing");
  if (!m.contains("config") || !m.contains("data_rng") || !m["data_rng"].is_string())
    bad("trainer state: the meta needs a config and a data_rng");
}

// o[key], which must be a number: "checkpoint config: 'key' missing" otherwise.
const Json& num(const Json& o, const char* key) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_number()) bad(std::string("checkpoint config: '") + key + "' missing");
  return o[key];
}

// Adam's settings under the configuration's "adam".
learn::AdamConfig adam_from_json(const Json& j) {
  const Json& a = j.contains("adam") ? j["adam"] : Json();
  return {num(a, "lr").get<double>(), num(a, "beta1").get<double>(), num(a, "beta2").get<double>(),
          num(a, "eps").get<double>(), num(a, "weight_decay").get<double>()};
}

HeadsTrainingConfig config_from_json(const Json& j) {
  HeadsTrainingConfig c;
  const Json& t = j.contains("task") ? j["task"] : Json();
  c.task.vocab = num(t, "vocab").get<int>();
  c.task.context = num(t, "context").get<int>();
  c.task.prefix_min = num(t, "prefix_min").get<int>();
  c.task.prefix_max = num(t, "prefix_max").get<int>();
  c.task.run_min = num(t, "run_min").get<int>();
  c.task.run_max = num(t, "run_max").get<int>();
  const Json& m = j.contains("model") ? j["model"] : Json();
  c.model.d_model = num(m, "d_model").get<int>();
  c.model.heads = num(m, "heads").get<int>();
  c.model.layers = num(m, "layers").get<int>();
  c.model.mlp = num(m, "mlp").get<int>();
  const std::string pos = m.is_object() && m.contains("positions") && m["positions"].is_string() ? m["positions"].get<std::string>() : "";
  bool found = false;
  for (learn::DecoderPositions p : {learn::DecoderPositions::learned, learn::DecoderPositions::sinusoidal,
                                    learn::DecoderPositions::rope, learn::DecoderPositions::none})
    if (pos == learn::decoder_positions_name(p)) c.model.positions = p, found = true;
  if (!found) bad("checkpoint config: unknown positions '" + pos + "'");
  c.model.layer_norm = m.contains("layer_norm") && m["layer_norm"].is_boolean() && m["layer_norm"].get<bool>();
  c.batch = num(j, "batch").get<int>();
  c.adam = adam_from_json(j);
  c.clip = num(j, "clip").get<double>();
  c.seed = num(j, "seed").get<std::uint64_t>();
  c.steps = num(j, "steps").get<int>();
  c.train_length = num(j, "train_length").get<int>();
  return c;
}

}  // namespace

Json heads_config_json(const HeadsTrainingConfig& c) {
  return ::attn::obj({{"task", ::attn::obj({{"vocab", c.task.vocab}, {"context", c.task.context}, {"prefix_min", c.task.prefix_min},
                        {"prefix_max", c.task.prefix_max}, {"run_min", c.task.run_min}, {"run_max", c.task.run_max}})},
              {"model", ::attn::obj({{"d_model", c.model.d_model}, {"heads", c.model.heads}, {"layers", c.model.layers},
                         {"mlp", c.model.mlp}, {"positions", learn::decoder_positions_name(c.model.positions)},
                         {"layer_norm", c.model.layer_norm}})},
              {"batch", c.batch},
              {"adam", ::attn::obj({{"lr", c.adam.lr}, {"beta1", c.adam.beta1}, {"beta2", c.adam.beta2}, {"eps", c.adam.eps},
                        {"weight_decay", c.adam.weight_decay}})},
              {"clip", c.clip},
              {"seed", c.seed},
              {"steps", c.steps},
              {"train_length", c.train_length}});
}

HeadsTrainer::HeadsTrainer(const HeadsRun& run) : HeadsTrainer(run.config) {
  learn::require_finished_run(run.step, cfg_.steps);
  learn::require_param_count("the record", run.params.size(), layout_.total());
  if (run.losses.size() != static_cast<size_t>(run.step) || run.other_losses.size() != run.losses.size())
    bad("the record needs one loss per step (" + std::to_string(run.step) + ")");
  params_ = run.params;
  losses_ = run.losses;
  other_losses_ = run.other_losses;
  step_ = run.step;
}

learn::Checkpoint HeadsTrainer::state_checkpoint() const {
  learn::Checkpoint c;
  c.meta = ::attn::obj({{"model", "decoder"},
                        {"task", "induction"},
                        {"kind", "trainer_state"},
                        {"config", heads_config_json(cfg_)},
                        {"model_vocab", model_.vocab},
                        {"model_context", model_.context},
                        {"step", step_},
                        {"adam_step", adam_.step},
                        {"data_rng", data_rng_.state()}});
  for (const auto& [name, values] : {std::pair<const char*, const std::vector<double>*>{"params", &params_},
                                     {"initial", &initial_}, {"adam_m", &adam_.m}, {"adam_v", &adam_.v},
                                     {"losses", &losses_}, {"other_losses", &other_losses_}})
    c.add(name, *values);
  return c;
}

HeadsTrainer HeadsTrainer::from_state(const learn::Checkpoint& ck) {
  require_state_meta(ck.meta);
  const HeadsTrainingConfig cfg = config_from_json(ck.meta["config"]);
  learn::DecoderConfig model = cfg.model;
  model.vocab = ck.meta["model_vocab"].get<int>();
  model.context = ck.meta["model_context"].get<int>();
  HeadsTrainer seeded(cfg);
  if (seeded.model_.vocab == model.vocab && seeded.model_.context == model.context) {
    seeded.load_state(ck);
    return seeded;
  }
  // A model read from a file: its own context; the initial parameters come with the state.
  HeadsTrainer t(cfg, model, ck.array("initial"));
  t.load_state(ck);
  return t;
}

void HeadsTrainer::load_state(const learn::Checkpoint& ck) {
  const Json& m = ck.meta;
  require_state_meta(m);
  if (m["config"] != heads_config_json(cfg_) || m["model_vocab"].get<int>() != model_.vocab ||
      m["model_context"].get<int>() != model_.context)
    bad("trainer state: of another run (configuration or model)");
  const int step = m["step"].get<int>();
  const long adam_step = m["adam_step"].get<long>();
  if (step < 0 || step > cfg_.steps) bad("trainer state: step " + std::to_string(step) + " is outside 0.." + std::to_string(cfg_.steps));
  const std::size_t n = layout_.total();
  const std::vector<double>& params = ck.array("params");
  const std::vector<double>& initial = ck.array("initial");
  const std::vector<double>& am = ck.array("adam_m");
  const std::vector<double>& av = ck.array("adam_v");
  const std::vector<double>& losses = ck.array("losses");
  const std::vector<double>& other = ck.array("other_losses");
  learn::require_param_count("the state's params", params.size(), n);
  learn::require_param_count("the state's initial params", initial.size(), n);
  // Adam sizes its moments on the first step: none before it, one per parameter after.
  const std::size_t moments = adam_step == 0 ? 0 : n;
  if (am.size() != moments || av.size() != moments || adam_step < 0)
    bad("trainer state: Adam's moments do not fit " + std::to_string(n) + " parameters at Adam step " + std::to_string(adam_step));
  if (losses.size() != static_cast<std::size_t>(step) || other.size() != losses.size())
    bad("trainer state: one loss per step needed (" + std::to_string(step) + ")");
  Rng rng(0);
  rng.set_state(m["data_rng"].get<std::string>());
  params_ = params;
  initial_ = initial;
  adam_.m = am;
  adam_.v = av;
  adam_.step = adam_step;
  data_rng_ = rng;
  step_ = step;
  losses_ = losses;
  other_losses_ = other;
}

HeadsRun record_heads_run(const HeadsTrainingConfig& cfg) {
  HeadsTrainer tr(cfg);
  const InductionBatch heldout = heldout_batch(cfg.task, cfg.seed, kHeadsHeldout);
  HeadsRun run;
  run.config = cfg;
  run.snapshots.push_back(take_snapshot(tr.model(), tr.layout(), tr.params(), 0, heldout));
  while (!tr.done()) {
    tr.advance(1);
    if (tr.step() % kHeadsSnapshotEvery == 0 || tr.done())
      run.snapshots.push_back(take_snapshot(tr.model(), tr.layout(), tr.params(), tr.step(), heldout));
  }
  run.step = tr.step();
  run.params = tr.params();
  run.losses = tr.losses();
  run.other_losses = tr.other_losses();
  return run;
}

learn::Checkpoint heads_run_checkpoint(const HeadsRun& run) {
  std::vector<double> steps, evals, scores;
  for (const HeadsSnapshot& s : run.snapshots) {
    steps.push_back(s.step);
    evals.insert(evals.end(), {s.eval.loss, s.eval.accuracy, s.eval.other_loss, static_cast<double>(s.eval.counted)});
    for (const HeadScores& h : s.scores)
      for (const HeadScoreDef& def : head_score_table()) scores.push_back(h.*def.field);
  }
  learn::Checkpoint c;
  c.meta = ::attn::obj({{"model", "decoder"}, {"task", "induction"}, {"config", heads_config_json(run.config)},
                        {"step", run.step}, {"params_fnv1a", learn::params_fnv1a(run.params)},
                        {"scores", head_score_names()}});
  for (const auto& [name, values] : {std::pair<const char*, const std::vector<double>*>{"params", &run.params},
                                     {"losses", &run.losses}, {"other_losses", &run.other_losses},
                                     {"snapshot_steps", &steps}, {"snapshot_eval", &evals},
                                     {"snapshot_scores", &scores}})
    c.add(name, *values);
  return c;
}

namespace {

// The score names a checkpoint's snapshot_scores hold, in order. Checkpoints written before the
// list was recorded in the meta (the shipped checkpoints/learned_heads.ckpt) hold the four scores
// the table had then, which are today's whole table: that list is taken only when the array holds
// exactly four numbers per head and snapshot, and refused otherwise. It is spelled out rather than
// read from the table, so that a table that grows or changes later still reads those files right.
std::vector<std::string> recorded_score_names(const Json& m, std::size_t numbers, std::size_t per_score) {
  std::vector<std::string> names;
  if (m.contains("scores")) {
    if (!m["scores"].is_array()) bad("checkpoint: the meta's 'scores' is not a list of names");
    for (const Json& n : m["scores"]) {
      if (!n.is_string()) bad("checkpoint: the meta's 'scores' is not a list of names");
      if (std::find(names.begin(), names.end(), n.get<std::string>()) != names.end())
        bad("checkpoint: the score '" + n.get<std::string>() + "' is listed twice");
      names.push_back(n.get<std::string>());
    }
    return names;
  }
  names = {"previous_token", "induction", "diagonal", "first_token"};
  if (numbers != names.size() * per_score)
    bad("checkpoint: no score list in the meta, and snapshot_scores does not hold the first four scores "
        "(previous_token, induction, diagonal, first_token) of every head and snapshot");
  return names;
}

// The run replayed from its seed, for the scores the checkpoint does not record; refused naming
// the first missing score unless the replay reproduces the recorded parameters.
HeadsRun replay_for_scores(const HeadsRun& run, const std::string& params_hash, const std::string& missing) {
  HeadsRun replay = record_heads_run(run.config);
  bool same = learn::params_fnv1a(replay.params) == params_hash && replay.snapshots.size() == run.snapshots.size();
  for (size_t i = 0; same && i < run.snapshots.size(); ++i) same = replay.snapshots[i].step == run.snapshots[i].step;
  if (!same)
    bad("checkpoint: the score '" + missing + "' is not recorded, and replaying the run from its seed does not "
        "reproduce it: train it again and write a new checkpoint");
  return replay;
}

}  // namespace

HeadsRun heads_run_from_checkpoint(const learn::Checkpoint& ck) {
  const Json& m = ck.meta;
  if (!m.is_object() || m.value("model", "") != "decoder" || m.value("task", "") != "induction")
    bad("checkpoint: not a decoder trained on the induction task");
  if (!m.contains("config") || !m.contains("step") || !m["step"].is_number_integer())
    bad("checkpoint: the meta needs a config and a step");
  HeadsRun run;
  run.config = config_from_json(m["config"]);
  run.step = m["step"].get<int>();
  run.params = ck.array("params");
  run.losses = ck.array("losses");
  run.other_losses = ck.array("other_losses");
  const std::string hash = m.value("params_fnv1a", "");
  if (hash != learn::params_fnv1a(run.params)) bad("checkpoint: the parameters' hash differs from the one recorded");
  const HeadsTrainer check(run);  // config, sizes and step
  const size_t n_heads = static_cast<size_t>(check.model().layers) * check.model().heads;
  const std::vector<double>& steps = ck.array("snapshot_steps");
  const std::vector<double>& evals = ck.array("snapshot_eval");
  const std::vector<double>& scores = ck.array("snapshot_scores");
  const std::vector<std::string> names = recorded_score_names(m, scores.size(), steps.size() * n_heads);
  const size_t k = names.size();
  if (evals.size() != steps.size() * 4 || scores.size() != steps.size() * k * n_heads)
    bad("checkpoint: the snapshot arrays do not fit " + std::to_string(steps.size()) + " snapshots of " +
        std::to_string(n_heads) + " heads and " + std::to_string(k) + " scores");
  for (size_t i = 0; i < steps.size(); ++i) {
    HeadsSnapshot s;
    s.step = static_cast<int>(steps[i]);
    s.eval = {evals[4 * i], evals[4 * i + 1], evals[4 * i + 2], static_cast<int>(evals[4 * i + 3])};
    s.scores.resize(n_heads);
    run.snapshots.push_back(std::move(s));
  }
  HeadsRun replay;  // filled at the first score the checkpoint lacks
  for (const HeadScoreDef& def : head_score_table()) {
    const size_t at = static_cast<size_t>(std::find(names.begin(), names.end(), def.name) - names.begin());
    if (at == k && replay.snapshots.empty()) replay = replay_for_scores(run, hash, def.name);
    for (size_t i = 0; i < run.snapshots.size(); ++i)
      for (size_t h = 0; h < n_heads; ++h)
        run.snapshots[i].scores[h].*def.field =
            at < k ? scores[(i * n_heads + h) * k + at] : replay.snapshots[i].scores[h].*def.field;
  }
  return run;
}

}  // namespace attn::lessons
