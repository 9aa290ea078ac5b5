#include "throwaway_panel.hpp"

#include <string>

#include "attn/error.hpp"
#include "imgui.h"
#include "panels/registry.hpp"

namespace throwaway {

State& state() {
  static State s;
  return s;
}

namespace {

using attn::Json;

std::optional<app::ErrorInfo> g_error;

Json inputs(const app::AppState&) { return Json{{"count", state().count}}; }

Json state_json(const app::AppState& s) {
  return Json{{"inputs", inputs(s)}, {"result", {{"clicks", state().clicks}}},
              {"error", g_error ? Json{{"code", g_error->code}, {"message", g_error->message}} : Json(nullptr)}};
}

bool apply(app::AppState&, const Json& patch) {
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it.key() != "count" || !it->is_number_integer())
      throw attn::Error(attn::ErrorCode::invalid_field, "throwaway takes {count: integer}");
    state().count = it->get<int>();
  }
  g_error.reset();
  return true;
}

void draw(app::AppState&, app::Ui&) {
  ImGui::Text("count %d, clicks %d", state().count, state().clicks);
  if (ImGui::Button("Throw-away button")) ++state().clicks;
  const float avail = ImGui::GetContentRegionAvail().x;
  if (state().width == Width::too_wide) {
    // What a panel that ignores its width does: SameLine regardless, text that does not wrap.
    for (int i = 0; i < 12; ++i) {
      if (i) ImGui::SameLine();
      ImGui::PushID(i);
      ImGui::Button("a button in a row");
      ImGui::PopID();
    }
    ImGui::TextUnformatted("A long line of text drawn without a wrap position runs past the right edge of a narrow canvas.");
  } else if (state().width == Width::scrolls_inside) {
    ImGui::BeginChild("##sideways", ImVec2(avail, ImGui::GetFrameHeightWithSpacing() * 2.0f), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::Button("wide content", ImVec2(avail * 2.0f, 0));
    ImGui::EndChild();
  }
}

// The one registry line.
const app::PanelRegistration kRegistration{{kName, "Throw-away", "registered by the test", kHeading, state_json,
                                            apply, [](app::AppState&) { return &g_error; }, inputs, draw}};

}  // namespace

}  // namespace throwaway
