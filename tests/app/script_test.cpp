// Headless app test: the Script panel.
#include "support.hpp"

namespace headless {

void check_script(Driver& d, app::App& a) {
  Json s;
  open_panel_step("script");
  d.click("Run the fixture again");
  expect(api_state()["script"]["inputs"]["runs"] == 2, "the fixture ran again");
  expect_checks_pass("script");
  d.click("Show it in the Random-init heads panel");
  s = api_state();
  expect(s["panel"] == "heads" && s["heads"]["inputs"]["init"] == "torch_replica", "replica opens in the heads panel");
  expect(s["heads"]["result"]["heads"].size() == 1, "one head, as the script");
  expect_rejected({{"heads", {{"init", "tensorflow"}}}}, "heads", "invalid_field");
  expect_rejected({{"heads", {{"heads", 8}, {"d_k", 512}}}}, "heads", "invalid_field");
  expect_accepted({{"heads", {{"init", "core"}, {"heads", 2}, {"d_k", 4}, {"positions", "rope"}}}});
  expect_accepted({{"heads", {{"positions", "none"}}}});
}

}  // namespace headless
