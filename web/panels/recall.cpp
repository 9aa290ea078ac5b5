// The "check yourself" strip: the lesson's recall questions as actions, checked by the core
// (attn::check_recall). Predict tasks: pick an answer, the core computes the truth on a fixed
// seeded example. Construct tasks: build something in the panel above, the core runs the real
// experiment on it.
#include "panels/recall.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state

#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/trained_run.hpp"  // the Translate panel's translator (TranslatorView)
#include "panels/patch.hpp"
#include "panels/lesson_ui.hpp"
#include "learn/json_obj.hpp"

namespace app {

namespace {
const attn::RecallTask* find_task(const AppState& s, const std::string& id) {
  for (const attn::RecallTask& t : s.recall.tasks)
    if (t.id == id) return &t;
  return nullptr;
}
}  // namespace

bool answer_recall(AppState& s, const std::string& task_id, int choice) {
  RecallState& r = s.recall;
  const attn::RecallTask* t = find_task(s, task_id);
  if (!t) {
    r.error = ErrorInfo{"invalid_field", "unknown recall task \"" + task_id + "\""};
    return false;
  }
  if (t->kind != attn::RecallKind::predict || choice < 0 || choice >= static_cast<int>(t->choices.size())) {
    r.error = ErrorInfo{"invalid_field", "task \"" + task_id + "\" takes a choice 0.." +
                                             std::to_string(static_cast<int>(t->choices.size()) - 1)};
    return false;
  }
  r.entries[task_id].choice = choice;
  return check_recall_task(s, task_id);
}

bool check_recall_task(AppState& s, const std::string& task_id) {
  RecallState& r = s.recall;
  return guarded(r.error, [&] {
    const attn::RecallTask* t = find_task(s, task_id);
    if (!t) throw attn::Error(attn::ErrorCode::invalid_field, "unknown recall task \"" + task_id + "\"");
    RecallEntry& e = r.entries[task_id];
    attn::RecallAttempt attempt;
    if (e.choice >= 0) attempt.choice = e.choice;
    // Construct tasks read what the panel shows: the attribution row, the masks panel's grid.
    for (const std::string& field : t->reads) {
      if (field == "weights") attempt.weights = s.attribution.weights;
      if (field == "values") attempt.values = s.attribution.values;
      if (field == "query") attempt.query = lesson_model().attention.query;
      if (field == "key") attempt.key = lesson_model().attention.key;
      if (field == "value") attempt.value = lesson_model().attention.value;
      if (field == "mask") attempt.mask.allowed = s.masks.empty_allowed;
      if (field == "heads_model") {  // the Learned heads panel's model as it stands
        attempt.heads_model = s.learned_heads.trainer.get();
        attempt.heads_heldout = &s.learned_heads.heldout;
      }
      if (field == "translate_model") {  // the Translate panel's pair as it stands
        attempt.translate_model = open_translator(s).trainer.get();
      }
    }
    attn::RecallVerdict v = attn::check_recall(task_id, attempt);
    // For a host page (an xAPI "answered" statement): which question, the choice, whether right.
    host_event(s, ::attn::obj({{"type", "answered"},
                               {"panel", t->panel},
                               {"question", task_id},
                               {"prompt", t->prompt},
                               {"choice", e.choice >= 0 ? Json(e.choice) : Json(nullptr)},
                               {"answer", e.choice >= 0 ? Json(t->choices[static_cast<size_t>(e.choice)]) : Json(nullptr)},
                               {"correct", v.pass}}));
    e.verdict = std::move(v);
    changed();
  });
}

std::vector<int> recall_tasks_of(const AppState& s, const char* panel) {
  std::vector<int> out;
  const auto& tasks = s.recall.tasks;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].panel == panel) out.push_back(static_cast<int>(i));
  return out;
}

void init_recall(AppState& s) {
  RecallState& r = s.recall;
  r.tasks = attn::recall_tasks();
  for (const attn::RecallTask& task : r.tasks) r.entries[task.id] = RecallEntry{};
}

Json recall_state_json(const AppState& s) {
  Json answers = Json::object();
  for (const auto& [id, e] : s.recall.entries)
    answers[id] = ::attn::obj({{"choice", e.choice >= 0 ? Json(e.choice) : Json(nullptr)},
                       {"verdict", e.verdict ? attn::to_json(*e.verdict) : Json(nullptr)}});
  return ::attn::obj({{"tasks", attn::to_json(s.recall.tasks)}, {"result", ::attn::obj({{"answers", answers}})}, {"error", error_value(s.recall.error)}});
}

bool apply_recall_json(AppState& s, const Json& patch) {
  if (!patch.contains("task")) refuse("recall takes {task: id, choice?: n}");
  std::string task;
  int choice = -1;
  bool has_choice = false;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "task")
      task = get_string(v, "task");
    else if (k == "choice")
      choice = get_int(v, "choice", -1000000, 1000000), has_choice = true;
    else
      refuse("unknown recall input '" + k + "' (task, choice)");
  });
  return has_choice ? answer_recall(s, task, choice) : check_recall_task(s, task);
}

// --- drawing -------------------------------------------------------------------------------

void draw_checks(Ui& ui, const std::vector<attn::Check>& checks) {
  style::heading(ui.fonts, "Checks");
  style::check_lines(checks);
}

void draw_checks_and_recall(AppState& s, Ui& ui, const std::vector<attn::Check>& checks, const char* panel) {
  draw_checks(ui, checks);
  draw_recall_strip(s, ui, panel);
}

void draw_recall_strip(AppState& s, Ui& ui, const char* panel) {
  const std::vector<int> ids = recall_tasks_of(s, panel);
  if (ids.empty()) return;
  RecallState& r = s.recall;
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
        if (widgets::wrapped_radio(t.choices[c].c_str(), e.choice == static_cast<int>(c)))
          answer_recall(s, t.id, static_cast<int>(c));
        ImGui::PopID();
      }
    } else {
      if (ImGui::Button("Check what the panel shows")) check_recall_task(s, t.id);
      std::string reads = "reads: ";
      for (size_t k = 0; k < t.reads.size(); ++k) reads += (k ? ", " : "") + t.reads[k];
      if (widgets::same_line_if_fits(widgets::text_width(reads.c_str()))) ImGui::AlignTextToFramePadding();
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
