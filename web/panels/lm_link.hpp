// web/panels/lm_link.hpp — the Language model panel's side of the language-model session
// (web/worker/lm_session.hpp): the panel asks for a model's loading and for requests (tokenize,
// forward, generate, ...) by id and takes the answers a tick later, never inside a draw. For now
// the session runs in this process, natively (the desktop window and the headless tests), reading
// files from the source tree; in the page the same session is the language-model Worker's
// (attention-lab-lm.js), which the panel does not reach yet (docs/models.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "json/json_case.hpp"  // attn::Json

namespace app::lm_link {

/// An answer of the session: its JSON ({error: {code, message}} on failure) and, after a forward,
/// its attention weights (layers × heads × t × t) and next-token probabilities.
struct Reply {
  int id = 0;
  attn::Json reply;
  std::vector<float> weights, probs;
};

/// Loads the GPT-2-family safetensors file at `model_url` with the config.json at `config_url`
/// ("": none), both relative to the source tree (or absolute); the model held so far stays when
/// it is refused. The answer is the session's info() or an error. Returns the request's id (never 0).
int load_url(const std::string& model_url, const std::string& config_url);
/// Reads the JSON file at `url` (as load_url resolves it): its answer is the parsed object, or an
/// error. The default model's card comes this way.
int fetch_json(const std::string& url);
/// One request of the session's protocol (LmSession::run): returns its id (never 0).
int request(const attn::Json& request);
/// The answers to the requests made since the last take, oldest first: the queued requests are
/// run now, in order.
std::vector<Reply> take();
/// Bytes of a load read so far and the file's size.
struct Progress {
  double loaded = 0.0, total = 0.0;
};
/// The progress of load `id` (zero before any bytes, and after its answer).
Progress progress(int id);

/// Forget the session and every queued request (a test's fresh start).
void reset_native();

}  // namespace app::lm_link
