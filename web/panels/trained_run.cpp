#include "panels/trained_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/app_state.hpp"
#include "attn/error.hpp"
#include "learn/checkpoint.hpp"
#include "panels/lesson_ui.hpp"
#include "panels/train_worker.hpp"
#include "panels/ui.hpp"
#include "platform/emscripten_shim.hpp"
#include "learn/json_obj.hpp"

namespace app {

const char* checkpoint_status_name(CheckpointFetch::Status s) {
  static const char* const names[] = {"not_requested", "requested", "installed", "declined", "failed"};
  return names[static_cast<int>(s)];
}

const char* run_status(const TrainedRun& r, const RunProgress& p) {
  if (!p.exists) return "idle";
  if (r.running) return "training";
  if (p.done) return "done";
  return p.step > 0 ? "paused" : "idle";
}

void run_started(TrainedRun& r) {
  r.running = true;
  ++r.runs;
  r.rate_t0 = run_clock();
  r.rate_step0 = 0;
}

void run_resumed(TrainedRun& r, int step) {
  r.running = true;
  r.rate_t0 = run_clock();
  r.rate_step0 = step;
}

void run_measure_rate(TrainedRun& r, int step) {
  const double t1 = run_clock();
  if (t1 - r.rate_t0 >= 1.0) {
    r.steps_per_second = (step - r.rate_step0) / (t1 - r.rate_t0);
    r.rate_t0 = t1;
    r.rate_step0 = step;
  } else if (r.steps_per_second == 0.0 && t1 > r.rate_t0 && step > r.rate_step0) {
    r.steps_per_second = (step - r.rate_step0) / (t1 - r.rate_t0);
  }
}

bool run_paused(TrainedRun& r, bool past_last_step) {
  if (!r.running || past_last_step) return false;
  r.running = false;
  train_worker::stop(std::exchange(r.worker_run, 0));
  return true;
}

void run_start_over(TrainedRun& r) {
  r.running = false;
  train_worker::stop(std::exchange(r.worker_run, 0));
  r.steps_in.clear();
  r.from_checkpoint = false;
  r.steps_per_second = 0.0;
}

bool run_wants_checkpoint(const TrainedRun& r, bool shown, bool default_at_step0) {
  return shown && r.checkpoint.status == CheckpointFetch::Status::not_requested && default_at_step0 && !r.running;
}

void run_checkpoint_requested(TrainedRun& r) { r.checkpoint.status = CheckpointFetch::Status::requested; }

void run_checkpoint_failed(TrainedRun& r, const std::string& message) {
  r.checkpoint.status = CheckpointFetch::Status::failed;
  r.checkpoint.message = message;
}

void run_state_json(Json& out, const TrainedRun& r, const RunProgress& p, const char* checkpoint_url) {
  out["status"] = run_status(r, p);
  out["running"] = r.running;
  out["runs"] = r.runs;
  out["step"] = p.step;
  out["total"] = p.total;
  out["progress"] = p.total > 0 ? static_cast<double>(p.step) / p.total : 0.0;
  out["steps_per_second"] = r.steps_per_second;
  out["steps_in"] = r.steps_in;
  if (r.model)
    out["source"] = p.step > 0 ? "file, trained here" : "file";
  else
    out["source"] = r.from_checkpoint ? "checkpoint" : (p.step > 0 ? "trained here" : "untrained");
  out["model"] = r.model ? ::attn::obj({{"name", r.model->name},
                                {"bytes", r.model->bytes},
                                {"config", r.model->config},
                                {"params_fnv1a", r.model->params_fnv1a},
                                {"params", r.model->params}})
                         : Json(nullptr);
  out["model_message"] = r.model_message;
  Json ck = ::attn::obj({{"url", checkpoint_url},
                 {"status", checkpoint_status_name(r.checkpoint.status)},
                 {"bytes", r.checkpoint.bytes},
                 {"message", r.checkpoint.message}});
  if (r.checkpoint.params_fnv1a) ck["params_fnv1a"] = *r.checkpoint.params_fnv1a;
  out["checkpoint"] = ck;
}

void run_invalid(const std::string& message) { throw attn::Error(attn::ErrorCode::invalid_field, message); }

std::int64_t run_integer(const Json& j, const std::string& key) {
  if (!j.is_number()) run_invalid(key + " must be an integer");
  const double d = j.get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) run_invalid(key + " must be an integer");
  if (d > 4e18 || d < -4e18) run_invalid(key + " is out of range");
  return j.is_number_integer() ? j.get<std::int64_t>() : static_cast<std::int64_t>(d);
}

int run_clamp_int(std::int64_t v) {
  return static_cast<int>(std::max<std::int64_t>(-1000000000, std::min<std::int64_t>(v, 1000000000)));
}

bool run_bool(const Json& j, const std::string& key) {
  if (!j.is_boolean()) run_invalid(key + " must be true or false");
  return j.get<bool>();
}

bool read_run_patch(const std::string& k, const Json& v, std::uint64_t& seed, int& steps, double& lr, RunPatch& p) {
  if (k == "seed") {
    const std::int64_t x = run_integer(v, k);
    if (x < 0) run_invalid("seed must be an integer >= 0");
    seed = static_cast<std::uint64_t>(x), p.inputs = true;
  } else if (k == "steps") {
    steps = run_clamp_int(run_integer(v, k)), p.inputs = true;
  } else if (k == "lr") {
    if (!v.is_number() || !std::isfinite(v.get<double>())) run_invalid("lr must be a number");
    lr = v.get<double>(), p.inputs = true;
  } else if (k == "train") {
    p.train = run_bool(v, k);
  } else if (k == "pause") {
    p.pause = run_bool(v, k);
  } else if (k == "continue" || k == "resume") {
    p.resume = run_bool(v, k);
  } else if (k == "reset") {
    p.reset = run_bool(v, k);
  } else {
    return false;
  }
  return true;
}

bool draw_run_inputs(std::uint64_t& seed, int& steps, double& lr) {
  const float fs = ImGui::GetFontSize();
  bool changed = false;
  int seed_field = static_cast<int>(std::min<std::uint64_t>(seed, 2000000000));
  if (widgets::int_field("seed", &seed_field, fs * 4.5f)) seed = static_cast<std::uint64_t>(std::max(0, seed_field)), changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 4.5f, "steps"), fs);
  if (widgets::int_field("steps", &steps, fs * 4.5f)) changed = true;
  widgets::same_line_if_fits(widgets::labeled_width(fs * 5.0f, "learning rate"), fs);
  ImGui::SetNextItemWidth(widgets::fit_labeled(fs * 5.0f, "learning rate"));
  ImGui::InputDouble("learning rate", &lr, 0, 0, "%.4g");
  if (ImGui::IsItemDeactivatedAfterEdit()) changed = true;
  return changed;
}

void draw_run_controls(AppState& s, const TrainedRun& r, const RunProgress& p, const RunControlsText& text,
                       const RunActions& actions) {
  const float fs = ImGui::GetFontSize();
  const bool can_continue = p.exists && !r.running && !p.done && p.step > 0 && !r.from_checkpoint;
  const bool can_pause = r.running && !p.done;  // past the last step only the run's measurement is left
  if (ImGui::Button("Train")) defer_edit(s, actions.train);
  widgets::same_line_if_fits(widgets::button_width("Pause"));
  ImGui::BeginDisabled(!can_pause);
  if (ImGui::Button("Pause")) defer_edit(s, actions.pause);
  ImGui::EndDisabled();
  widgets::same_line_if_fits(widgets::button_width("Continue"));
  ImGui::BeginDisabled(!can_continue);
  if (ImGui::Button("Continue")) defer_edit(s, actions.resume);
  ImGui::EndDisabled();
  widgets::same_line_if_fits(widgets::button_width("Reset"));
  if (ImGui::Button("Reset")) defer_edit(s, actions.reset);
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "step %d / %d", p.step, p.total);
  widgets::same_line_if_fits(fs * 12, fs);
  ImGui::ProgressBar(p.total > 0 ? static_cast<float>(p.step) / p.total : 0.0f,
                     ImVec2(std::max(fs * 10, widgets::width_left()), 0), overlay);
  const char* state = r.running ? (p.done ? "measuring the trained model" : "training")
                                : (p.done ? "done" : (p.step > 0 ? "paused" : "not started"));
  // What needs the learner now stays in view (a fetch under way or failed, a loaded or refused
  // model); the run's recipe and provenance go in a collapsed section.
  txt::note((std::string(r.from_checkpoint ? "done (the shipped run)" : state) + "; " +
             (r.steps_per_second > 0 ? short_number(r.steps_per_second, 3) : std::string("-")) + " steps/s")
                .c_str());
  for (const std::string& n : {checkpoint_note(r, text.what), loaded_model_note(r, p.step)})
    if (!n.empty()) txt::note(n.c_str());
  const std::string opened = opened_from_checkpoint_note(r, text.what, p.step, text.opened_tail);
  style::details("About this run", [&] {
    txt::note(("Run " + std::to_string(r.runs) + text.details + ".").c_str());
    for (const std::string& n : {opened, text.reproduction})
      if (!n.empty()) txt::note(n.c_str());
  });
}

void draw_study_progress(int done, int total, const std::string& note) {
  ImGui::ProgressBar(static_cast<float>(done) / static_cast<float>(std::max(1, total)), ImVec2(ImGui::GetFontSize() * 14, 0),
                     (std::to_string(done) + " / " + std::to_string(total)).c_str());
  ImGui::SameLine();
  widgets::dim_wrapped(note.c_str());
}

std::string opened_from_checkpoint_note(const TrainedRun& r, const std::string& what, int step, const std::string& tail) {
  if (!r.from_checkpoint) return "";
  const std::string hash = r.checkpoint.params_fnv1a ? "; parameters' FNV-1a " + *r.checkpoint.params_fnv1a : "";
  return "Opened trained: " + what + " after " + std::to_string(step) + " steps, from the shipped checkpoint (" +
         short_number(r.checkpoint.bytes / 1000.0, 3) + " kB, fetched when this panel opened" + hash + "). " + tail;
}

void run_model_loaded(TrainedRun& r, const std::string& name, std::size_t bytes, const std::string& config,
                      const std::vector<double>& params) {
  LoadedModel m;
  m.name = name;
  m.bytes = bytes;
  m.config = config;
  m.params_fnv1a = attn::learn::params_fnv1a(params);
  m.params = params.size();
  r.model = std::move(m);
  r.model_message.clear();
}

void run_model_refused(TrainedRun& r, std::optional<ErrorInfo>& error, const std::string& code, const std::string& message) {
  r.model_message = message;
  error = ErrorInfo{code, message + " (the model shown stayed)"};
}

std::string loaded_model_note(const TrainedRun& r, int step) {
  std::string out;
  if (r.model) {
    const LoadedModel& m = *r.model;
    out = "Loaded " + m.name + " (" + short_number(m.bytes / 1000.0, 3) + " kB): " + m.config + ", " +
          std::to_string(m.params) + " parameters, FNV-1a " + m.params_fnv1a;
    out += step > 0 ? "; trained here for " + std::to_string(step) + " more steps. " : ". ";
  }
  if (!r.model_message.empty()) out += "The file brought last was refused: " + r.model_message + "; the model shown stayed.";
  return out;
}

void draw_model_row(AppState& s, const TrainedRun& r, const char* panel, void (*unload)(AppState&),
                    const std::vector<ModelExport>& exports) {
  const std::string load = std::string("load_model:") + panel;
  if (ImGui::Button("Load a model...")) shim::page_action(load.c_str());
  for (const ModelExport& e : exports) {
    widgets::same_line_if_fits(widgets::button_width(e.label));
    if (ImGui::Button(e.label)) shim::page_action((std::string("export_model:") + panel + ":" + e.which).c_str());
  }
  if (r.model) {
    widgets::same_line_if_fits(widgets::button_width("Back to the lab's model"));
    if (ImGui::Button("Back to the lab's model")) defer_edit(s, unload);
  }
  widgets::same_line_if_fits(ImGui::CalcTextSize("safetensors, up to 16 MB (docs/models.md)").x, ImGui::GetFontSize());
  txt::note("safetensors, up to 16 MB (docs/models.md)");
}

std::string checkpoint_note(const TrainedRun& r, const std::string& what) {
  if (r.from_checkpoint) return "";
  if (r.checkpoint.status == CheckpointFetch::Status::requested)
    return "Fetching the trained checkpoint of " + what + "...";
  if (r.checkpoint.status == CheckpointFetch::Status::failed)
    return "The trained checkpoint is not available (" + r.checkpoint.message + "); press Train to train " + what +
           " here.";
  return "";
}

}  // namespace app
