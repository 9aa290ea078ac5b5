// tests/support/gpt2_small_file.hpp — a GPT-2-small-sized safetensors file with random weights,
// written tensor by tensor (never whole in memory): the memory test (tests/reference/
// gpt2_small_memory.cpp) and the GPT-2 benchmark (bench/gpt2_bench.cpp) write it at run time; it
// is never committed.
//
// transformers' GPT2LMHeadModel layout: F32 weights from a fixed LCG, uniform in ±0.05 (LayerNorm
// weights 1), 124,439,808 parameters (n_embd 768, 12 layers, 12 heads, vocab 50,257, 1,024
// positions, the head tied to wte), and the original upload's causal-mask buffers as BOOL.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn_test::gpt2_small {

constexpr std::uint64_t V = 50257, P = 1024, C = 768, L = 12, H = 12;

struct Tensor {
  std::string name, dtype;
  std::vector<std::uint64_t> shape;
};

inline std::uint64_t elements(const Tensor& t) {
  std::uint64_t n = 1;
  for (std::uint64_t d : t.shape) n *= d;
  return n;
}

inline std::vector<Tensor> tensors() {
  std::vector<Tensor> t = {{"transformer.wte.weight", "F32", {V, C}}, {"transformer.wpe.weight", "F32", {P, C}}};
  for (std::uint64_t l = 0; l < L; ++l) {
    const std::string h = "transformer.h." + std::to_string(l) + ".";
    t.push_back({h + "ln_1.weight", "F32", {C}});
    t.push_back({h + "ln_1.bias", "F32", {C}});
    t.push_back({h + "attn.bias", "BOOL", {1, 1, P, P}});
    t.push_back({h + "attn.c_attn.weight", "F32", {C, 3 * C}});
    t.push_back({h + "attn.c_attn.bias", "F32", {3 * C}});
    t.push_back({h + "attn.c_proj.weight", "F32", {C, C}});
    t.push_back({h + "attn.c_proj.bias", "F32", {C}});
    t.push_back({h + "ln_2.weight", "F32", {C}});
    t.push_back({h + "ln_2.bias", "F32", {C}});
    t.push_back({h + "mlp.c_fc.weight", "F32", {C, 4 * C}});
    t.push_back({h + "mlp.c_fc.bias", "F32", {4 * C}});
    t.push_back({h + "mlp.c_proj.weight", "F32", {4 * C, C}});
    t.push_back({h + "mlp.c_proj.bias", "F32", {C}});
  }
  t.push_back({"transformer.ln_f.weight", "F32", {C}});
  t.push_back({"transformer.ln_f.bias", "F32", {C}});
  return t;
}

/// Writes the file tensor by tensor (never whole in memory); returns the F32 parameter count.
inline std::uint64_t write_model(const std::string& path) {
  const std::vector<Tensor> ts = tensors();
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t at = 0, params = 0;
  for (const Tensor& t : ts) {
    const std::uint64_t bytes = elements(t) * (t.dtype == "F32" ? 4 : 1);
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + bytes}}};
    at += bytes;
    if (t.dtype == "F32") params += elements(t);
  }
  std::string h = header.dump();
  while (h.size() % 8) h += ' ';
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << h;
  // header.dump() orders the names; the data follows the offsets given above, i.e. ts's order.
  std::uint32_t x = 12345;
  std::vector<char> buf;
  for (const Tensor& t : ts) {
    const std::uint64_t count = elements(t);
    if (t.dtype == "BOOL") {  // the causal mask: 1 where key <= query
      buf.assign(static_cast<size_t>(count), 0);
      for (std::uint64_t q = 0; q < P; ++q)
        for (std::uint64_t k = 0; k <= q; ++k) buf[static_cast<size_t>(q * P + k)] = 1;
    } else {
      buf.resize(static_cast<size_t>(count * 4));
      const bool ln_weight = t.name.find("ln_") != std::string::npos && t.name.find(".weight") != std::string::npos;
      for (std::uint64_t i = 0; i < count; ++i) {
        x = x * 1664525u + 1013904223u;
        const float f = ln_weight ? 1.0f : (static_cast<float>(x >> 8) / 16777216.0f - 0.5f) * 0.1f;
        std::memcpy(&buf[static_cast<size_t>(i * 4)], &f, 4);
      }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }
  if (!out) throw std::runtime_error("cannot write " + path);
  return params;
}

/// config.json of that model (transformers' GPT2Config keys).
inline std::string config_json() {
  return nlohmann::json{{"model_type", "gpt2"}, {"n_embd", C},          {"n_head", H},
                        {"n_layer", L},         {"n_positions", P},     {"vocab_size", V},
                        {"activation_function", "gelu_new"}}
      .dump();
}

}  // namespace attn_test::gpt2_small
