// Headless app test: the Soft to hard panel: presets, argmax, refusals.
#include "support.hpp"

namespace headless {

void check_temperature(Driver& d, app::App& a) {
  open_panel_step("temperature");
  d.click("\xCF\x84 = 0.1");
  expect(api_state()["temperature"]["inputs"]["temperature"] == 0.1, "tau preset button");
  expect_accepted({{"temperature", {{"hard", true}}}});
  expect(api_state()["temperature"]["result"]["hard"] == true, "argmax mode");
  d.sweep(89);
  expect_rejected({{"temperature", {{"hard", false}, {"temperature", 0}}}}, "temperature", "invalid_field");
  expect_rejected({{"temperature", {{"hard", false}, {"temperature", -1}}}}, "temperature", "invalid_field");
  expect(!app::set_temperature(a.state().temperature, NAN, false), "NaN temperature refused");
  expect_accepted({{"temperature", {{"hard", false}, {"temperature", 1}}}});
  expect_checks_pass("temperature");
}

}  // namespace headless
