// attn/bpe.hpp — GPT-2's byte-level byte-pair encoding (Radford et al. 2019, "Language Models are
// Unsupervised Multitask Learners"; OpenAI's gpt-2 src/encoder.py is the reference).
//
// Text → UTF-8 bytes → pre-tokenised into pieces by GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// → each piece's bytes mapped to printable characters (bytes_to_unicode: "Ġ" is the space) →
// merged by rank (a merges file, line order) → each merged symbol's id in the vocabulary.
// This layer knows no JSON: json/tokenize_json.hpp reads vocab.json / encoder.json into the
// (token, id) list BpeTokenizer takes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attn {

/// Limits of the tokenizer (docs/models.md, "GPT-2 tokenizer"): Error(too_large) beyond them.
constexpr std::size_t kMaxTokenizeBytes = 1000000;    ///< text to encode, in UTF-8 bytes
constexpr std::size_t kMaxDetokenizeIds = 1000000;    ///< ids to decode in one call
constexpr std::size_t kMaxVocabEntries = 1000000;     ///< tokens of a vocabulary
constexpr std::size_t kMaxMerges = 1000000;           ///< lines of a merges file
constexpr long long kMaxTokenId = 0x7FFFFFFF;         ///< largest id a vocabulary may hold

/// GPT-2's end-of-text marker; id 50256 in GPT-2's vocabulary.
inline constexpr const char* kEndOfText = "<|endoftext|>";

/// GPT-2's bytes_to_unicode(): the character (as UTF-8) that stands for each byte. Printable
/// Latin-1 bytes (!..~, ¡..¬, ®..ÿ) stand for themselves; the other 68 become U+0100 + n in byte
/// order (space 0x20 → "Ġ" U+0120, newline 0x0A → "Ċ" U+010A).
const std::array<std::string, 256>& gpt2_byte_chars();

/// GPT-2's pre-tokeniser: `text` (UTF-8) split into pieces by the pattern above, leftmost
/// alternative first and each greedy, as Python's `regex` module matches it (findall). The pieces
/// tile the text; each is [begin, end) in bytes. Throws Error(invalid_field) "text is not valid
/// UTF-8 at byte N".
std::vector<std::pair<std::size_t, std::size_t>> gpt2_pretokenize(const std::string& text);

/// A merges file's pairs in rank order (rank = index). The first line is skipped when it starts
/// with "#version" (as encoder.py and Hugging Face's readers do); so is an empty last line; "\r\n"
/// line ends are accepted. Throws Error(invalid_field) "merges line N: ..." (N counts from 1 in
/// the file) for a line that is not two symbols separated by spaces, Error(too_large) past
/// kMaxMerges lines.
std::vector<std::pair<std::string, std::string>> parse_bpe_merges(const std::string& text);

/// One call's output: ids with their byte-level pieces (vocabulary strings, "Ġworld") and each
/// token's bytes decoded as UTF-8 (U+FFFD where a token holds part of a character).
struct BpeEncoding {
  std::vector<int> ids;
  std::vector<std::string> pieces;
  std::vector<std::string> texts;
};

/// A byte-level BPE tokenizer: a vocabulary (token string → id) and ranked merges.
class BpeTokenizer {
 public:
  /// `vocab`: (byte-level token string, id), ids in 0..kMaxTokenId, no token or id twice;
  /// `merges`: in rank order (a pair listed twice keeps its later rank, as encoder.py's dict
  /// does). Throws Error(invalid_field) naming a repeated token or id or an id out of range,
  /// Error(too_large) beyond kMaxVocabEntries / kMaxMerges.
  BpeTokenizer(const std::vector<std::pair<std::string, long long>>& vocab,
               const std::vector<std::pair<std::string, std::string>>& merges);

  /// Encodes UTF-8 `text` (at most kMaxTokenizeBytes bytes). `special`: each "<|endoftext|>" in the
  /// text becomes the vocabulary's id for it (50256 in GPT-2's) instead of plain text. BPE per
  /// piece as encoder.py's bpe(): repeatedly merge every occurrence (left to right) of the
  /// adjacent pair with the lowest rank, until no pair has a rank; a rank round costs O(log n)
  /// per occurrence, so a long piece is not quadratic. Throws Error(invalid_field) for invalid
  /// UTF-8 (naming the byte offset), for a merged symbol the vocabulary lacks (naming it), for
  /// `special` with no "<|endoftext|>" in the vocabulary; Error(too_large) past the limit.
  BpeEncoding encode(const std::string& text, bool special = false) const;

  /// The bytes of `ids` concatenated (each token's characters mapped back through
  /// gpt2_byte_chars(); a character outside that alphabet, as in an added token, is its own
  /// UTF-8). Throws Error(invalid_field) "tokens[i] = ID is not in the vocabulary", Error(too_large)
  /// past kMaxDetokenizeIds ids.
  std::string decode_bytes(const std::vector<long long>& ids) const;
  /// decode_bytes as text: UTF-8 with U+FFFD for ill-formed bytes (encoder.py's errors="replace").
  std::string decode(const std::vector<long long>& ids) const;
  /// The vocabulary string of `id` ("Ġworld"); Error(invalid_field) as decode_bytes.
  const std::string& piece(long long id, std::size_t position = 0) const;

  /// The vocabulary's id of "<|endoftext|>" (50256 in GPT-2's), or −1 when it has no such token.
  long long end_of_text_id() const { return end_of_text_id_; }
  std::size_t vocab_size() const { return id_symbol_.size(); }
  std::size_t merge_count() const { return merges_.size(); }

 private:
  struct Merge {
    std::uint32_t rank;
    int result;  // symbol index of the merged pair
  };
  int intern(const std::string& s);
  int symbol_of(long long id, std::size_t position) const;
  void bpe(const std::string& piece_bytes, std::vector<int>& ids_out) const;

  std::unordered_map<std::string, int> symbol_index_;   // symbol string → symbol index
  std::vector<std::string> symbols_;                    // symbol index → string
  std::vector<long long> symbol_id_;                    // symbol index → token id, −1 if none
  std::vector<std::string> symbol_bytes_;               // symbol index → bytes (tokens only)
  std::unordered_map<std::uint64_t, Merge> merges_;     // (left << 32 | right) → rank, result
  std::unordered_map<long long, int> id_symbol_;        // token id → symbol index
  std::array<int, 256> byte_symbol_{};                  // byte → its one-character symbol
  long long end_of_text_id_ = -1;
};

}  // namespace attn
