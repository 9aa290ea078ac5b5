// Learned heads panel: drawing. Draws the state that learned_heads.cpp computed (the training
// slice runs before the frame is drawn); formats and forwards edits, computes nothing.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "panels/lesson_ui.hpp"
#include "app/app_state.hpp"
#include "panels/learned_heads.hpp"
#include "panels/ui.hpp"
#include "widgets/plots.hpp"

namespace app {

// --- drawing -------------------------------------------------------------------------------

namespace {

namespace lh = attn::lessons;
using attn::learn::DecoderPositions;

std::string head_name(int index, int heads) {
  return "L" + std::to_string(index / heads + 1) + " H" + std::to_string(index % heads + 1);
}

// "0.07", "1.00": two decimals, for the small score lines under each map.
std::string two(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string pct(double v) { return short_number(100.0 * v, 3) + " %"; }

std::string tokens_text(const std::vector<int>& t) {
  std::string s;
  for (size_t i = 0; i < t.size(); ++i) s += (i ? " " : "") + std::to_string(t[i]);
  return s;
}

// A grid of layers × heads maps, each with its label and four scores.
void map_grid(const char* id, const std::vector<attn::Matrix>& maps, const std::vector<lh::HeadScores>& scores,
              const LearnedHeadsState& h, int heads, float width, HeatmapGpu& gpu, ImFont* small) {
  const float fs = ImGui::GetFontSize();
  const float gap = fs * 0.6f;
  const int n = static_cast<int>(maps.size());
  int cols = heads;
  while (cols > 1 && (width - gap * (cols - 1)) / cols < fs * 4.5f) cols = (cols + 1) / 2;
  const float cell_w = std::floor((width - gap * (cols - 1)) / cols);
  ImGui::PushID(id);
  for (int i = 0; i < n; ++i) {
    if (i % cols != 0) ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + cell_w);
    ImGui::TextUnformatted(head_name(i, heads).c_str());
    HeatmapSpec spec;
    spec.values = &maps[static_cast<size_t>(i)];
    spec.allowed = &h.allowed;
    if (cell_w >= fs * 11) {
      spec.row_labels = &h.tokens;
      spec.col_labels = &h.tokens;
    }
    spec.version = h.maps_version;
    spec.vmin = 0.0;
    spec.vmax = 1.0;
    spec.legend = false;
    spec.width = cell_w;
    spec.max_cell = 12.0f;
    ImGui::PushID(i);
    heatmap((std::string(id) + " " + head_name(i, heads)).c_str(), spec, gpu);
    ImGui::PopID();
    if (i < static_cast<int>(scores.size())) {
      const lh::HeadScores& sc = scores[static_cast<size_t>(i)];
      ImGui::PushFont(small);
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      // Two scores on a line when they fit the map's width, else one per line (never cut mid-number).
      const auto pair_line = [cell_w](const std::string& a, const std::string& b) {
        const std::string both = a + "  " + b;
        if (ImGui::CalcTextSize(both.c_str()).x <= cell_w) {
          ImGui::TextUnformatted(both.c_str());
        } else {
          ImGui::TextUnformatted(a.c_str());
          ImGui::TextUnformatted(b.c_str());
        }
      };
      const std::vector<lh::HeadScoreDef>& table = lh::head_score_table();
      for (size_t k = 0; k < table.size(); k += 2) {
        const std::string a = std::string(table[k].label) + " " + two(sc.*table[k].field);
        if (k + 1 < table.size())
          pair_line(a, std::string(table[k + 1].label) + " " + two(sc.*table[k + 1].field));
        else
          ImGui::TextUnformatted(a.c_str());
      }
      ImGui::PopStyleColor();
      ImGui::PopFont();
    }
    ImGui::PopTextWrapPos();
    ImGui::Dummy(ImVec2(cell_w, 0));
    ImGui::EndGroup();
  }
  ImGui::PopID();
}

// Positions do not guarantee extrapolation: one model per position signal trained on shorter
// sequences, accuracy by target position past the training length.
// The loaded model's own accuracy by target position (the study's models are the lab's).
void draw_loaded_extrapolation(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  const lh::InductionTask& task = h.trainer->config().task;
  txt::note(("The loaded model, measured as it stands: held-out sequences with the repeat placed anywhere, accuracy by target position, past the task's " +
             std::to_string(task.context) + " tokens up to 48 (learned positions: up to the model's context).")
                .c_str());
  if (ImGui::Button("Measure the loaded model by position")) defer_edit(s, learned_heads_extrapolation_start);
  if (!h.loaded_extrapolation) return;
  const lh::PositionAccuracy& a = *h.loaded_extrapolation;
  std::vector<double> xs;
  for (int p = 0; p < a.test_length; ++p) xs.push_back(p);
  const char* name = attn::learn::decoder_positions_name(h.trainer->model().positions);
  plot::line_plot("loaded extrapolation", xs, {plot::Series{name, h.loaded_extrapolation_curve, IM_COL32(31, 111, 178, 255), false}},
                  false, 0.0, 1.0, ImGui::GetContentRegionAvail().x, fs * 13, "target position", "accuracy", 9, false);
  const std::string beyond = a.test_length > a.train_length
                                 ? pct(a.accuracy_beyond) + " beyond (tested to " + std::to_string(a.test_length) + ")"
                                 : "nothing beyond (its learned table ends at " + std::to_string(a.test_length) + ")";
  ImGui::TextWrapped("At step %d: %s within the first %d positions, %s.", h.loaded_extrapolation_step,
                     pct(a.accuracy_within).c_str(), a.train_length, beyond.c_str());
}

void draw_extrapolation(AppState& s, Ui& ui) {
  LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  style::heading(ui.fonts, "Do positions extrapolate?");
  if (h.loaded && h.trainer) {
    draw_loaded_extrapolation(s);
    return;
  }
  const lh::ExtrapolationConfig cfg = h.extrapolation ? h.extrapolation->config() : learned_heads_extrapolation_config(h.input);
  txt::note(("Three models with this panel's heads, layers, MLP, seed and learning rate, one per position signal "
             "(learned, sinusoidal, RoPE), each trained " + std::to_string(cfg.steps) + " steps on sequences of " +
             std::to_string(cfg.train_length) + " tokens (runs of " + std::to_string(cfg.task.run_min) + " to " +
             std::to_string(cfg.task.run_max) + "), then tested on " + std::to_string(cfg.sequences) +
             " held-out sequences with the repeat placed anywhere: up to the context (" +
             std::to_string(cfg.task.context) + ") for learned positions, whose table rows from " +
             std::to_string(cfg.train_length) + " on never got a gradient, and up to " +
             std::to_string(cfg.test_length) + " tokens for the others.")
                .c_str());
  const lh::ExtrapolationStudy* st = h.extrapolation.get();
  if (ImGui::Button(st ? "Run the study again" : "Run the extrapolation study")) defer_edit(s, learned_heads_extrapolation_start);
  st = h.extrapolation.get();
  if (st && !st->done()) {
    ImGui::SameLine();
    if (h.extrapolation_running) {
      if (ImGui::Button("Pause##extrapolation")) defer_edit(s, learned_heads_extrapolation_pause);
    } else if (ImGui::Button("Continue##extrapolation")) {
      defer_edit(s, learned_heads_extrapolation_continue);
    }
  }
  if (!st) return;
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "step %d / %d (%zu of %zu models done)", st->steps_done(), st->steps_total(),
                st->results().size(), st->config().signals.size());
  widgets::same_line_if_fits(fs * 14, fs);
  ImGui::ProgressBar(static_cast<float>(st->steps_done()) / std::max(1, st->steps_total()),
                     ImVec2(std::max(fs * 12, ImGui::GetContentRegionAvail().x), 0), overlay);
  if (h.run.running) widgets::dim_wrapped("Waits while the main run trains.");
  if (st->results().empty()) return;
  const int n = cfg.test_length;
  std::vector<double> xs;
  for (int p = 0; p < n; ++p) xs.push_back(p);
  const ImU32 colors[] = {IM_COL32(31, 111, 178, 255), IM_COL32(214, 120, 20, 255), IM_COL32(60, 150, 60, 255),
                          IM_COL32(150, 60, 160, 255)};
  std::vector<plot::Series> series;
  std::string summary;
  for (size_t k = 0; k < st->results().size(); ++k) {
    const lh::ExtrapolationResult& r = st->results()[k];
    const char* name = attn::learn::decoder_positions_name(r.positions);
    if (k < h.extrapolation_accuracy.size()) series.push_back(plot::Series{name, h.extrapolation_accuracy[k], colors[k % 4], false});
    summary += std::string(summary.empty() ? "" : "; ") + name + " " + pct(r.accuracy.accuracy_within) + " within, " +
               pct(r.accuracy.accuracy_beyond) + " beyond (tested to " + std::to_string(r.accuracy.test_length) + ")";
  }
  plot::line_plot("extrapolation", xs, series, false, 0.0, 1.0, ImGui::GetContentRegionAvail().x, fs * 13,
                  "target position", "accuracy", 9, false);
  ImGui::TextWrapped("Accuracy on the predictable positions: %s.", summary.c_str());
  txt::note(("\"Within\" counts targets inside the first " + std::to_string(cfg.train_length) +
             " positions, the length every model was trained on; \"beyond\" the rest. Positions with no "
             "predictable target are gaps. What a signal does here is what this small model learned in " +
             std::to_string(cfg.steps) + " steps on this task, not a law of that signal.")
                .c_str());
}

void draw_body(AppState& s, Ui& ui);
void draw_curves(AppState& s, Ui& ui);
void draw_settings(AppState& s, Ui& ui);

}  // namespace

void draw_learned_heads_panel(AppState& s, Ui& ui) {
  // Every line wraps at the panel's right edge (narrow frames, phones) unless a column sets its own.
  ImGui::PushTextWrapPos(0.0f);
  draw_body(s, ui);
  ImGui::PopTextWrapPos();
}

namespace {

bool draw_architecture(LearnedHeadsInput& e);

// inputs (a change starts over at step 0) (the run's inputs and the panel's own), and the model row.
void draw_inputs(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  const LearnedHeadsInput& cur = h.input;
  LearnedHeadsInput e = cur;
  bool changed = draw_run_inputs(e.seed, e.steps, e.lr);
  const auto next = [&](float w) { widgets::same_line_if_fits(w, fs); };

  if (h.loaded) {
    // The loaded model's architecture is its own; only the run's inputs and the task apply.
    txt::note(("Architecture: the loaded model's (" + h.run.model->config + ").").c_str());
  } else {
    changed = draw_architecture(e) || changed;
  }
  ImGui::AlignTextToFramePadding();
  widgets::dim_wrapped("task:");
  if (!h.loaded) {
    ImGui::SameLine();
    if (widgets::int_field("vocab", &e.vocab, fs * 3.0f)) changed = true;
    next(widgets::labeled_width(fs * 3.0f, "prefix up to"));
  } else {
    ImGui::SameLine();
  }
  if (widgets::int_field("prefix up to", &e.prefix_max, fs * 3.0f)) changed = true;
  next(widgets::labeled_width(fs * 3.0f, "run from"));
  if (widgets::int_field("run from", &e.run_min, fs * 3.0f)) changed = true;
  next(widgets::labeled_width(fs * 3.0f, "to"));
  if (widgets::int_field("to", &e.run_max, fs * 3.0f)) changed = true;
  if (changed) defer_edit(s, [e](AppState& st) { set_learned_heads_input(st, e); });
  draw_model_row(s, h.run, "learned_heads", learned_heads_unload_model, {{"Export model", ""}});
}

// heads, layers, MLP, positions of the lab's own model. True when one was edited.
bool draw_architecture(LearnedHeadsInput& e) {
  const float fs = ImGui::GetFontSize();
  const auto next = [&](float w) { widgets::same_line_if_fits(w, fs); };
  bool changed = false;
  if (widgets::int_choice("heads:", &e.heads, {1, 2, 4, 8})) changed = true;
  next(ImGui::CalcTextSize("layers:").x + 3 * widgets::check_width("3") + fs);
  if (widgets::int_choice("layers:", &e.layers, {1, 2, 3}, 100)) changed = true;
  next(ImGui::CalcTextSize("MLP:").x + widgets::check_width("none") + widgets::check_width("64") + fs);
  ImGui::AlignTextToFramePadding();
  widgets::dim_wrapped("MLP:");
  widgets::same_line_if_fits(widgets::check_width("none"), -1.0f);
  if (ImGui::RadioButton("none", e.mlp == 0)) e.mlp = 0, changed = true;
  widgets::same_line_if_fits(widgets::check_width("64"), -1.0f);
  if (ImGui::RadioButton("64", e.mlp == 64)) e.mlp = 64, changed = true;

  ImGui::AlignTextToFramePadding();
  widgets::dim_wrapped("positions:");
  for (const auto& [kind, label] :
       {std::pair{DecoderPositions::learned, "learned"}, std::pair{DecoderPositions::sinusoidal, "sinusoidal"},
        std::pair{DecoderPositions::rope, "RoPE"}, std::pair{DecoderPositions::none, "no positions"}}) {
    widgets::same_line_if_fits(widgets::check_width(label));
    if (ImGui::RadioButton(label, e.positions == kind)) e.positions = kind, changed = true;
  }
  return changed;
}

// Train / Pause / Continue / Reset, progress.
const RunActions kRunActions = {learned_heads_train, learned_heads_pause, learned_heads_continue, learned_heads_reset};

void draw_controls(AppState& s) {
  LearnedHeadsState& h = s.learned_heads;
  const LearnedHeadsInput& cur = h.input;
  const lh::HeadsTrainer* tr = h.trainer.get();
  RunControlsText text;
  // The task as trained: a loaded model's shorter context shortens its runs.
  const lh::InductionTask task = tr ? tr->config().task : learned_heads_config(cur).task;
  text.details = ": batch 16 sequences of " + std::to_string(task.context) + " tokens (a random prefix of 0 to " +
                 std::to_string(task.prefix_max) + " tokens, a run of " + std::to_string(task.run_min) + " to " +
                 std::to_string(task.run_max) + " tokens twice, then filler; " + std::to_string(task.vocab) +
                 " token values), Adam, clip 1";
  text.what = "the default run";
  text.opened_tail = "Train runs the same seed here and gives the same bits.";
  draw_run_controls(s, h.run, progress_of(tr, cur.steps), text, kRunActions);
}

// Every head's map: the snapshot shown beside step 0 (scores only where the checkpoint has no maps).
void draw_every_map(LearnedHeadsState& h, const lh::HeadsSnapshot* snap, int heads, Ui& ui) {
  style::heading(ui.fonts, "Every head's map");
  const txt::TwoColumns mc = txt::two_columns(0.5f);
  txt::begin_column(mc.left_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::Text("Step %d", snap->step);
  ImGui::PopFont();
  if (!h.maps.empty()) {
    map_grid("trained", h.maps, snap->scores, h, heads, mc.left_w, ui.gpu, ui.fonts.small);
  } else {
    txt::note(("The shipped checkpoint records every snapshot's scores and accuracy, but the maps only of step 0 "
               "and step " + std::to_string(h.snapshots.back().step) +
               " (their weights are known). Train records the maps of every saved step (the same run, bit for "
               "bit). Scores at step " + std::to_string(snap->step) + ":")
                  .c_str());
    for (size_t i = 0; i < snap->scores.size(); ++i) {
      std::string line = head_name(static_cast<int>(i), heads);
      for (const lh::HeadScoreDef& def : lh::head_score_table())
        line += std::string("  ") + def.label + " " + two(snap->scores[i].*def.field);
      ImGui::TextDisabled("%s", line.c_str());
    }
  }
  mc.to_right();
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Step 0 (initial weights)");
  ImGui::PopFont();
  map_grid("initial", h.maps_initial, h.snapshots.front().scores, h, heads, mc.right_w, ui.gpu, ui.fonts.small);
  txt::end_column(mc.right_w);
  std::string legend = "Rows are queries, columns keys; weights from 0 (dark) to 1 (yellow), hatched cells are masked "
                       "(causal). Scores on the " + std::to_string(lh::kHeadsHeldout) + " held-out sequences: ";
  for (const lh::HeadScoreDef& def : lh::head_score_table())
    legend += std::string(&def == &lh::head_score_table().front() ? "" : ", ") + def.label + " = " + def.caption;
  txt::note((legend + ".").c_str());
}

// Parallel vs sequential: the teacher-forced pass, the K/V-cache pass and generation, measured;
// why the shifted targets make the diagonal legal.
void draw_parallel_vs_sequential(const LearnedHeadsInterventions& iv, Ui& ui) {
  style::heading(ui.fonts, "Parallel vs sequential");
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextWrapped("Training is parallel, generation is sequential.");
  ImGui::PopFont();
  const lh::DecodeComparison& d = iv.decoding;
  ImGui::TextWrapped("teacher forced: one forward gave all %d positions; editing a token moved no earlier "
                     "position by more than %s",
                     d.teacher_forced_positions, exact_number(d.future_edit_max_diff).c_str());
  ImGui::TextWrapped("K/V-cache pass, one position after another: the same logits, max |difference| %s",
                     exact_number(d.max_logit_diff).c_str());
  ImGui::TextWrapped("generation: forcing the token fed at a step moved that step's logits in %d of %d steps and "
                     "no earlier step by more than %s; a token forced at step %d moved %d of the %d steps after "
                     "it. %d evaluations, each waiting for the previous one's output.",
                     d.dependent_steps, d.teacher_forced_positions - 1, exact_number(d.forced_earlier_max_diff).c_str(),
                     d.forced_at, d.later_moved, d.later_steps, d.sequential_steps);
  txt::note("Every input of the teacher-forced pass is known, so all positions are computed at once (that is "
            "why training is parallel). Generation from the first token feeds each step the token the step "
            "before chose; replacing that token is how the dependency is measured here.");
  ImGui::TextWrapped("prompt (up to the repeat's first token): %s", tokens_text(d.prompt).c_str());
  ImGui::TextWrapped("greedy continuation: %s", tokens_text(d.generated).c_str());
  ImGui::TextWrapped("the run's continuation:  %s", tokens_text(d.expected).c_str());
  txt::note((std::to_string(d.correct) + " of " + std::to_string(d.expected.size()) +
             " generated tokens equal the run (model at step " + std::to_string(iv.step) + "). Over all " +
             std::to_string(d.batch_sequences) + " held-out sequences: " + std::to_string(d.batch_correct) +
             " of " + std::to_string(d.batch_expected) + " generated tokens right (" +
             pct(d.batch_expected ? static_cast<double>(d.batch_correct) / d.batch_expected : 0.0) + "), " +
             std::to_string(d.batch_complete) + " continuations right to the end. Generation feeds back its "
             "own tokens, so one wrong token can derail the rest.").c_str());

  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextWrapped("Shifting the targets by one makes the diagonal legal.");
  ImGui::PopFont();
  txt::note("Position i is trained to predict token i + 1: the input is the sequence, the target the same "
            "sequence shifted left by one. So query i may attend to key i, its own token (the diagonal of the "
            "causal mask), because its answer sits at key i + 1, which the mask hides. Without the shift the "
            "answer would be on the diagonal and the model could copy it.");
  ImGui::TextWrapped("Measured on the display sequence: for each cut c (%d cuts), every token after c was edited; "
                     "the logits of positions 0..c moved by at most %s (the targets never reach their own "
                     "prediction), while position c + 1, which reads the first edited token, moved by up to %s.",
                     d.future_edits, exact_number(d.future_edit_max_diff).c_str(),
                     short_number(d.target_edit_max_diff, 3).c_str());
}

// The training loss of the predictable and the other positions, against log V.
void draw_loss_curve(const LearnedHeadsState& h, float width) {
  const float fs = ImGui::GetFontSize();
  {
    const double uniform = h.uniform_loss;
    double ymax = uniform * 1.15;
    for (double v : h.curve_other) ymax = std::max(ymax, v * 1.05);
    for (double v : h.curve_train) ymax = std::max(ymax, v * 1.05);
    std::vector<plot::Series> series;
    series.push_back(plot::Series{"predictable", h.curve_train, IM_COL32(31, 111, 178, 255), false});
    series.push_back(plot::Series{"other", h.curve_other, IM_COL32(214, 120, 20, 255), false});
    std::vector<double> xs = h.curve_x;
    if (xs.empty()) xs.push_back(0);
    series.push_back(plot::Series{"log V", std::vector<double>(xs.size(), uniform),
                                  IM_COL32(120, 120, 120, 255), true});
    if (h.curve_x.size() < 2) {
      xs = {0.0, static_cast<double>(h.trainer->config().steps)};
      series.resize(1);
      series[0] = plot::Series{"log V", {uniform, uniform}, IM_COL32(120, 120, 120, 255), true};
    }
    plot::line_plot("loss", xs, series, false, 0.0, ymax, width, fs * 13, "step", "cross-entropy", 6, false);
    txt::note(h.loss_caption.c_str());
  }
}

// The interventions' button, or their progress while they run in slices, and what they measured.
void draw_intervention_controls(AppState& s, Ui& ui) {
  const LearnedHeadsState& h = s.learned_heads;
  style::heading(ui.fonts, "Scores and interventions");
  const lh::HeadsTrainer& t = *h.trainer;
  const bool fresh = h.interventions && h.interventions->step == t.step();
  if (h.intervention_study) {
    // the progress bar below stands in for the button until the study ends
  } else if (!h.run.running) {
    if (ImGui::Button(fresh ? "Run interventions again" : "Run interventions at this step"))
      defer_edit(s, [](AppState& st) { run_learned_heads_interventions(st); });
  } else {
    widgets::dim_wrapped("Interventions run when training is paused or done (and once at the end).");
  }
  if (h.intervention_study) {
    const lh::HeadsInterventionStudy& st = *h.intervention_study;
    draw_study_progress(
        st.units_done(), st.units_total(),
        h.run.running ? "Measuring the trained model at step " + std::to_string(h.intervention_study_step) + " (" +
                            st.phase() + "), a slice per frame like the training, so that drawing goes on."
                      : "Measuring the model at step " + std::to_string(h.intervention_study_step) + " in slices (" +
                            st.phase() +
                            "): it is too big for one frame, so each frame runs one pass over the 32 held-out sequences.");
  }
  if (h.interventions) {
    ImGui::SameLine();
    ImGui::TextDisabled("ablation and patching at step %d, held-out loss %s, accuracy %s", h.interventions->step,
                        short_number(h.interventions->ablation.base.loss, 3).c_str(),
                        pct(h.interventions->ablation.base.accuracy).c_str());
  }
}

// The per-head table: the snapshot's scores, each head's ablation and patching. Returns the
// symmetric display range of its Îloss cells (the legend's).
double draw_scores_table(const LearnedHeadsState& h, const lh::HeadsSnapshot* snap, int heads) {
  const float fs = ImGui::GetFontSize();
    const int n = static_cast<int>(snap->scores.size());
    // Narrow screens: the table scrolls sideways (ScrollX, which needs an explicit height)
    // instead of squeezing its columns.
    const bool narrow = ImGui::GetContentRegionAvail().x < fs * 46;
    const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp |
                               (narrow ? ImGuiTableFlags_ScrollX : 0);
    const float row_h = ImGui::GetTextLineHeight() + 2.0f * ImGui::GetStyle().CellPadding.y;
    const float table_h = row_h * (n + 1) + (narrow ? ImGui::GetStyle().ScrollbarSize + 2.0f : 0.0f);
    double delta_range = 1.0;
    const std::vector<lh::HeadScoreDef>& score_table = lh::head_score_table();
    if (ImGui::BeginTable("##scores", 6 + static_cast<int>(score_table.size()), tf, ImVec2(0, narrow ? table_h : 0.0f))) {
      ImGui::TableSetupColumn("head", ImGuiTableColumnFlags_WidthFixed, fs * 3.5f);
      for (const lh::HeadScoreDef& def : score_table)
        ImGui::TableSetupColumn(def.label, ImGuiTableColumnFlags_WidthFixed, fs * 3.4f);
      for (const char* c : {"\xCE\x94loss zero", "acc zero", "\xCE\x94loss mean", "acc mean", "patch recov."})
        ImGui::TableSetupColumn(c, ImGuiTableColumnFlags_WidthFixed, fs * (std::string(c).size() > 6 ? 5.2f : 3.4f));
      ImGui::TableHeadersRow();
      const LearnedHeadsInterventions* iv = h.interventions ? &*h.interventions : nullptr;
      // Δloss cells on the diverging map, one symmetric range for both columns (a display range).
      std::vector<double> deltas;
      if (iv)
        for (size_t k = 0; k < iv->ablation.zero.size() && k < iv->ablation.mean.size(); ++k)
          deltas.push_back(iv->ablation.zero[k].loss - iv->ablation.base.loss),
              deltas.push_back(iv->ablation.mean[k].loss - iv->ablation.base.loss);
      delta_range = cmap::symmetric_range(deltas);
      const auto delta_cell = [&](double d) { cmap::diverging_cell(d, delta_range, short_number(d, 3).c_str()); };
      for (int i = 0; i < n; ++i) {
        const lh::HeadScores& sc = snap->scores[static_cast<size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(head_name(i, heads).c_str());
        for (const lh::HeadScoreDef& def : score_table) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(short_number(sc.*def.field, 2).c_str());
        }
        if (iv && i < static_cast<int>(iv->ablation.zero.size())) {
          const double base = iv->ablation.base.loss;
          const size_t k = static_cast<size_t>(i);
          ImGui::TableNextColumn();
          delta_cell(iv->ablation.zero[k].loss - base);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(pct(iv->ablation.zero[k].accuracy).c_str());
          ImGui::TableNextColumn();
          delta_cell(iv->ablation.mean[k].loss - base);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(pct(iv->ablation.mean[k].accuracy).c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(
              k < iv->patching.recovered.size() ? short_number(iv->patching.recovered[k], 3).c_str() : "-");
        } else {
          for (int c = 0; c < 5; ++c) {
            ImGui::TableNextColumn();
            widgets::dim_wrapped("-");
          }
        }
      }
      ImGui::EndTable();
    }
  return delta_range;
}

void draw_body(AppState& s, Ui& ui) {
  LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  const LearnedHeadsInput& cur = h.input;
  const lh::HeadsTrainer* tr = h.trainer.get();
  const int heads = tr ? tr->model().heads : cur.heads;

  // Figure first: one line to start from, the run's buttons, the snapshot slider and every head's
  // map; the task's story, the settings and the curves are collapsed below.
  txt::para(h.loaded ? "The loaded decoder, measured and trained here on random tokens that contain a run twice (only "
                       "the second copy is predictable). Try the snapshot slider; notice which maps change, then what "
                       "removing a head costs."
                     : "A tiny decoder trained in this page on random tokens that contain a run twice (only the second "
                       "copy is predictable). Try the snapshot slider; notice which maps change, then what removing a "
                       "head costs.");
  style::error_box(h.error);

  draw_controls(s);
  if (!tr) {
    draw_settings(s, ui);
    return;
  }

  const lh::HeadsSnapshot* snap = h.snapshots.empty() ? nullptr : &h.snapshots[static_cast<size_t>(h.shown)];
  if (snap) {
    int idx = h.shown;
    ImGui::SetNextItemWidth(widgets::fit_labeled(std::max(fs * 8, ImGui::GetContentRegionAvail().x * 0.5f), "snapshot"));
    char fmt[64];
    std::snprintf(fmt, sizeof fmt, "step %d", snap->step);
    if (widgets::slider_int("snapshot", &idx, 0, static_cast<int>(h.snapshots.size()) - 1, fmt))
      defer_edit(s, [idx](AppState& st) { select_learned_heads_snapshot(st, idx); });
    snap = &h.snapshots[static_cast<size_t>(h.shown)];
    ImGui::Text("At step %d: held-out accuracy %s, loss %s", snap->step, pct(snap->eval.accuracy).c_str(),
                short_number(snap->eval.loss, 3).c_str());
  }

  // --- every head's map: trained beside step 0
  if (snap) {
    draw_every_map(h, snap, heads, ui);

    // --- per-head table
    draw_intervention_controls(s, ui);
    const int n = static_cast<int>(snap->scores.size());
    const double delta_range = draw_scores_table(h, snap, heads);
    if (h.interventions)
      diverging_legend("\xCE\x94loss legend", delta_range, fs * 3.0f, "loss falls without the head",
                       "loss rises without the head");
    ImGui::TextDisabled("scores at step %d%s", snap->step,
                        h.interventions && h.interventions->step != snap->step
                            ? (", interventions at step " + std::to_string(h.interventions->step)).c_str()
                            : "");
    txt::note("\xCE\x94loss: held-out loss with that head alone removed minus the loss with every head "
              "(zero: its output replaced by zeros; mean: by its mean output over the held-out batch). Patching: "
              "the first copy of each run is replaced by other tokens, then that head's output is copied from the "
              "clean run; recovered = (L_corrupt \xE2\x88\x92 L_patched) / (L_corrupt \xE2\x88\x92 L_clean).");

    if (h.interventions) {
      const LearnedHeadsInterventions& iv = *h.interventions;
      // Scores of the snapshot the interventions ran at (the last one at or before that step).
      const lh::HeadsSnapshot* at = &h.snapshots.front();
      for (const lh::HeadsSnapshot& sn : h.snapshots)
        if (sn.step <= iv.step) at = &sn;
      std::vector<double> xs, ys;
      std::vector<std::string> labels;
      for (size_t i = 0; i < iv.ablation.zero.size() && i < at->scores.size(); ++i) {
        xs.push_back(at->scores[i].induction);
        ys.push_back(iv.ablation.zero[i].loss - iv.ablation.base.loss);
        labels.push_back(head_name(static_cast<int>(i), heads));
      }
      style::details("Ablate heads together", [&] {
        const txt::TwoColumns sc = txt::two_columns(0.5f);
        txt::begin_column(sc.left_w);
        plot::scatter("induction vs ablation", xs, ys, labels, sc.left_w, fs * 13, "induction score",
                      "\xCE\x94loss when zero-ablated");
        txt::note(("One point per head (induction score at step " + std::to_string(at->step) +
                   ", ablation at step " + std::to_string(iv.step) +
                   "). A head whose map looks like induction need not be the one whose removal costs most, and a "
                   "large \xCE\x94loss says the model relies on that head here, not what the head computes.")
                      .c_str());
        sc.to_right();
        ImGui::PushFont(ui.fonts.bold);
        ImGui::TextUnformatted("Ablate several heads together");
        ImGui::PopFont();
        std::vector<bool> combo = h.combo;
        combo.resize(static_cast<size_t>(n), false);
        bool mean = h.combo_mean, changed = false;
        ImGui::BeginDisabled(h.run.running);
        if (ImGui::RadioButton("zero", !mean)) mean = false, changed = true;
        widgets::same_line_if_fits(widgets::check_width("mean"), -1.0f);
        if (ImGui::RadioButton("mean", mean)) mean = true, changed = true;
        for (int i = 0; i < n; ++i) {
          if (i % heads != 0) widgets::same_line_if_fits(widgets::check_width("L1 H1"));
          bool on = combo[static_cast<size_t>(i)];
          if (ImGui::Checkbox(head_name(i, heads).c_str(), &on)) combo[static_cast<size_t>(i)] = on, changed = true;
        }
        ImGui::EndDisabled();
        if (changed) defer_edit(s, [combo, mean](AppState& st) { set_learned_heads_combo(st, combo, mean); });
        if (h.combined) {
          const double base = h.interventions ? h.interventions->ablation.base.loss : 0.0;
          ImGui::Text("%zu heads %s-ablated: loss %s (\xCE\x94 %s), accuracy %s", h.combined->heads.size(),
                      h.combined->mean ? "mean" : "zero", short_number(h.combined->eval.loss, 3).c_str(),
                      short_number(h.combined->eval.loss - base, 3).c_str(), pct(h.combined->eval.accuracy).c_str());
          ImGui::TextDisabled("at step %d, on the held-out batch", h.combined->step);
        } else {
          txt::note(h.run.running ? "Pause to ablate." : "Tick heads to remove them together.");
        }
        txt::end_column(sc.right_w);
      });

      style::details("Parallel vs sequential", [&] { draw_parallel_vs_sequential(iv, ui); });
    } else {
      txt::note("No interventions yet: they run once at the end of a run, or with the button when paused.");
    }
  }
  style::details("Do positions extrapolate?", [&] { draw_extrapolation(s, ui); });
  style::details("Curves and held-out data", [&] { draw_curves(s, ui); });
  draw_settings(s, ui);
  draw_recall_strip(s, ui, "learned_heads");
}

// The loss while training, held-out accuracy and scores by snapshot, and the display sequence.
void draw_curves(AppState& s, Ui& ui) {
  const LearnedHeadsState& h = s.learned_heads;
  const float fs = ImGui::GetFontSize();
  const txt::TwoColumns col = txt::two_columns(0.55f);
  txt::begin_column(col.left_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Loss while training");
  ImGui::PopFont();
  draw_loss_curve(h, col.left_w);
  col.to_right();
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Held-out data");
  ImGui::PopFont();
  if (!h.snapshots.empty()) {
    const lh::HeadsSnapshot& snap = h.snapshots[static_cast<size_t>(h.shown)];
    ImGui::TextDisabled("%d predictable positions in 32 held-out sequences; other positions' loss %s", snap.eval.counted,
                        short_number(snap.eval.other_loss, 3).c_str());
    txt::note("Snapshots every 100 steps (and at step 0 and the last step), on sequences the training never "
              "draws.");
    // When each pattern appears, and whether the accuracy comes with it.
    if (h.score_steps.size() >= 2) {
      std::vector<plot::Series> series{
          plot::Series{"accuracy", h.score_accuracy, IM_COL32(31, 111, 178, 255), false},
          plot::Series{"ind", h.score_induction, IM_COL32(200, 60, 40, 255), false},
          plot::Series{"prev", h.score_previous, IM_COL32(60, 150, 60, 255), true}};
      plot::line_plot("scores by step", h.score_steps, series, false, 0.0, 1.0, col.right_w, fs * 10, "step", "held-out", 5, false);
      txt::note("Held-out accuracy and the best head's induction (ind) and previous-token (prev) scores at each "
                "snapshot: when each pattern appears, and whether the accuracy comes with it.");
    }
  }
  const lh::InductionLayout& lay = h.heldout.layouts.front();
  txt::note(("The display sequence (" + std::to_string(h.tokens.size()) + " tokens): the run of " +
             std::to_string(lay.run) + " starts at position " + std::to_string(lay.prefix) +
             " and repeats at position " + std::to_string(lay.repeat_start()) + ".")
                .c_str());
  ImGui::TextWrapped("%s", tokens_text(std::vector<int>(h.heldout.batch.tokens.begin(),
                                                        h.heldout.batch.tokens.begin() + h.heldout.batch.t))
                               .c_str());
  txt::end_column(col.right_w);
}

// Collapsed: what the model and task are, the run's inputs, the architecture, the task, model files.
void draw_settings(AppState& s, Ui&) {
  const LearnedHeadsState& h = s.learned_heads;
  style::details("Model, task and settings", [&] {
    const std::string intro =
        (h.loaded ? std::string("The loaded decoder (its configuration below) is measured and trained here, in this page, on ")
                  : std::string("A tiny decoder (d_model 32, attention only unless you add an MLP) is trained here, in this page, on ")) +
        "sequences of random tokens that contain a random run twice: the loss counts only the positions of the "
        "second copy, the only predictable ones. Looking at each head's attention map, and then removing heads, is "
        "the diagnostic Olsson et al. (2022) used for induction heads, which they studied in models trained on "
        "text. A map suggests what a head does; an ablation tests it. The page shows what this model measurably "
        "does, whatever it does.";
    txt::note(intro.c_str());
    draw_inputs(s);
  });
}

}  // namespace

}  // namespace app

