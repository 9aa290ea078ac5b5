// learn/vocab_map.hpp — a model whose vocabulary is part of GPT-2's: the map from its own token ids
// (the rows of wte) to GPT-2's ids, kept in the safetensors file's "__metadata__".
//
// Two metadata keys (safetensors metadata values are strings):
//   "vocab_map"  "gpt2": the model's tokens are GPT-2 BPE tokens (encoder.json + vocab.bpe);
//   "gpt2_ids"   a JSON array of V integers, V = the model's vocabulary (wte's rows), strictly
//                increasing, each in [0, 50257): local id i stands for GPT-2 id gpt2_ids[i].
// A file without either key is a model of GPT-2's own ids. Strictly increasing makes the map one
// to one and leaves one way to write it: local ids are the GPT-2 ids' ranks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attn::learn {

/// GPT-2's vocabulary size (50,000 merges + 256 bytes + "<|endoftext|>").
inline constexpr int kGpt2VocabSize = 50257;
/// GPT-2's id of "<|endoftext|>".
inline constexpr int kGpt2EndOfTextId = 50256;

/// Local id ↔ GPT-2 id for a trimmed vocabulary.
struct VocabMap {
  std::vector<int> to_gpt2;  ///< local id → GPT-2 id, strictly increasing
  /// The local id of a GPT-2 id, or −1 when the model's vocabulary lacks it (binary search).
  int local_of(int gpt2_id) const;
  int size() const { return static_cast<int>(to_gpt2.size()); }
};

/// A map from its GPT-2 ids (local id i → gpt2_ids[i]). Throws Error(invalid_field) naming the
/// first offending entry: an id outside [0, 50257), an id not greater than the one before (a
/// repeat or an unsorted list); Error(shape_mismatch) when `vocab` >= 0 and the list's length is
/// not `vocab` (the model's embedding rows).
VocabMap make_vocab_map(std::vector<int> gpt2_ids, int vocab = -1);

/// The two metadata entries of a map ("vocab_map": "gpt2", "gpt2_ids": "[...]"), to merge into a
/// file's __metadata__ before writing it.
std::map<std::string, std::string> vocab_map_metadata(const VocabMap& map);

/// The map a file's __metadata__ holds, checked against the model's vocabulary `vocab`; nullopt
/// when it has neither "vocab_map" nor "gpt2_ids" (GPT-2's own ids). Throws
/// Error(invalid_field) for a "vocab_map" other than "gpt2", one key without the other,
/// "gpt2_ids" that is not a JSON array of integers, and make_vocab_map's errors.
std::optional<VocabMap> read_vocab_map(const std::map<std::string, std::string>& metadata, int vocab);

/// GPT-2 ids → local ids, every one required. pieces (optional, one per id: the tokenizer's
/// "Ġworld") name a missing token in the message. Throws Error(invalid_field) "tokens[i] = ID
/// (\"PIECE\") is not in the model's vocabulary (V of GPT-2's 50257 tokens)".
std::vector<int> to_local_ids(const VocabMap& map, const std::vector<int>& gpt2_ids,
                              const std::vector<std::string>& pieces = {});

/// A prompt mapped leniently: the tokens the vocabulary has, in order, and the positions it lacks,
/// named in `message` (empty when every token is in it): "tokens[3] = 31373 (\"Ġhello\") is not
/// in the model's vocabulary and is left out; the rest of the prompt is kept".
struct MappedPrompt {
  std::vector<int> local;            ///< local ids of the tokens kept
  std::vector<int> kept, dropped;    ///< positions in the prompt
  std::string message;
};
MappedPrompt map_prompt(const VocabMap& map, const std::vector<int>& gpt2_ids,
                        const std::vector<std::string>& pieces = {});

}  // namespace attn::learn
