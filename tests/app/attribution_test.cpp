// Headless app test: the Attribution panel.
#include "support.hpp"

namespace headless {

void check_attribution(Driver& d, app::App& a) {
  Json s;
  open_panel_step("attribution");
  d.click("the counterexample");
  expect(api_state()["attribution"]["result"]["row"]["output"][1].get<double>() > 0.19, "counterexample row");
  d.click("le chat noir: the \"chat\" row");
  d.click("##w", 1);  // a weight slider: the row must stay a distribution
  s = api_state();
  double sum = 0;
  for (const Json& w : s["attribution"]["inputs"]["weights"]) sum += w.get<double>();
  expect(std::fabs(sum - 1.0) < 1e-9, "attribution row still sums to 1 after a slider click");
  d.click("black");
  expect(api_state()["attribution"]["inputs"]["selected_key"] == 1, "key radio selects");
  expect_accepted({{"attribution", {{"weights", {0.5, 0.25, 0.25}}, {"values", {{0, 0}, {4, 0}, {0, 4}}}}}});
  expect_rejected({{"attribution", {{"weights", {0.5, 0.6, 0.1}}}}}, "attribution", "invalid_field");
  expect_rejected({{"attribution", {{"values", {{0, 0}, {1, 1}}}}}}, "attribution", "shape_mismatch");
  expect(!app::set_attribution_weight(a.state().attribution, 0, NAN), "NaN weight refused");
  expect(api_state()["attribution"]["error"]["code"] == "non_finite", "NaN weight reported as non_finite");
  expect(!app::set_attribution_value(a.state().attribution, 0, 1, INFINITY), "infinite value refused");
  expect(!app::set_attribution_value(a.state().attribution, 7, 0, 1.0), "value index out of range refused");
  expect_rejected({{"attribution", {{"preset", "nope"}}}}, "attribution", "invalid_field");
  expect_accepted({{"attribution", {{"preset", "chat"}}}});
  d.sweep(71);
}

}  // namespace headless
