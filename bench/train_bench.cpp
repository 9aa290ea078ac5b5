// bench/train_bench.cpp — training speed of the two learning models (core/learn/): Adam steps per
// second at the sizes of the learning targets. One source for the native program (train_bench) and
// the em++ build (train_bench_wasm, run in headless Chromium by bench/run_wasm.mjs with
// train_bench.html); bench/train_torch.py times PyTorch on the same model, data and optimiser.
//
//   train_bench [--model decoder|seq2seq|seq2seq-bidirectional|all] [--rounds R] [--steps N] [--round-time S]
//               [--warmup-steps W] [--warmup-time S] [--batches K] [--seed S] [--dump DIR]
//
// Each model:
//   decoder  V 16, T 32, d 32, 2 layers, 4 heads (no MLP, learned positions, no LayerNorm: the
//            DecoderConfig defaults), batch 32. Each sequence is T + 1 random tokens: tokens =
//            the first T, targets = the next token; a random length in [T/2, T] per row, the
//            positions after it padded (token 0, target -100).
//   seq2seq  GRU encoder-decoder with additive attention, E = H = A = 32, vocabularies 16,
//            batch 32: source lengths random in 4..16 (padded with 0 to the batch's longest),
//            target lengths in 1..16: target_out = y_1..y_L (EOS = 1 last), target_in = BOS (0),
//            y_1..y_{L-1}; padding 0 in target_in and -100 in target_out.
//   seq2seq-bidirectional  the same with Bahdanau's bidirectional encoder (annotations 2H wide),
//            the Translate panel's model; the same batches as seq2seq.
// K fixed batches (--batches, default 8) drawn from attn::Rng(seed): the same numbers natively
// and in wasm. Parameters: init_params(layout, seed) (PyTorch's default laws). Step i (counted
// from the first warm-up step) trains on batch i mod K: Adam lr 3e-3, betas 0.9/0.999, eps 1e-8,
// clip_grad_norm 1.0.
// Timing: warm-up (at least W steps and S seconds: V8 tiers wasm up while it runs), then R rounds
// of N steps each (N from the warm-up so that a round lasts about --round-time); steps/s of the
// best round and the median round (wall clock: std::chrono::steady_clock, performance.now in wasm).
// Output: "BENCH_ENV {json}" (the products' register width and the float64 multiply-then-add peak
// measured at it, bench/fp64_peak.hpp), "BENCH {json}" per model (steps_per_s, steps_per_s_median,
// the first losses, the fastest round's matrix-product FLOPs per step, GFLOP/s and share of the
// peak), then
// "BENCH_DONE" (bench/run_wasm.mjs reads the same lines from the browser console).
// --dump DIR writes DIR/<model>.json: {"name", "about", "case": a train_steps request (model,
// params keyed by state_dict name, weights out×in, the K batches, optimizer, clip; see
// core/json/learn_json.hpp), "bench": {the schedule}, "cpp_losses": [the first losses]}.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "attn/random.hpp"
#include "learn/gemm.hpp"
#include "learn/layers.hpp"  // kIgnoreIndex
#include "json/learn_json.hpp"
#include "learn/model.hpp"

namespace learn = attn::learn;

double fp64_peak_base_gflops(double seconds, int rounds);  // bench/fp64_peak_base.cpp
double fp64_peak_avx2_gflops(double seconds, int rounds);  // bench/fp64_peak_avx2.cpp (x86-64 only)
using learn::Json;

namespace {

struct Options {
  std::string model = "all";
  int rounds = 5;
  int steps = 0;             // per round; 0 = from the warm-up and round_time
  double round_time = 0.4;   // seconds per round when steps = 0
  int warmup_steps = 10;
  double warmup_time = 1.0;  // seconds
  int batches = 8;
  std::uint64_t seed = 2024;
  double peak_gflops = 0.0;  // measured at start: the float64 multiply-then-add peak (fp64_peak.hpp)
  std::string dump;
};

constexpr int kBatch = 32;
constexpr int kCheckLosses = 5;  // losses recorded from the first steps (the torch script compares them)
constexpr double kLr = 3e-3, kClip = 1.0;

double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

int uniform_int(attn::Rng& rng, int lo, int hi) {  // [lo, hi]
  return lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

learn::Batch decoder_batch(const learn::DecoderConfig& c, attn::Rng& rng) {
  learn::Batch b;
  learn::DecoderBatch& d = b.decoder;
  d.batch = kBatch;
  d.t = c.context;
  const int T = c.context;
  d.tokens.assign(static_cast<size_t>(kBatch) * T, 0);
  d.targets.assign(static_cast<size_t>(kBatch) * T, learn::kIgnoreIndex);
  for (int i = 0; i < kBatch; ++i) {
    std::vector<int> seq(static_cast<size_t>(T) + 1);
    for (int& x : seq) x = static_cast<int>(rng.below(static_cast<std::uint64_t>(c.vocab)));
    const int len = uniform_int(rng, T / 2, T);
    for (int t = 0; t < len; ++t) {
      d.tokens[static_cast<size_t>(i) * T + t] = seq[static_cast<size_t>(t)];
      d.targets[static_cast<size_t>(i) * T + t] = seq[static_cast<size_t>(t) + 1];
    }
  }
  return b;
}

learn::Batch seq2seq_batch(const learn::Seq2SeqConfig& c, attn::Rng& rng) {
  learn::Batch b;
  learn::Seq2SeqBatch& s = b.seq2seq;
  s.batch = kBatch;
  std::vector<int> src_len(kBatch), tgt_len(kBatch);
  for (int i = 0; i < kBatch; ++i) {
    src_len[static_cast<size_t>(i)] = uniform_int(rng, 4, 16);
    tgt_len[static_cast<size_t>(i)] = uniform_int(rng, 1, 16);
  }
  s.src_len = *std::max_element(src_len.begin(), src_len.end());
  s.tgt_len = *std::max_element(tgt_len.begin(), tgt_len.end());
  const int S = s.src_len, U = s.tgt_len;
  s.source.assign(static_cast<size_t>(kBatch) * S, 0);
  s.source_lengths = src_len;
  s.target_in.assign(static_cast<size_t>(kBatch) * U, 0);
  s.target_out.assign(static_cast<size_t>(kBatch) * U, learn::kIgnoreIndex);
  for (int i = 0; i < kBatch; ++i) {
    for (int t = 0; t < src_len[static_cast<size_t>(i)]; ++t)
      s.source[static_cast<size_t>(i) * S + t] = uniform_int(rng, 2, c.src_vocab - 1);
    const int L = tgt_len[static_cast<size_t>(i)];
    for (int t = 0; t < L; ++t) {
      const int y = t == L - 1 ? 1 : uniform_int(rng, 2, c.tgt_vocab - 1);  // EOS last
      s.target_out[static_cast<size_t>(i) * U + t] = y;
      if (t + 1 < U) s.target_in[static_cast<size_t>(i) * U + t + 1] = y;  // BOS 0 first
    }
    for (int t = L; t < U; ++t) s.target_in[static_cast<size_t>(i) * U + t] = 0;  // padding
  }
  return b;
}

Json rows_json(const std::vector<int>& v, int rows, int cols) {
  Json a = Json::array();
  for (int r = 0; r < rows; ++r)
    a.push_back(Json(std::vector<int>(v.begin() + static_cast<long>(r) * cols, v.begin() + static_cast<long>(r + 1) * cols)));
  return a;
}

Json batch_json(const learn::Model& m, const learn::Batch& b) {
  if (m.kind == learn::ModelKind::decoder) {
    const learn::DecoderBatch& d = b.decoder;
    return Json{{"tokens", rows_json(d.tokens, d.batch, d.t)}, {"targets", rows_json(d.targets, d.batch, d.t)}};
  }
  const learn::Seq2SeqBatch& s = b.seq2seq;
  return Json{{"source", rows_json(s.source, s.batch, s.src_len)},
              {"source_lengths", s.source_lengths},
              {"target_in", rows_json(s.target_in, s.batch, s.tgt_len)},
              {"target_out", rows_json(s.target_out, s.batch, s.tgt_len)}};
}

Json model_json(const learn::Model& m) {
  if (m.kind == learn::ModelKind::decoder) {
    const learn::DecoderConfig& c = m.decoder;
    return Json{{"kind", "decoder"}, {"vocab", c.vocab},     {"context", c.context},
                {"d_model", c.d_model}, {"heads", c.heads}, {"layers", c.layers},
                {"mlp", c.mlp},       {"positions", learn::decoder_positions_name(c.positions)},
                {"layer_norm", c.layer_norm}};
  }
  const learn::Seq2SeqConfig& c = m.seq2seq;
  Json j{{"kind", "seq2seq"}, {"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab}, {"embed", c.embed},
         {"hidden", c.hidden}, {"attention", c.attention ? "additive" : "none"},
         {"encoder", c.bidirectional ? "bidirectional" : "forward"}};
  if (c.attention) j["attn_dim"] = c.attn_dim;
  return j;
}

struct Result {
  double best = 0, median = 0;
  int rounds = 0, steps_per_round = 0, warmup = 0;
  double warmup_s = 0;
  std::vector<double> losses;  // the first kCheckLosses
  double last_loss = 0;
};

void run_model(const std::string& name, const Options& opt) {
  const bool dec = name == "decoder";
  const learn::DecoderConfig dcfg;   // V 16, T 32, d 32, 4 heads, 2 layers, no MLP, learned positions
  learn::Seq2SeqConfig scfg;         // vocabularies 16, E = H = A = 32, additive attention
  scfg.bidirectional = name == "seq2seq-bidirectional";
  const learn::Model model = learn::make_model(dec ? learn::ModelKind::decoder : learn::ModelKind::seq2seq, dcfg, scfg);
  std::vector<double> params = learn::init_params(model.layout, opt.seed);
  const std::vector<double> init = params;
  attn::Rng rng(opt.seed * 7919 + (dec ? 1 : 2));  // both seq2seq models train on the same batches
  std::vector<learn::Batch> batches;
  for (int k = 0; k < opt.batches; ++k) {
    batches.push_back(dec ? decoder_batch(dcfg, rng) : seq2seq_batch(scfg, rng));
    learn::validate_batch(model, batches.back());
  }
  learn::AdamConfig adam;
  adam.lr = kLr;
  learn::AdamState state;
  std::vector<double> grads;
  long step = 0;
  Result r;
  auto one = [&] {
    const double loss = learn::train_step(model, params, state, adam, kClip, batches[static_cast<size_t>(step % opt.batches)], grads);
    if (r.losses.size() < kCheckLosses) r.losses.push_back(loss);
    r.last_loss = loss;
    ++step;
  };
  // Warm-up.
  const double w0 = now_s();
  double min_step = 0;
  while (step < std::max(opt.warmup_steps, kCheckLosses) || now_s() - w0 < opt.warmup_time) {
    const double a = now_s();
    one();
    min_step = step == 1 ? now_s() - a : std::min(min_step, now_s() - a);
  }
  r.warmup = static_cast<int>(step);
  r.warmup_s = now_s() - w0;
  r.steps_per_round = opt.steps > 0 ? opt.steps : std::max(3, static_cast<int>(opt.round_time / std::max(min_step, 1e-6)));
  std::vector<double> rate;
  double best_gflops = 0.0, best_flops_per_step = 0.0;  // the products' FLOPs of the fastest round
  for (int k = 0; k < opt.rounds; ++k) {
    const std::uint64_t f0 = learn::gemm_flops();
    const double a = now_s();
    for (int i = 0; i < r.steps_per_round; ++i) one();
    const double secs = now_s() - a;
    const double flops = static_cast<double>(learn::gemm_flops() - f0);
    rate.push_back(r.steps_per_round / secs);
    if (rate.back() >= *std::max_element(rate.begin(), rate.end()))
      best_gflops = flops / secs / 1e9, best_flops_per_step = flops / r.steps_per_round;
  }
  std::sort(rate.begin(), rate.end());
  r.rounds = opt.rounds;
  r.best = rate.back();
  r.median = rate[rate.size() / 2];

  Json line{{"model", name},
            {"config", model_json(model)},
            {"batch", kBatch},
            {"params", model.layout.total()},
            {"steps_per_s", r.best},
            {"steps_per_s_median", r.median},
            {"ms_per_step", 1000.0 / r.best},
            {"rounds", r.rounds},
            {"steps_per_round", r.steps_per_round},
            {"warmup_steps", r.warmup},
            {"warmup_s", r.warmup_s},
            {"losses", r.losses},
            {"last_loss", r.last_loss},
            // the matrix products' share of the machine: learn::gemm_flops counts 2·M·N·K per product
            {"matmul_flops_per_step", best_flops_per_step},
            {"matmul_gflops", best_gflops},
            {"peak_gflops", opt.peak_gflops > 0 ? Json(opt.peak_gflops) : Json(nullptr)},
            {"share_of_peak", opt.peak_gflops > 0 ? Json(best_gflops / opt.peak_gflops) : Json(nullptr)}};
  std::printf("BENCH %s\n", line.dump().c_str());
  std::fflush(stdout);

  if (!opt.dump.empty()) {
    Json bj = Json::array();
    for (const learn::Batch& b : batches) bj.push_back(batch_json(model, b));
    Json doc{{"name", "train-bench-" + name},
             {"about", "bench/train_bench.cpp --dump: the model, initial parameters (init_params seed " +
                           std::to_string(opt.seed) + ") and fixed batches the training benchmark runs; step i uses "
                           "batches[i mod K]; cpp_losses are the C++ losses of the first steps"},
             {"case",
              {{"op", "train_steps"},
               {"model", model_json(model)},
               {"params", learn::params_to_json(model, init)},
               {"batches", bj},
               {"optimizer", {{"name", "adam"}, {"lr", kLr}, {"betas", {adam.beta1, adam.beta2}}, {"eps", adam.eps},
                              {"weight_decay", adam.weight_decay}}},
               {"clip", kClip}}},
             {"bench", {{"rounds", opt.rounds}, {"steps", opt.steps}, {"round_time", opt.round_time},
                        {"warmup_steps", opt.warmup_steps}, {"warmup_time", opt.warmup_time}}},
             {"cpp_losses", r.losses}};
    const std::string path = opt.dump + "/" + name + ".json";
    std::ofstream f(path);
    f << doc.dump() << "\n";
    if (!f) throw std::runtime_error("cannot write " + path);
    std::fprintf(stderr, "train_bench: wrote %s\n", path.c_str());
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: train_bench [--model decoder|seq2seq|seq2seq-bidirectional|all] [--rounds R] [--steps N]\n"
               "                   [--round-time S] [--warmup-steps W] [--warmup-time S] [--batches K] [--seed S]\n"
               "                   [--dump DIR]\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--model" && more) opt.model = argv[++i];
    else if (a == "--rounds" && more) opt.rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--steps" && more) opt.steps = std::max(0, std::atoi(argv[++i]));
    else if (a == "--round-time" && more) opt.round_time = std::atof(argv[++i]);
    else if (a == "--warmup-steps" && more) opt.warmup_steps = std::max(0, std::atoi(argv[++i]));
    else if (a == "--warmup-time" && more) opt.warmup_time = std::atof(argv[++i]);
    else if (a == "--batches" && more) opt.batches = std::max(1, std::atoi(argv[++i]));
    else if (a == "--seed" && more) opt.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--dump" && more) opt.dump = argv[++i];
    else return usage();
  }
  const std::vector<std::string> models = {"decoder", "seq2seq", "seq2seq-bidirectional"};
  if (opt.model != "all" && std::find(models.begin(), models.end(), opt.model) == models.end()) return usage();
  try {
    // gemm: the register width of the layers' matrix product on this machine (learn/gemm.hpp); the
    // peak is measured at that width: independent chains of a multiply then an add, no FMA
    // Best of 8 separate calls of 0.1 s: V8 runs a wasm function's first calls in its baseline tier
    // and cannot switch a running call to the optimised one, so one long call would understate it.
    // Not in wasm: this loop measured 6.5 GFLOP/s in Chromium, below the 11 a training step's products
    // reach there, so it is no peak (left null rather than printed wrong).
#if !defined(__EMSCRIPTEN__)
    for (int call = 0; call < 8; ++call) {
#if defined(ATTN_PEAK_AVX2)
      const double g = learn::gemm_lanes() == 4 ? fp64_peak_avx2_gflops(0.1, 1) : fp64_peak_base_gflops(0.1, 1);
#else
      const double g = fp64_peak_base_gflops(0.1, 1);
#endif
      opt.peak_gflops = std::max(opt.peak_gflops, g);
    }
#endif
    std::printf("BENCH_ENV {\"program\":\"train_bench\",\"batch\":%d,\"seed\":%llu,\"batches\":%d,\"gemm\":\"%s\","
                "\"fp64_peak_gflops\":%s,\"flops\":\"matmul_flops_per_step = 2*M*N*K summed over every matrix product "
                "of a step, forward and backward (learn::gemm_flops); softmax, tanh, sigmoid, clipping and Adam not "
                "counted. fp64_peak_gflops: 2 FLOPs per lane per multiply-then-add, 12 independent chains, best of 8 "
                "calls of 0.1 s\"}\n",
                kBatch, static_cast<unsigned long long>(opt.seed), opt.batches, learn::gemm_isa_name(),
                opt.peak_gflops > 0 ? std::to_string(opt.peak_gflops).c_str() : "null");
    for (const std::string& m : models)
      if (opt.model == "all" || opt.model == m) run_model(m, opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_bench: %s\n", e.what());
    std::printf("BENCH_ERROR %s\n", e.what());
    return 1;
  }
  std::printf("BENCH_DONE\n");
  std::fflush(stdout);
  return 0;
}
