// web/panels/lesson_ui.hpp — small layout helpers of the lesson-claim panels.
//
// style::paragraph wraps at the window's edge; inside a column (a group with its own
// PushTextWrapPos) text must wrap at the column's edge instead. These wrap at the current
// wrap position, or at the window's edge when none is set.
#pragma once

#include <attn/experiments.hpp>  // attn::PositionSignal

#include <utility>

#include "imgui.h"

namespace app::txt {

/// Wrapped text at the current wrap position.
inline void para(const char* text) { ImGui::TextWrapped("%s", text); }

/// Wrapped, dimmed text (caveats, provenance).
inline void note(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", text);
  ImGui::PopStyleColor();
}

/// One column of a side-by-side layout: a group whose text wraps at `width`.
inline void begin_column(float width) {
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
}
/// Ends the column; it is at least `width` wide, so the next column starts where it should.
inline void end_column(float width) {
  ImGui::PopTextWrapPos();
  ImGui::Dummy(ImVec2(width, 0.0f));
  ImGui::EndGroup();
}

}  // namespace app::txt

namespace app::widgets {

/// "positions: (o) no positions ( ) sinusoidal ( ) RoPE" on the current line; true when changed.
inline bool position_choice(attn::PositionSignal& positions) {
  bool changed = false;
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("positions:");
  for (const auto& [kind, label] : {std::pair{attn::PositionSignal::none, "no positions"},
                                    std::pair{attn::PositionSignal::sinusoidal, "sinusoidal"},
                                    std::pair{attn::PositionSignal::rope, "RoPE"}}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(label, positions == kind)) {
      positions = kind;
      changed = true;
    }
  }
  return changed;
}

}  // namespace app::widgets
