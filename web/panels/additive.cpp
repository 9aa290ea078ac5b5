// Additive attention (Bahdanau et al. 2015): a decoder stepping through "le chat noir" over
// "the black cat", one soft read of the source per step; four scoring functions on the same states.
#include "panels/additive.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state
#include "panels/registry.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/patch.hpp"
#include "panels/lesson_ui.hpp"
#include "imgui_stdlib.h"
#include "learn/json_obj.hpp"

namespace app {

bool set_additive_input(AppState& s, const attn::AdditiveDecoderInput& in) {
  AdditiveState& a = s.additive;
  return guarded(a.error, [&] {
    attn::AdditiveDecoderDemo r = attn::additive_decoder_demo(in);
    a.input = in;
    a.source_text = in.source;
    a.target_text = in.target;
    a.step = std::max(0, std::min(static_cast<int>(r.steps.size()) - 1, a.step));
    a.result = std::move(r);
    changed();
  });
}

void set_additive_step(AppState& s, int step) {
  AdditiveState& a = s.additive;
  a.step = std::max(0, std::min(static_cast<int>(a.result.steps.size()) - 1, step));
  changed();
}

void init_additive(AppState& s) { set_additive_input(s, attn::AdditiveDecoderInput{}); }

// --- the trained view ------------------------------------------------------------------------

namespace tl = attn::lessons;

namespace {

const char* feed_name(tl::DecoderFeed f) { return f == tl::DecoderFeed::greedy ? "greedy" : "teacher_forced"; }

// Why the Translate panel's attention model cannot be read yet ("" when it can): it is read once
// it is trained, from the shipped checkpoint or by steps run in the Translate panel.
const char* const kLoadingTranslator = "loading the trained translator\xE2\x80\xA6";

std::string translator_unavailable(const TranslatorView& t) {
  if (!t.trainer) return kLoadingTranslator;
  if (t.from_checkpoint || t.trainer->step() > 0) return "";
  switch (t.checkpoint.status) {
    case CheckpointFetch::Status::failed:
      return "the trained translator could not be loaded (" + t.checkpoint.message +
             "); the Translate panel's Train button trains the same model in the page";
    case CheckpointFetch::Status::declined:
      return "the Translate panel's translator is at step 0, untrained (its shipped checkpoint was not installed: " +
             t.checkpoint.message + "); train it in the Translate panel";
    case CheckpointFetch::Status::not_requested:
      if (!t.running && !t.checkpoint_applies)
        return "the Translate panel's translator is at step 0, untrained (its inputs are not the shipped run's, so "
               "its checkpoint does not apply); train it in the Translate panel";
      return kLoadingTranslator;
    default:
      return kLoadingTranslator;
  }
}

bool trained_is_current(const AdditiveState& a, const TranslatorView& t) {
  return a.trained && t.trainer && a.trained->trainer == t.trainer && a.trained->model_step == t.trainer->step() &&
         a.trained->from_checkpoint == t.from_checkpoint;
}

// The walk of `in` on the Translate panel's current attention model (throws attn::Error).
AdditiveTrained read_trained(const TranslatorView& t, const tl::TrainedAdditiveInput& in) {
  AdditiveTrained r;
  r.walk = tl::trained_additive_walk(t.trainer->model(true), in);
  r.trainer = t.trainer;
  r.model_step = t.trainer->step();
  r.from_checkpoint = t.from_checkpoint;
  return r;
}

// Into the walk's steps; without a walk yet (the model still loading) the step is kept as asked,
// so that a link's step survives until the model is there.
void clamp_trained_step(AdditiveState& a) {
  if (!a.trained) return;
  const int n = static_cast<int>(a.trained->walk.steps.size());
  a.trained_step = std::max(0, std::min(n - 1, a.trained_step));
}

// Reads the model again when it changed since the last read; the status says why not otherwise.
bool refresh_trained(AppState& s) {
  AdditiveState& a = s.additive;
  if (a.view != AdditiveView::trained) return false;
  const TranslatorView t = translator_view(s);
  const std::string why = translator_unavailable(t);
  if (!why.empty()) {
    if (a.trained_status == why && !a.trained) return false;
    a.trained_status = why;
    a.trained.reset();
    changed();
    return true;
  }
  if (trained_is_current(a, t) && a.trained_status.empty()) return false;
  const bool ok = guarded(a.error, [&] { a.trained = read_trained(t, a.trained_input); });
  a.trained_status = ok ? "" : "the trained translator could not read this sentence";
  if (!ok) a.trained.reset();
  clamp_trained_step(a);
  changed();
  return true;
}

}  // namespace

void set_additive_view(AppState& s, AdditiveView view) {
  AdditiveState& a = s.additive;
  a.view = view;
  if (view == AdditiveView::trained) {
    open_translator(s);  // the Translate panel's state, built on first need as when it is shown
    refresh_trained(s);
  }
  changed();
}

bool set_additive_trained_input(AppState& s, const tl::TrainedAdditiveInput& in) {
  AdditiveState& a = s.additive;
  std::optional<AdditiveTrained> next;
  const bool ok = guarded(a.error, [&] {
    const std::vector<int> ids = tl::english_ids(in.sentence);  // empty sentence, unknown word
    if (in.feed == tl::DecoderFeed::teacher_forced) (void)tl::reference_translation(ids);  // not of the grammar
    const TranslatorView t = translator_view(s);
    if (t.trainer && translator_unavailable(t).empty()) next = read_trained(t, in);
  });
  if (!ok) return false;
  a.trained_input = in;
  a.trained_input.step = 0;
  a.trained_sentence_text = in.sentence;
  if (next) {
    a.trained = std::move(next);
    a.trained_status.clear();
  } else {
    a.trained.reset();
    if (a.view == AdditiveView::trained) a.trained_status = translator_unavailable(translator_view(s));
  }
  clamp_trained_step(a);
  changed();
  return true;
}

void set_additive_trained_step(AppState& s, int step) {
  AdditiveState& a = s.additive;
  a.trained_step = step;
  clamp_trained_step(a);
  changed();
}

bool tick_additive(AppState& s) { return refresh_trained(s); }

bool additive_pending(const AppState& s) {
  const AdditiveState& a = s.additive;
  if (a.view != AdditiveView::trained) return false;
  const TranslatorView t = translator_view(s);
  const std::string why = translator_unavailable(t);
  // The model comes once this panel is shown (or the Translate panel's fetch is under way): on
  // another panel, before either, nothing is on its way.
  if (!why.empty())
    return why == kLoadingTranslator &&
           (s.panel == panel_index("additive") || t.checkpoint.status == CheckpointFetch::Status::requested);
  return !trained_is_current(a, t);
}

namespace {
Json additive_inputs_only(const AppState& s) {
  const AdditiveState& ad = s.additive;
  return ::attn::obj({{"source", ad.input.source},
              {"target", ad.input.target},
              {"seed", ad.input.seed},
              {"d_h", ad.input.d_h},
              {"d_s", ad.input.d_s},
              {"d_a", ad.input.d_a},
              {"view", ad.view == AdditiveView::trained ? "trained" : "untrained"},
              {"sentence", ad.trained_input.sentence},
              {"feed", feed_name(ad.trained_input.feed)}});
}
}  // namespace

Json additive_inputs_json(const AppState& s) {
  Json in = additive_inputs_only(s);
  in["step"] = s.additive.step;  // a link also carries the step spelled out
  in["trained_step"] = s.additive.trained_step;
  return in;
}

Json additive_state_json(const AppState& s) {
  const AdditiveState& ad = s.additive;
  Json additive_checks = Json::array();
  for (const attn::Check& k : ad.result.checks) additive_checks.push_back(attn::to_json(k));
  if (ad.step >= 0 && ad.step < static_cast<int>(ad.result.steps.size())) {
    const attn::AdditiveDecoderStep& st = ad.result.steps[static_cast<size_t>(ad.step)];
    for (const attn::Check& k : st.attention_checks) additive_checks.push_back(attn::to_json(k));
    for (const attn::Check& k : st.comparison_checks) additive_checks.push_back(attn::to_json(k));
  }
  Json r = attn::to_json(ad.result);
  r["checks_shown"] = additive_checks;
  Json trained{{"step", ad.trained_step}, {"status", ad.trained_status}, {"pending", additive_pending(s)}};
  if (ad.trained) {
    const AdditiveTrained& t = *ad.trained;
    trained["source"] = t.from_checkpoint ? "checkpoint" : "trained here";
    trained["model_step"] = t.model_step;
    trained["steps"] = t.walk.steps.size();
    trained["target_words"] = t.walk.steps[0].target_words;
    trained["alignment"] = attn::to_json(t.walk.alignment);
    const tl::TrainedAdditiveStep& st = t.walk.steps[static_cast<size_t>(ad.trained_step)];
    trained["result"] = attn::to_json(st, ad.trained_input.feed);
    trained["checks_shown"] = attn::to_json(st.checks);
  } else {
    trained["result"] = nullptr;
  }
  return ::attn::obj({{"inputs", additive_inputs_only(s)}, {"step", ad.step},           {"result", std::move(r)},
              {"view", ad.view == AdditiveView::trained ? "trained" : "untrained"}, {"trained", std::move(trained)},
              {"error", error_value(ad.error)}});
}

bool apply_additive_json(AppState& s, const Json& patch) {
  AdditiveState& a = s.additive;
  attn::AdditiveDecoderInput in = a.input;
  tl::TrainedAdditiveInput tin = a.trained_input;
  bool recompute = false, has_step = false, retrain = false, has_trained_step = false;
  std::optional<AdditiveView> view;
  int step = 0, trained_step = 0;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "source")
      in.source = get_string(v, "source"), a.source_text = in.source, recompute = true;
    else if (k == "target")
      in.target = get_string(v, "target"), a.target_text = in.target, recompute = true;
    else if (k == "seed")
      in.seed = get_lesson_seed(v), recompute = true;
    else if (k == "d_h")
      in.d_h = get_int(v, "d_h", -1000000, 1000000), recompute = true;
    else if (k == "d_s")
      in.d_s = get_int(v, "d_s", -1000000, 1000000), recompute = true;
    else if (k == "d_a")
      in.d_a = get_int(v, "d_a", -1000000, 1000000), recompute = true;
    else if (k == "step")
      step = get_int(v, "step", -1000000, 1000000), has_step = true;
    else if (k == "view") {
      const std::string w = get_string(v, "view");
      if (w == "untrained") view = AdditiveView::untrained;
      else if (w == "trained") view = AdditiveView::trained;
      else refuse("view must be \"untrained\" or \"trained\"");
    } else if (k == "sentence")
      tin.sentence = get_string(v, "sentence"), retrain = true;
    else if (k == "feed") {
      const std::string w = get_string(v, "feed");
      if (w == "teacher_forced") tin.feed = tl::DecoderFeed::teacher_forced;
      else if (w == "greedy") tin.feed = tl::DecoderFeed::greedy;
      else refuse("feed must be \"teacher_forced\" or \"greedy\"");
      retrain = true;
    } else if (k == "trained_step")
      trained_step = get_int(v, "trained_step", -1000000, 1000000), has_trained_step = true;
    else
      refuse("unknown additive input '" + k + "'");
  });
  if (recompute && !set_additive_input(s, in)) return false;
  if (has_step) set_additive_step(s, step);
  if (view) set_additive_view(s, *view);
  if (retrain && !set_additive_trained_input(s, tin)) return false;
  if (has_trained_step) set_additive_trained_step(s, trained_step);
  return true;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

// A labelled vector as lines of numbers, as many per line as fit the width, each padded to one
// width so the lines line up as columns.
void number_lines(const char* label, const attn::Vector& v, ImFont* font) {
  ImGui::PushFont(font);
  ImGui::TextUnformatted(label);
  const float cell = ImGui::CalcTextSize("-0.0000 ").x;
  const int per_line = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / cell));
  for (attn::Index i = 0; i < v.size(); i += per_line) {
    std::string line;
    for (attn::Index k = i; k < std::min<attn::Index>(v.size(), i + per_line); ++k) {
      std::string n = short_number(v(k), 3);
      line += n + std::string(n.size() < 7 ? 7 - n.size() : 0, ' ') + " ";
    }
    ImGui::TextUnformatted(line.c_str());
  }
  ImGui::PopFont();
}

// "Weights per step" under its heading, the current step's row outlined; both views draw it.
// Returns the row clicked this frame, or -1.
int step_weights_map(const char* id, const attn::Matrix& alignment, const std::vector<std::string>& target_words,
                     const std::vector<std::string>& source_words, int step, float width, Ui& ui) {
  style::heading(ui.fonts, "Weights per step (rows: target, columns: source)");
  HeatmapSpec spec = numbered_spec(alignment, target_words, source_words, generation(), width, 64.0f);
  spec.selected_row = step;
  spec.row_axis = "target step";
  spec.col_axis = "source word";
  return heatmap(id, spec, ui.gpu).clicked_row;
}

// The trained view: the Translate panel's attention translator read at one target step. Draws
// a.trained as computed by the setters and tick_additive; computes nothing.
void draw_additive_trained(AppState& s, Ui& ui) {
  AdditiveState& a = s.additive;
  const float fs = ImGui::GetFontSize();
  txt::para(
      "The Translate panel's GRU translator with Bahdanau attention, trained on its mini-language. Here h_j are "
      "its encoder's annotations for the sentence, s is its decoder's state before this step, and W_s, W_h, b and v_a "
      "are its learned attention parameters: e_j = v_a^T tanh(W_s s + W_h h_j + b) (Bahdanau et al. 2015, "
      "eq. 6), a_j = softmax_j(e_j), c = \xCE\xA3 a_j h_j.");
  style::error_box(a.error);

  // --- inputs
  tl::TrainedAdditiveInput in = a.trained_input;
  bool changed = false;
  const char* const sentence_label = "English sentence";
  ImGui::SetNextItemWidth(std::min(fs * 22.0f, ImGui::GetContentRegionAvail().x -
                                                   widgets::labeled_width(0.0f, sentence_label)));
  if (ImGui::InputText(sentence_label, &a.trained_sentence_text)) in.sentence = a.trained_sentence_text, changed = true;
  if (ImGui::RadioButton("teacher forced (the reference)", in.feed == tl::DecoderFeed::teacher_forced))
    in.feed = tl::DecoderFeed::teacher_forced, changed = true;
  widgets::same_line_if_fits(widgets::check_width("greedy (its own words)"));
  if (ImGui::RadioButton("greedy (its own words)", in.feed == tl::DecoderFeed::greedy))
    in.feed = tl::DecoderFeed::greedy, changed = true;
  if (changed) set_additive_trained_input(s, in);

  if (!a.trained) {
    ImGui::PushFont(ui.fonts.bold);
    txt::para(a.trained_status.empty() ? kLoadingTranslator : a.trained_status.c_str());
    ImGui::PopFont();
    return;
  }
  const AdditiveTrained& t = *a.trained;
  txt::note((std::string("Model: ") +
             (t.from_checkpoint ? "the shipped checkpoint of the Translate panel (step " + std::to_string(t.model_step) + ")"
                                : "trained in the Translate panel, step " + std::to_string(t.model_step)) +
             (in.feed == tl::DecoderFeed::teacher_forced
                  ? ". Teacher forcing: each step is fed the reference translation's previous word."
                  : ". Greedy: each step is fed the model's own previous choice."))
                .c_str());

  const int tq = static_cast<int>(t.walk.steps.size());
  const int step = a.trained_step;
  const tl::TrainedAdditiveStep& st = t.walk.steps[static_cast<size_t>(step)];
  ImGui::BeginDisabled(step <= 0);
  if (ImGui::Button("< previous step##trained")) set_additive_trained_step(s, step - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(step >= tq - 1);
  if (ImGui::Button("next step >##trained")) set_additive_trained_step(s, step + 1);
  ImGui::EndDisabled();
  const std::string step_text = "step " + std::to_string(step + 1) + " of " + std::to_string(tq) + ": fed \"" +
                                st.previous_word + "\", emitting \"" + st.target_word + "\"";
  ImGui::PushFont(ui.fonts.bold);
  widgets::same_line_if_fits(ImGui::CalcTextSize(step_text.c_str()).x, fs);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(step_text.c_str());
  ImGui::PopFont();
  txt::note(("The model's most likely word here: \"" + st.model_word + "\" (p = " +
             short_number(st.model_probability, 4) + ").")
                .c_str());

  const txt::TwoColumns cols = txt::two_columns(0.45f);
  txt::begin_column(cols.left_w);
  const int clicked =
      step_weights_map("trained_alignment", t.walk.alignment, st.target_words, st.source_words, step, cols.left_w, ui);
  if (clicked >= 0) set_additive_trained_step(s, clicked);
  ImGui::TextDisabled("Click a row to jump to that step.");
  cols.to_right();
  const attn::AdditiveResult& ar = st.attention;
  style::heading(ui.fonts, ("Step " + std::to_string(step + 1) + " in numbers").c_str());
  // (A phone's column is narrower than the four columns' numbers: the table then scrolls sideways.)
  if (widgets::begin_table_fit("##trained_step", 4,
                               ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp,
                               cols.right_w, static_cast<int>(ar.weights.size()) + 1)) {
    widgets::stretch_columns({{"source j", 1.0f}, {"score e_j", 1.0f}, {"weight a_j", 1.0f}, {"model's own a_j", 1.2f}});
    for (attn::Index j = 0; j < ar.weights.size(); ++j)
      widgets::text_row({st.source_words[static_cast<size_t>(j)], short_number(ar.scores(j), 4),
                         short_number(ar.weights(j), 4), short_number(st.model_weights(j), 4)});
    widgets::end_table_fit();
  }
  txt::note("\"model's own a_j\": the weights the translator's decoder step computes inside its own pass; the "
            "weights a_j are recomputed here from its parameters, and the last check compares the two.");
  style::check_lines(st.checks);
  txt::end_column(cols.right_w);

  // Full width: 32 or 64 annotation units need the room.
  style::heading(ui.fonts, "Encoder annotations h_j");
  txt::note(st.encoder_states.cols() == 2 * st.state.size()
                ? "Rows: source words; columns: the annotation's units, the forward GRU's state then the backward "
                  "GRU's (a bidirectional encoder)."
                : "Rows: source words; columns: the encoder's hidden units.");
  HeatmapSpec hs;
  hs.values = &st.encoder_states;
  hs.row_labels = &st.source_words;
  hs.vmin = -1.0;
  hs.vmax = 1.0;
  hs.map = ColorMap::sunset;  // signed states
  hs.value_name = "h";
  hs.row_axis = "source word";
  hs.col_axis = "annotation unit";
  hs.version = generation();
  hs.legend = true;
  hs.max_cell = 28.0f;
  heatmap("trained_states", hs, ui.gpu);
  txt::note("GRU states lie in (-1, 1). These are the trained encoder's outputs for this sentence, the rows the "
            "Translate panel's alignment reads; hover a cell for its value.");
  number_lines(("decoder state s before this step (" + std::to_string(st.state.size()) + " numbers)").c_str(),
               st.state, ui.fonts.body);
  number_lines("context c = \xCE\xA3 a_j h_j", ar.context, ui.fonts.bold);
}

}  // namespace

void draw_additive_panel(AppState& s, Ui& ui) {
  AdditiveState& a = s.additive;
  const attn::AdditiveDecoderDemo& r = a.result;
  const float fs = ImGui::GetFontSize();

  txt::para("Try: step through the target words. Notice which source word each step reads, and that each step "
            "needs the one before.");
  style::details("How the scores are made", [] {
    txt::para(
        "Bahdanau, Cho and Bengio (2015) let an RNN decoder look back at every encoder state h_j instead of one "
        "final summary. At each step the previous decoder state s scores each source position, "
        "e_j = v_a^T tanh(W_s s + W_h h_j + b); a softmax over the valid positions gives weights a_j; the context "
        "c = \xCE\xA3 a_j h_j feeds the next step. The decoder itself stays sequential: one step per target word.");
  });
  // --- which states: seeded draws or the trained translator
  // The trained choice's whole label when it fits the width, else a short one with the rest
  // wrapped under it (phones); one ImGui id either way.
  const char* const trained_label = "trained translator (Translate panel's attention model)###trained_view";
  if (widgets::wrapped_radio("untrained (random encoder states)", a.view == AdditiveView::untrained))
    set_additive_view(s, AdditiveView::untrained);
  const bool whole = ImGui::GetContentRegionAvail().x >= widgets::check_width(trained_label);
  widgets::same_line_if_fits(widgets::check_width(whole ? trained_label : "trained translator###trained_view"), fs);
  if (ImGui::RadioButton(whole ? trained_label : "trained translator###trained_view", a.view == AdditiveView::trained))
    set_additive_view(s, AdditiveView::trained);
  if (!whole) txt::note("(the Translate panel's attention model)");
  if (a.view == AdditiveView::trained) {
    draw_additive_trained(s, ui);
    draw_recall_strip(s, ui, "additive");
    return;
  }
  txt::para(
      "In this view the \"encoder states\" h_j are random draws (seeded normal numbers), not the output of a "
      "trained encoder, and every weight matrix is random too.");
  txt::note(("Note: " + r.note + ".").c_str());
  style::error_box(a.error);

  // --- inputs
  attn::AdditiveDecoderInput in = a.input;
  bool changed = false;
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 11.0f, "source"));
  if (ImGui::InputText("source", &a.source_text)) in.source = a.source_text, changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 11.0f, "target"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 11.0f, "target"));
  if (ImGui::InputText("target", &a.target_text)) in.target = a.target_text, changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 6.5f, "seed"), fs);
  ImGui::SetNextItemWidth(fs * 6.5f);
  std::uint64_t seed = in.seed;
  const std::uint64_t one = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &one, nullptr, "%llu")) in.seed = seed, changed = true;
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.5f, "d_h"));
  if (ImGui::InputInt("d_h", &in.d_h)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 5.5f, "d_s"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.5f, "d_s"));
  if (ImGui::InputInt("d_s", &in.d_s)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 5.5f, "d_a"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.5f, "d_a"));
  if (ImGui::InputInt("d_a", &in.d_a)) changed = true;
  widgets::dim_after("(the comparison of scores needs d_s = d_h)", fs);
  if (changed) set_additive_input(s, in);

  const int tq = static_cast<int>(r.steps.size());
  const int step = a.step;
  // --- stepping
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
  ImGui::BeginDisabled(step <= 0);
  if (ImGui::Button("< previous step")) set_additive_step(s, step - 1);
  ImGui::EndDisabled();
  widgets::same_line_if_fits(widgets::button_width("next step >"), -1.0f);
  ImGui::BeginDisabled(step >= tq - 1);
  if (ImGui::Button("next step >")) set_additive_step(s, step + 1);
  ImGui::EndDisabled();
  ImGui::SameLine(0, fs);
  if (step >= 0 && step < tq) {
    ImGui::AlignTextToFramePadding();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::Text("step %d of %d: emitting \"%s\"", step + 1, tq,
                r.steps[static_cast<size_t>(step)].target_token.c_str());
    ImGui::PopFont();
  }

  const txt::TwoColumns cols = txt::two_columns(0.45f);
  const float left_w = cols.left_w, right_w = cols.right_w;

  txt::begin_column(left_w);
  const int clicked = step_weights_map("alignment", r.alignment, r.target_tokens, r.source_tokens, step, left_w, ui);
  if (clicked >= 0) set_additive_step(s, clicked);
  widgets::dim_wrapped("Click a row to jump to that step.");
  style::heading(ui.fonts, "One step");
  txt::para("1. The previous decoder state s scores every source state h_j (additive score e_j).");
  txt::para("2. A softmax over the valid source positions turns the scores into weights a_j.");
  txt::para("3. The context c = \xCE\xA3 a_j h_j is a blend of the source states.");
  txt::para("4. The next state comes from s, the emitted word and c: s' = tanh(A s + B y + C c), a stand-in "
            "recurrence here (teacher forcing: the target word is given).");
  txt::note("The decoder stays sequential: each step needs the state of the one before. Within a step, the scores "
            "of all source positions can be computed together.");
  cols.to_right();
  if (step >= 0 && step < tq) {
    const attn::AdditiveDecoderStep& st = r.steps[static_cast<size_t>(step)];
    const attn::AdditiveResult& ar = st.attention;
    style::heading(ui.fonts, ("Step " + std::to_string(step + 1) + " in numbers").c_str());
    txt::para(("decoder state s = " + txt::vec_text(st.state, 3)).c_str());
    if (widgets::begin_table_fit("##step", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp, right_w, static_cast<int>(ar.weights.size()) + 1)) {
      widgets::stretch_columns({{"source j", 1.0f}, {"score e_j", 1.0f}, {"weight a_j", 1.0f}, {"h_j", 2.6f}});
      for (attn::Index j = 0; j < ar.weights.size(); ++j) {
        const size_t u = static_cast<size_t>(j);
        const bool valid = u >= ar.key_valid.size() || ar.key_valid[u];
        widgets::text_row({u < r.source_tokens.size() ? r.source_tokens[u] : "?",
                           valid ? short_number(ar.scores(j), 4) : "padding", short_number(ar.weights(j), 4),
                           txt::vec_text(r.encoder_states.row(j).transpose(), 3)});
      }
      widgets::end_table_fit();
    }
    ImGui::PushFont(ui.fonts.bold);
    txt::para(("context c = \xCE\xA3 a_j h_j = " + txt::vec_text(ar.context, 3)).c_str());
    ImGui::PopFont();

    style::heading(ui.fonts, "Four scores on the same states");
    const attn::ScoringComparison& cmp = st.comparison;
    if (cmp.weights.rows() > 0) {
      HeatmapSpec c = numbered_spec(cmp.weights, cmp.names, r.source_tokens, generation(), right_w, 56.0f);
      c.row_axis = "score";
      c.col_axis = "source word";
      c.legend = false;
      heatmap("comparison", c, ui.gpu);
      txt::note(
          "dot: s\xC2\xB7h_j.  scaled dot: s\xC2\xB7h_j/\xE2\x88\x9A"
          "d (Vaswani et al. 2017).  general: s^T W h_j "
          "(Luong et al. 2015).  additive: Bahdanau's e_j. Same states, different weights: the scoring "
          "function is a modelling choice, and none of these is trained here.");
      style::check_lines(st.comparison_checks);
    } else {
      txt::note("The comparison needs d_s = d_h (dot products of s with h_j).");
    }
    style::check_lines(st.attention_checks);
  }
  txt::end_column(right_w);

  draw_checks_and_recall(s, ui, r.checks, "additive");
}

namespace {
// The trained view reads the Translate panel's attention model: while it is on screen, the
// Translate state is built if missing and its checkpoint fetched exactly as when the Translate
// panel opens, then the read follows the model.
void additive_wants_translator(AppState& s, bool shown) {
  if (!shown || s.additive.view != AdditiveView::trained) return;
  open_translator(s);
  request_translator_checkpoint(s);
}
}  // namespace

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"additive", "Additive", "Bahdanau's scores, stepped", "Additive attention (Bahdanau et al. 2015)",
    additive_state_json, apply_additive_json, error_of<&AppState::additive>,
    additive_inputs_json, draw_additive_panel,
    [](AppState& s, bool now) {
      if (!now) return;  // inside a frame the tick below does it before the next one is drawn
      additive_wants_translator(s, true);
      tick_additive(s);
    },
    [](AppState& s, bool shown) {
      additive_wants_translator(s, shown);
      if (shown) tick_additive(s);
    },
    [](const AppState& s) { return s.panel == panel_index("additive") && additive_pending(s); }};
const PanelDef& additive_panel() { return kPanel; }

}  // namespace app
