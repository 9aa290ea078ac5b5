// tests/fuzz/fuzz_safetensors.cpp — libFuzzer target: arbitrary bytes as a safetensors file →
// attn::learn::read_safetensors and load_any_model_file (learn/safetensors.hpp, learn/model_file.hpp,
// learn/gpt2_file.hpp).
//
// A model file comes from anywhere (a download, a colleague): whatever it holds, the reader must
// refuse it with attn::Error or read it, never crash, leak another exception type or hang.
// Checked on every input (abort() = a finding):
//   - only attn::Error escapes (anything else aborts under libFuzzer);
//   - a file read holds finite values only, as many per tensor as its shape says, and its tensors
//     tile the data buffer in order;
//   - writing what was read as F64 and reading it back gives the same names, shapes, metadata and
//     value bits (the writer accepts whatever the reader accepted);
//   - a model loaded (as is, and with heads = 1 and positions = "none" for a decoder without
//     metadata) has layout-many parameters, at most kMaxFileParams, and exports and loads back bit for bit;
//   - the bytes read as the config.json of a small GPT-2-family file give a model that fits it, or
//     attn::Error.
#include <learn/gpt2_file.hpp>
#include <learn/model_file.hpp>
#include <learn/safetensors.hpp>
#include <attn/error.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace attn::learn;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_safetensors: %s: %s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void check_file(const std::uint8_t* data, std::size_t size) {
  Safetensors f;
  try {
    f = read_safetensors(data, size);
  } catch (const attn::Error&) {
    return;
  }
  std::uint64_t at = 0;
  for (const SafeTensor& t : f.tensors) {
    if (t.begin != at || t.values.size() != t.elements()) finding("tensor does not fit its range or shape", t.name);
    for (double v : t.values)
      if (!std::isfinite(v)) finding("non-finite value read", t.name);
    at = t.end;
  }
  if (f.data_start + at != size) finding("tensors do not reach the end of the file", std::to_string(at));
  std::string again;
  try {
    again = write_safetensors(f);
  } catch (const attn::Error& e) {
    // names that are not valid UTF-8 cannot be written back; every other read file can
    if (std::string(e.what()).find("UTF-8") == std::string::npos) finding("the writer refused a file read", e.what());
    return;
  }
  const Safetensors back = read_safetensors(reinterpret_cast<const std::uint8_t*>(again.data()), again.size());
  if (back.metadata != f.metadata || back.tensors.size() != f.tensors.size()) finding("round trip changed the header", "");
  for (size_t i = 0; i < f.tensors.size(); ++i)
    if (back.tensors[i].name != f.tensors[i].name || back.tensors[i].shape != f.tensors[i].shape ||
        !same_bits(back.tensors[i].values, f.tensors[i].values))
      finding("round trip changed a tensor", f.tensors[i].name);
}

void check_model(const std::uint8_t* data, std::size_t size, const ModelFileOptions& opt) {
  ModelFile m;
  try {
    m = load_any_model_file(data, size, opt);
  } catch (const attn::Error&) {
    return;
  }
  if (m.params.size() != m.model.layout.total() || m.params.size() > kMaxFileParams)
    finding("parameter count", std::to_string(m.params.size()));
  const std::string out = write_safetensors(model_safetensors(m.model, m.params, m.file.metadata));
  const ModelFile back = load_any_model_file(reinterpret_cast<const std::uint8_t*>(out.data()), out.size(), opt);
  if (!same_bits(back.params, m.params)) finding("export and load changed the parameters", "");
}

}  // namespace

/// A small GPT-2-family file (transformers' layout), written once: the input is also read as its
/// config.json, which must be refused with attn::Error or give a model that fits the file.
const std::string& gpt2_file() {
  static const std::string bytes = [] {
    DecoderConfig c{11, 6, 8, 2, 2, 12, DecoderPositions::learned, true};
    const Model m = make_model(ModelKind::decoder, c, {});
    return transformers_export(m, init_params(m.layout, 3)).safetensors;
  }();
  return bytes;
}

void check_config(const std::uint8_t* data, std::size_t size) {
  ModelFileOptions opt;
  opt.config = std::string(reinterpret_cast<const char*>(data), size);
  const std::string& file = gpt2_file();
  ModelFile m;
  try {
    m = load_any_model_file(reinterpret_cast<const std::uint8_t*>(file.data()), file.size(), opt);
  } catch (const attn::Error&) {
    return;
  }
  if (m.layout != "transformers" || m.params.size() != m.model.layout.total() || m.model.decoder.d_model != 8)
    finding("a config.json gave a model that does not fit the file", m.layout);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_config(data, size);
  check_file(data, size);
  check_model(data, size, {});
  ModelFileOptions opt;
  opt.heads = 1;
  opt.positions = "none";
  check_model(data, size, opt);
  return 0;
}
