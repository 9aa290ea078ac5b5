// web/worker/lm_worker.cpp — the language-model Worker's wasm (attention-lab-lm.js): the core and one
// LmSession, no ImGui, SDL or GL, so the model's heap never meets WebGL. lm_worker_api.js drives it
// from the Worker's messages; it is fetched only when a panel asks for a language model, never as
// part of the page's first download.
//
// A file is read tensor by tensor through Module.lmRead(offset, length, pointer) (a dropped File read
// with FileReaderSync, or the bytes of a fetch), so the weights are held once, in float32.
#include <emscripten.h>

#include <cstdint>
#include <string>

#include "attn/error.hpp"
#include "json/json_case.hpp"
#include "worker/lm_session.hpp"

// The wrapper's reader: copies `length` bytes at `offset` of the file being loaded to `dst`.
// 0, or 1 when it could not (its message in Module.lmReadError).
EM_JS(int, attn_lm_read_js, (double offset, int length, unsigned char* dst), {
  try {
    Module.lmRead(offset, length, dst);
    return 0;
  } catch (e) {
    Module.lmReadError = String(e && e.message || e);
    return 1;
  }
});

namespace {
app::LmSession g_session;
std::string g_reply;  // valid until the next call; the wrapper copies it at once

const char* reply(const attn::Json& j) {
  g_reply = attn::dump(j);
  return g_reply.c_str();
}
}  // namespace

extern "C" {

/// Loads a GPT-2-family file of `file_size` bytes (read through Module.lmRead) with its config.json
/// text (may be empty) and `heads` (0: from the file): the model's info, or {"error": {code, message}}
/// with the last model kept.
EMSCRIPTEN_KEEPALIVE const char* attn_lm_load(double file_size, const char* config_json, int heads) {
  return reply(app::LmSession::answer([&] {
    const attn::learn::ByteRange read = [](std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
      if (attn_lm_read_js(static_cast<double>(offset), static_cast<int>(length), dst) != 0)
        throw attn::Error(attn::ErrorCode::invalid_field,
                          "could not read bytes " + std::to_string(offset) + ".." + std::to_string(offset + length) +
                              " of the model file");
    };
    return g_session.load(static_cast<std::uint64_t>(file_size), read, config_json ? config_json : "", heads);
  }));
}

/// GPT-2's tokenizer from encoder.json's and vocab.bpe's text: the session's info or the error.
EMSCRIPTEN_KEEPALIVE const char* attn_lm_tokenizer(const char* vocab_json, const char* merges_txt) {
  return reply(app::LmSession::answer([&] {
    g_session.set_tokenizer(vocab_json ? vocab_json : "", merges_txt ? merges_txt : "");
    return g_session.info();
  }));
}

/// One request (LmSession::run) as JSON text: the answer, or {"error": {code, message}}.
EMSCRIPTEN_KEEPALIVE const char* attn_lm_run(const char* request) {
  return reply(g_session.run_text(request ? request : ""));
}

/// The last forward's figures (float32): its attention weights (layers × heads × t × t) and the last
/// position's next-token probabilities (vocab), valid until the next forward or unload.
EMSCRIPTEN_KEEPALIVE const float* attn_lm_weights() { return g_session.last_forward().weights.data(); }
EMSCRIPTEN_KEEPALIVE int attn_lm_weights_size() { return static_cast<int>(g_session.last_forward().weights.size()); }
EMSCRIPTEN_KEEPALIVE const float* attn_lm_probs() { return g_session.last_forward().last_probs.data(); }
EMSCRIPTEN_KEEPALIVE int attn_lm_probs_size() { return static_cast<int>(g_session.last_forward().last_probs.size()); }

}  // extern "C"
