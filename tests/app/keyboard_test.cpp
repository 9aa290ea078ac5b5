// Headless app test: the keyboard alone (widgets/keyboard_nav.hpp). Tab and Shift+Tab visit every
// control in reading order, one per press, and are refused past the ends (the page then lets the
// focus leave the canvas); the arrow keys go through the same order, from the navigation into the
// panel; a cursor left on a child window's frame (Esc) goes back into it; Space and Enter
// activate; a slider changes by the arrow keys; the ring shows only while the keyboard is in use.
#include "support.hpp"

namespace headless {

namespace {

int foreground_vertices() {
  const ImDrawData* dd = ImGui::GetDrawData();
  int n = 0;
  for (int l = 0; dd && l < dd->CmdListsCount; ++l)
    if (dd->CmdLists[l] == ImGui::GetForegroundDrawList()) n = dd->CmdLists[l]->VtxBuffer.Size;
  return n;
}

// The place in reading order of the first control labelled `label` (-1: none).
int place_of(const std::string& label) {
  const std::vector<std::string> order = app::kbd::order();
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] == label) return static_cast<int>(i);
  return -1;
}

}  // namespace

void check_keyboard(Driver& d, app::App& a) {
  g_step = "keyboard";
  ImGuiIO& io = ImGui::GetIO();
  const ImGuiConfigFlags saved_flags = io.ConfigFlags;
  const ImVec2 saved_size = io.DisplaySize;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;  // as Platform::init sets it
  io.DisplaySize = ImVec2(1280, 800);
  io.MousePos = ImVec2(-1000, -1000);
  a.set_embed(false);
  expect_accepted({{"temperature", {{"temperature", 0.1}, {"hard", false}}}});
  attn_app_show_panel("temperature");
  d.frames(3);
  const char* const slider = "temperature \xCF\x84";
  expect(!app::kbd::cursor().shown, "no ring before the keyboard is used");
  {
    // Every stop of the cursor has a name to announce (a label reaches ImGui's hook only while its
    // item is on screen: a tall canvas shows them all). Plots are no stops.
    io.DisplaySize = ImVec2(1280, 4000);
    d.frames(3);
    const std::vector<std::string> all = app::kbd::order();
    std::string unnamed;
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].empty()) unnamed += " #" + std::to_string(i) + " after '" + (i ? all[i - 1] : "") + "'";
    expect(all.size() > 20 && unnamed.empty(), "every stop of the cursor has a name:" + unnamed);
    io.DisplaySize = ImVec2(1280, 800);
    d.frames(3);
  }
  const int hidden_vertices = foreground_vertices();

  // Focus from outside by Tab: the ring on the first control.
  app::kbd::focus_entered(1);
  d.frames(2);
  const std::vector<std::string> order = app::kbd::order();
  const int n = static_cast<int>(order.size());
  expect(n > 20, "the page's controls are listed: " + std::to_string(n));
  expect(app::kbd::cursor().shown && app::kbd::cursor().index == 0, "focus by Tab shows the cursor on the first control");
  expect(foreground_vertices() > hidden_vertices, "the ring is drawn");
  expect(ImGui::GetStyleColorVec4(ImGuiCol_NavHighlight).w == 1.0f, "the ring's colour is opaque");
  const int at_slider = place_of(slider), at_copy = place_of("\xE2\x8B\xAF");
  expect(at_copy > 0 && at_slider > at_copy, "reading order: the navigation, the page tools, then the panel's slider");

  // Tab: one control on per press, every one in order; past the last the Tab is refused.
  bool in_order = true;
  for (int i = 1; i < n; ++i) {
    expect(app::kbd::tab(1), "Tab to control " + std::to_string(i));
    d.frames(1);
    in_order = in_order && app::kbd::cursor().index == i && app::kbd::cursor().shown;
  }
  expect(in_order, "Tab visits every control in reading order");
  expect(!app::kbd::tab(1), "past the last control Tab is refused (it leaves the canvas)");
  for (int i = n - 2; i >= 0; --i) {
    expect(app::kbd::tab(-1), "Shift+Tab to control " + std::to_string(i));
    d.frames(1);
    in_order = in_order && app::kbd::cursor().index == i;
  }
  expect(in_order, "Shift+Tab visits them backwards");
  expect(!app::kbd::tab(-1), "before the first control Shift+Tab is refused");

  // The arrows go through the same order, across windows (the navigation, then the panel): Down
  // and Right one on, Up and Left one back, and they stop at the ends.
  int presses = 0;
  in_order = true;
  while (app::kbd::cursor().label != slider && presses < 80) {
    d.press(presses % 2 ? kRight : kDown);
    ++presses;
    in_order = in_order && app::kbd::cursor().index == presses;
  }
  expect(in_order && app::kbd::cursor().label == slider && app::kbd::cursor().shown && presses == at_slider,
         "Down and Right reach the slider one control at a time (" + std::to_string(presses) + " presses)");
  d.press(kUp);
  d.press(kLeft);
  expect(app::kbd::cursor().index == at_slider - 2, "Up and Left go back one control each");
  d.press(kDown);
  d.press(kDown);
  expect(app::kbd::cursor().label == slider, "and Down comes back");
  // Esc on a control leaves its child window for the window's frame: the cursor goes back in.
  d.press(kEscape);
  d.frames(1);
  expect(app::kbd::cursor().label == slider && app::kbd::cursor().shown, "Esc leaves the cursor where it was (the child window's frame sends it back)");

  // Space takes the slider, the arrows change it, Space lets go.
  const double before = api_state()["temperature"]["inputs"]["temperature"].get<double>();
  d.press(kSpace);
  for (int i = 0; i < 3; ++i) d.press(kRight);
  d.press(kSpace);
  const double after = api_state()["temperature"]["inputs"]["temperature"].get<double>();
  expect(after > before, "Right arrow raises the temperature: " + std::to_string(before) + " -> " + std::to_string(after));
  d.press(kDown);  // the slider let go: the arrows move the cursor again
  expect(api_state()["temperature"]["inputs"]["temperature"].get<double>() == after && app::kbd::cursor().label != slider,
         "after Space the arrows move on, the value stays");

  // Enter and Space activate buttons and checkboxes.
  const auto tab_to = [&](const std::string& label) {
    const int at = place_of(label);
    app::kbd::focus_entered(1);
    d.frames(1);
    for (int i = 0; i < at; ++i) app::kbd::tab(1);  // several moves before a frame add up
    d.frames(2);
    return app::kbd::cursor().label == label;
  };
  expect(tab_to("\xCF\x84 = 10"), "Tab reaches the button");
  d.press(kEnter);
  expect(api_state()["temperature"]["inputs"]["temperature"] == 10.0, "Enter presses the focused button");
  expect(tab_to("\xCF\x84 = 1"), "Tab reaches the other button");
  d.press(kSpace);
  expect(api_state()["temperature"]["inputs"]["temperature"] == 1.0, "Space presses the focused button");
  expect(tab_to("argmax (the \xCF\x84 \xE2\x86\x92 0 limit)"), "Tab reaches the checkbox");
  d.press(kEnter);
  expect(api_state()["temperature"]["inputs"]["hard"] == true, "Enter ticks the focused checkbox");
  d.press(kSpace);
  expect(api_state()["temperature"]["inputs"]["hard"] == false, "Space unticks it");

  // The focus goes elsewhere: the ring goes.
  app::kbd::focus_left();
  d.frames(2);
  expect(!app::kbd::cursor().shown && foreground_vertices() == hidden_vertices, "no ring once the canvas lost the focus");

  expect_accepted({{"temperature", {{"temperature", 0.1}, {"hard", false}}}});
  io.ConfigFlags = saved_flags;
  io.DisplaySize = saved_size;
  d.frames(2);
}

}  // namespace headless
