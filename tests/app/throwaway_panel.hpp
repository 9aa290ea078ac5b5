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

/// How the panel lays out, for the fit check's controls (web/page/fit_report.hpp).
enum class Width {
  fits,            ///< a line of text and a button
  too_wide,        ///< also a row of buttons that never wraps and a long unwrapped line: must be flagged
  scrolls_inside,  ///< also content twice the panel's width inside a box that scrolls sideways: exempt
};

/// The panel's one input, how often its button was clicked, and its layout.
struct State {
  int count = 0;
  int clicks = 0;
  Width width = Width::fits;
};
State& state();

}  // namespace throwaway
