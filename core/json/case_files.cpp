// The file reader of the attn tool and the tests; the page links none (json/case_files.hpp).
#include "json/case_files.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attn/error.hpp"

namespace attn {

std::uint64_t case_file_size(const std::string& path) {
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const std::uintmax_t size = regular ? std::filesystem::file_size(path, ec) : 0;
  if (!regular || ec) throw Error(ErrorCode::invalid_field, "\"" + path + "\" is not a readable file");
  if (size > (std::uintmax_t{2} << 30)) throw Error(ErrorCode::too_large, "\"" + path + "\" is larger than 2 GiB");
  return size;
}

void read_case_file_range(const std::string& path, std::uint64_t offset, std::size_t length, std::uint8_t* dst) {
  const std::uint64_t size = case_file_size(path);
  if (offset > size || length > size - offset)
    throw Error(ErrorCode::invalid_field, "bytes [" + std::to_string(offset) + ", " + std::to_string(offset + length) +
                                              ") are past the end of \"" + path + "\" (" + std::to_string(size) + " bytes)");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(ErrorCode::invalid_field, "cannot open \"" + path + "\"");
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char*>(dst), static_cast<std::streamsize>(length));
  if (!file) throw Error(ErrorCode::invalid_field, "cannot read bytes at " + std::to_string(offset) + " of \"" + path + "\"");
}

std::string read_case_file(const std::string& path) {
  case_file_size(path);  // a regular file within the limit, or the same errors
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(ErrorCode::invalid_field, "cannot open \"" + path + "\"");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

}  // namespace attn
