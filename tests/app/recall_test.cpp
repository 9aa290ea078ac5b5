// Headless app test: the "check yourself" strips the lesson panels share.
#include "support.hpp"

namespace headless {

void check_recall(Driver& d, app::App& a) {
  Json s;
  ImGuiIO& io = ImGui::GetIO();
  g_step = "recall";
  const Json tasks = api_state()["recall"]["tasks"];
  expect(tasks.size() >= 10, "recall tasks listed");
  for (const Json& t : tasks) {
    const std::string id = t["id"];
    if (t["kind"] == "predict") {
      for (size_t c = 0; c < t["choices"].size(); ++c) expect_accepted({{"recall", {{"task", id}, {"choice", c}}}});
    } else {
      expect_accepted({{"recall", {{"task", id}}}});
    }
    expect(!api_state()["recall"]["result"]["answers"][id]["verdict"].is_null(), "a verdict for " + id);
  }
  expect_rejected({{"recall", {{"task", "no.such.task"}}}}, "recall", "invalid_field");
  expect_rejected({{"recall", {{"task", "scaling.variance"}, {"choice", 7}}}}, "recall", "invalid_field");
  attn_app_show_panel("attribution");
  d.click("Check what the panel shows", 0);
  attn_app_show_panel("scaling");
  expect(Json::parse(attn_app_take_events()).is_array(), "the loop above answered: its events are a list");
  expect(attn_app_pending_events() == 0, "taking the events empties the queue");
  const ImVec2 display = io.DisplaySize;
  io.DisplaySize.y = 2600;  // the recall strip ends the panel: all of it on screen
  d.frames(3);
  d.click("64");
  expect(api_state()["recall"]["result"]["answers"]["scaling.variance"]["verdict"]["pass"] == true, "64 is right");
  {
    // The click is one "answered" host event, shaped for an xAPI statement.
    const Json events = Json::parse(attn_app_take_events());
    expect(events.size() == 1, "one answered event per answer");
    const Json& ev = events.at(0);
    expect(ev["type"] == "answered" && ev["panel"] == "scaling" && ev["question"] == "scaling.variance" &&
               ev["choice"] == 2 && ev["answer"] == "64" && ev["correct"] == true,
           "answered: " + ev.dump());
    expect(attn_app_content_height() > 0.0, "the panel's content height is measured");
  }
  io.DisplaySize = display;
  d.frames(2);
  expect_state_finite();
}

}  // namespace headless
