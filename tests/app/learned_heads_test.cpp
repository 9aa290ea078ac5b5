// Headless app test: the Learned heads panel: training in per-frame slices, snapshots, interventions, refusals.
#include "support.hpp"

namespace headless {

// A study of `total` units, one per advance(1); the unit `throws_at` (-1: none) throws.
struct FakeStudy {
  int total = 3, done_units = 0, throws_at = -1;
  int advance(int n) {
    int k = 0;
    for (; k < n && done_units < total; ++k) {
      if (done_units == throws_at) throw attn::Error(attn::ErrorCode::invalid_field, "unit " + std::to_string(done_units));
      ++done_units;
    }
    return k;
  }
  bool done() const { return done_units == total; }
};

// run_end_slice, frame by frame past a run's last step: the run stops when the study is measured,
// when nothing was left to slice, or when a unit throws, and its end (ended: the run's event)
// follows in every case; install only when all units are in.
void check_run_end_slice() {
  struct Outcome {
    int frames = 0, begun = 0, installed = 0, ended = 0;
    std::optional<app::ErrorInfo> error;
  };
  auto run = [](int throws_at, bool slices) {
    Outcome o;
    app::TrainedRun r;
    r.running = true;
    std::shared_ptr<FakeStudy> study;
    int study_step = -1;
    for (; r.running && o.frames < 20; ++o.frames)
      app::run_end_slice(
          o.error, r, study, study_step, 7, 1e9,
          [&] {
            ++o.begun;
            if (!slices) return false;  // measured at once
            study = std::make_shared<FakeStudy>();
            study->throws_at = throws_at;
            study_step = 7;
            return true;
          },
          [&] {
            ++o.installed;
            expect(!r.running, "run_end_slice installs the figures of a stopped run");
          },
          [&] { ++o.ended; });
    expect(!r.running, "run_end_slice stops the run");
    return o;
  };
  // One frame begins, the next measures all 3 units (a budget of 1e9 s), the third installs them.
  Outcome ok = run(-1, true);
  expect(ok.frames == 3 && ok.begun == 1 && ok.installed == 1 && ok.ended == 1 && !ok.error,
         "a measured run end: begun once, installed once, then its end");
  Outcome at_once = run(-1, false);
  expect(at_once.frames == 1 && at_once.installed == 0 && at_once.ended == 1, "nothing to slice: the run ends at once");
  Outcome failed = run(1, true);
  expect(failed.installed == 0 && failed.ended == 1 && failed.error && failed.error->message == "unit 1",
         "a unit that throws: no figures, the error kept, and the run still ends (its event)");
}

// Training in the Worker gives the page's bits: a run whose steps the Worker takes (handed over
// as state bytes, taken back after each slice, the snapshot steps among them), paused and
// continued on the way, shows the state of the same run stepped in the page's frames. A Worker
// that fails leaves the run where its last state put it and the page's frames finish it.
void check_train_worker(Driver& d, app::App& a) {
  const Json inputs = {{"steps", 230}, {"seed", 5}};
  attn_app_show_panel("learned_heads");
  app::train_worker::set_available(false);
  expect_accepted({{"learned_heads", inputs}});
  expect_accepted({{"learned_heads", {{"train", true}}}});
  run_to_end(d, false);
  const Json in_page = run_state();
  expect(api_state()["learned_heads"]["steps_in"] == "page", "without the Worker the steps run in the page's frames");
  expect(in_page["step"] == 230 && in_page["snapshot_steps"].size() == 4, "the page's run: 230 steps, snapshots 0, 100, 200, 230");

  app::train_worker::set_available(true);
  expect_accepted({{"learned_heads", {{"train", true}}}});
  d.frames(2);
  expect(api_state()["learned_heads"]["steps_in"] == "worker" && api_state()["learned_heads"]["step"] == 0,
         "with the Worker, the page's frames hand the run over and step nothing");
  expect(!app::panels_busy(a.state()), "waiting on the Worker with no state come: the run asks for no frame");
  app::train_worker::run_posted_natively(1);
  expect(app::panels_busy(a.state()), "a state came from the Worker: the run asks for a frame to show it");
  d.frames(1);
  expect(!app::panels_busy(a.state()), "that frame took the state: waiting again");
  const int at = api_state()["learned_heads"]["step"].get<int>();
  expect(at > 0, "the Worker's slices reach the page");
  expect_accepted({{"learned_heads", {{"pause", true}}}});
  app::train_worker::run_posted_natively();  // a stopped run's slices never come
  d.frames(3);
  expect(api_state()["learned_heads"]["step"] == at && api_state()["learned_heads"]["status"] == "paused",
         "paused: the step stays at the Worker's last state taken");
  expect_accepted({{"learned_heads", {{"continue", true}}}});
  run_to_end(d, true);
  Json in_worker = run_state();
  expect(api_state()["learned_heads"]["steps_in"] == "worker", "the run's steps ran in the Worker");
  // The one thing the pause adds: the snapshot of the step it stopped at (unless a snapshot step).
  Json& steps = in_worker["snapshot_steps"];
  if (at % 100 != 0) {
    expect(steps.size() == 5 && steps[1] == at, "the pause took a snapshot at its step");
    if (steps.size() == 5) steps.erase(1);
  }
  in_worker["shown"] = in_page["shown"];
  expect(in_worker == in_page, "the Worker's run shows the page's run, bit for bit (losses, snapshots, maps, interventions)");

  // A Worker that fails mid-run: the page's frames take over from its last state.
  expect_accepted({{"learned_heads", {{"train", true}}}});
  d.frames(1);
  app::train_worker::run_posted_natively(2);
  d.frames(1);
  const int failed_at = api_state()["learned_heads"]["step"].get<int>();
  expect(api_state()["learned_heads"]["running"] == true && failed_at > 0 && failed_at < 230, "a run part-way in the Worker");
  const int id = a.state().learned_heads.run.worker_run;
  expect(id != 0, "the panel knows its Worker run");
  attn_app_train_failed(id, "the worker crashed (a test)");
  expect(!app::train_worker::available() && app::train_worker::failure() == "the worker crashed (a test)",
         "a failure turns the Worker off, saying why");
  run_to_end(d, false);
  expect(api_state()["learned_heads"]["steps_in"] == "page" && run_state() == in_page,
         "after the Worker failed, the page's frames finish the run from its last state, with the same bits");

  // A hidden tab: every slice of the run comes before the page draws a frame. Of the states only
  // the snapshot steps' and the last are kept as they come; the run shows the same bits.
  app::train_worker::set_available(true);
  expect_accepted({{"learned_heads", {{"train", true}}}});
  d.frames(1);  // the run handed over
  const int hidden = a.state().learned_heads.run.worker_run;
  const int slices = app::train_worker::run_posted_natively();
  // At least one slice per snapshot interval (steps 0–100, 100–200, 200–230): slices stop there.
  expect(slices >= 3, "the Worker ran the whole run in slices (" + std::to_string(slices) + ")");
  std::vector<app::train_worker::Message> queued = app::train_worker::take(hidden);
  std::vector<int> queued_steps;
  for (const auto& m : queued) queued_steps.push_back(m.step);
  expect(queued_steps == std::vector<int>{100, 200, 230} && queued.back().done,
         "the queue keeps the snapshot steps' states and the last, not one per slice");
  for (const auto& m : queued)  // given back as they came
    app::train_worker::state_arrived(hidden, m.step, m.done, reinterpret_cast<const std::uint8_t*>(m.state.data()), m.state.size());
  run_to_end(d, false);
  expect(run_state() == in_page, "the run that trained while no frame was drawn shows the page's run, bit for bit");

  // The rehearsal the panel asked for when it first opened with the Worker on (the frame Train
  // handed the run over): step 0 of the run Train starts, so stepped to 100 it gives the bytes
  // of the Worker's state at step 100.
  const std::string& rehearsed = app::train_worker::rehearsed_state("learned_heads");
  expect(!rehearsed.empty(), "the panel had the Worker rehearse its run");
  if (!rehearsed.empty()) {
    app::TrainRunner runner;
    runner.begin(reinterpret_cast<const std::uint8_t*>(rehearsed.data()), rehearsed.size());
    expect(runner.step() == 0, "the rehearsal starts at step 0");
    const std::string at100 = runner.slice(1e9, 100);
    expect(runner.step() == 100 && !queued.empty() && queued.front().step == 100 && at100 == queued.front().state,
           "the rehearsal is of the run Train starts: its state at step 100 is the Worker's, byte for byte");
  }

  // The Translate pair: its parts (steps and validation passes) in the Worker, no sync step.
  const Json pair = {{"steps", 30}, {"seed", 4}};
  attn_app_show_panel("translate");
  d.frames(2);
  {  // opened with the Worker on: it rehearses the default pair's step 0
    const std::string& rehearsed = app::train_worker::rehearsed_state("translate");
    app::TrainRunner runner;
    if (!rehearsed.empty()) runner.begin(reinterpret_cast<const std::uint8_t*>(rehearsed.data()), rehearsed.size());
    expect(!rehearsed.empty() && runner.step() == 0 && !runner.done(), "Translate had the Worker rehearse its step 0");
  }
  app::train_worker::set_available(false);
  expect_accepted({{"translate", pair}});
  expect_accepted({{"translate", {{"train", true}}}});
  run_to_end(d, false, "translate");
  const Json pair_in_page = run_state("translate");
  app::train_worker::set_available(true);
  expect_accepted({{"translate", {{"train", true}}}});
  run_to_end(d, true, "translate");
  expect(api_state()["translate"]["steps_in"] == "worker" && api_state()["translate"]["step"] == 30,
         "the Translate pair's steps ran in the Worker");
  expect(run_state("translate") == pair_in_page, "the pair trained in the Worker shows the page's run, bit for bit");
  app::train_worker::set_available(false);
}

// the Learned heads panel: training in per-frame slices, snapshots, interventions, refusals
void check_learned_heads(Driver& d, app::App& a) {
  Json s;
  g_step = "learned heads";
  check_run_end_slice();
  {
    Json ck = open_trained_panel(d, "learned_heads");
    expect(ck["step"] == 1800 && ck["status"] == "done", "the checkpoint is the finished run");
    expect(ck["params_fnv1a"] == ck["checkpoint"]["params_fnv1a"], "the installed parameters are the checkpoint's");
    expect(ck["latest"]["accuracy"].get<double>() >= 0.9, "the shipped run predicts the repeat");
    expect(ck["snapshot_steps"].size() == 19 && ck["interventions"]["step"] == 1800,
           "its 19 snapshots and the interventions at step 1800");
    d.sweep(71);  // the trained run: maps of step 1800 beside step 0, interventions
    expect_accepted({{"learned_heads", {{"snapshot", 5}}}});
    d.sweep(71);  // a middle step: scores only (its maps were not shipped)
    expect_accepted({{"learned_heads", {{"reset", true}}}});
    ck = api_state()["learned_heads"];
    expect(ck["step"] == 0 && ck["source"] == "untrained" && ck["checkpoint"]["status"] == "installed",
           "Reset goes back to step 0 and does not fetch again");
    d.sweep(71);  // step 0: maps, no interventions yet
    // Bad inputs are refused and keep the run.
    const int paused_at = expect_train_pause_refuse(
        d, "learned_heads", {{"steps", 130}, {"seed", 5}},
        {Json{{"heads", 3}}, Json{{"steps", 0}}, Json{{"layers", 4}}, Json{{"mlp", 7}}, Json{{"lr", -1}},
         Json{{"positions", "alibi"}}, Json{{"vocab", 1}}, Json{{"run_max", 20}}, Json{{"run_min", 1}},
         Json{{"run_min", 9}, {"run_max", 8}}},
        {{"heads", 4}, {"steps", 130}});
    expect_accepted({{"learned_heads", {{"interventions", true}, {"ablate", {0, 1}}, {"ablate_mode", "mean"}}}});
    Json lh = api_state()["learned_heads"];
    expect(lh["interventions"].is_object() && lh["interventions"]["step"] == paused_at, "interventions on demand");
    expect(lh["combined"].is_object() && lh["combined"]["heads"].size() == 2, "two heads ablated together");
    d.sweep(71);
    d.click("Continue");
    expect(run_end_in_slices(d, "learned_heads", 130, "interventions_progress"),
           "past its last step the run measures its interventions in frame slices before it ends");
    lh = api_state()["learned_heads"];
    expect(lh["step"] == 130 && lh["status"] == "done", "the run finishes: " + attn::dump(lh["step"]));
    expect(lh["snapshot_steps"] == Json({0, paused_at, 100, 130}),
           "snapshots at 0, where paused, 100 and the end: " + attn::dump(lh["snapshot_steps"]));
    expect(lh["interventions"].is_object() && lh["interventions"]["step"] == 130, "interventions once at the end");
    expect(lh["combined"].is_object() && lh["combined"]["heads"].size() == 2,
           "the two ticked heads' combined ablation, measured again at the end: " + attn::dump(lh["combined"]));
    expect(lh["decoding"]["max_logit_diff"].get<double>() < 1e-9, "parallel = cached logits");
    expect(lh["losses"]["train"].size() == 130, "every step's loss");
    expect_accepted({{"learned_heads", {{"snapshot", 2}}}});
    expect(api_state()["learned_heads"]["snapshot"]["step"] == 100, "the scrubber shows step 100");
    d.sweep(71);
    expect_state_finite();
    expect_accepted({{"learned_heads", {{"heads", 8}, {"layers", 3}, {"mlp", 64}, {"positions", "rope"}}}});
    d.sweep(71);
    expect_accepted({{"learned_heads", {{"vocab", 8}, {"prefix_max", 3}, {"run_min", 3}, {"run_max", 5}}}});
    lh = api_state()["learned_heads"];
    expect(lh["inputs"]["vocab"] == 8 && lh["uniform_loss"].get<double>() == std::log(8.0), "the task inputs reach the model");
    d.sweep(71);
    expect_accepted({{"learned_heads", {{"vocab", 16}, {"prefix_max", 7}, {"run_min", 6}, {"run_max", 11}}}});
    expect_accepted({{"learned_heads", {{"heads", 4}, {"layers", 2}, {"mlp", 0}, {"positions", "learned"}, {"steps", 1800}, {"seed", 17}}}});
    // The extrapolation study: slices across frames, pause holds, continue resumes, it finishes.
    expect_accepted({{"learned_heads", {{"extrapolation", "start"}}}});
    d.frames(3);
    expect_accepted({{"learned_heads", {{"extrapolation", "pause"}}}});
    Json ex = api_state()["learned_heads"]["extrapolation"];
    const int ex_at = ex["step"].get<int>();
    expect(ex["status"] == "paused" && ex_at >= 1 && ex["total"] == 3000, "the study ran in slices: " + attn::dump(ex["step"]));
    d.frames(3);
    expect(api_state()["learned_heads"]["extrapolation"]["step"] == ex_at, "paused: the study's step stays");
    expect(api_set({{"learned_heads", {{"extrapolation", "go"}}}}).value("ok", true) == false, "a bad study action is refused");
    expect_accepted({{"learned_heads", {{"extrapolation", "continue"}}}});
    int guard = 0;
    while (api_state()["learned_heads"]["extrapolation"]["status"] != "done" && ++guard < 5000) d.frames(1);
    ex = api_state()["learned_heads"]["extrapolation"];
    expect(ex["signals"].size() == 3 && ex["signals"][0]["test_length"] == 32 && ex["signals"][2]["test_length"] == 48,
           "three signals, learned tested to the context, RoPE beyond it");
    d.sweep(71);
    expect_state_finite();
  }
}

}  // namespace headless
