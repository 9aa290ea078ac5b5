#include "panels/registry.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state

namespace app {

namespace {

using attn::Json;

std::vector<PanelDef>& table() {
  static std::vector<PanelDef> t = {
      // The lesson's order (the course page numbers them the same way): a soft read, the bottleneck
      // and its fix, one head, masks, scaling, soft to hard, dropout, weight against contribution,
      // order, learned heads, cost, the lesson's script.
      alignment_panel(),
      translate_panel(),
      additive_panel(),
      heads_panel(),
      masks_panel(),
      scaling_panel(),
      temperature_panel(),
      dropout_panel(),
      attribution_panel(),
      permutation_panel(),
      learned_heads_panel(),
      cost_panel(),
      script_panel(),
#ifndef __EMSCRIPTEN__
      // The desktop window and the headless tests only, for now (web/CMakeLists.txt says why).
      language_model_panel(),
#endif
  };
  return t;
}

}  // namespace

const std::vector<PanelDef>& panels() { return table(); }

PanelRegistration::PanelRegistration(const PanelDef& def) { table().push_back(def); }

namespace {
void (*g_fetch_checkpoint)(const char* url) = nullptr;
}  // namespace

void set_checkpoint_fetcher(void (*fetch)(const char* url)) { g_fetch_checkpoint = fetch; }

void request_checkpoint(AppState& s, const PanelDef& p, bool shown) {
  if (!p.checkpoint || !p.checkpoint->wants(s, shown)) return;
  p.checkpoint->requested(s);
  if (g_fetch_checkpoint) g_fetch_checkpoint(p.checkpoint->url);
}

bool checkpoint_arrived(AppState& s, const std::string& url, const std::uint8_t* data, std::size_t size) {
  for (const PanelDef& p : panels())
    if (p.checkpoint && url == p.checkpoint->url) {
      p.checkpoint->install(s, data, size);
      return true;
    }
  return false;
}

bool checkpoint_fetch_failed(AppState& s, const std::string& url, const std::string& message) {
  for (const PanelDef& p : panels())
    if (p.checkpoint && url == p.checkpoint->url) {
      p.checkpoint->failed(s, message);
      return true;
    }
  return false;
}

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

std::string panel_number(std::size_t index) { return std::to_string(index + 1); }

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
  for (size_t i = 0; i < t.size(); ++i) {
    const bool shown = static_cast<int>(i) == s.panel;
    if (t[i].tick) t[i].tick(s, shown);
    request_checkpoint(s, t[i], shown);  // a trained panel's checkpoint: when it first opens, never with the page
  }
}

bool panels_busy(const AppState& s) {
  for (const PanelDef& p : panels())
    if (p.busy && p.busy(s)) return true;
  return false;
}

}  // namespace app
