// Headless app test: the Masks panel: policies, the empty-row grid, good and bad input.
#include "support.hpp"

namespace headless {

void check_masks(Driver& d, app::App& a) {
  Json s;
  open_panel_step("masks");
  // It opens on a working causal mask: the lower triangle allowed, accepted, future keys at weight 0.
  s = api_state()["masks"];
  const Json& grid = s["inputs"]["empty_allowed"];
  expect(grid.size() == 6, "the grid is 6x6");
  bool causal = true;
  for (size_t i = 0; i < grid.size(); ++i)
    for (size_t j = 0; j < grid[i].size(); ++j) causal = causal && grid[i][j] == (j <= i);
  expect(causal, "the default grid is causal: key j allowed for query i when j <= i");
  expect(s["result"]["empty_rows"]["rejected"] == false, "the default mask is accepted");
  const Json& w = s["result"]["empty_rows"]["zero_policy"]["weights"];
  bool upper_zero = true;
  for (size_t i = 0; i < w.size(); ++i)
    for (size_t j = i + 1; j < w[i].size(); ++j) upper_zero = upper_zero && w[i][j] == 0.0;
  expect(upper_zero, "causal weights: the upper triangle is exactly 0");
  expect(w[0][0] == 1.0, "causal weights: query 0 sees only itself");
  d.click("policy: zero");
  expect(api_state()["masks"]["inputs"]["zero_policy"] == true, "zero policy radio");
  d.click("Allow everything");
  expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == false, "nothing masked: accepted");
  d.click("Mask every key of \"cat\"");
  expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == true, "an empty row: refused");
  d.click("policy: error (default)");
  expect(api_state()["masks"]["result"]["empty_rows"]["error"]["code"] == "no_allowed_key", "the refusal's code");
  d.click("Causal");
  expect(api_state()["masks"]["inputs"]["empty_allowed"] == grid, "the Causal button restores the opening mask");
  expect(api_state()["masks"]["result"]["empty_rows"]["rejected"] == false, "causal again: accepted");
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
