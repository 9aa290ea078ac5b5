// The "check yourself" strip: the lesson's recall questions as actions, checked by the core
// (attn::check_recall). Predict tasks: pick an answer, the core computes the truth on a fixed
// seeded example. Construct tasks: build something in the panel above, the core runs the real
// experiment on it.
#include <string>

#include "panels.hpp"
#include "lesson_ui.hpp"

namespace app {

void draw_recall_strip(AppState& s, Ui& ui, const char* panel) {
  const std::vector<int> ids = recall_tasks_of(s, panel);
  if (ids.empty()) return;
  RecallState& r = s.lesson.recall;
  const float fs = ImGui::GetFontSize();

  ImGui::Dummy(ImVec2(0, fs * 0.4f));
  ImGui::PushID("recall");
  const float width = ImGui::GetContentRegionAvail().x;
  const widgets::Box box = widgets::begin_box(width, fs * 0.8f);
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
  ImGui::PushFont(ui.fonts.heading);
  ImGui::TextUnformatted("Check yourself");
  ImGui::PopFont();
  ImGui::PushTextWrapPos(box.p0.x - ImGui::GetWindowPos().x + width - fs * 0.8f);
  const char* subtitle = "the lesson's recall questions, answered by running the core";
  widgets::same_line_if_fits(ImGui::CalcTextSize(subtitle).x, fs);
  ImGui::AlignTextToFramePadding();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", subtitle);
  ImGui::PopStyleColor();
  for (int index : ids) {
    const attn::RecallTask& t = r.tasks[static_cast<size_t>(index)];
    RecallEntry& e = r.entries[t.id];
    ImGui::PushID(t.id.c_str());
    ImGui::Dummy(ImVec2(0, fs * 0.15f));
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(t.prompt.c_str());
    ImGui::PopFont();
    if (t.kind == attn::RecallKind::predict) {
      for (size_t c = 0; c < t.choices.size(); ++c) {
        if (c) widgets::same_line_if_fits(widgets::check_width(t.choices[c].c_str()), fs * 1.2f);
        ImGui::PushID(static_cast<int>(c));
        if (ImGui::RadioButton(t.choices[c].c_str(), e.choice == static_cast<int>(c)))
          answer_recall(s, t.id, static_cast<int>(c));
        ImGui::PopID();
      }
    } else {
      if (ImGui::Button("Check what the panel shows")) check_recall_task(s, t.id);
      ImGui::SameLine();
      ImGui::AlignTextToFramePadding();
      std::string reads = "reads: ";
      for (size_t k = 0; k < t.reads.size(); ++k) reads += (k ? ", " : "") + t.reads[k];
      ImGui::TextDisabled("%s", reads.c_str());
    }
    if (e.verdict) {
      const attn::RecallVerdict& v = *e.verdict;
      ImGui::PushStyleColor(ImGuiCol_Text, v.pass ? IM_COL32(26, 127, 55, 255) : IM_COL32(176, 40, 30, 255));
      ImGui::TextUnformatted((std::string(v.pass ? "\xE2\x9C\x93 " : "\xE2\x9C\x97 ") + v.feedback).c_str());
      ImGui::PopStyleColor();
      if (t.kind == attn::RecallKind::construct) style::check_lines(v.checks);
    }
    ImGui::TextDisabled("(lesson: %s)", t.lesson_ref.c_str());
    ImGui::PopID();
  }
  ImGui::PopTextWrapPos();
  if (r.error) style::error_box(r.error);
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
  widgets::end_box(box, fs * 0.3f, IM_COL32(241, 246, 251, 255), IM_COL32(200, 216, 234, 255));
  ImGui::PopID();
}

}  // namespace app
