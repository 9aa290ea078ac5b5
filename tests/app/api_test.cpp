// Headless app test: the page API's edge cases.
#include "support.hpp"

namespace headless {

// API edge cases
void check_api(Driver& d, app::App& a) {
  g_step = "api";
  expect(Json::parse(attn_app_set("{not json"))["ok"] == false, "malformed JSON refused");
  expect(Json::parse(attn_app_show_panel("nope"))["ok"] == false, "unknown panel refused");
  expect(Json::parse(attn_app_show_panel("heads"))["ok"] == true, "showPanel heads");
}

}  // namespace headless
