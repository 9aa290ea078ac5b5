// tests/app/throwaway_panel.hpp — a panel that exists only in the headless test: it shows that a
// panel is its own files plus one registration (web/panels/registry.hpp), and that the
// navigation, showPanel, state(), set(), links and the text mirror all find it without any
// other edit.
#pragma once

namespace throwaway {

/// The panel's name in state(), set(), links and showPanel.
inline constexpr const char* kName = "throwaway";
/// Its heading (also the text mirror's title).
inline constexpr const char* kHeading = "Throw-away: a panel registered by the test";

/// The panel's one input and how often its button was clicked.
struct State {
  int count = 0;
  int clicks = 0;
};
State& state();

}  // namespace throwaway
