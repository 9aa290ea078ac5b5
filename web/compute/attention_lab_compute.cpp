// web/compute/attention_lab_compute.cpp — the script API's wasm: the JSON case contract
// (attn::run_case_text, exactly what `attn run` and window.attentionLab.compute run) and
// nothing else — no ImGui, SDL or GL. Wrapped by attention_lab_compute_api.js into
// window.attentionLabCompute (docs/embed.md).
#include <emscripten.h>

#include <string>

#include "json/json_case.hpp"

namespace {
std::string g_reply;  // valid until the next call; the wrapper copies it at once
}

extern "C" {

/// One JSON case in, one JSON result (or {"error":{code,message}}) out.
EMSCRIPTEN_KEEPALIVE const char* attn_compute(const char* case_json) {
  g_reply = attn::dump(attn::run_case_text(case_json ? case_json : ""));
  return g_reply.c_str();
}

/// The project version this build was made from.
EMSCRIPTEN_KEEPALIVE const char* attn_compute_version() { return ATTN_COMPUTE_VERSION; }

}  // extern "C"
