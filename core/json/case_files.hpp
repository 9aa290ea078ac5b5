// json/case_files.hpp — files that a JSON case names (additive_decoder_trained's "checkpoint").
//
// The JSON layer does no file I/O of its own: an op that names a file asks the installed reader.
// The attn tool and the tests install read_case_file(); the page has no file system and installs
// none, so it links no file-system code (about 40 KB gzip of the first download), and such an op
// says so.
#pragma once

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

/// The file reader of the attn tool and the tests: a regular file of at most 2 GiB (GPT-2 medium
/// in float32 is 1.4 GB; a request
/// must not make the tool read a device or a pipe forever). Throws Error(invalid_field) for a
/// missing or irregular file, Error(too_large) beyond 2 GiB. Defined in case_files.cpp, which
/// only its callers link.
std::string read_case_file(const std::string& path);

}  // namespace attn
