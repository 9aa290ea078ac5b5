#include "app/app_state.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <utility>

#include "attn/error.hpp"
#include "json/lesson_json.hpp"
#include "attn/linalg.hpp"
#include "attn/masks.hpp"
#include "attn/tokenizer.hpp"
#include "panels/patch.hpp"
#include "panels/registry.hpp"
#include "learn/json_obj.hpp"

namespace app {

using attn::Json;
using attn::Matrix;

AppState make_default_state() {
  AppState s;
  reset_alignment(s.alignment);
  set_heads_input(s, s.heads.input);
  set_permutation_input(s.permutation, s.permutation.input);
  init_masks(s.masks);  // the lesson-claim panels, in the order their defaults were always computed
  init_attribution(s.attribution);
  init_scaling(s);
  init_temperature(s.temperature);
  init_dropout(s.dropout);
  init_additive(s);
  init_script(s);
  init_recall(s);
  attn::CostInput cost;
  cost.causal_width = 1024;  // a window shorter than the default T = 4096, so it hides something
  set_cost_input(s, cost);  // the weights map waits for show_cost_panel
  init_learned_heads(s);    // step 0 of the default run (training waits for Train)
  // The Translate panel builds its dataset and trainer on first show (ensure_translate), not here.
  return s;
}

Json state_json(const AppState& s) {
  Json out = ::attn::obj({{"panel", panel_name(s.panel)}, {"frames", s.frames}});
  for (const PanelDef& p : panels()) out[p.name] = p.state(s);
  out["recall"] = recall_state_json(s);  // the "check yourself" strips, shared by the panels
  return out;
}

Json apply_json(AppState& s, const Json& patch) {
  auto fail = [](const std::string& code, const std::string& message) {
    return ::attn::obj({{"ok", false}, {"error", ::attn::obj({{"code", code}, {"message", message}})}});
  };
  if (!patch.is_object()) return fail("invalid_field", "set() takes an object like {heads: {seed: 3}}");
  // Which panel's error to report if a setter fails.
  const std::optional<ErrorInfo>* last_error = nullptr;
  try {
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      const std::string& k = it.key();
      if (k == "panel") {
        // A panel's heavy first computation runs now: state() right after shows it complete.
        if (!it->is_string() || !show_panel(s, it->get<std::string>(), true))
          return fail("invalid_field", "panel must be one of " + panel_names_list());
        continue;
      }
      if (!it->is_object()) return fail("invalid_field", k + " takes an object of inputs");
      bool ok = true;
      if (k == "recall") {
        ok = apply_recall_json(s, *it);
        last_error = &s.recall.error;
      } else if (const int i = panel_index(k); i >= 0) {
        const PanelDef& p = panels()[static_cast<size_t>(i)];
        ok = p.apply(s, *it);
        last_error = p.error(s);
      } else {
        return fail("invalid_field", "unknown key '" + k + "' (expected panel, " + panel_names_list() + ", recall)");
      }
      if (!ok && last_error && *last_error) return fail((*last_error)->code, (*last_error)->message);
    }
  } catch (const PatchError& e) {
    return fail("invalid_field", e.message);
  } catch (const attn::Error& e) {
    return fail(e.code_name(), e.what());
  } catch (const std::exception& e) {
    return fail("internal", e.what());
  }
  return ::attn::obj({{"ok", true}});
}

void host_event(AppState& s, const attn::Json& ev) {
  if (s.host_events.size() >= kMaxHostEvents) s.host_events.erase(s.host_events.begin());
  s.host_events.push_back(ev.dump());
}

void host_trained_event(AppState& s, const char* panel, int step, const char* source) {
  host_event(s, ::attn::obj({{"type", "trained"}, {"panel", panel}, {"step", step}, {"source", source}}));
}

void apply_deferred_edits(AppState& s) {
  std::vector<std::function<void(AppState&)>> edits;
  edits.swap(s.edits);  // an edit may queue another: it waits for the frame after
  for (auto& e : edits) e(s);
}

// The panels whose functions take their own state reach it through state_of (panels/registry.hpp).
template <> MasksState& state_of<MasksState>(AppState& s) { return s.masks; }
template <> TemperatureState& state_of<TemperatureState>(AppState& s) { return s.temperature; }
template <> DropoutState& state_of<DropoutState>(AppState& s) { return s.dropout; }
template <> LanguageModelState& state_of<LanguageModelState>(AppState& s) { return s.language_model; }
template <> AlignmentState& state_of<AlignmentState>(AppState& s) { return s.alignment; }
template <> AttributionState& state_of<AttributionState>(AppState& s) { return s.attribution; }
template <> PermutationState& state_of<PermutationState>(AppState& s) { return s.permutation; }

}  // namespace app
