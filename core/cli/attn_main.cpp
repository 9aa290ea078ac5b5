// attn — run one JSON attention case (README: "The JSON contract").
//
//   attn run FILE     read the case from FILE ("-" for standard input)
//   attn checkpoint learned_heads FILE
//                     train the Learned heads panel's default run from its seed and write its
//                     checkpoint (checkpoints/learned_heads.ckpt; learn/checkpoint.hpp's layout)
//   attn checkpoint translate FILE
//                     train the Translate lesson's default pair (fixed summary and additive
//                     attention) from its seed and write checkpoints/translate.ckpt
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
#include <cstdio>
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
#include "lessons/learned_heads/format.hpp"
#include "lessons/model_export.hpp"
#include "lessons/translate/translate.hpp"

namespace {

int usage() {
  std::cerr << "usage: attn run FILE   (FILE may be - for standard input)\n"
               "       attn checkpoint learned_heads|translate FILE   (train the shipped run, write its checkpoint)\n"
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

int write_checkpoint(const std::string& name, const std::string& path) {
  if (name == "translate") return write_translate_checkpoint(path);
  if (name != "learned_heads") {
    std::cerr << "attn: no shipped checkpoint named '" << name << "' (learned_heads, translate)\n";
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
