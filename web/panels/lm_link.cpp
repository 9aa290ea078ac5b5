#include "panels/lm_link.hpp"

#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <utility>

#include "attn/error.hpp"
#include "platform/emscripten_shim.hpp"
#ifndef __EMSCRIPTEN__
#include "json/case_files.hpp"
#include "worker/lm_session.hpp"
#endif

namespace app::lm_link {

namespace {
int g_next_id = 1;
std::vector<Reply> g_replies;          // arrived, not yet taken
std::map<int, Progress> g_progress;    // loads under way
int g_outstanding = 0;                 // requests without an answer

#ifndef __EMSCRIPTEN__
struct Pending {
  enum class Kind { request, load, json_file } kind = Kind::request;
  int id = 0;
  std::string path, config;  // a load's model and config.json, or the JSON file
  attn::Json request;
};
std::deque<Pending> g_pending;
std::unique_ptr<LmSession> g_session;
std::string g_root = ATTN_SOURCE_DIR;
#ifdef ATTN_GPT2_TOKENIZER_DIR
std::string g_tokenizer_dir = ATTN_GPT2_TOKENIZER_DIR;
#else
std::string g_tokenizer_dir;
#endif

std::string resolve(const std::string& url) { return url.empty() || url[0] == '/' ? url : g_root + "/" + url; }

LmSession& session() {
  if (!g_session) {
    g_session = std::make_unique<LmSession>();
    if (!g_tokenizer_dir.empty()) {
      try {
        g_session->set_tokenizer(attn::read_case_file(g_tokenizer_dir + "/encoder.json"), attn::read_case_file(g_tokenizer_dir + "/vocab.bpe"));
      } catch (const attn::Error&) {
        // no tokenizer: requests that need one answer invalid_field, as in a page without its files
      }
    }
  }
  return *g_session;
}

// Plays the Worker: the queued requests, in order, each answered as lm_worker_api.js answers.
void run_pending() {
  while (!g_pending.empty()) {
    Pending p = std::move(g_pending.front());
    g_pending.pop_front();
    LmSession& s = session();
    attn::Json reply = LmSession::answer([&] {
      if (p.kind == Pending::Kind::json_file) {
        attn::Json j = attn::Json::parse(attn::read_case_file(resolve(p.path)), nullptr, false);
        if (j.is_discarded()) throw attn::Error(attn::ErrorCode::invalid_json, p.path + " is not JSON");
        return j;
      }
      if (p.kind == Pending::Kind::request) return s.run(p.request);
      const std::string path = resolve(p.path);
      std::ifstream in(path, std::ios::binary | std::ios::ate);
      if (!in) throw attn::Error(attn::ErrorCode::invalid_field, p.path + " could not be fetched (no such file)");
      const auto size = static_cast<std::uint64_t>(in.tellg());
      const std::string config = p.config.empty() ? std::string() : attn::read_case_file(resolve(p.config));
      return s.load(size, [&](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
        in.seekg(static_cast<std::streamoff>(offset));
        in.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(length));
        if (static_cast<std::size_t>(in.gcount()) != length)
          throw attn::Error(attn::ErrorCode::invalid_field, "the file ended at byte " + std::to_string(offset + in.gcount()));
      }, config);
    });
    std::vector<float> w, pr;
    if (p.kind == Pending::Kind::request && p.request.value("op", "") == "forward" && !reply.contains("error")) {
      w = s.last_forward().weights;
      pr = s.last_forward().last_probs;
    }
    const std::string text = reply.dump();
    reply_arrived(p.id, text, w.data(), w.size(), pr.data(), pr.size());
  }
}
#endif
}  // namespace

namespace {
// A new request's id, counted as waiting for its answer; a load's progress starts at zero.
int next_id(bool load) {
  const int id = g_next_id++;
  ++g_outstanding;
  if (load) g_progress[id] = Progress{};
  return id;
}
}  // namespace

int load_url(const std::string& model_url, const std::string& config_url) {
  const int id = next_id(true);
#ifdef __EMSCRIPTEN__
  shim::lm_load_url(id, model_url.c_str(), config_url.c_str());
#else
  g_pending.push_back({Pending::Kind::load, id, model_url, config_url, {}});
#endif
  return id;
}

int fetch_json(const std::string& url) {
  const int id = next_id(false);
#ifdef __EMSCRIPTEN__
  shim::lm_fetch_json(id, url.c_str());
#else
  g_pending.push_back({Pending::Kind::json_file, id, url, {}, {}});
#endif
  return id;
}

int external_load() { return next_id(true); }

int request(const attn::Json& req) {
  const int id = next_id(false);
#ifdef __EMSCRIPTEN__
  shim::lm_request(id, req.dump().c_str());
#else
  g_pending.push_back({Pending::Kind::request, id, {}, {}, req});
#endif
  return id;
}

std::vector<Reply> take() {
#ifndef __EMSCRIPTEN__
  run_pending();
#endif
  return std::exchange(g_replies, {});
}

Progress progress(int id) {
  auto it = g_progress.find(id);
  return it == g_progress.end() ? Progress{} : it->second;
}

bool waiting() { return g_outstanding > 0; }

void reply_arrived(int id, const std::string& json, const float* weights, std::size_t n_weights, const float* probs,
                   std::size_t n_probs) {
  if (g_outstanding > 0) --g_outstanding;
  g_progress.erase(id);
  Reply r;
  r.id = id;
  r.reply = attn::Json::parse(json, nullptr, false);
  if (r.reply.is_discarded())
    r.reply = attn::Json{{"error", {{"code", "invalid_json"}, {"message", "the language-model Worker's answer is not JSON"}}}};
  if (weights && n_weights) r.weights.assign(weights, weights + n_weights);
  if (probs && n_probs) r.probs.assign(probs, probs + n_probs);
  g_replies.push_back(std::move(r));
}

void progress_arrived(int id, double loaded, double total) {
  auto it = g_progress.find(id);
  if (it != g_progress.end()) it->second = Progress{loaded, total};
}

#ifndef __EMSCRIPTEN__
void set_native_root(const std::string& dir) { g_root = dir; }
void set_native_tokenizer(const std::string& dir) {
  g_tokenizer_dir = dir;
  g_session.reset();
}
void reset_native() {
  g_session.reset();
  g_pending.clear();
  g_replies.clear();
  g_progress.clear();
  g_outstanding = 0;
}
#else
void set_native_root(const std::string&) {}
void set_native_tokenizer(const std::string&) {}
void reset_native() {}
#endif

}  // namespace app::lm_link
