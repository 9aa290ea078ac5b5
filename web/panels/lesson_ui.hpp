// web/panels/lesson_ui.hpp — small layout helpers of the lesson-claim panels.
//
// style::paragraph wraps at the window's edge; inside a column (a group with its own
// PushTextWrapPos) text must wrap at the column's edge instead. These wrap at the current
// wrap position, or at the window's edge when none is set.
#pragma once

#include <lessons/random_heads.hpp>
#include <lessons/alignment.hpp>
#include <lessons/permutation.hpp>
#include <lessons/check.hpp>  // attn::PositionKind

#include <cmath>
#include <cstdint>
#include <utility>

#include "imgui.h"
#include "panels/ui.hpp"  // same_line_if_fits, button_width, check_width
#include "imgui_stdlib.h"  // after imgui.h: InputText on a std::string

namespace app::txt {

/// Two side-by-side columns from the current cursor: the left one takes `left_share` of the
/// width less the gap; below 44 font sizes of width both are full width, one under the other.
struct TwoColumns {
  float x0, gap, left_w, right_w;
  bool two;
  /// Ends the left column (begin_column(left_w) started it) and begins the right one: beside it,
  /// or under it when the width holds one column.
  void to_right() const;
};
inline TwoColumns two_columns(float left_share) {
  const float fs = ImGui::GetFontSize(), avail = ImGui::GetContentRegionAvail().x;
  TwoColumns c{ImGui::GetCursorPosX(), fs * 2.0f, avail, avail, avail > fs * 44};
  if (c.two) {
    c.left_w = std::floor((avail - c.gap) * left_share);
    c.right_w = avail - c.gap - c.left_w;
  }
  return c;
}

/// "(v0, v1, ...)", each entry short_number(·, digits).
inline std::string vec_text(const attn::Vector& v, int digits) {
  std::string s = "(";
  for (attn::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + short_number(v(i), digits);
  return s + ")";
}

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

inline void TwoColumns::to_right() const {
  end_column(left_w);
  if (two) ImGui::SameLine(x0 + left_w + gap);
  begin_column(right_w);
}

}  // namespace app::txt

namespace app::widgets {

/// A panel's "sentence" field: the row's width less room for the fields beside it (24 font sizes),
/// at least 17.5 font sizes, within the row. True when the text was edited this frame.
inline bool sentence_field(std::string& text) {
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(fit_labeled(std::max(fs * 17.5f, ImGui::GetContentRegionAvail().x - fs * 24.0f), "sentence"));
  return ImGui::InputText("sentence", &text);
}

/// A panel's "seed" field, `width` wide, after the sentence field on its line when it fits; its
/// +/- buttons step by 1. True when the seed was edited this frame (then written to `seed`).
inline bool seed_field(std::uint64_t& seed, float width) {
  const float fs = ImGui::GetFontSize();
  same_line_if_fits(labeled_width(width, "seed"), fs * 1.5f);
  ImGui::SetNextItemWidth(width);
  std::uint64_t edited = seed;
  const std::uint64_t one = 1;
  if (!ImGui::InputScalar("seed", ImGuiDataType_U64, &edited, &one, nullptr, "%llu")) return false;
  seed = edited;
  return true;
}

/// A rounded box sized by its content: begin_box() before the content, end_box() after it.
/// The background goes behind the content (draw-list channel 0) once its height is known.
struct Box {
  ImDrawList* dl;
  ImVec2 p0;
  float width, indent;
};
inline Box begin_box(float width, float indent) {
  Box b{ImGui::GetWindowDrawList(), ImGui::GetCursorScreenPos(), width, indent};
  b.dl->ChannelsSplit(2);
  b.dl->ChannelsSetCurrent(1);
  ImGui::Indent(indent);
  return b;
}
inline void end_box(const Box& b, float pad_bottom, ImU32 fill, ImU32 border) {
  ImGui::Unindent(b.indent);
  const ImVec2 p1(b.p0.x + b.width, ImGui::GetItemRectMax().y + pad_bottom);
  b.dl->ChannelsSetCurrent(0);
  b.dl->AddRectFilled(b.p0, p1, fill, 8.0f);
  b.dl->AddRect(b.p0, p1, border, 8.0f);
  b.dl->ChannelsMerge();
}

/// A caveat in a box of its own (so it is not skimmed past): a warning title in `bold`, then
/// `text` wrapped inside `width`.
inline void caveat_box(ImFont* bold, const char* title, const char* text, float width) {
  const float fs = ImGui::GetFontSize();
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
  const Box box = begin_box(width, fs * 0.7f);
  ImGui::Dummy(ImVec2(0, fs * 0.1f));
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width - fs * 1.4f);
  ImGui::PushFont(bold);
  ImGui::Text("\xE2\x9A\xA0 %s", title);
  ImGui::PopFont();
  ImGui::TextWrapped("%s", text);
  ImGui::PopTextWrapPos();
  ImGui::Dummy(ImVec2(0, fs * 0.1f));
  end_box(box, fs * 0.2f, IM_COL32(255, 246, 229, 255), IM_COL32(226, 180, 110, 255));
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
}

/// Width of position_choice() below.
inline float position_choice_width() {
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  return ImGui::CalcTextSize("positions:").x + 3.0f * gap + check_width("no positions") + check_width("sinusoidal") +
         check_width("RoPE");
}

/// "positions: (o) no positions ( ) sinusoidal ( ) RoPE" on the current line; true when changed.
inline bool position_choice(attn::PositionKind& positions) {
  bool changed = false;
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("positions:");
  for (const auto& [kind, label] : {std::pair{attn::PositionKind::none, "no positions"},
                                    std::pair{attn::PositionKind::sinusoidal, "sinusoidal"},
                                    std::pair{attn::PositionKind::rope, "RoPE"}}) {
    same_line_if_fits(check_width(label));  // a narrow canvas: the rest on the next line
    if (ImGui::RadioButton(label, positions == kind)) {
      positions = kind;
      changed = true;
    }
  }
  return changed;
}

}  // namespace app::widgets
