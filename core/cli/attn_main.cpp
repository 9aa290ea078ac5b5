// attn — run one JSON attention case (README: "The JSON contract").
//
//   attn run FILE     read the case from FILE ("-" for standard input)
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

#include "attn/json_case.hpp"

namespace {

int usage() {
  std::cerr << "usage: attn run FILE   (FILE may be - for standard input)\n"
               "Reads one JSON case, e.g. {\"op\":\"attention\",\"query\":[[1,0]],\"key\":[[1,0]],"
               "\"value\":[[2]]},\nand prints the result as JSON. Ops: attention, self_attention, "
               "multi_head.\n";
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
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
