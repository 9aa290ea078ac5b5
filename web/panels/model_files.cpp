// Models from files: the one reader of the safetensors files a user brings to the page (the file
// picker, a drop on the canvas, a `model=` link) and of the panels' exports. The core parses and
// checks the bytes (learn/model_file.hpp); the panel of the file's kind installs the model.
#include <string>
#include <utility>

#include "attn/error.hpp"
#include "panels/registry.hpp"
#include "app/app_state.hpp"  // AppState: this file's functions still take every panel's state
#include "learn/json_obj.hpp"

namespace app {

using attn::Json;

namespace {

// {ok: false, panel (absent when null), error: {code, message}}.
Json refusal(const char* panel, const std::string& code, const std::string& message) {
  Json out = ::attn::obj({{"ok", false}, {"error", ::attn::obj({{"code", code}, {"message", message}})}});
  if (panel) out["panel"] = panel;
  return out;
}

// The panel a file that cannot be read is reported to: the one it was brought to, else the one on
// screen if it takes models, else the first that does.
const PanelDef* report_panel(const AppState& s, const std::string& hint) {
  const int i = panel_index(hint);
  if (i >= 0 && panels()[static_cast<size_t>(i)].model) return &panels()[static_cast<size_t>(i)];
  if (current_panel(s).model) return &current_panel(s);
  for (const PanelDef& p : panels())
    if (p.model) return &p;
  return nullptr;
}

}  // namespace

Json model_arrived(AppState& s, const std::string& name, const std::uint8_t* data, std::size_t size,
                   const std::string& panel_hint) {
  const PanelDef* fallback = report_panel(s, panel_hint);
  if (!fallback) return refusal(nullptr, "invalid_field", "no panel takes models");
  changed();
  const auto refuse = [&](const std::string& code, const std::string& why) {
    fallback->model->refused(s, code, name + ": " + why);
    show_panel(s, fallback->name, true);
    return refusal(fallback->name, code, name + ": " + why);
  };
  if (size > kMaxPageModelBytes || (!data && size > 0))
    return refuse("too_large", "the file is " + std::to_string(size) + " bytes; the page reads at most " +
                                                  std::to_string(kMaxPageModelBytes) + " (16 MiB)");
  attn::learn::ModelFile file;
  try {
    file = attn::learn::load_model_file(data, size);
  } catch (const attn::Error& e) {
    return refuse(e.code_name(), e.what());
  }
  for (const PanelDef& p : panels()) {
    if (!p.model || p.model->kind != file.model.kind) continue;
    show_panel(s, p.name, true);
    if (p.model->install(s, name, size, std::move(file))) {
      host_trained_event(s, p.name, 0, "file");  // a model installed (it starts at step 0 here)
      return ::attn::obj({{"ok", true}, {"panel", p.name}});
    }
    const std::optional<ErrorInfo>& e = *p.error(s);
    return refusal(p.name, e ? e->code : "invalid_field", e ? e->message : name + " was refused");
  }
  return refuse("invalid_field", "no panel takes a model of this kind");
}

Json model_fetch_failed(AppState& s, const std::string& name, const std::string& message) {
  const PanelDef* p = report_panel(s, "");
  if (!p) return refusal(nullptr, "fetch_failed", "no panel takes models");
  p->model->refused(s, "fetch_failed", name + ": " + message);
  return refusal(p->name, "fetch_failed", name + ": " + message);
}

Json export_model(const AppState& s, const std::string& panel, const std::string& which, std::string& bytes) {
  const int i = panel_index(panel);
  if (i < 0 || !panels()[static_cast<size_t>(i)].model)
    return refusal(panel.c_str(), "invalid_field", "\"" + panel + "\" has no model to export");
  const PanelDef& p = panels()[static_cast<size_t>(i)];
  std::string file_name;
  try {
    bytes = p.model->export_bytes(s, which, file_name);
  } catch (const attn::Error& e) {
    return refusal(p.name, e.code_name(), e.what());
  }
  return ::attn::obj({{"ok", true}, {"panel", p.name}, {"name", file_name}, {"bytes", bytes.size()}});
}

}  // namespace app
