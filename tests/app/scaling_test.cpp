// Headless app test: the Scaling panel: the study runs when shown, its inputs and refusals.
#include "support.hpp"

namespace headless {

void check_scaling(Driver& d, app::App& a) {
  Json s;
  open_panel_step("scaling");
  expect(api_state()["scaling"]["result"]["curve"]["dot"].size() == 10, "the study runs when the panel is shown");
  {  // both histograms on one axis: ±4 sqrt(64) = ±32, one count scale for both
    const Json r = api_state()["scaling"]["result"];
    expect(r["histograms"]["lo"] == -32.0 && r["histograms"]["hi"] == 32.0, "the shared x range at d_k 64");
    int peak = 0;
    for (const char* h : {"histogram", "scaled_histogram"})
      for (const Json& c : r["selected"]["dot"][0][h]) peak = std::max(peak, c.get<int>());
    expect(r["histograms"]["y_max"] == peak, "the shared y range is the taller peak");
  }
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
