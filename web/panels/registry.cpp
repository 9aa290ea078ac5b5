#include "panels/registry.hpp"

#include "page/api.hpp"
#include "panels/cost.hpp"
#include "panels/learned_heads.hpp"
#include "panels/translate.hpp"

namespace app {

namespace {

using attn::Json;

// Error slots, one per panel.
template <typename F>
constexpr auto slot(F f) { return f; }

void learned_heads_tick(AppState& s, bool shown) {
  // The training slice (a time budget of Adam steps), before anything is drawn: the frame then
  // draws the state as it stands (panels/learned_heads.hpp).
  tick_learned_heads(s);
  if (learned_heads_wants_checkpoint(s, shown)) {  // fetched when the panel first opens, not with the page
    learned_heads_checkpoint_requested(s);
    fetch_checkpoint(kLearnedHeadsCheckpointUrl);
  }
}

void translate_tick(AppState& s, bool shown) {
  // The training slice before anything is drawn (panels/translate.hpp).
  if (shown) ensure_translate(s);  // built on first show, never at page start
  tick_translate(s);
  if (translate_wants_checkpoint(s, shown)) {  // fetched when the panel first opens, not with the page
    translate_checkpoint_requested(s);
    fetch_checkpoint(kTranslateCheckpointUrl);
  }
}

// The Additive panel's trained view reads the Translate panel's attention model: while it is on
// screen, the Translate state is built if missing and the shipped checkpoint fetched exactly as
// when the Translate panel opens (translate_wants_checkpoint), then the read follows the model.
void additive_wants_translator(AppState& s, bool shown) {
  if (!shown || s.additive.view != AdditiveView::trained) return;
  ensure_translate(s);
  if (translate_wants_checkpoint(s, true)) {
    translate_checkpoint_requested(s);
    fetch_checkpoint(kTranslateCheckpointUrl);
  }
}

std::vector<PanelDef>& table() {
  static std::vector<PanelDef> t = {
      {"alignment", "1", "Alignment", "a constructed cross-read", "Alignment: a soft read of the source",
       alignment_state_json, apply_alignment_json, [](AppState& s) { return &s.alignment.error; },
       alignment_link_inputs, draw_alignment_panel},
      {"heads", "2", "Random-init heads", "routing, nothing learned", "Random-init heads: routing without learning",
       heads_state_json, apply_heads_json, [](AppState& s) { return &s.heads.error; }, heads_link_inputs,
       draw_heads_panel},
      {"permutation", "3", "Permutation", "order, masks, positions",
       "Permutation: what self-attention knows about order", permutation_state_json, apply_permutation_json,
       [](AppState& s) { return &s.permutation.error; }, permutation_link_inputs, draw_permutation_panel},
      {"masks", "4", "Masks", "causal, padding, empty rows", "Masks: what a query may not see", masks_state_json,
       apply_masks_json, [](AppState& s) { return &s.masks.error; }, masks_inputs_json, draw_masks_panel},
      {"attribution", "5", "Attribution", "weight is not contribution",
       "Attribution: a large weight is not a large effect", attribution_state_json, apply_attribution_json,
       [](AppState& s) { return &s.attribution.error; }, attribution_inputs_json, draw_attribution_panel},
      {"scaling", "6", "Scaling", "why divide by \xE2\x88\x9A" "d_k",
       "Scaling: why scores are divided by \xE2\x88\x9A" "d_k", scaling_state_json, apply_scaling_json,
       [](AppState& s) { return &s.scaling.error; }, scaling_inputs_json, draw_scaling_panel,
       show_scaling_panel, [](AppState& s, bool) { tick_scaling(s); },
       [](const AppState& s) { return s.scaling.pending; }},
      {"temperature", "7", "Soft to hard", "temperature, argmax, hull", "Soft to hard: temperature down to argmax",
       temperature_state_json, apply_temperature_json, [](AppState& s) { return &s.temperature.error; },
       temperature_inputs_json, draw_temperature_panel},
      {"dropout", "8", "Dropout", "sampled rows, kept weights", "Dropout on attention weights", dropout_state_json,
       apply_dropout_json, [](AppState& s) { return &s.dropout.error; }, dropout_inputs_json,
       draw_dropout_panel},
      {"additive", "9", "Additive", "Bahdanau's scores, stepped", "Additive attention (Bahdanau et al. 2015)",
       additive_state_json, apply_additive_json, [](AppState& s) { return &s.additive.error; },
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
       [](const AppState& s) { return s.panel == panel_index("additive") && additive_pending(s); }},
      // The script panel's only input is its run count, which set() cannot take back: no link inputs.
      {"script", "10", "Lesson script", "torch replica, timing", "The lesson's script: replica and timing",
       script_state_json, apply_script_json, [](AppState& s) { return &s.script.error; }, nullptr,
       draw_script_panel},
      {"cost", "11", "Cost", "FLOPs, bytes, caches, kernels", "Cost: what dense attention spends", cost_state_json,
       apply_cost_json, [](AppState& s) { return &s.cost.error; }, cost_inputs_json, draw_cost_panel,
       show_cost_panel, [](AppState& s, bool) { tick_cost(s); }, [](const AppState& s) { return s.cost.pending; }},
      {"learned_heads", "12", "Learned heads", "trained here: maps, ablations", "Learned heads, trained here",
       learned_heads_state_json, apply_learned_heads_json, [](AppState& s) { return &s.learned_heads.error; },
       [](const AppState& s) { return learned_heads_inputs_json(s.learned_heads.input); },  // never the run
       draw_learned_heads_panel, nullptr, learned_heads_tick,
       [](const AppState& s) { return s.learned_heads.running || s.learned_heads.extrapolation_running; }},
      {"translate", "13", "Translate", "fixed summary vs attention", "Translate: a fixed summary against attention",
       translate_state_json, apply_translate_json, [](AppState& s) { return &s.translate.error; },
       [](const AppState& s) { return translate_inputs_json(s.translate.input); },  // never the run
       draw_translate_panel, [](AppState& s, bool) { ensure_translate(s); }, translate_tick,
       [](const AppState& s) { return s.translate.running; }},
  };
  return t;
}

}  // namespace

const std::vector<PanelDef>& panels() { return table(); }

PanelRegistration::PanelRegistration(const PanelDef& def) { table().push_back(def); }

int panel_index(const std::string& name) {
  const std::vector<PanelDef>& t = panels();
  for (size_t i = 0; i < t.size(); ++i)
    if (name == t[i].name) return static_cast<int>(i);
  return -1;
}

const PanelDef& current_panel(const AppState& s) {
  const std::vector<PanelDef>& t = panels();
  return t[s.panel >= 0 && s.panel < static_cast<int>(t.size()) ? static_cast<size_t>(s.panel) : 0];
}

const char* panel_name(int index) {
  const std::vector<PanelDef>& t = panels();
  return index >= 0 && index < static_cast<int>(t.size()) ? t[static_cast<size_t>(index)].name : t[0].name;
}

std::string panel_names_list() {
  std::string out;
  for (const PanelDef& p : panels()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

void show_panel(AppState& s, int index, bool now) {
  if (index < 0 || index >= static_cast<int>(panels().size())) return;
  s.panel = index;
  const PanelDef& p = panels()[static_cast<size_t>(index)];
  if (p.on_show) p.on_show(s, now);
}

bool show_panel(AppState& s, const std::string& name, bool now) {
  const int i = panel_index(name);
  if (i < 0) return false;
  show_panel(s, i, now);
  return true;
}

void tick_panels(AppState& s) {
  const std::vector<PanelDef>& t = panels();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].tick) t[i].tick(s, static_cast<int>(i) == s.panel);
}

bool panels_busy(const AppState& s) {
  for (const PanelDef& p : panels())
    if (p.busy && p.busy(s)) return true;
  return false;
}

}  // namespace app
