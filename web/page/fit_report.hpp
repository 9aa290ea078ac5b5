// web/page/fit_report.hpp — does the panel on screen fit its width? Measured every frame.
//
// ImGui records, for each window, the right edge of everything laid out in it (the window's
// DC.CursorMaxPos, before clipping). After a panel has drawn, App::frame calls measure(), which
// reads that edge for the panel's window, for the child windows inside it that do not scroll
// sideways (a box that scrolls counts only with its visible box, which its parent records), and
// for each table column (a cell whose content is wider than the column is cut by it). The page
// reports the result through window.attentionLab.fit() (attn_app_fit); the lesson's state() does
// not carry it. The headless test and the browser test check every panel of the registry with it.
//
// It also lists the numbers the frame's word wrap cut at a line's end ("3." | "33e-16"): ImGui's
// wrap is kept out of numbers (cmake/deps.cmake), so only a number wider than its whole line can
// be cut, and the check says which.
//
// Units are the window units ImGui lays out in (CSS pixels in the browser).
#pragma once

#include <string>
#include <vector>

#include "json/json_case.hpp"

namespace app::fit {

/// One box whose content runs past its own right edge (that content is clipped there).
struct Cut {
  std::string where;  ///< "panel", "child <name>", "table <id> column <k>"
  float right;        ///< right edge of the content
  float edge;         ///< right edge of the box (where it is clipped)
};

struct Report {
  std::string panel;          ///< the panel measured
  int frame = -1;             ///< ImGui's frame number of the measurement
  float canvas_width = 0.0f;  ///< width of the canvas (ImGui's display)
  float visible_right = 0.0f; ///< right edge of the panel's visible area (its clip rectangle)
  float widest = 0.0f;        ///< right edge of the widest item, before clipping (scroll boxes: their box)
  /// Bottom of the panel's content from the canvas top, as if nothing scrolled (its window's
  /// top, its laid-out height and the bottom padding): the height that shows it all.
  float content_height = 0.0f;
  std::vector<Cut> cut;       ///< every box whose content overflows it (empty: the panel fits)
  /// The tables in the panel that scroll sideways this frame ("table 0x<ID>"): they fit only by
  /// scrolling, which a desktop canvas should not need.
  std::vector<std::string> sideways_tables;
  /// Numbers a line break of this frame's wrapped text fell inside, as "3.|33e-16" (the run of
  /// number characters around the break, '|' where the line ended). Empty: no number wraps.
  std::vector<std::string> split_numbers;
};

/// Before the frame draws (App::frame): listens to the word wrap (cmake/deps.cmake's hook) and
/// starts this frame's list of cut numbers.
void begin_frame();
/// Whether a line of `text` ending at `line_end` (before `text_end`) cuts a number: the run of
/// number characters (digits . , e E + -) around the break has a digit on both sides. (Tests.)
bool splits_number(const char* text, const char* line_end, const char* text_end);

/// Measure the current window (the panel's) after the panel has drawn into it.
void measure(const char* panel);
/// The last measurement.
const Report& last();
/// {panel, frame, canvas_width, visible_right, widest, content_height, fits, cut:[{where, right, edge}],
///  sideways_tables:["table 0x<ID>"], split_numbers:["3.|33e-16"]}
attn::Json report_json(const Report& r);

/// Test switch: after the panel, draw one button `px` wider than the panel's visible area and a
/// number wrapped in a column narrower than it (0: off). The browser test's negative control:
/// the check must flag both.
void set_probe(float px);
float probe();

}  // namespace app::fit
