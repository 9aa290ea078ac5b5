// Headless app test: the Permutation panel.
#include "support.hpp"

namespace headless {

// permutation
void check_permutation(Driver& d, app::App& a) {
  Json s;
  g_step = "permutation";
  d.click("##nav", 9);
  expect(api_state()["panel"] == "permutation", "the tenth nav entry opens the permutation panel");
  d.sweep(53);
  d.click("Shuffle");
  d.click("causal mask");
  s = api_state();
  expect(s["permutation"]["result"]["max_diff"].get<double>() > 1e-3, "causal mask breaks equivariance");
  d.click("causal mask");
  d.click("sinusoidal");
  s = api_state();
  expect(s["permutation"]["result"]["max_diff"].get<double>() > 1e-3, "positions break equivariance");
  d.click("RoPE");
  s = api_state();
  expect(s["permutation"]["inputs"]["positions"] == "rope", "RoPE radio in the permutation panel");
  expect(s["permutation"]["result"]["max_diff"].get<double>() > 1e-3, "RoPE breaks equivariance");
  d.click("no positions");
  s = api_state();
  expect(s["permutation"]["symmetry"]["pooled_diff"].get<double>() < 1e-12, "mean pooling is invariant");
  expect_rejected({{"permutation", {{"permutation", {0, 0, 1, 2, 3, 4}}}}}, "permutation", "invalid_field");
  expect_rejected({{"permutation", {{"permutation", {0, 1, 2}}}}}, "permutation", "invalid_field");
  expect_rejected({{"permutation", {{"permutation", "2 0 x"}}}}, "permutation", "invalid_field");
  expect_rejected({{"permutation", {{"query", 6}}}}, "permutation", "invalid_field");
  d.frames(3);
  expect_accepted({{"permutation", {{"permutation", {2, 0, 5, 1, 4, 3}}}}});
  expect(api_state()["permutation"]["result"]["max_diff"].get<double>() < 1e-12, "unmasked, no positions: equal");
  // A sentence of another length draws a fitting permutation.
  expect_accepted({{"permutation", {{"sentence", "a b c d e f g h i j"}}}});
  expect(api_state()["permutation"]["inputs"]["permutation"].size() == 10, "permutation follows the sentence");
  d.click("permutation P");
  d.type(",");  // "... ," still parses; the field stays usable
  d.press(kEnter);
  expect_state_finite();
}

}  // namespace headless
