// web/panels/recall.hpp — the "check yourself" strips: the lesson's recall tasks (attn::recall_tasks),
// the learner's answers and the core's verdicts. Shared by the panels, so not a panel of the
// registry; state()'s "recall" key and set()'s "recall" patch. Drawn by draw_recall_strip (recall.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <map>
#include <vector>

#include "json/lesson_json.hpp"
#include "widgets/error_info.hpp"

namespace app {

struct AppState;
struct Ui;

/// One "check yourself" task as the learner left it.
struct RecallEntry {
  int choice = -1;                             ///< predict tasks: the answer picked (-1: none yet)
  std::optional<attn::RecallVerdict> verdict;  ///< the core's verdict on the last check
};

struct RecallState {
  std::vector<attn::RecallTask> tasks;         ///< attn::recall_tasks(), in page order
  std::map<std::string, RecallEntry> entries;  ///< by task id
  std::optional<ErrorInfo> error;              ///< a refused check (e.g. a missing field)
};

/// The task list, nothing answered.
void init_recall(AppState& s);
// --- Recall ---------------------------------------------------------------------
/// Pick an answer of a predict task and check it at once.
bool answer_recall(AppState& s, const std::string& task_id, int choice);
/// Check a task: predict tasks with their picked answer, construct tasks with what the
/// panel currently shows (attribution: the editable row; masks: the empty-row grid).
bool check_recall_task(AppState& s, const std::string& task_id);
/// Tasks of one panel ("masking", "attribution", "scaling", ...), by index into RecallState::tasks.
std::vector<int> recall_tasks_of(const AppState& s, const char* panel);

/// {tasks, result: {answers: {id: {choice, verdict}}}, error}.
attn::Json recall_state_json(const AppState& s);
/// set({recall: {task, choice?}}); false when the check refused (the error is in
/// RecallState::error). A malformed patch throws PatchError.
bool apply_recall_json(AppState& s, const attn::Json& patch);

/// The "check yourself" strip of one panel (tasks of attn::recall_tasks() whose panel is `panel`).
void draw_recall_strip(AppState& s, Ui& ui, const char* panel);
/// The heading "Checks" and the checks' lines (a panel that takes its own state draws them; its
/// table entry draws the recall strip after it).
void draw_checks(Ui& ui, const std::vector<attn::Check>& checks);
/// A lesson panel's foot: the heading "Checks", the checks' lines, then the panel's recall strip.
void draw_checks_and_recall(AppState& s, Ui& ui, const std::vector<attn::Check>& checks, const char* panel);

}  // namespace app
