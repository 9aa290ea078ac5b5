// The file reader of the attn tool and the tests; the page links none (json/case_files.hpp).
#include "json/case_files.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/error.hpp"

namespace attn {

std::string read_case_file(const std::string& path) {
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const std::uintmax_t size = regular ? std::filesystem::file_size(path, ec) : 0;
  if (!regular || ec) throw Error(ErrorCode::invalid_field, "\"" + path + "\" is not a readable file");
  if (size > (std::uintmax_t{2} << 30)) throw Error(ErrorCode::too_large, "\"" + path + "\" is larger than 2 GiB");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(ErrorCode::invalid_field, "cannot open \"" + path + "\"");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

}  // namespace attn
