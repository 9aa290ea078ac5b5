// web/panels/lm_link.cpp — see lm_link.hpp: an LmSession in this process plays the Worker.
#include "panels/lm_link.hpp"

#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <utility>

#include "attn/error.hpp"
#include "json/case_files.hpp"
#include "worker/lm_session.hpp"

namespace app::lm_link {

namespace {
int g_next_id = 1;
std::vector<Reply> g_replies;          // arrived, not yet taken
std::map<int, Progress> g_progress;    // loads under way

struct Pending {
  enum class Kind { request, load, json_file } kind = Kind::request;
  int id = 0;
  std::string path, config;  // a load's model and config.json, or the JSON file
  attn::Json request;
};
std::deque<Pending> g_pending;
std::unique_ptr<LmSession> g_session;
const std::string g_root = ATTN_SOURCE_DIR;
#ifdef ATTN_GPT2_TOKENIZER_DIR
const std::string g_tokenizer_dir = ATTN_GPT2_TOKENIZER_DIR;
#else
const std::string g_tokenizer_dir;
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
        g_progress[p.id] = Progress{static_cast<double>(offset + length), static_cast<double>(size)};
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
    g_progress.erase(p.id);
    g_replies.push_back({p.id, std::move(reply), std::move(w), std::move(pr)});
  }
}
}  // namespace

namespace {
// A new request's id; a load's progress starts at zero.
int next_id(bool load) {
  const int id = g_next_id++;
  if (load) g_progress[id] = Progress{};
  return id;
}
}  // namespace

int load_url(const std::string& model_url, const std::string& config_url) {
  const int id = next_id(true);
  g_pending.push_back({Pending::Kind::load, id, model_url, config_url, {}});
  return id;
}

int fetch_json(const std::string& url) {
  const int id = next_id(false);
  g_pending.push_back({Pending::Kind::json_file, id, url, {}, {}});
  return id;
}


int request(const attn::Json& req) {
  const int id = next_id(false);
  g_pending.push_back({Pending::Kind::request, id, {}, {}, req});
  return id;
}

std::vector<Reply> take() {
  run_pending();
  return std::exchange(g_replies, {});
}

Progress progress(int id) {
  auto it = g_progress.find(id);
  return it == g_progress.end() ? Progress{} : it->second;
}

void reset_native() {
  g_session.reset();
  g_pending.clear();
  g_replies.clear();
  g_progress.clear();
}

}  // namespace app::lm_link
