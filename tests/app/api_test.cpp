// Headless app test: the page API's edge cases.
#include "support.hpp"

namespace headless {

// API edge cases
void check_api(Driver& d, app::App& a) {
  g_step = "api";
  expect(Json::parse(attn_app_set("{not json"))["ok"] == false, "malformed JSON refused");
  expect(Json::parse(attn_app_show_panel("nope"))["ok"] == false, "unknown panel refused");
  expect(Json::parse(attn_app_show_panel("heads"))["ok"] == true, "showPanel heads");
  const Json c = Json::parse(attn_app_compute(R"({"op":"attention","query":[[1,0]],"key":[[1,0],[0,1]],"value":[[1],[2]]})"));
  expect(c.contains("weights") && c["weights"][0].size() == 2, "compute runs the JSON case contract");
  const Json bad = Json::parse(attn_app_compute(R"({"op":"attention","query":[]})"));
  expect(bad.contains("error"), "compute reports a bad case as an error object");
}

}  // namespace headless
