// The Language model panel's drawing: the figure first (the enlarged head beside the next
// tokens, then every head's map), details collapsed. It draws LanguageModelState and calls its
// setters (language_model.cpp); nothing here computes.
#include "panels/language_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "panels/ui.hpp"  // imgui.h first: imgui_stdlib.h needs it
#include "panels/lesson_ui.hpp"
#include "panels/lm_link.hpp"
#include "panels/generation.hpp"
#include "widgets/plots.hpp"
#include "widgets/slider.hpp"

namespace app {

using attn::Json;
namespace lm = attn::lessons::lm;

namespace {

void draw_model_line(LanguageModelState& m) {
  const float fs = ImGui::GetFontSize();
  if (lm_holds_model(m)) {
    const Json& c = m.info["config"];
    const std::string line = "Model: " + m.model_name + " \xC2\xB7 " + std::to_string(c.value("layers", 0)) + " layers \xC3\x97 " +
                             std::to_string(c.value("heads", 0)) + " heads, d_model " + std::to_string(c.value("d_model", 0)) +
                             ", vocabulary " + std::to_string(c.value("vocab", 0)) + ", context " +
                             std::to_string(c.value("context", 0)) + " \xC2\xB7 " +
                             grouped_number(m.info.value("params", std::uint64_t{0})) + " parameters (" + m.info.value("layout", "") + ")";
    txt::note(line.c_str());
  }
  if (m.load_id) {
    const lm_link::Progress p = lm_link::progress(m.load_id);
    const std::string what = "Loading " + m.loading_name + ": " + byte_size(static_cast<std::uint64_t>(p.loaded)) +
                             (p.total > 0 ? " of " + byte_size(static_cast<std::uint64_t>(p.total)) : std::string());
    ImGui::ProgressBar(p.total > 0 ? static_cast<float>(p.loaded / p.total) : 0.0f, ImVec2(widgets::fit_width(fs * 24), 0), "");
    ImGui::SameLine();
    ImGui::TextUnformatted(what.c_str());
  } else if (!lm_holds_model(m)) {
    txt::para("No model is loaded yet. Load a GPT-2-family file (safetensors with its config.json) under "
              "\"Bring your own GPT-2\".");
  }
}

// The desktop window reads files by path (no file picker): a safetensors file and its config.json.
void draw_own_model(LanguageModelState& m) {
  txt::para("A GPT-2-family safetensors file (transformers' or nanoGPT's names, up to GPT-2 medium) with its "
            "config.json: type both paths, absolute or relative to the lab's source folder. The file is read "
            "tensor by tensor and checked; the model shown stays if it is refused.");
  const float w = widgets::fit_labeled(ImGui::GetContentRegionAvail().x, "config.json");
  ImGui::SetNextItemWidth(w);
  ImGui::InputText("model file", &m.model_path_text);
  ImGui::SetNextItemWidth(w);
  ImGui::InputText("config.json", &m.config_path_text);
  ImGui::BeginDisabled(m.model_path_text.empty() || m.load_id != 0);
  if (ImGui::Button("Load")) lm_load_url(m, m.model_path_text, m.config_path_text, "file");
  ImGui::EndDisabled();
}

void draw_tokens(const LmView& v) {
  if (v.tokens.empty()) return;
  const float fs = ImGui::GetFontSize();
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(fs * 0.3f, fs * 0.3f));
  for (std::size_t i = 0; i < v.tokens.size(); ++i) {
    const std::string piece = i < v.pieces.size() ? style::shown_text(v.pieces[i]) : (i < v.texts.size() ? v.texts[i] : "");
    const std::string id = i < v.pieces.size() ? std::to_string(v.tokens[i]) : "";  // ids alone: "#3" says it
    const float w = std::max(ImGui::CalcTextSize(piece.c_str()).x, ImGui::CalcTextSize(id.c_str()).x) + fs * 0.6f;
    if (i) widgets::same_line_if_fits(w);
    ImGui::BeginGroup();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(p0, ImVec2(p0.x + w, p0.y + fs * 2.4f), IM_COL32(236, 242, 250, 255), 4.0f);
    ImGui::SetCursorScreenPos(ImVec2(p0.x + fs * 0.3f, p0.y + fs * 0.1f));
    ImGui::TextUnformatted(piece.c_str());
    ImGui::SetCursorScreenPos(ImVec2(p0.x + fs * 0.3f, p0.y + fs * 1.2f));
    ImGui::TextDisabled("%s", id.c_str());
    ImGui::SetCursorScreenPos(p0);
    ImGui::Dummy(ImVec2(w, fs * 2.4f));
    ImGui::EndGroup();
  }
  ImGui::PopStyleVar();
}

void draw_next(const LmView& v, float width) {
  if (v.top.empty()) return;
  std::vector<std::string> labels;
  std::vector<double> probs;
  for (const Json& row : v.top) {
    labels.push_back(style::shown_text(row.value("text", "#" + std::to_string(row.value("id", 0)))) + "  (" +
                     std::to_string(row.value("id", 0)) + ")");
    probs.push_back(row.value("prob", 0.0));
  }
  plot::bar_table("next token", labels, {plot::BarColumn{"probability", probs, 1.0, style::accent_u32()}}, width);
}

// Every layer × head map, small; a click picks the one enlarged.
void draw_grid(LanguageModelState& m, float width, Ui& ui) {
  const LmView& v = m.view;
  const float fs = ImGui::GetFontSize();
  const float gap = fs * 0.4f;
  int cols = std::max(1, v.heads);
  while (cols > 1 && (width - gap * (cols - 1)) / cols < fs * 3.0f) cols = (cols + 1) / 2;
  const float cell_w = std::floor((width - gap * (cols - 1)) / cols);
  ImGui::PushID("grid");
  for (int k = 0; k < static_cast<int>(v.maps.size()); ++k) {
    if (k % cols != 0) ImGui::SameLine(0, gap);
    const int l = k / std::max(1, v.heads), h = k % std::max(1, v.heads);
    ImGui::BeginGroup();
    const bool picked = l == m.layer && h == m.head;
    ImGui::PushFont(ui.fonts.small);
    std::string label = lm::head_label(l, h);
    // The enlarged head says so where its cell has room; the accent colour marks it either way.
    if (picked && ImGui::CalcTextSize((label + " (enlarged)").c_str()).x <= cell_w) label += " (enlarged)";
    ImGui::TextColored(picked ? ImVec4(0.12f, 0.44f, 0.70f, 1.0f) : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), "%s",
                       label.c_str());
    ImGui::PopFont();
    HeatmapSpec spec;
    spec.values = &v.maps[static_cast<std::size_t>(k)];
    spec.allowed = &v.allowed;
    spec.version = v.version;
    spec.legend = false;
    spec.width = cell_w;
    spec.max_cell = 8.0f;
    ImGui::PushID(k);
    const HeatmapEvent e = heatmap(("lm " + lm::head_label(l, h)).c_str(), spec, ui.gpu);
    ImGui::PopID();
    if (e.clicked_row >= 0) lm_select(m, l, h, e.clicked_row);
    ImGui::Dummy(ImVec2(cell_w, 0));
    ImGui::EndGroup();
  }
  ImGui::PopID();
}

void draw_enlarged(LanguageModelState& m, float width, Ui& ui) {
  const LmView& v = m.view;
  const std::size_t k = static_cast<std::size_t>(m.layer * v.heads + m.head);
  if (k >= v.maps.size()) return;
  style::heading(ui.fonts, ("Head " + lm::head_label(m.layer, m.head) + ": where each query reads").c_str());
  HeatmapSpec spec = numbered_spec(v.maps[k], v.labels, v.labels, v.version, width, 30.0f);
  spec.allowed = &v.allowed;
  spec.numbers = v.t <= 12;
  spec.selected_row = m.query >= 0 && m.query < v.t ? m.query : v.t - 1;
  const HeatmapEvent e = heatmap("lm enlarged", spec, ui.gpu);
  if (e.clicked_row >= 0) lm_select(m, m.layer, m.head, e.clicked_row);
  txt::para((m.trace + " Click a row to trace another query.").c_str());
  const LmContribution& c = m.contribution;
  if (c.keys.empty() || c.layer != m.layer || c.head != m.head || c.query != (m.query >= 0 ? m.query : v.t - 1)) return;
  style::details("Weight vs contribution", [&] {
    plot::bar_table("lm contribution", c.shown_labels,
                    {plot::BarColumn{"weight a_qj", c.shown_weights, 1.0, style::accent_u32()},
                     plot::BarColumn{"\xE2\x80\x96" "a_qj W_O v_j\xE2\x80\x96", c.shown_norms, c.max_norm, IM_COL32(214, 120, 20, 255)}},
                    width, 0);
    txt::para(c.caption.c_str());
    txt::note("The second column is what key j adds to the head's output after the output projection (Kobayashi "
              "et al. 2020): a large weight on a value the projection shrinks adds little.");
  });
}

void draw_generation(LanguageModelState& m) {
  const float fs = ImGui::GetFontSize();
  if (widgets::int_field("steps", &m.steps, fs * 7)) m.steps = std::clamp(m.steps, 1, kLmMaxSteps);
  widgets::same_line_if_fits(widgets::labeled_width(fs * 8, "temperature"), fs);
  float tau = static_cast<float>(m.temperature);
  ImGui::SetNextItemWidth(fs * 8);
  if (widgets::slider_float("temperature", &tau, 0.0f, 2.0f, "%.2f")) m.temperature = tau;
  widgets::seed_field(m.seed, fs * 8);
  widgets::same_line_if_fits(widgets::button_width("Generate"), fs);
  ImGui::BeginDisabled(m.generate_id != 0 || !lm_holds_model(m));
  if (ImGui::Button("Generate")) lm_generate(m);
  ImGui::EndDisabled();
  txt::note(m.temperature > 0.0 ? "Drawn at this temperature from the seed: the same seed gives the same tokens."
                                 : "Greedy: each step takes the most probable token (ties to the lowest id).");
  if (m.generation.is_object() && m.generation.contains("text")) {
    const std::string out = "\xE2\x80\xA6" + style::shown_text(m.generation["text"].get<std::string>());
    txt::para(out.c_str());
    txt::note("Each new token reuses the keys and values cached for the earlier ones (the K/V cache); only the "
              "new query is computed. No <|endoftext|> is put before the prompt, and generation stops at one.");
  }
}

}  // namespace

void draw_language_model_panel(LanguageModelState& m, Ui& ui) {
  txt::para("Try: type a prompt. Notice which earlier tokens each head reads, and what the model expects next.");
  style::error_box(m.error);
  draw_model_line(m);

  ImGui::SetNextItemWidth(widgets::fit_labeled(ImGui::GetContentRegionAvail().x, "prompt"));
  if (ImGui::InputText("prompt", &m.prompt_text, ImGuiInputTextFlags_EnterReturnsTrue) ||
      (ImGui::IsItemDeactivatedAfterEdit() && m.prompt_text != m.prompt)) {
    const bool ids_before = m.ids_prompt;
    m.ids_prompt = !lm_uses_gpt2_pieces(m) && lm_holds_model(m);  // typed text goes to GPT-2's tokenizer where it can
    if (!lm_set_prompt(m, m.prompt_text)) m.ids_prompt = ids_before;
  }
  draw_tokens(m.view);
  if (!m.dropped.empty()) txt::note(m.dropped.c_str());
  if (m.view.maps.empty()) {  // no figures yet (or a refused load or prompt): a model can still be loaded
    style::details("Bring your own GPT-2", [&] { draw_own_model(m); });
    return;
  }

  const txt::TwoColumns cols = txt::two_columns(0.5f);
  txt::begin_column(cols.left_w);
  draw_enlarged(m, cols.left_w, ui);
  cols.to_right();
  style::heading(ui.fonts, "Next token");
  draw_next(m.view, cols.right_w);
  txt::note(m.view.next_caption.c_str());
  txt::end_column(cols.right_w);

  style::heading(ui.fonts, "Every layer \xC3\x97 head (click one)");
  draw_grid(m, ImGui::GetContentRegionAvail().x, ui);
  txt::para(m.view.heads_caption.c_str());

  if (!m.card_caption.empty()) txt::note(m.card_caption.c_str());
  style::details("Generate", [&] { draw_generation(m); });
  style::details("Head scores table", [&] {
    std::vector<std::string> labels;
    std::vector<double> prev, first, ind;
    for (const lm::HeadScore& h : m.view.scores) {
      labels.push_back(lm::head_label(h.layer, h.head));
      prev.push_back(h.previous_token);
      first.push_back(h.first_token);
      ind.push_back(h.induction);
    }
    plot::bar_table("head scores", labels,
                    {plot::BarColumn{"previous token", prev, 1.0, style::accent_u32()},
                     plot::BarColumn{"first token", first, 1.0, IM_COL32(60, 140, 110, 255)},
                     plot::BarColumn{"induction", ind, 1.0, IM_COL32(120, 90, 170, 255)}},
                    ImGui::GetContentRegionAvail().x);
    txt::note("Previous token: mean weight on the key just before each query. First token: mean weight on key 0. "
              "Induction: on 20 random tokens repeated once, mean weight on the key after the earlier copy of the "
              "query's token (Olsson et al. 2022).");
  });
  style::details("Ablate each head", [&] {
    txt::para("A weight says where a head reads; ablation measures what the prediction loses without it. Each "
              "head alone is zeroed, or set to its mean output over the prompt, and the loss of every next token "
              "of the prompt is measured again.");
    ImGui::BeginDisabled(m.ablation_id != 0 || !lm_holds_model(m) || m.view.tokens.size() < 2);
    if (ImGui::Button(m.ablation_id != 0 ? "Ablating..." : "Ablate each head")) lm_ablate(m);
    ImGui::EndDisabled();
    if (m.ablation_caption.empty()) return;
    std::vector<std::string> labels;
    std::vector<double> zero, mean;
    for (const lm::HeadScore& h : m.view.scores) {
      labels.push_back(lm::head_label(h.layer, h.head));
      zero.push_back(h.zero_ablation);
      mean.push_back(h.mean_ablation);
    }
    plot::bar_table("head ablation", labels,
                    {plot::BarColumn{"\xCE\x94loss, zeroed", zero, m.ablation_max, IM_COL32(214, 120, 20, 255)},
                     plot::BarColumn{"\xCE\x94loss, mean", mean, m.ablation_max, IM_COL32(150, 110, 60, 255)}},
                    ImGui::GetContentRegionAvail().x);
    txt::para(m.ablation_caption.c_str());
  });
  style::details("Bring your own GPT-2", [&] { draw_own_model(m); });
}

}  // namespace app
