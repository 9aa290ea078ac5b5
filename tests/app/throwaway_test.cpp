// Headless app test: a throw-away panel (throwaway_panel.cpp) is found everywhere the registry reaches.
#include "support.hpp"

namespace headless {

// a throw-away panel (throwaway_panel.cpp: its own files and one registration) is found
// by the navigation, showPanel, state(), set(), links and the text mirror
void check_throwaway_panel(Driver& d, app::App& a) {
  g_step = "registry";
  {
    const int n = static_cast<int>(app::panels().size());
    expect(app::panel_index(throwaway::kName) == n - 1, "the throw-away panel is registered last");
    attn_app_show_panel("alignment");
    d.click("##nav", n - 1);  // its sidebar entry
    expect(api_state()["panel"] == throwaway::kName, "the navigation opens the throw-away panel");
    d.click("Throw-away button");
    expect(api_state()[throwaway::kName]["result"]["clicks"] == 1, "its draw function runs and takes clicks");
    attn_app_show_panel("heads");
    expect(Json::parse(attn_app_show_panel(throwaway::kName))["ok"] == true, "showPanel finds it");
    expect_accepted({{throwaway::kName, {{"count", 7}}}});
    expect(api_state()[throwaway::kName]["inputs"]["count"] == 7, "state() and set() find it");
    expect_rejected({{throwaway::kName, {{"count", "seven"}}}}, throwaway::kName, "invalid_field");
    const Json link = Json::parse(attn_app_link_inputs());
    expect(link["panel"] == throwaway::kName && link[throwaway::kName]["count"] == 7, "links carry its inputs");
    d.frames(1);
    const Json view = Json::parse(attn_app_view(100));
    expect(view["panel"] == throwaway::kName && view["title"] == throwaway::kHeading, "the text mirror names it");
    attn_app_show_panel("alignment");
    d.frames(1);
  }
}

}  // namespace headless
