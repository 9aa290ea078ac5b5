// learn/safetensors.hpp — the safetensors weights format, read and written exactly.
//
// Format (huggingface/safetensors, docs "Format"): bytes 0..7 a little-endian u64 N; N bytes of
// UTF-8 JSON beginning with '{' (padded with trailing spaces), mapping each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end)}, offsets relative to the byte buffer after the
// header, shape row-major, plus an optional "__metadata__" object of string → string; then the
// raw little-endian data. As the Rust library checks, the tensors tile the buffer exactly: sorted
// by offset, each begins where the previous one ended and the last ends at the end of the file.
// Nothing in a file is executed (unlike a pickled torch checkpoint).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attn::learn {

/// The element types the core reads as numbers (every one converts exactly to double; it writes F64
/// and F32), then the format's other types, which a header may hold for buffers (GPT-2's attn.bias
/// causal mask is BOOL or U8 in some uploads) but whose values the core never reads.
enum class SafeDtype { F64, F32, F16, BF16, BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F8_E4M3, F8_E5M2 };
/// True for F64, F32, F16 and BF16: the types read_tensor_values converts.
bool safe_dtype_is_float(SafeDtype d);

/// "[2, 3]": a shape as messages print it.
std::string shape_text(const std::vector<std::uint64_t>& shape);

/// "F64", "F32", "F16", "BF16", "BOOL", "I64", ... (the format's names).
const char* safe_dtype_name(SafeDtype d);
/// Bytes per element (F64 8, F32 4, F16 and BF16 2, BOOL 1, ...).
std::size_t safe_dtype_size(SafeDtype d);

/// One tensor of a file: its name, element type, shape (row-major) and bytes [begin, end) of the
/// data buffer; `values` holds the elements converted to double (empty after read_safetensors_header).
struct SafeTensor {
  std::string name;
  SafeDtype dtype = SafeDtype::F64;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0, end = 0;
  std::vector<double> values;
  std::uint64_t elements() const;  ///< product of shape (1 for a scalar)
};

/// A file's tensors in data order (ascending offsets) and its "__metadata__".
struct Safetensors {
  std::vector<SafeTensor> tensors;
  std::map<std::string, std::string> metadata;
  std::uint64_t data_start = 0;  ///< 8 + N: where the data buffer starts in the file
};

/// Header limit, as the Rust library's MAX_HEADER_SIZE: 100,000,000 bytes.
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100000000;

/// Reads and checks the header of the file `data` (size bytes); values stay empty. Throws
/// attn::Error naming the tensor or byte range:
///   invalid_field   a file shorter than 8 bytes, than its header or than its data; a header length
///                   beyond the file; a field of a tensor entry missing or of the wrong type; a
///                   dtype other than F64, F32, F16, BF16; a repeated name (in the header or in a
///                   tensor entry); begin > end; offsets beyond the data, overlapping, leaving a
///                   gap, or stopping short of the end of the file; metadata that is not an object
///                   of strings;
///   too_large       a header length over kMaxSafetensorsHeader;
///   invalid_json    a header that does not start with '{' or is not one JSON object;
///   shape_mismatch  end − begin differs from the dtype's size × the product of the shape.
/// With any_dtype, every dtype of the format is accepted in the header (a caller that skips buffers
/// checks the parameters' dtypes itself: read_tensor_values refuses the non-float ones).
Safetensors read_safetensors_header(const std::uint8_t* data, std::size_t size, bool any_dtype = false);

/// The elements of tensor t of a checked file (file = read_safetensors_header(data, size)), each
/// converted exactly to double (F32 by widening, F16 and BF16 by their bit layouts). Throws
/// Error(non_finite) "tensor \"NAME\" element I is NaN/infinite" for the first such element,
/// Error(invalid_field) for a dtype that is not F64, F32, F16 or BF16.
std::vector<double> read_tensor_values(const std::uint8_t* data, std::size_t size, const Safetensors& file,
                                       const SafeTensor& t);

/// read_safetensors_header from the first bytes of a file only (a reader that fetches a large file
/// tensor by tensor): `prefix` holds bytes [0, prefix_size) of a file of file_size bytes and must
/// hold the header (8 + N bytes, N its little-endian length); the same checks and errors, and
/// Error(invalid_field) when the prefix stops inside the header.
Safetensors read_safetensors_header_of(const std::uint8_t* prefix, std::size_t prefix_size, std::uint64_t file_size,
                                       bool any_dtype = false);

/// n elements of dtype d at p, converted to double exactly (or to float: F32, F16 and BF16 exactly,
/// F64 rounded to the nearest float), written to out. `first` is the index of p's first element in
/// tensor `name`, for messages. Throws Error(non_finite) "tensor \"NAME\" element I is
/// NaN/infinite" (for float also an F64 value beyond float's range), Error(invalid_field) for a
/// dtype that is not F64, F32, F16 or BF16.
void decode_elements(const std::uint8_t* p, SafeDtype d, std::size_t n, double* out, const std::string& name,
                     std::uint64_t first = 0);
void decode_elements(const std::uint8_t* p, SafeDtype d, std::size_t n, float* out, const std::string& name,
                     std::uint64_t first = 0);

/// read_safetensors_header, then every tensor's values (errors of both).
Safetensors read_safetensors(const std::uint8_t* data, std::size_t size);

/// IEEE-754 binary16 bits → double, exactly: sign, 5 exponent bits (bias 15), 10 fraction bits;
/// exponent 0 is subnormal (fraction × 2^−24), 31 infinity or NaN (IEEE 754-2008 §3.6).
double half_to_double(std::uint16_t bits);
/// double → IEEE-754 binary16 bits, rounded to the nearest (ties to even) in one step, with
/// subnormals (multiples of 2^−24); nullopt for NaN, infinity or a value that rounds past 65504.
std::optional<std::uint16_t> double_to_half(double x);
/// bfloat16 bits → double, exactly: the upper half of a binary32 (8 exponent bits, 7 fraction bits).
double bfloat16_to_double(std::uint16_t bits);

/// The bytes of a file holding `file.tensors` (their values; each tensor's dtype, begin and end
/// are ignored) stored as `dtype`, packed in the given order, with `file.metadata` as
/// "__metadata__" (omitted when empty). dtype F64, F32 or F16. Deterministic: the header is compact JSON with its keys
/// sorted (nlohmann-json's object order), padded with spaces to a multiple of 8 bytes as the Rust
/// library pads it. F32 and F16 round each double to the nearest value of the type (ties to even, double_to_half),
/// so such a file reads back as the rounded values. Throws Error(invalid_field) for dtype BF16 or another, a repeated name
/// or "__metadata__", a name or metadata string that is not UTF-8, values that do not fill the shape; Error(non_finite) naming the tensor and
/// element for NaN, infinity or (F32, F16) a finite value beyond the type's range.
std::string write_safetensors(const Safetensors& file, SafeDtype dtype = SafeDtype::F64);

}  // namespace attn::learn
