// json/case_files.hpp — files that a JSON case names (additive_decoder_trained's "checkpoint").
//
// The JSON layer does no file I/O of its own: an op that names a file asks the installed reader.
// The attn tool and the tests install read_case_file(); the page has no file system and installs
// none, so it links no file-system code (about 40 KB gzip of the first download), and such an op
// says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace attn {

/// Returns a file's bytes or throws attn::Error naming what is wrong.
using CaseFileReader = std::function<std::string(const std::string& path)>;

/// Installs the reader used by ops that name a file (an empty function removes it).
void set_case_file_reader(CaseFileReader reader);

/// The bytes of `path` through the installed reader. Throws Error(invalid_field) when no reader is
/// installed ("this build has no file access"), and whatever the reader throws.
std::string read_named_file(const std::string& path, const char* field);

/// A reader of parts of files, for a model read tensor by tensor (a GPT-2-sized file is never held
/// whole): `size` gives a file's size in bytes, `read` copies `length` bytes at `offset` into dst.
/// Both throw attn::Error naming what is wrong.
struct CaseFileRanges {
  std::function<std::uint64_t(const std::string& path)> size;
  std::function<void(const std::string& path, std::uint64_t offset, std::size_t length, std::uint8_t* dst)> read;
};

/// Installs the range reader (an empty one removes it).
void set_case_file_ranges(CaseFileRanges ranges);

/// A file opened for reading by parts: its size and a reader of [offset, offset + length).
struct NamedFile {
  std::uint64_t size = 0;
  std::function<void(std::uint64_t offset, std::size_t length, std::uint8_t* dst)> read;
};

/// `path` through the installed range reader; without one, its bytes through read_named_file, held
/// in memory. Errors are prefixed with `field`, as read_named_file's.
NamedFile open_named_file(const std::string& path, const char* field);

/// The range reader of the attn tool: a regular file of at most 2 GiB, read with seeks. Throws
/// Error(invalid_field) for a missing or irregular file or a range past its end, Error(too_large)
/// beyond 2 GiB. Defined in case_files.cpp.
std::uint64_t case_file_size(const std::string& path);
void read_case_file_range(const std::string& path, std::uint64_t offset, std::size_t length, std::uint8_t* dst);

/// The file reader of the attn tool and the tests: a regular file of at most 2 GiB (GPT-2 medium
/// in float32 is 1.4 GB; a request
/// must not make the tool read a device or a pipe forever). Throws Error(invalid_field) for a
/// missing or irregular file, Error(too_large) beyond 2 GiB. Defined in case_files.cpp, which
/// only its callers link.
std::string read_case_file(const std::string& path);

}  // namespace attn
