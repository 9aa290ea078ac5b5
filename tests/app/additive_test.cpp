// Headless app test: the Additive panel: the trained view of the Translate panel's model (its
// default) and the seeded demo one radio click away.
#include "support.hpp"

namespace headless {

void check_additive(Driver& d, app::App& a) {
  open_panel_step("additive");
  d.frames(2);

  // The trained view, shown first: the Translate panel's attention model (its shipped checkpoint,
  // fetched as when the Translate panel opens; natively read at once).
  {
    Json tv = api_state()["additive"];
    expect(tv["view"] == "trained" && tv["inputs"]["view"] == "trained", "the Additive panel opens on the trained translator");
    expect(tv["trained"]["result"].is_object(), "the trained view reads the translator: " + attn::dump(tv["trained"]["status"]));
    expect(tv["trained"]["source"] == "checkpoint" && tv["trained"]["pending"] == false, "from the shipped checkpoint");
    expect(api_state()["translate"]["checkpoint"]["status"] == "installed", "the Translate panel's checkpoint installed");
    const Json& w = tv["trained"]["result"]["attention"]["weights"];
    double sum = 0.0;
    for (const Json& x : w) sum += x.get<double>();
    expect(w.size() == 3 && std::fabs(sum - 1.0) <= 1e-12, "the trained weights sum to 1");
    for (const Json& c : tv["trained"]["checks_shown"])
      expect(c.value("pass", false), "additive trained: " + c.value("claim", "?"));
    const Json row = api_state()["translate"]["alignment"]["weights"][0];  // "the black cat", step 0
    for (size_t j = 0; j < 3; ++j)
      expect(std::fabs(row[j].get<double>() - w[j].get<double>()) <= 1e-12, "equal to the Translate panel's row");
    d.click("next step >##trained");
    tv = api_state()["additive"]["trained"];
    expect(tv["step"] == 1 && tv["result"]["target_word"] == "chat" && tv["result"]["previous_word"] == "le",
           "stepping the trained walk: " + attn::dump(tv["result"]["target_word"]));
    expect_accepted({{"additive", {{"sentence", "a big white mouse"}, {"trained_step", 3}}}});
    tv = api_state()["additive"]["trained"];
    expect(tv["result"]["target_word"] == "blanche" && tv["steps"] == 5, "a typed sentence, its step 3");
    const Json before = tv["result"];
    const Json reply = api_set({{"additive", {{"sentence", "the black zebra"}}}});
    expect(reply.value("ok", true) == false && reply["error"].value("code", "") == "invalid_field",
           "an unknown word is refused: " + attn::dump(reply));
    expect(api_state()["additive"]["trained"]["result"] == before && !api_state()["additive"]["error"].is_null(),
           "the last good trained read is kept, with the message");
    expect_accepted({{"additive", {{"feed", "greedy"}, {"trained_step", 99}}}});
    tv = api_state()["additive"]["trained"];
    expect(tv["step"].get<int>() == tv["steps"].get<int>() - 1, "the trained step clamps into the greedy walk");
    expect_rejected({{"additive", {{"view", "half"}}}}, "additive", "invalid_field");
    // On a phone the trained view fits (its step's table scrolls sideways when it must). The panel
    // fit check (layout_test.cpp) runs after the Translate tests, when this view has no table.
    ImGuiIO& io = ImGui::GetIO();
    const ImVec2 saved = io.DisplaySize;
    for (const float w : {320.0f, 390.0f}) {
      io.DisplaySize = ImVec2(w, 800);
      d.frames(4);
      const Json fit = Json::parse(attn_app_fit());
      expect(fit["panel"] == "additive" && fit["fits"] == true && fit["split_numbers"].empty(),
             "the trained view fits " + std::to_string(static_cast<int>(w)) + " units: " + attn::dump(fit));
    }
    io.DisplaySize = saved;
    d.sweep(97);
    expect_accepted({{"additive", {{"sentence", "the black cat"}, {"feed", "teacher_forced"}, {"trained_step", 0}}}});
  }

  // The untrained view (random encoder states), one radio click away.
  d.click("untrained (random encoder states)");
  expect(api_state()["additive"]["view"] == "untrained", "the radio button shows the seeded demo");
  d.click("next step >");
  d.click("next step >");
  expect(api_state()["additive"]["step"] == 2, "stepping to the last target word");
  expect_accepted({{"additive", {{"step", 99}}}});
  expect(api_state()["additive"]["step"] == 2, "step clamps into range");
  expect_rejected({{"additive", {{"source", " "}}}}, "additive", "empty_sequence");
  expect_rejected({{"additive", {{"d_h", 0}}}}, "additive", "invalid_field");
  expect_accepted({{"additive", {{"d_s", 3}}}});  // no comparison of scores, the panel says why
  d.sweep(97);
  expect_accepted({{"additive", {{"d_s", 4}, {"source", "the black cat"}, {"step", 0}}}});
  expect_checks_pass("additive");

  // And back: the trained radio button returns to the translator's read.
  d.click("trained translator (Translate panel's attention model)###trained_view");
  expect(api_state()["additive"]["view"] == "trained" && api_state()["additive"]["trained"]["result"].is_object(),
         "the trained radio button returns to the translator");
  expect_accepted({{"additive", {{"view", "untrained"}}}});  // as set() and a link can
  expect(api_state()["additive"]["view"] == "untrained", "set({additive: {view: 'untrained'}})");
  expect_accepted({{"additive", {{"view", "trained"}}}});
}

}  // namespace headless
