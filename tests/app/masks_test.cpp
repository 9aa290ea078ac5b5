// Headless app test: the Masks panel: policies, the empty-row grid, good and bad input.
#include "support.hpp"

namespace headless {

void check_masks(Driver& d, app::App& a) {
  Json s;
  open_panel_step("masks");
  d.click("policy: zero");
  expect(api_state()["masks"]["inputs"]["zero_policy"] == true, "zero policy radio");
  d.click("Allow everything");
  expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == false, "nothing masked: accepted");
  d.click("Mask every key of \"cat\"");
  expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == true, "an empty row: refused");
  expect_accepted({{"masks", {{"from", 2}, {"amount", -250}, {"valid_length", 3}, {"tq", 2}, {"tk", 6}}}});
  expect(api_state()["masks"]["result"]["prefix"]["causal_prefix_change"] == 0.0, "prefix change exactly 0");
  expect_accepted({{"masks", {{"toggle", {0, 0}}}}});
  expect_rejected({{"masks", {{"from", 0}}}}, "masks", "invalid_field");
  expect_rejected({{"masks", {{"amount", NAN}}}}, "masks", "invalid_field");  // JSON has no NaN: null
  expect(!app::set_masks_prefix(a.state().masks, 3, NAN), "NaN perturbation refused (the slider's setter)");
  expect(api_state()["masks"]["error"]["code"] == "non_finite", "NaN perturbation reported as non_finite");
  expect_rejected({{"masks", {{"valid_length", 0}}}}, "masks", "invalid_field");
  expect_rejected({{"masks", {{"tq", 0}}}}, "masks", "invalid_field");
  expect_rejected({{"masks", {{"empty_allowed", {{true, false}}}}}}, "masks", "shape_mismatch");
  expect_rejected({{"masks", {{"toggle", {9, 0}}}}}, "masks", "invalid_field");
  expect_rejected({{"masks", {{"nonsense", 1}}}}, "masks", "invalid_field");
  d.frames(3);
  expect_checks_pass("masks");
}

}  // namespace headless
