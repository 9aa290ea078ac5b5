// The lesson script panel: the model the script builds (torch's CPU generator replayed by the core,
// so seed 17 shows the matrix the script prints) and its CPU timing fixture, with its caveat.
#include "panels/script.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state

#include <algorithm>
#include <cmath>
#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_model.hpp"
#include "panels/patch.hpp"
#include "panels/lesson_ui.hpp"
#include "panels/registry.hpp"
#include "learn/json_obj.hpp"

namespace app {

// This panel's entry in the panel table (registry.cpp).
constexpr PanelDef kPanel = {"script", "Lesson script", "torch replica, timing", "The lesson's script: replica and timing",
    script_state_json, apply_script_json, error_of<&AppState::script>, nullptr, draw_script_panel};
const PanelDef& script_panel() { return kPanel; }

bool run_timing(AppState& s) {
  ScriptState& sc = s.script;
  return guarded(sc.error, [&] {
    attn::TimingFixture f = attn::timing_fixture(17);
    sc.timing = std::move(f);
    ++sc.runs;
    changed();
  });
}

void init_script(AppState& s) { run_timing(s); }

Json script_state_json(const AppState& s) {
  const ScriptState& sc = s.script;
  return ::attn::obj({{"inputs", ::attn::obj({{"runs", sc.runs}})},
              {"result",
               ::attn::obj({{"replica", attn::to_json(lesson_model())},
                {"timing", attn::to_json(sc.timing)},
                {"checks", all_checks({&lesson_model().checks, &sc.timing.checks})}})},
              {"error", error_value(sc.error)}});
}

bool apply_script_json(AppState& s, const Json& patch) {
  bool ok = true;
  each(patch, [&](const std::string& k, const Json& v) {
    if (k == "run_timing") {
      if (get_bool(v, "run_timing")) ok = ok && run_timing(s);
    } else {
      refuse("unknown script input '" + k + "'");
    }
  });
  return ok;
}

// --- drawing -------------------------------------------------------------------------------

namespace {

std::string duration(double seconds) {
  if (!(seconds >= 0)) return "-";
  if (seconds < 1e-3) return short_number(seconds * 1e6, 3) + " \xC2\xB5s";
  return short_number(seconds * 1e3, 3) + " ms";
}

}  // namespace

void draw_script_panel(AppState& s, Ui& ui) {
  ScriptState& sc = s.script;
  const attn::LessonReplica& m = lesson_model();
  const attn::TimingFixture& f = sc.timing;

  style::error_box(sc.error);
  const txt::TwoColumns cols = txt::two_columns(0.5f);
  const float left_w = cols.left_w, right_w = cols.right_w;

  // --- the replica ---------------------------------------------------------------------
  txt::begin_column(left_w);
  style::heading(ui.fonts, "The matrix the script prints");
  txt::para(
      "The script calls torch.manual_seed(17), builds nn.Embedding(6, 8) and three nn.Linear(8, 8) in float32, "
      "converts them to double and prints the attention of \"The cat sat on the mat\". The core replays "
      "torch's own CPU generator to get the same numbers: mt19937 seeded by manual_seed, its 24-bit float "
      "uniforms, normal_'s Box-Muller fill in chunks of 16, and kaiming_uniform_'s bound 1/\xE2\x88\x9A"
      "fan_in "
      "for the Linear weights.");
  HeatmapSpec spec = numbered_spec(m.attention.attention.weights, m.tokens, m.tokens, generation(), left_w, 52.0f);
  spec.allowed = &m.attention.attention.allowed;
  heatmap("replica", spec, ui.gpu);
  txt::note(
      "The tests compare every entry with the matrix torch 1.13 printed (tests/fixtures/"
      "lesson-replica-seed17.json): equal within 1e-6, natively and in the browser. Hover a cell for "
      "the exact double. Still a random initialisation: it routes, it has learned nothing.");
  if (widgets::wrapped_button("Show it in the Random-init heads panel")) {
    attn::RandomHeadsInput in;
    in.init = attn::HeadsInit::torch_replica;
    in.heads = 1;
    in.d_k = 8;
    s.heads.sentence_text = in.sentence;
    if (set_heads_input(s, in)) show_panel(s, "heads");
  }
  style::check_lines(m.checks);

  // --- the timing fixture --------------------------------------------------------------
  cols.to_right();
  style::heading(ui.fonts, "The CPU timing fixture");
  txt::para(
      ("An LSTM (PyTorch's gate layout) and the causal attention head, forward only, on T = " + std::to_string(f.t) +
       " random inputs of width d = " + std::to_string(f.d) + ": " + std::to_string(f.warmups) +
       " warm-ups, then the median of " + std::to_string(f.repeats) + " runs (" + f.clock + ").")
          .c_str());
  if (widgets::begin_table_fit("##timing", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp, right_w, 4)) {
    ImGui::TableSetupColumn("forward", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn("median", ImGuiTableColumnFlags_WidthStretch, 0.8f);
    ImGui::TableSetupColumn("the runs", ImGuiTableColumnFlags_WidthStretch, 2.5f);
    ImGui::TableHeadersRow();
    auto row = [&](const char* name, double median, const std::vector<double>& runs) {
      std::string all;
      for (size_t i = 0; i < runs.size(); ++i) all += (i ? ", " : "") + duration(runs[i]);
      widgets::text_row({name, duration(median)});
      ImGui::TableNextColumn();
      ImGui::PushTextWrapPos(0.0f);  // the list wraps in its column rather than widening the table
      ImGui::TextUnformatted(all.c_str());
      ImGui::PopTextWrapPos();
    };
    row("LSTM", f.lstm_median, f.lstm_seconds);
    row("causal attention", f.attention_median, f.attention_seconds);
    widgets::end_table_fit();
  }
  if (ImGui::Button("Run the fixture again")) run_timing(s);
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("runs so far: %d; timings change from run to run", sc.runs);
  txt::note(
      "Browsers coarsen their clocks on purpose (Chromium: 0.1 ms steps unless the page is cross-origin "
      "isolated), about the length of one run here, so in the browser these figures are mostly clock ticks.");

  widgets::caveat_box(ui.fonts.bold, "What this does not show", f.caveat.c_str(), right_w);
  txt::note(
      "A real comparison matches shapes, dtype, forward and backward work, kernels and measurement, "
      "synchronises accelerators, and judges quality separately.");
  style::check_lines(f.checks);
  txt::end_column(right_w);

  draw_recall_strip(s, ui, "timing");
}

// The script panel's only input is its run count, which set() cannot take back: no link inputs.
}  // namespace app
