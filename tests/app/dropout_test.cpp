// Headless app test: the Dropout panel.
#include "support.hpp"

namespace headless {

void check_dropout(Driver& d, app::App& a) {
  open_panel_step("dropout");
  d.click("p = 0");
  expect(api_state()["dropout"]["inputs"]["p"] == 0.0, "p = 0 button");
  expect_checks_pass("dropout");
  d.click("p = 1");
  expect_checks_pass("dropout");
  d.click("New mask");
  expect_rejected({{"dropout", {{"p", 1.5}}}}, "dropout", "invalid_field");
  expect_rejected({{"dropout", {{"seed", -1}}}}, "dropout", "invalid_field");
  expect_accepted({{"dropout", {{"p", 0.25}, {"seed", 17}}}});
  expect_checks_pass("dropout");
}

}  // namespace headless
