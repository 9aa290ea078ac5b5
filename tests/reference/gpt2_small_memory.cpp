// gpt2_small_memory — a GPT-2-small-sized model runs a 64-token forward, with every attention map,
// in the `attn` tool within 1.3 × its float32 parameters' bytes of memory.
//
//   gpt2_small_memory ATTN_TOOL WORK_DIR
//
// Writes WORK_DIR/gpt2-small-random.safetensors (transformers' GPT2LMHeadModel layout, F32 weights
// from a fixed LCG, uniform in ±0.05: 124,439,808 parameters, n_embd 768, 12 layers, 12 heads,
// vocab 50,257, 1,024 positions, the head tied to wte, the causal-mask buffers of the original
// upload as BOOL) and its config.json; runs `attn run` on a model_logits request of 64 tokens
// (last_only: the last row's logits, and every layer's and head's 64×64 weights); measures the
// child's peak resident set (wait4's ru_maxrss) and checks it against 1.3 × 4 × 124,439,808 bytes
// (647 MB). Also checks the answer: 12 × 12 maps whose rows sum to 1, finite logits. Prints the
// figures. Deletes the files. Exit 0 when within bounds, 1 otherwise. Native only (not under the
// sanitizers, whose shadow memory would be measured too).
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/gpt2_small_file.hpp"

extern char** environ;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gpt2_small_memory ATTN_TOOL WORK_DIR\n";
    return 64;
  }
  const std::string attn = argv[1];
  const std::filesystem::path dir = std::filesystem::path(argv[2]) / "gpt2-small-memory";
  std::filesystem::create_directories(dir);
  const std::string model = (dir / "gpt2-small-random.safetensors").string();
  const std::string config = (dir / "config.json").string();
  const std::string request = (dir / "request.json").string();
  const std::string answer = (dir / "answer.json").string();

  const auto t0 = std::chrono::steady_clock::now();
  using namespace attn_test::gpt2_small;
  const std::uint64_t params = write_model(model);
  std::ofstream(config) << config_json();
  std::vector<int> tokens;
  for (int i = 0; i < 64; ++i) tokens.push_back((i * 7919 + 13) % static_cast<int>(V));
  std::ofstream(request) << nlohmann::json{{"op", "model_logits"}, {"model", model}, {"config", config},
                                           {"tokens", {tokens}}, {"last_only", true}}
                                .dump();
  const double write_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // attn run REQUEST > ANSWER, then its peak resident set.
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, answer.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args = {const_cast<char*>(attn.c_str()), const_cast<char*>("run"), const_cast<char*>(request.c_str()),
                             nullptr};
  pid_t pid = 0;
  const auto t1 = std::chrono::steady_clock::now();
  if (posix_spawn(&pid, attn.c_str(), &fa, nullptr, args.data(), environ) != 0) {
    std::cerr << "cannot start " << attn << "\n";
    return 1;
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double peak_mb = static_cast<double>(ru.ru_maxrss) * 1024.0 / 1e6;
  const double weights_mb = static_cast<double>(params) * 4.0 / 1e6;
  const double bound_mb = 1.3 * weights_mb;

  int failures = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "attn exited with status " << status << "\n";
    std::ifstream in(answer);
    std::cerr << std::string(std::istreambuf_iterator<char>(in), {}).substr(0, 2000) << "\n";
    ++failures;
  } else {
    std::ifstream in(answer);
    const nlohmann::json out = nlohmann::json::parse(in);
    const auto& logits = out["logits"];
    const auto& weights = out["weights"];
    bool finite = logits.size() == 1 && logits[0].size() == 1 && logits[0][0].size() == V;
    for (const auto& z : logits[0][0]) finite = finite && std::isfinite(z.get<double>());
    if (!finite) {
      std::cerr << "logits: expected 1×1×50257 finite numbers\n";
      ++failures;
    }
    double worst = 0.0;
    bool shaped = weights.size() == L;
    for (const auto& layer : weights) {
      shaped = shaped && layer.size() == 1 && layer[0].size() == H;
      for (const auto& head : layer[0])
        for (const auto& row : head) {
          double s = 0.0;
          for (const auto& w : row) s += w.get<double>();
          worst = std::max(worst, std::fabs(s - 1.0));
        }
    }
    if (!shaped || worst > 1e-5) {
      std::cerr << "weights: expected 12 layers × 1 × 12 heads of rows summing to 1 (worst " << worst << ")\n";
      ++failures;
    }
  }
  std::printf("GPT-2-small-sized file (%llu F32 parameters, %.1f MB of weights): written in %.1f s; a 64-token forward "
              "with every attention map in %.1f s; peak resident set of attn %.1f MB, bound 1.3 x weights = %.1f MB: %s\n",
              static_cast<unsigned long long>(params), weights_mb, write_s, run_s, peak_mb, bound_mb,
              peak_mb <= bound_mb ? "within" : "OVER");
  if (peak_mb > bound_mb) ++failures;
  if (params != 124439808ull) {
    std::cerr << "the file holds " << params << " parameters, not GPT-2 small's 124,439,808\n";
    ++failures;
  }
  std::filesystem::remove_all(dir);
  return failures ? 1 : 0;
}
