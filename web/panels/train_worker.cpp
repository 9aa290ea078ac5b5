#include "panels/train_worker.hpp"

#include <exception>
#include <map>
#include <memory>
#include <utility>

#include "platform/emscripten_shim.hpp"
#include "worker/train_runner.hpp"

namespace app::train_worker {

namespace {
struct Run {
  std::vector<Message> queue;
  int sync_every = 0;
#ifndef __EMSCRIPTEN__
  std::string start_state;  // natively, what run_posted_natively begins from
  double budget = 0.0;
  std::shared_ptr<TrainRunner> runner;  // begun
#endif
};
std::map<int, Run> g_runs;  // the runs not stopped
int g_next_id = 1;
#ifdef __EMSCRIPTEN__
bool g_available = true;
#else
bool g_available = false;
#endif
std::string g_failure;
std::map<std::string, std::string> g_rehearsed;  // per panel: the state bytes rehearsed ("" none)
}  // namespace

bool available() {
#ifdef __EMSCRIPTEN__
  static const bool page_allows = shim::train_worker_allowed();
  return g_available && page_allows;
#else
  return g_available;
#endif
}

void set_available(bool on) {
  g_available = on;
  if (on) g_failure.clear();
}

const std::string& failure() { return g_failure; }

void warm(const char* kind, const std::function<std::string()>& state) {
  if (!available() || g_rehearsed.count(kind)) return;
#ifdef __EMSCRIPTEN__
  shim::train_worker_warm();
#endif
  if (!g_runs.empty()) return;  // the Worker is busy: asked again when it is not
  std::string& bytes = g_rehearsed[kind];  // asked once, even when state() throws
  try {
    bytes = state();
  } catch (const std::exception&) {
    bytes.clear();
    return;
  }
#ifdef __EMSCRIPTEN__
  shim::train_worker_rehearse(bytes.data(), static_cast<int>(bytes.size()), kRehearsalSteps, kRehearsalMs);
  std::string().swap(bytes);  // the Worker has its copy; only a native test reads them back
#endif
}

const std::string& rehearsed_state(const std::string& kind) {
  static const std::string none;
  auto it = g_rehearsed.find(kind);
  return it == g_rehearsed.end() ? none : it->second;
}

int start(const std::string& state, double budget_seconds, int sync_every, double rest_seconds) {
  const int id = g_next_id++;
  Run& r = g_runs[id];
  r.sync_every = sync_every;
#ifdef __EMSCRIPTEN__
  shim::train_worker_run(id, state.data(), static_cast<int>(state.size()), budget_seconds * 1000.0, sync_every,
                         rest_seconds * 1000.0);
#else
  (void)rest_seconds;  // the native stand-in delivers every slice at once
  r.start_state = state;
  r.budget = budget_seconds;
#endif
  return id;
}

void stop(int id) {
  if (id == 0 || g_runs.erase(id) == 0) return;
#ifdef __EMSCRIPTEN__
  shim::train_worker_stop(id);
#endif
}

std::vector<Message> take(int id) {
  auto it = g_runs.find(id);
  if (it == g_runs.end()) return {};
  return std::exchange(it->second.queue, {});
}

bool waiting(int id) {
  auto it = g_runs.find(id);
  return it != g_runs.end() && it->second.queue.empty();
}

void state_arrived(int id, int step, bool done, const std::uint8_t* data, std::size_t size) {
  auto it = g_runs.find(id);
  if (it == g_runs.end()) return;  // stopped: a late slice
  // A state replaces the whole run: the one queued last goes when this one comes, unless a
  // snapshot needs it (a multiple of sync_every) or it ends the run. The Worker goes on while the
  // page draws no frames (a hidden tab), and the queue stays this short.
  std::vector<Message>& q = it->second.queue;
  const int sync = it->second.sync_every;
  if (!q.empty() && q.back().error.empty() && !q.back().done && !(sync > 0 && q.back().step % sync == 0)) q.pop_back();
  Message m;
  m.step = step;
  m.done = done;
  m.state.assign(reinterpret_cast<const char*>(data), size);
  q.push_back(std::move(m));
}

void failed(int id, const std::string& message) {
  g_available = false;
  g_failure = message;
  auto it = g_runs.find(id);
  if (it == g_runs.end()) return;
  Message m;
  m.error = message.empty() ? "the training worker failed" : message;
  it->second.queue.push_back(std::move(m));
}

int run_posted_natively(int max_slices) {
  int slices = 0;
#ifndef __EMSCRIPTEN__
  for (auto& [id, r] : g_runs) {
    if (!r.runner) {
      r.runner = std::make_shared<TrainRunner>();
      try {
        r.runner->begin(reinterpret_cast<const std::uint8_t*>(r.start_state.data()), r.start_state.size());
      } catch (const std::exception& e) {
        failed(id, e.what());
        continue;
      }
    }
    TrainRunner& runner = *r.runner;
    while (!runner.done() && slices < max_slices) {
      const std::string s = runner.slice(r.budget, r.sync_every);
      ++slices;
      state_arrived(id, runner.step(), runner.done(), reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
    }
  }
#else
  (void)max_slices;
#endif
  return slices;
}

}  // namespace app::train_worker
