// gpt2_bench — GPT-2 small, a 64-token forward with every attention map, in float32: seconds and
// GFLOP/s (natively; the same source under em++ for wasm is still to come).
//
//   gpt2_bench [--model FILE --config FILE] [--tokens T] [--runs N] [--json OUT] [--keep]
//
// Without --model it writes a GPT-2-small-sized file with random weights (tests/support/
// gpt2_small_file.hpp) to a temporary folder and deletes it after (--keep: leaves it there for
// bench/gpt2_torch.py). The model is read tensor by
// tensor (learn::read_gpt2_family<float>), then the forward (learn::decoder_forward<float>) runs
// once to warm up and N times (default 3) timed; the median is reported. FLOPs counted: 2 per
// multiply-add of every linear layer (q/k/v, output, MLP, the tied head over the vocabulary) and of
// attention's q·k and weights·v over the causal half (key <= query). bench/gpt2_torch.py runs torch
// on the same file and tokens.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "json/case_files.hpp"
#include "learn/decoder.hpp"
#include "learn/gpt2_file.hpp"
#include "support/gpt2_small_file.hpp"

int main(int argc, char** argv) {
  std::string model, config, json_out;
  int tokens = 64, runs = 3;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) model = argv[++i];
    else if (a == "--config" && i + 1 < argc) config = argv[++i];
    else if (a == "--tokens" && i + 1 < argc) tokens = std::stoi(argv[++i]);
    else if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::stoi(argv[++i]));
    else if (a == "--json" && i + 1 < argc) json_out = argv[++i];
    else if (a == "--keep") keep = true;
    else {
      std::fprintf(stderr, "usage: gpt2_bench [--model FILE --config FILE] [--tokens T] [--runs N] [--json OUT] [--keep]\n");
      return 64;
    }
  }
  std::filesystem::path tmp;
  if (model.empty()) {
    tmp = std::filesystem::temp_directory_path() / "attn-gpt2-bench";
    std::filesystem::create_directories(tmp);
    model = (tmp / "gpt2-small-random.safetensors").string();
    config = (tmp / "config.json").string();
    attn_test::gpt2_small::write_model(model);
    std::ofstream(config) << attn_test::gpt2_small::config_json();
  }
  attn::learn::ModelFileOptions opt;
  if (!config.empty()) opt.config = attn::read_case_file(config);
  const auto t0 = std::chrono::steady_clock::now();
  const attn::learn::ModelFileF32 m = attn::learn::read_gpt2_family<float>(
      attn::case_file_size(model),
      [&](std::uint64_t offset, std::size_t length, std::uint8_t* dst) { attn::read_case_file_range(model, offset, length, dst); },
      opt);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const attn::learn::DecoderConfig& c = m.model.decoder;
  tokens = std::min(tokens, c.context);
  attn::learn::DecoderBatch b;
  b.batch = 1;
  b.t = tokens;
  for (int i = 0; i < tokens; ++i) b.tokens.push_back((i * 7919 + 13) % c.vocab);
  b.targets = b.tokens;

  const double T = tokens, C = c.d_model, M = c.mlp, V = c.vocab, Lr = c.layers;
  const double linear = 2.0 * T * (3 * C * C + C * C + 2 * C * M) * Lr + 2.0 * T * C * V;
  const double attention = 2.0 * 2.0 * (T * (T + 1) / 2.0) * C * Lr;  // q·k and w·v, key <= query
  const double flops = linear + attention;

  attn::learn::DecoderActivationsT<float> acts;
  attn::learn::decoder_forward(c, m.model.layout, m.params.data(), b, acts);  // warm-up
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto t = std::chrono::steady_clock::now();
    attn::learn::decoder_forward(c, m.model.layout, m.params.data(), b, acts);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("gpt2_bench: %zu parameters (float32), read in %.2f s; %d-token forward with every attention map: "
              "median %.3f s of %d runs (%.3f .. %.3f), %.2f GFLOP/s (%.2f GFLOP)\n",
              m.model.layout.total(), load_s, tokens, median, runs, times.front(), times.back(), flops / median / 1e9,
              flops / 1e9);
  if (!json_out.empty()) {
    std::ofstream(json_out) << "{\"params\":" << m.model.layout.total() << ",\"tokens\":" << tokens
                            << ",\"load_s\":" << load_s << ",\"forward_s\":" << median << ",\"gflop\":" << flops / 1e9
                            << ",\"gflops\":" << flops / median / 1e9 << "}\n";
  }
  if (!tmp.empty() && !keep) std::filesystem::remove_all(tmp);
  if (keep) std::printf("gpt2_bench: kept %s and %s\n", model.c_str(), config.c_str());
  return 0;
}
