// web/widgets/ui_style.hpp — the page's look: fonts, colours, and small drawing helpers
// shared by the panels (check lines, error box, notes). No attention math here.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "lessons/check.hpp"  // attn::Check, the value check_lines draws
#include "widgets/error_info.hpp"
#include "imgui.h"

namespace app {

struct Fonts {
  ImFont* body = nullptr;
  ImFont* bold = nullptr;
  ImFont* small = nullptr;
  ImFont* heading = nullptr;
  ImFont* title = nullptr;
  float pixel_ratio = 1.0f;  ///< the ratio the atlas was rasterised for
};

namespace style {

/// Build the font atlas for `pixel_ratio` (glyphs rasterised at points × ratio, then drawn
/// at 1/ratio so text is sharp on HiDPI screens). Uses the embedded DejaVu Sans when the
/// build found it, else ImGui's built-in font. Clears any previous atlas.
Fonts load_fonts(float pixel_ratio);
/// Colours and metrics of the light lesson theme (with the touch sizes, see set_touch_sizes).
void apply_theme();
/// Touch devices (a coarse primary pointer): frames, buttons, sliders and checkboxes at least
/// 44 window units tall, so a fingertip hits them. Re-applies the theme when it changes.
void set_touch_sizes(bool on);
/// Whether the touch sizes are on (a touch device: no keyboard hints such as "hold Shift").
bool touch_sizes();

ImU32 accent_u32();
ImVec4 accent();
ImU32 border_color();
ImU32 pass_color();
ImU32 fail_color();

/// `utf8` as the current font can draw it: each character it has no glyph for (CJK, emoji)
/// becomes a visible "U+732B" placeholder instead of a bare box. `replaced` (if given) is set
/// when one was. The text itself (state(), links, the text mirror) keeps the characters.
std::string shown_text(const std::string& utf8, bool* replaced = nullptr);
/// The line that explains the placeholders (drawn under what showed them first in a frame).
void placeholder_note();
/// ImGui's frame count of the last frame that drew a placeholder (tests; 0: none yet).
int last_placeholder_frame();

/// Wrapped paragraph in the body font.
void paragraph(const char* text);
/// Wrapped, dimmed paragraph (caveats, provenance notes).
void note(const char* text);
/// A heading in the heading font with a little space above.
void heading(const Fonts& f, const char* text);
/// A section of detail (an explanation beyond two sentences, a table, a reproduction record),
/// collapsed under one "▸ label" line in the bold face, so the figure stays on the first screen.
/// Calls `draw` for the content only when the section is open, and returns whether it was.
/// `label` is also the section's ID (within the current ID scope, and the content's ID scope);
/// keep it to 25 characters, since it does not wrap (a phone is 320 px). With
/// set_details_open(true) every section is drawn open.
bool details(const char* label, const std::function<void()>& draw);
/// Every detail section open (link details=open: a printed page, a course page that wants it all).
void set_details_open(bool on);
bool details_open();
/// One line per check: a PASS/FAIL badge, the claim and the measured value with its limit.
void check_lines(const std::vector<attn::Check>& checks);
/// One of the lists check_lines draws as one (a reference: nothing is copied).
using CheckList = std::reference_wrapper<const std::vector<attn::Check>>;
/// Several lists' checks drawn as one list, in order (a panel's sections' claims), without
/// copying them into one vector: check_lines({a.checks, b.checks}).
void check_lines(std::initializer_list<CheckList> lists);
/// The panel's error (code + message) in a red box, saying the last good result is shown.
void error_box(const std::optional<ErrorInfo>& error);
/// A small "(?)" marker with a tooltip.
void help_marker(const char* text);

}  // namespace style
}  // namespace app
