// Headless app test: every lesson-claim panel drawn and swept, its checks passing (each panel's
// own checks are in <panel>_test.cpp).
#include "support.hpp"

namespace headless {

void check_lesson_panels_draw(Driver& d, app::App& a) {
  g_step = "lesson panels";
  for (const char* p : {"masks", "attribution", "scaling", "temperature", "dropout", "additive", "script"}) {
    expect(Json::parse(attn_app_show_panel(p))["ok"] == true, std::string("showPanel ") + p);
    d.sweep(59);
    expect_checks_pass(p);
  }
}

}  // namespace headless
