// Headless app test: the Translate panel: the shipped pair from its checkpoint, slices, refusals.
#include "support.hpp"

namespace headless {

// the Translate panel: the shipped pair from its checkpoint, slices, refusals
void check_translate(Driver& d, app::App& a) {
  Json s;
  g_step = "translate";
  {
    Json tr = open_trained_panel(d, "translate");
    expect(tr["accuracy"].is_object() && tr["accuracy"]["buckets"].size() == 3, "the accuracy table by bucket");
    expect(tr["accuracy"]["overall"]["additive"]["exact_match"].get<double>() >= 0.9, "the attention model translates");
    expect(tr["alignment"].is_object() && tr["alignment"]["max_row_sum_error"].get<double>() < 1e-9,
           "the alignment's rows sum to 1");
    d.sweep(71);
    expect_accepted({{"translate", {{"sentence", "a small grey horse chases the black cat with a big blue ball"}}}});
    expect(api_state()["translate"]["alignment"]["source_words"].size() == 13, "a typed sentence's alignment");
    expect_accepted({{"translate", {{"beam_width", 1}}}});
    tr = api_state()["translate"]["decoding"];
    expect(tr["beam"]["finished"].size() >= 1 && tr["greedy"].size() >= 1, "beam search and greedy steps");
    expect_accepted({{"translate", {{"beam_width", 5}, {"alpha", 1.0}}}});
    expect(api_state()["translate"]["decoding"]["beam"]["width"] == 5, "the beam's width");
    d.sweep(71);
    expect_train_pause_refuse(
        d, "translate", {{"steps", 40}, {"hidden", 16}},
        {Json{{"hidden", 0}}, Json{{"steps", 0}}, Json{{"steps", 5001}}, Json{{"lr", -1}}, Json{{"sentence", ""}},
         Json{{"sentence", "the purple cat"}}, Json{{"sentence", "cat the"}}, Json{{"beam_width", 0}}, Json{{"alpha", 3}}},
        {{"hidden", 16}, {"steps", 40}});
    d.sweep(71);
    expect_accepted({{"translate", {{"continue", true}}}});
    int guard = 0;
    while (api_state()["translate"]["running"] == true && ++guard < 2000) d.frames(1);
    tr = api_state()["translate"];
    expect(tr["step"] == 40 && tr["status"] == "done" && tr["accuracy"]["step"] == 40, "the run ends and is scored");
    // Trained again from step 0, watched frame by frame: the frame after the last step begins the
    // test-set scores, and the run ends only when they are measured.
    expect_accepted({{"translate", {{"train", true}}}});
    expect(run_end_in_slices(d, "translate", 40, "scores_progress"),
           "past its last step the run scores the test set in frame slices before it ends");
    tr = api_state()["translate"];
    expect(tr["step"] == 40 && tr["status"] == "done" && tr["accuracy"]["step"] == 40, "the run ends and is scored");
    d.sweep(71);
    // One part per tick (a zero budget): after the last step its validation is pending; Pause then
    // measures it, and the run, past its last step, goes on to its end instead of pausing at 40 of 40.
    expect_accepted({{"translate", {{"train", true}}}});
    // Train builds the pair without a forward pass: its step-0 validation is the run's first four parts.
    tr = api_state()["translate"];
    expect(tr["step"] == 0 && tr["losses"]["validation_steps"] == Json::array(),
           "Train leaves the step-0 validation to the run's parts: " + attn::dump(tr["losses"]["validation_steps"]));
    for (int i = 0; i < 4; ++i) app::tick_translate(a.state(), 0.0);
    tr = api_state()["translate"];
    expect(tr["step"] == 0 && tr["losses"]["validation_steps"] == Json::array({0}),
           "four parts measure step 0, before the first step: " + attn::dump(tr["step"]));
    for (int i = 0; i < 200 && api_state()["translate"]["step"] != 40; ++i) app::tick_translate(a.state(), 0.0);
    tr = api_state()["translate"];
    expect(tr["step"] == 40 && tr["running"] == true && tr["losses"]["validation_steps"] == Json::array({0}),
           "one part per tick: the last step ran, its validation pending: " + attn::dump(tr["losses"]["validation_steps"]));
    app::tick_translate(a.state(), 0.0);  // one validation pass of four (120 pairs: two passes of 64 per model)
    expect(api_state()["translate"]["losses"]["validation_steps"] == Json::array({0}), "a validation pass is a part");
    expect_accepted({{"translate", {{"pause", true}}}});
    tr = api_state()["translate"];
    expect(tr["losses"]["validation_steps"] == Json::array({0, 40}) && tr["running"] == true && tr["status"] == "training",
           "Pause with the last validation pending measures it, and the run goes on to its end: " + attn::dump(tr["status"]));
    for (int guard = 0; api_state()["translate"]["running"] == true && guard < 2000; ++guard) d.frames(1);
    expect(api_state()["translate"]["status"] == "done", "and ends");
    d.sweep(71);
    expect_accepted({{"translate", {{"steps", 1000}, {"hidden", 32}, {"sentence", "the black cat"}}}});
  }
}

}  // namespace headless
