// Headless app test: the Scaling panel: the study runs when shown, its inputs and refusals.
#include "support.hpp"

namespace headless {

void check_scaling(Driver& d, app::App& a) {
  Json s;
  open_panel_step("scaling");
  expect(api_state()["scaling"]["result"]["curve"]["dot"].size() == 10, "the study runs when the panel is shown");
  d.click("d_k");  // a click on the slider's middle: applied on release
  expect(api_state()["scaling"]["inputs"]["d_k"] != 64, "the d_k slider applies on release");
  expect_accepted({{"scaling", {{"d_k", 512}}}});
  d.frames(2);
  expect_accepted({{"scaling", {{"d_k", 1}}}});
  expect_rejected({{"scaling", {{"d_k", 600}}}}, "scaling", "invalid_field");
  expect_rejected({{"scaling", {{"samples", 1}}}}, "scaling", "invalid_field");
  expect_rejected({{"scaling", {{"samples", 90000}}}}, "scaling", "too_large");
  expect_rejected({{"scaling", {{"logits", Json::array()}}}}, "scaling", "empty_sequence");
  expect(!app::set_scaling_logits(a.state(), {1.0, NAN}), "NaN logit refused");
  expect(api_state()["scaling"]["error"]["code"] == "non_finite", "NaN logit reported as non_finite");
  expect_accepted({{"scaling", {{"logits", {1000, 1001, 990}}, {"d_k", 64}}}});
  d.sweep(83);
  expect_checks_pass("scaling");
}

}  // namespace headless
