// Translate panel: drawing. Draws the state that translate.cpp computed (training slices run
// before the frame is drawn); formats and forwards edits, computes nothing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "panels/lesson_ui.hpp"
#include "app/app_state.hpp"
#include "lessons/translate/captions.hpp"
#include "panels/patch.hpp"
#include "panels/translate.hpp"
#include "panels/ui.hpp"
#include "widgets/plots.hpp"

namespace app {

namespace tl = attn::lessons;

// --- drawing -------------------------------------------------------------------------------

namespace {

// An alignment map (rows: target, columns: source) with its row sums, numbered in cells of at
// most 48 points: the three alignment maps of the panel look alike.
HeatmapSpec alignment_spec(const attn::Matrix& weights, const std::vector<std::string>& rows,
                           const std::vector<std::string>& cols, const std::vector<double>& row_sums,
                           const char* row_axis, const char* col_axis, std::uint64_t version, float width) {
  HeatmapSpec spec = numbered_spec(weights, rows, cols, version, width, 48.0f);
  spec.row_sums = &row_sums;
  spec.row_axis = row_axis;
  spec.col_axis = col_axis;
  return spec;
}

// The beam's width and length-penalty sliders (the panel's inputs; both views of the panel).
void draw_beam_controls(AppState& s, const char* width_label) {
  const float fs = ImGui::GetFontSize();
  TranslateInput e = s.translate.input;
  bool changed = false;
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 8, width_label));
  if (widgets::slider_int(width_label, &e.beam_width, 1, 16)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 8, "alpha"), fs);
  float a = static_cast<float>(e.alpha);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 8, "alpha"));
  if (widgets::slider_float("alpha", &a, 0.0f, 2.0f, "%.2f")) e.alpha = std::round(a * 100.0) / 100.0, changed = true;
  if (changed) defer_edit(s, [e](AppState& st) { set_translate_input(st, e); });
}

// Greedy steps beside the teacher-forced pass, then beam search with its controls.
void draw_decoding(AppState& s, Ui& ui) {
  TranslateState& t = s.translate;
  const TranslateAlignmentView& v = *t.alignment;
  style::heading(ui.fonts, "Decoding the sentence");
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
  const txt::TwoColumns dc = txt::two_columns(0.5f);
  txt::begin_column(dc.left_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Greedy, step by step (generation)");
  ImGui::PopFont();
  if (widgets::begin_table_fit("##greedy", 4, tf, dc.left_w, static_cast<int>(v.greedy_rows.size()) + 1)) {
    for (const char* c : {"step", "word", "p", "reads most"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < v.greedy_rows.size(); ++i) {
      const auto& g = v.greedy_rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%zu", i + 1);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g.word.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(g.probability, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s (%s)", g.reads.c_str(), short_number(g.read_weight, 2).c_str());
    }
    widgets::end_table_fit();
  }
  txt::note("Each step feeds back the word it chose; a wrong word changes every later step.");
  ImGui::TextWrapped("Fixed summary, greedy: %s", v.summary_greedy.c_str());
  dc.to_right();
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Teacher forced (training)");
  ImGui::PopFont();
  if (widgets::begin_table_fit("##forced", 3, tf, dc.right_w, static_cast<int>(v.forced_rows.size()) + 1)) {
    for (const char* c : {"reference", "p(reference)", "model's argmax"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (const auto& r : v.forced_rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.reference.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(r.p_reference, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.argmax.c_str());
    }
    widgets::end_table_fit();
  }
  ImGui::TextWrapped("Loss %s per word. All positions in one pass: each is fed the reference's previous word, "
                     "whatever the model would have said.", short_number(v.result.forced.loss, 3).c_str());
  txt::end_column(dc.right_w);

  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Beam search");
  ImGui::PopFont();
  draw_beam_controls(s, "width");
  ImGui::TextWrapped("score(Y) = log P(Y) / lp(Y),   lp(Y) = ((5 + |Y|) / 6)^\xCE\xB1   (Wu et al. 2016; |Y| counts "
                     "the emitted words, <eos> included)");
  if (widgets::begin_table_fit("##beam", 6, tf, 0.0f, 2 * static_cast<int>(v.beam_rows.size()) + 1)) {
    for (const char* c : {"hypothesis", "ended", "|Y|", "log P", "lp", "score"}) ImGui::TableSetupColumn(c);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < v.beam_rows.size(); ++i) {
      const auto& b = v.beam_rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s%s", static_cast<int>(i) == v.beam_best ? "best: " : "", b.words.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(b.ended ? "yes" : "no");
      ImGui::TableNextColumn();
      ImGui::Text("%d", b.length);
      for (double x : {b.log_prob, b.penalty, b.score}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(short_number(x, 4).c_str());
      }
    }
    widgets::end_table_fit();
  }
  style::check_lines(v.beam_checks);
  txt::note("Search changes which sequence is found, not the model: every hypothesis is scored with the same "
            "decoder steps, measured above. Width 1 is greedy. \xCE\xB1 = 0 ranks by log P alone, which favours "
            "short outputs.");
}

// The width H and the encoder: the choices the headline result is about (each starts over).
void draw_width_choice(AppState& s) {
  TranslateInput e = s.translate.input;
  bool changed = false;
  if (widgets::int_choice("H:", &e.hidden, {8, 16, 32, 64})) changed = true;
  ImGui::AlignTextToFramePadding();
  widgets::dim_wrapped("Encoder:");
  for (const char* enc : {"bidirectional", "forward"}) {
    widgets::same_line_if_fits(widgets::check_width(enc));
    if (ImGui::RadioButton(enc, e.encoder == enc)) e.encoder = enc, changed = true;
  }
  const TranslateInput defaults;
  if (e.hidden != defaults.hidden || e.encoder != defaults.encoder)
    widgets::dim_after(("(other than H " + std::to_string(defaults.hidden) + " with the " + defaults.encoder +
                        " encoder: trained from scratch here)").c_str());
  if (changed) defer_edit(s, [e](AppState& st) { set_translate_input(st, e); });
}

// Both models' training loss (per step) and validation loss, side by side.
void draw_loss_curves(const TranslateState& t, Ui& ui, const txt::TwoColumns& col);

// Collapsed: the run's seed, steps and learning rate (each starts over), model files, the loss curves.
void draw_settings(AppState& s, Ui& ui) {
  TranslateState& t = s.translate;
  style::details("Loss, settings, files", [&] {
    TranslateInput e = t.input;
    if (draw_run_inputs(e.seed, e.steps, e.lr)) defer_edit(s, [e](AppState& st) { set_translate_input(st, e); });
    if (t.loaded) txt::note(("The " + std::string(t.loaded->model.attention ? "attention model" : "fixed summary") +
                              " is the loaded one (" + t.run.model->config + "); the other is the lab's, from the seed.")
                                 .c_str());
    draw_model_row(s, t.run, "translate", translate_unload_model,
                   {{"Export attention model", "additive"}, {"Export fixed-summary model", "none"}});
    if (t.trainer) draw_loss_curves(t, ui, txt::two_columns(0.5f));
    txt::note("Two small GRU translators of a made-up English-to-French language are trained here, side by side: one "
              "decodes from a fixed summary, the encoder's final states fed at every step (Cho et al. 2014), the other "
              "re-reads every source word's annotation at each step through additive attention (Bahdanau et al. 2015). "
              "Same seed, same batches, same number of steps; the only difference is the attention. The encoder is "
              "Bahdanau's bidirectional one unless you pick forward: a word's annotation joins a GRU read left to right "
              "and one read right to left, and the decoder starts from the backward one's state. French puts colours "
              "after the noun, so the alignment is not the diagonal.");
  });
}

// Train / Pause / Continue / Reset, progress.
const RunActions kRunActions = {translate_train, translate_pause, translate_continue, translate_reset};

void draw_controls(AppState& s) {
  TranslateState& t = s.translate;
  RunControlsText text;
  text.details = ", both models: batches of 16 sentence pairs, Adam, clip 1, E = H = A = " +
                 std::to_string(t.input.hidden) + ", " + t.input.encoder + " encoder";
  text.what = "the default pair";
  text.opened_tail = "Train runs the same seed here.";
  if (t.reproduction.compared) text.reproduction = t.reproduction.sentence;
  draw_run_controls(s, t.run, progress_of(t.trainer.get(), t.input.steps), text, kRunActions);
}

// A loaded model over other vocabularies: the analyses that need no words, tokens as numbers.
void draw_tokens(AppState& s, Ui& ui) {
  TranslateState& t = s.translate;
  TranslateTokens& k = *t.tokens;
  const tl::TokenAnalysis& a = k.analysis;
  const attn::learn::Seq2SeqConfig& c = k.model.config;
  const float fs = ImGui::GetFontSize();
  draw_model_row(s, t.run, "translate", translate_unload_model, {{"Export model", ""}});
  const std::string note = loaded_model_note(t.run, 0);
  if (!note.empty()) txt::note(note.c_str());
  style::heading(ui.fonts, "Your model, tokens as numbers");
  ImGui::TextWrapped("Its vocabularies (%d source, %d target ids) are not the lesson's (%d English, %d French words), "
                     "so it is shown here instead of the pair, its tokens as ids: 0 is PAD, 1 BOS starts decoding, 2 EOS "
                     "ends it. These analyses need the lesson's words and do not run on it:",
                     c.src_vocab, c.tgt_vocab, tl::english_vocab().size(), tl::french_vocab().size());
  for (const std::string& w : tl::lesson_word_analyses()) {  // wrapped: BulletText runs past a phone's edge
    ImGui::Bullet();
    ImGui::TextWrapped("%s", w.c_str());
  }
  // The inputs: source ids, target ids (empty: the greedy output), the beam's controls.
  const auto ids_field = [&](const char* label, char* buf, size_t cap, std::string& shown, const std::vector<int>& cur,
                             bool source) {
    const std::string want = cur.empty() ? std::string() : tl::ids_text(cur);
    if (shown != want) std::snprintf(buf, cap, "%s", want.c_str()), shown = want;
    ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 16, label));
    ImGui::InputText(label, buf, cap);
    if (ImGui::IsItemDeactivatedAfterEdit()) {
      defer_edit(s, [text = std::string(buf), source, label = std::string(label)](AppState& st) {
        if (!st.translate.tokens) return;
        TranslateTokens& kk = *st.translate.tokens;
        std::vector<int> ids;
        const bool ok = guarded(st.translate.error, [&] { ids = parse_token_ids(text, label.c_str(), kTranslateMaxTypedId, kTranslateMaxTypedIds); });
        if (!ok || !set_translate_tokens(st, source ? ids : kk.source, source ? kk.target : ids)) {
          if (st.translate.tokens) st.translate.tokens->source_shown = "?", st.translate.tokens->target_shown = "?";
          changed();
        }
      });
    }
  };
  ids_field("source ids", k.source_buf, sizeof k.source_buf, k.source_shown, k.source, true);
  widgets::same_line_if_fits(widgets::labeled_width(fs * 16, "target ids"), fs);
  ids_field("target ids", k.target_buf, sizeof k.target_buf, k.target_shown, k.target, false);
  txt::note("Ids separated by spaces; an empty target analyses the model's own greedy output.");
  draw_beam_controls(s, "beam width");
  ImGui::TextWrapped("%s", k.caption.c_str());
  const ImGuiTableFlags tf = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  const auto columns = [&](std::initializer_list<std::pair<const char*, float>> cols) {
    for (const auto& [name, w] : cols) ImGui::TableSetupColumn(name, ImGuiTableColumnFlags_WidthFixed, fs * w);
    ImGui::TableHeadersRow();
  };
  const txt::TwoColumns dc = txt::two_columns(0.5f);
  txt::begin_column(dc.left_w);
  if (c.attention && k.weights.rows() > 0) {
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(a.target_given ? "Alignment of the target typed (teacher forced)"
                                          : "Alignment of its greedy output (teacher forced)");
    ImGui::PopFont();
    heatmap("translate_tokens_alignment",
            alignment_spec(k.weights, k.rows, k.cols, k.row_sums, "target id", "source position:id", generation(),
                           dc.left_w),
            ui.gpu);
  }
  dc.to_right();
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Greedy, step by step");
  ImGui::PopFont();
  if (widgets::begin_table_fit("##tokens_greedy", 3, tf, 0.0f, static_cast<int>(a.greedy.steps.size()) + 1)) {
    columns({{"step", 3.0f}, {"id", 5.0f}, {"p", 4.0f}});
    for (size_t i = 0; i < a.greedy.steps.size(); ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%zu", i + 1);
      ImGui::TableNextColumn();
      ImGui::Text("%d%s", a.greedy.steps[i].token, a.greedy.steps[i].token == tl::kTranslateEos ? " (EOS)" : "");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(a.greedy.steps[i].probability, 3).c_str());
    }
    widgets::end_table_fit();
  }
  txt::end_column(dc.right_w);
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Beam search");
  ImGui::PopFont();
  if (widgets::begin_table_fit("##tokens_beam", 4, tf, 0.0f, static_cast<int>(a.beam.finished.size()) + 1)) {
    columns({{"ids", 16.0f}, {"ended", 3.5f}, {"log P", 5.0f}, {"score", 5.0f}});
    for (size_t i = 0; i < a.beam.finished.size(); ++i) {
      const tl::BeamHypothesis& h = a.beam.finished[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextWrapped("%s%s", static_cast<int>(i) == a.beam.best ? "best: " : "", tl::ids_text(h.tokens).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(h.ended ? "yes" : "no");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(h.log_prob, 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(short_number(h.score, 4).c_str());
    }
    widgets::end_table_fit();
  }
  if (!a.removals.empty()) {
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted("Take a source position away from the attention");
    ImGui::PopFont();
    if (widgets::begin_table_fit("##tokens_removals", 3, tf, 0.0f, static_cast<int>(a.removals.size()) + 1)) {
      columns({{"without", 9.0f}, {"greedy output", 14.0f}, {"loss change", 5.0f}});
      for (const tl::TokenRemoval& w : a.removals) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("position %d (id %d)", w.position + 1, w.token);
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s%s%s", tl::ids_text(w.output).c_str(), w.ended ? "" : " (no EOS)", w.same_output ? "" : " *");
        ImGui::TableNextColumn();
        char d[32];
        std::snprintf(d, sizeof d, "%+.3f", w.delta_loss);
        ImGui::TextUnformatted(d);
      }
      widgets::end_table_fit();
    }
    txt::note("* the greedy output changed. The removed position's weight is set to 0 at every step and the others "
              "renormalised; the loss is the analysed target's, teacher forced.");
  }
  style::check_lines(k.checks);
}

void draw_loss_curves(const TranslateState& t, Ui& ui, const txt::TwoColumns& col) {
  const float fs = ImGui::GetFontSize();
  const tl::TranslateTrainer* tr = t.trainer.get();
  const ImU32 c_none = IM_COL32(214, 120, 20, 255), c_add = IM_COL32(31, 111, 178, 255);
  txt::begin_column(col.left_w);
  style::heading(ui.fonts, "Training loss");
  {
    double ymax = 1.0;
    for (double v : t.curve_none) ymax = std::max(ymax, v * 1.05);
    for (double v : t.curve_additive) ymax = std::max(ymax, v * 1.05);
    if (t.curve_x.size() >= 2) {
      plot::line_plot("train loss", t.curve_x,
                      {plot::Series{"fixed summary", t.curve_none, c_none, false},
                       plot::Series{"attention", t.curve_additive, c_add, false}},
                      false, 0.0, ymax, col.left_w, fs * 12, "step", "cross-entropy", 6, false);
    } else {
      txt::note("No steps yet: press Train.");
    }
    txt::note(("Mean cross-entropy per target word of each step's batch (teacher forcing)" +
               std::string(t.curve_stride > 1 ? ", averaged over " + std::to_string(t.curve_stride) + " steps" : "") + ".")
                  .c_str());
  }
  col.to_right();
  style::heading(ui.fonts, "Validation loss");
  {
    std::vector<double> xs;
    for (int v : tr->validation_steps()) xs.push_back(v);
    const std::vector<double>& vn = tr->validation_losses(false);
    const std::vector<double>& va = tr->validation_losses(true);
    double ymax = 1.0;
    for (double v : vn) ymax = std::max(ymax, v * 1.05);
    for (double v : va) ymax = std::max(ymax, v * 1.05);
    if (xs.size() >= 2 && vn.size() == xs.size() && va.size() == xs.size()) {
      plot::line_plot("validation loss", xs,
                      {plot::Series{"fixed summary", vn, c_none, false}, plot::Series{"attention", va, c_add, false}},
                      false, 0.0, ymax, col.right_w, fs * 12, "step", "cross-entropy", 6, true);
    } else {
      txt::note("Validation runs at step 0 and every 50 steps.");
    }
    txt::note("The same loss on held-out sentences no batch contains (teacher forced).");
  }
  txt::end_column(col.right_w);
}

// The scoring's progress and the test set's accuracy by source length (table and curves).
void draw_scores(const TranslateState& t, Ui& ui) {
  const float fs = ImGui::GetFontSize();
  if (t.run.running && !t.scores_study) ImGui::TextDisabled("Scored when training stops (end or pause).");
  if (t.scores_study) {
    const tl::TranslateScoresStudy& st = *t.scores_study;
    draw_study_progress(
        st.units_done(), st.units_total(),
        "Scoring the models at step " + std::to_string(t.scores_study_step) + " on the test set (" + st.phase() +
            (t.run.running ? std::string("): the run's last part, a slice per frame like the training, so that drawing goes on.")
                           : "): the loaded model is too big for one frame, so each frame scores the sentences that fit in about " +
                                 std::to_string(static_cast<int>(kTrainSliceSeconds * 1000 + 0.5)) + " ms (at least one)."));
  }
  if (t.scores) {
    const TranslateScores& sc = *t.scores;
    HeatmapSpec spec;
    spec.values = &sc.table;
    spec.row_labels = &sc.table_rows;
    spec.col_labels = &sc.table_cols;
    spec.value_name = "fraction";
    spec.row_axis = "source length (sentences)";
    spec.col_axis = "model, measure";
    spec.version = static_cast<std::uint64_t>(sc.step) + 1;
    spec.numbers = true;
    const txt::TwoColumns acc = txt::two_columns(0.55f);
    txt::begin_column(acc.left_w);
    spec.width = std::min(acc.left_w, fs * 34);
    spec.max_cell = fs * 5.5f;
    heatmap("translate_accuracy", spec, ui.gpu);
    acc.to_right();
    {
      // Both models on one plot: exact match (solid) and token accuracy (dashed) per bucket,
      // at each bucket's longest source.
      std::vector<double> xs, ne, nt, ae, at;
      for (size_t i = 0; i < sc.none.buckets.size() && i < sc.additive.buckets.size(); ++i) {
        xs.push_back(sc.none.buckets[i].bucket.hi);
        ne.push_back(sc.none.buckets[i].exact_match), nt.push_back(sc.none.buckets[i].token_accuracy);
        ae.push_back(sc.additive.buckets[i].exact_match), at.push_back(sc.additive.buckets[i].token_accuracy);
      }
      const ImU32 cn = IM_COL32(214, 120, 20, 255), ca = IM_COL32(31, 111, 178, 255);
      if (xs.size() >= 2)
        plot::line_plot("accuracy by length", xs,
                        {plot::Series{"summary exact", ne, cn, false}, plot::Series{"attention exact", ae, ca, false},
                         plot::Series{"summary tokens", nt, cn, true}, plot::Series{"attention tokens", at, ca, true}},
                        false, 0.0, 1.0, acc.right_w, fs * 14, "longest source in the bucket (words)", "fraction");
    }
    txt::end_column(acc.right_w);
    ImGui::TextWrapped("%s", sc.caption.c_str());
    txt::note("Exact: the greedy output equals the reference sentence. Tokens: reference words the output has at "
              "the same position. In brackets: test sentences per length bucket.");

  }
}

// How often the learned alignment's largest weight falls on the word the grammar aligns.
void draw_agreement(const TranslateState& t) {
  const float fs = ImGui::GetFontSize();
  if (t.scores) {
    const TranslateScores& sc = *t.scores;
    const tl::AlignmentAgreement& ag = sc.agreement;
    if (widgets::begin_table_fit("##agreement", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit, 0.0f, static_cast<int>(ag.buckets.size()) + 2)) {
      ImGui::TableSetupColumn("source length", ImGuiTableColumnFlags_WidthFixed, fs * 8.0f);
      ImGui::TableSetupColumn("target words", ImGuiTableColumnFlags_WidthFixed, fs * 7.0f);
      ImGui::TableSetupColumn("largest weight on its word", ImGuiTableColumnFlags_WidthFixed, fs * 13.0f);
      ImGui::TableSetupColumn("mean weight there", ImGuiTableColumnFlags_WidthFixed, fs * 9.0f);
      ImGui::TableHeadersRow();
      for (size_t i = 0; i <= ag.buckets.size(); ++i) {
        const tl::BucketAgreement& b = i < ag.buckets.size() ? ag.buckets[i] : ag.overall;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(i < ag.buckets.size() ? (tl::range_of(b.bucket) + " words").c_str() : "all");
        ImGui::TableNextColumn();
        ImGui::Text("%d", b.targets);
        ImGui::TableNextColumn();
        ImGui::Text("%d (%.0f%%)", b.on_source, 100.0 * b.share);
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", b.mean_weight);
      }
      widgets::end_table_fit();
    }
    txt::note(sc.agreement_caption.c_str());
  }
}

// The precomputed exact match of every width H, and whether the learner's run is one of its rows.
void draw_widths(const TranslateState& t, Ui& ui) {
  const float fs = ImGui::GetFontSize();
  const TranslateInput& cur = t.input;
  if (!t.widths.error.empty()) {
    txt::note(t.widths.error.c_str());
  } else if (!t.widths.rows.empty()) {
    HeatmapSpec ws;
    ws.values = &t.widths.table;
    ws.row_labels = &t.widths.table_rows;
    ws.col_labels = &t.widths.table_cols;
    ws.value_name = "exact match";
    ws.row_axis = "width H (= E = A)";
    ws.col_axis = "model, source length";
    ws.version = 1;
    ws.numbers = true;
    ws.vmin = 0.0;
    ws.vmax = 1.0;
    ws.width = std::min(ImGui::GetContentRegionAvail().x, fs * 40);
    ws.max_cell = fs * 4.5f;
    heatmap("translate_widths", ws, ui.gpu);
    ImGui::TextWrapped("%s", t.widths.caption.c_str());
    if (!t.widths.encoders_caption.empty()) ImGui::TextWrapped("%s", t.widths.encoders_caption.c_str());
    txt::note(cur.seed == 17 && cur.steps == 1000 && cur.lr == 5e-3
                  ? ("Your run is the " + cur.encoder + " H " + std::to_string(cur.hidden) +
                     " row's configuration; Train reproduces it here.").c_str()
                  : "The table is for seed 17, 1000 steps and learning rate 0.005; your run's own figures are above.");
  }
}

// The sentence field, the example sentences and the test sentence's number: each edit is
// deferred to the next frame (it runs the models).
void draw_sentence_row(AppState& s) {
  TranslateState& t = s.translate;
  const TranslateInput& cur = t.input;
  const float fs = ImGui::GetFontSize();
  {
    char* buf = t.sentence_buf;
    if (t.sentence_shown != cur.sentence) {
      std::snprintf(buf, sizeof t.sentence_buf, "%s", cur.sentence.c_str());
      t.sentence_shown = cur.sentence;
    }
    ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 30, "sentence"));
    ImGui::InputText("sentence", buf, sizeof t.sentence_buf);
    if (ImGui::IsItemDeactivatedAfterEdit()) {
      TranslateInput e = cur;
      e.sentence = buf;
      defer_edit(s, [e](AppState& st) {
        if (!set_translate_input(st, e)) st.translate.sentence_shown.clear();  // back to the last good sentence
      });
    }
    for (const char* ex : {"the black cat", "the big dog sees a white mouse",
                           "a small grey horse chases the black cat with a big blue ball and the dog eats a green book"}) {
      widgets::same_line_if_fits(widgets::button_width(ex));
      if (widgets::wrapped_button(ex)) {
        TranslateInput e = cur;
        e.sentence = ex;
        defer_edit(s, [e](AppState& st) { set_translate_input(st, e); });
      }
    }
    // Any held-out sentence, by its number in the test set.
    int& test_index = t.test_index;
    const int n_test = static_cast<int>(t.trainer ? t.trainer->data().test.size() : 0);
    widgets::same_line_if_fits(widgets::labeled_width(fs * 4.0f, "test sentence (1-300)"), fs);
    ImGui::SetNextItemWidth(fs * 4.0f);
    const std::string label = "test sentence (1-" + std::to_string(n_test) + ")";
    ImGui::InputInt(label.c_str(), &test_index, 0, 0);
    if (ImGui::IsItemDeactivatedAfterEdit())
      defer_edit(s, [i = test_index](AppState& st) { pick_translate_test_sentence(st, i); });
  }
}

void draw_interventions(const TranslateAlignmentView& v);

void draw_body(AppState& s, Ui& ui) {
  TranslateState& t = s.translate;
  const TranslateInput& cur = t.input;
  const float fs = ImGui::GetFontSize();

  if (t.tokens) {
    style::error_box(t.error);
    draw_tokens(s, ui);
    return;
  }
  // Figure first: one line to start from, the run's buttons, then the headline result; the
  // models' story, the run's settings and the other measurements are collapsed below.
  txt::para("Two translators trained side by side, one decoding from a fixed summary, one with attention. Try a "
            "long test sentence or another width H; notice how each model's exact match changes with the "
            "source's length.");
  style::error_box(t.error);

  draw_controls(s);
  draw_width_choice(s);
  const tl::TranslateTrainer* tr = t.trainer.get();
  if (!tr) {
    draw_settings(s, ui);
    return;
  }

  // --- the headline: accuracy by source length
  style::heading(ui.fonts, "Accuracy by source length (test set, greedy decoding)");
  draw_scores(t, ui);

  // --- the learned alignment beside the constructed one
  style::heading(ui.fonts, "Alignment: learned vs constructed");
  draw_sentence_row(s);
  const txt::TwoColumns ac = txt::two_columns(0.6f);
  txt::begin_column(ac.left_w);
  if (t.alignment) {
    const TranslateAlignmentView& v = *t.alignment;
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("Learned (attention model, step %d)", v.step);
    ImGui::PopFont();
    HeatmapSpec spec = alignment_spec(v.weights, v.result.target_words, v.result.source_words, v.row_sums, "target",
                                      "source", generation(), ac.left_w);
    const int traced = std::min(cur.row, static_cast<int>(v.weights.rows()) - 1);
    spec.selected_row = traced;
    const HeatmapEvent ev = heatmap("translate_alignment", spec, ui.gpu);
    if (ev.clicked_row >= 0 && ev.clicked_row != cur.row) {
      TranslateInput e = cur;
      e.row = ev.clicked_row;
      defer_edit(s, [e](AppState& st) { set_translate_input(st, e); });
    }
    if (traced >= 0) {
      // The traced row: where this target word's decoder step reads, word by word.
      plot::BarColumn bc;
      bc.title = "weight of \"" + v.result.target_words[static_cast<size_t>(traced)] + "\"";
      for (int j = 0; j < v.weights.cols(); ++j) bc.values.push_back(v.weights(traced, j));
      bc.max = 1.0;
      plot::bar_table("translate_trace", v.result.source_words, {bc}, std::min(ac.left_w, fs * 24));
      ImGui::TextDisabled("Click a row to trace it.");
    }
    ImGui::TextWrapped("Greedy translation: %s%s", v.greedy.c_str(), v.result.greedy.ended ? "" : " (no <eos>)");
    style::check_lines(v.checks);
    ImGui::TextWrapped("%s", v.caption.c_str());
    txt::note("Rows: the reference French words then <eos>, teacher forced; columns: the English words.");
  } else if (t.run.running) {
    txt::note("Read when training stops.");
  }
  ac.to_right();
  ImGui::PushFont(ui.fonts.bold);
  ImGui::TextUnformatted("Constructed (the lesson's, not learned)");
  ImGui::PopFont();
  heatmap("translate_lesson_alignment",
          alignment_spec(t.lesson_weights, t.lesson_rows, t.lesson_cols, t.lesson_row_sums, "target", "source", 1,
                         ac.right_w),
          ui.gpu);
  txt::note("The lesson wrote these weights by hand to show the idea (each French word reads its English word). "
            "A trained model need not do that: compare the measured matrix on the left.");
  txt::end_column(ac.right_w);

  // --- detail, collapsed
  if (t.alignment) style::details("Take a word away", [&] { draw_interventions(*t.alignment); });
  if (t.alignment) style::details("Decoding, step by step", [&] { draw_decoding(s, ui); });
  if (t.scores) style::details("Alignment vs grammar", [&] { draw_agreement(t); });
  style::details("What a wider H changes", [&] { draw_widths(t, ui); });
  draw_settings(s, ui);
  draw_recall_strip(s, ui, "translate");
}

// What the decoder does without a word, or with the lesson's weights.
void draw_interventions(const TranslateAlignmentView& v) {
  const float fs = ImGui::GetFontSize();
  const tl::AttentionInterventions& iv = v.interventions;
  const tl::TranslationVocab& fr = tl::french_vocab();
  const int n_rows = static_cast<int>(iv.removals.size()) + (iv.forced_applies ? 2 : 1) + 1;
  double loss_range = 1.0;
  if (widgets::begin_table_fit("##interventions", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit, 0.0f, n_rows)) {
    ImGui::TableSetupColumn("attention", ImGuiTableColumnFlags_WidthFixed, fs * 8.5f);
    ImGui::TableSetupColumn("greedy output", ImGuiTableColumnFlags_WidthFixed, fs * 9.0f);
    ImGui::TableSetupColumn("loss change", ImGuiTableColumnFlags_WidthFixed, fs * 5.0f);
    ImGui::TableHeadersRow();
    // The loss changes on the diverging map (a symmetric display range over the rows).
    std::vector<double> deltas;
    for (const tl::WordRemoval& w : iv.removals) deltas.push_back(w.delta_loss);
    if (iv.forced_applies) deltas.push_back(iv.forced_delta_loss);
    loss_range = cmap::symmetric_range(deltas);
    const auto row = [&](const std::string& what, const std::vector<int>& out, double delta, bool intact = false) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(what.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(tl::words_of(fr, out).c_str());
      ImGui::TableNextColumn();
      char d[32];
      std::snprintf(d, sizeof d, "%+.3f", delta);
      cmap::diverging_cell(delta, loss_range, intact ? "0" : d);
    };
    row("intact", iv.output, 0.0, true);
    for (const tl::WordRemoval& w : iv.removals) row("without \"" + w.word + "\"", w.output, w.delta_loss);
    if (iv.forced_applies) row("the lesson's weights", iv.forced_output, iv.forced_delta_loss);
    widgets::end_table_fit();
  }
  diverging_legend("loss change legend", loss_range, fs * 3.0f, "loss falls", "loss rises");
  style::check_lines(v.intervention_checks);
  txt::note(v.intervention_caption.c_str());
}

}  // namespace

void draw_translate_panel(AppState& s, Ui& ui) {
  ImGui::PushTextWrapPos(0.0f);
  draw_body(s, ui);
  ImGui::PopTextWrapPos();
}

}  // namespace app

