// Headless app test: the Alignment panel: the lesson's defaults, hover, rows, weights, NaN typed into a slider.
#include "support.hpp"

namespace headless {

// defaults match the lesson
void check_defaults(Driver& d, app::App& a) {
  g_step = "defaults";
  d.frames(3);
  Json s = api_state();
  expect(s["panel"] == "alignment", "starts on the alignment panel");
  const Json ctx = s["alignment"]["result"]["contexts"][1];
  expect(std::fabs(ctx[0].get<double>() - 1.7) < 1e-12 && std::fabs(ctx[1].get<double>() - 0.1) < 1e-12,
         "chat context is (1.7, 0.1)");
  expect(s["heads"]["result"]["tokens"].size() == 6, "default sentence has 6 tokens");
  expect(s["permutation"]["result"]["max_diff"].get<double>() < 1e-12, "default permutation is equivariant");
  expect_state_finite();
  g_step = "damage tracking";
  check_damage(d, a);
  g_step = "defaults";
}

// alignment: hover, select rows by clicking, edit weights, NaN typed into a slider
void check_alignment(Driver& d, app::App& a) {
  Json s;
  g_step = "alignment";
  d.sweep(41);
  d.click("noir");  // radio button
  expect(api_state()["alignment"]["selected_row"] == 2, "radio 'noir' selects row 2");
  d.click("##w", 0);  // a weight slider: click sets it somewhere; the row must stay a distribution
  s = api_state();
  double sum = 0;
  for (const Json& w : s["alignment"]["result"]["weights"][0]) sum += w.get<double>();
  expect(std::fabs(sum - 1.0) < 1e-9, "row 0 still sums to 1 after a slider click");
  const Json good_align = s["alignment"]["result"];
  // Ctrl+click turns the slider into a text field with everything selected. ImGui's
  // scientific-number filter drops the letters of "nan"; "1e999" gets through as infinity.
  d.click("##w", 4, /*ctrl=*/true);
  d.type("nan");
  expect(api_state()["alignment"]["result"] == good_align, "typing nan changes nothing");
  d.type("1e99");  // finite: clamped to 1 by the core, the row rescales
  const Json before_inf = api_state()["alignment"]["result"];
  expect(before_inf["weights"][1][1] == 1.0, "a weight typed past 1 is clamped to 1");
  d.type("9");     // 1e999 reads as infinity
  d.press(kEnter);
  s = api_state();
  expect(!s["alignment"]["error"].is_null() && s["alignment"]["error"]["code"] == "non_finite",
         "an infinite weight typed into a slider is reported as non_finite");
  expect(s["alignment"]["result"] == before_inf, "a non-finite weight keeps the last good result");
  expect(!app::set_alignment_weight(a.state().alignment, 1, 1, NAN), "NaN weight rejected (the slider's setter)");
  expect(api_state()["alignment"]["error"]["code"] == "non_finite", "NaN weight reported as non_finite");
  app::AppState& st = a.state();
  expect(!app::set_alignment_value(st.alignment, 0, 0, NAN), "NaN value rejected");
  expect(!app::set_alignment_value(st.alignment, 9, 0, 1.0), "value index out of range rejected");
  expect(!app::set_alignment_weight(st.alignment, -1, 0, 0.5), "weight index out of range rejected");
  expect_rejected({{"alignment", {{"weights", {{0.5, 0.5}, {1, 0}}}}}}, "alignment", "shape_mismatch");
  expect_rejected({{"alignment", {{"weights", {{0.9, 0.9, 0.1}, {0.1, 0.1, 0.8}, {0.1, 0.8, 0.1}}}}}}, "alignment",
                  "invalid_field");
  expect_accepted({{"alignment", {{"selected_row", 99}}}});
  expect(api_state()["alignment"]["selected_row"] == 2, "selected_row clamps into range");
  d.frames(5);
  d.click("Reset to the lesson's numbers");
  expect(api_state()["alignment"]["error"].is_null(), "reset clears the error");
  expect_state_finite();
}

}  // namespace headless
