// web/panels/lm_link.hpp — the page's side of the language-model Worker (web/worker/lm_session.hpp):
// the Language model panel asks for a model's loading and for requests (tokenize, forward,
// generate, ...) by id, and takes the answers when they come, never waiting inside a frame. In the
// browser the messages travel by postMessage (web/page/attention_lab_api.js, which also fetches
// the model, keeps it in the Cache API and reports the bytes read); natively an LmSession in this
// process plays the Worker when the panel takes its answers, reading files from a folder (the
// tests' and the desktop window's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "json/json_case.hpp"  // attn::Json

namespace app::lm_link {

/// An answer of the Worker: the session's JSON ({error: {code, message}} on failure) and, after a
/// forward, its attention weights (layers × heads × t × t) and next-token probabilities.
struct Reply {
  int id = 0;
  attn::Json reply;
  std::vector<float> weights, probs;
};

/// Loads the GPT-2-family safetensors file at `model_url` with the config.json at `config_url`
/// ("": none), both relative to the page (or absolute where the host allows it), into the Worker;
/// the model held so far stays when it is refused. The answer is the session's info() or an
/// error. Returns the request's id (never 0).
int load_url(const std::string& model_url, const std::string& config_url);
/// Fetches the JSON file at `url` (relative to the page): its answer is the parsed object, or an
/// error. The default model's card comes this way.
int fetch_json(const std::string& url);
/// One request of the session's protocol (LmSession::run): returns its id (never 0).
int request(const attn::Json& request);
/// The answers received since the last take, oldest first (natively: the queued requests are
/// run now, in order).
std::vector<Reply> take();
/// Bytes of a load read so far and the file's size (0 when unknown), as the page reports them.
struct Progress {
  double loaded = 0.0, total = 0.0;
};
/// The progress of load `id` (zero before any report).
Progress progress(int id);
/// True while some request has no answer yet.
bool waiting();

/// The page's answer to request `id` (attention_lab_api.js through web/app/api.cpp).
void reply_arrived(int id, const std::string& json, const float* weights, std::size_t n_weights, const float* probs,
                   std::size_t n_probs);
/// The page read `loaded` of `total` bytes of load `id`.
void progress_arrived(int id, double loaded, double total);
/// A request id for a load the page began itself (a dropped GPT-2-family file): its answer comes
/// through reply_arrived like any other.
int external_load();

/// Natively: the folder URLs and names are read from (default: the source tree), and GPT-2's
/// tokenizer folder (encoder.json, vocab.bpe; default: the build's, when configured).
void set_native_root(const std::string& dir);
void set_native_tokenizer(const std::string& dir);
/// Natively: forget the in-process session (a test's fresh start).
void reset_native();

}  // namespace app::lm_link
