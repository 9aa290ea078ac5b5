// lessons/translate/data.hpp — a seeded synthetic English → French mini-language.
//
// Grammar (English side; French side in brackets):
//   sentence = phrase | clause | clause "and" clause            ["et"]
//   phrase   = NP with at least one adjective (the whole sentence is a noun phrase, e.g.
//              "the black cat" → "le chat noir")
//   clause   = NP verb NP [ "with" NP ]                           ["avec"]
//   NP       = det [size] [colour] noun   →   det [size] noun [colour]
// Size adjectives precede the noun in both languages, colour adjectives follow it in French, so the
// alignment is a permutation that is not the diagonal. Determiners and adjectives agree with the
// noun's gender: the → le/la, a → un/une, black → noir/noire, big → grand/grande...
// Every verb is third person singular present (subjects are never conjoined, so no plural).
// Letter case: everything is lowercase, no punctuation. Elision is avoided, not implemented: every
// noun and size adjective starts with a consonant, so "le"/"la" never become "l'", and no
// preposition contracts with an article ("avec le" stays).
// Lengths count words; BOS and EOS are not counted. Sources and targets have the same length (one
// French word per English word). Token ids: 0 PAD, 1 BOS, 2 EOS, then the words in the order of
// the vocabulary lists in data.cpp.
// Split: sentences are drawn with the core's Rng (attn/random.hpp) from the seed; a sentence whose
// multiset of source words equals that of any sentence already drawn is dropped, so no source of
// one split is a permutation (or a copy) of a source of another. "the black cat" is placed in the
// test split first, so it is never trained on. Test and validation get a quota per length bucket
// (the first sentences drawn in each bucket); training takes the rest, in its natural length mix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::lessons {

constexpr int kTranslatePad = 0, kTranslateBos = 1, kTranslateEos = 2;

/// Words by id (0 PAD "<pad>", 1 BOS "<bos>", 2 EOS "<eos>", then the language's words).
struct TranslationVocab {
  std::vector<std::string> words;
  int size() const { return static_cast<int>(words.size()); }
  /// The id of `word`, or -1.
  int find(const std::string& word) const;
};

/// The source (English) and target (French) vocabularies; the same on every call.
const TranslationVocab& english_vocab();
const TranslationVocab& french_vocab();

struct TranslationPair {
  std::vector<int> source, target;  ///< word ids, no BOS, no EOS, no padding
};

/// A source-length bucket: lengths lo..hi (inclusive).
struct LengthBucket {
  int lo = 0, hi = 0;
};

struct TranslationDataConfig {
  std::uint64_t seed = 2026;
  int train = 4000;                 ///< training pairs
  int validation_per_bucket = 40;   ///< validation pairs in each length bucket
  int test_per_bucket = 100;        ///< test pairs in each length bucket
  int max_length = 20;              ///< longest source in words (the shortest sentence has 3)
  std::vector<LengthBucket> buckets{{3, 8}, {9, 15}, {16, 20}};
};

/// Checks train 1..20000, quotas 1..2000, max_length 8..29 (the grammar's longest sentence has 29
/// words), buckets non-empty, ascending, disjoint, within 3..max_length. Throws Error(invalid_field).
void validate_translation_data(const TranslationDataConfig& cfg);

struct TranslationDataset {
  TranslationDataConfig config;
  std::vector<TranslationPair> train, validation, test;  ///< test[0] is "the black cat"
  std::vector<int> train_per_bucket, validation_per_bucket_count, test_per_bucket_count;
  int drawn = 0, dropped = 0;  ///< sentences drawn, and dropped as a permutation of an earlier one
};

/// The dataset of cfg (validated). Throws Error(invalid_field) when the quotas cannot be met in
/// 200 draws per requested sentence (e.g. a bucket the grammar cannot fill).
TranslationDataset make_translation_dataset(const TranslationDataConfig& cfg);

/// The bucket index of a source length, or -1 when no bucket holds it.
int bucket_of(const std::vector<LengthBucket>& buckets, int length);

/// Words split on spaces (runs of spaces, leading and trailing ones ignored), looked up in the
/// English vocabulary. Throws Error(empty_sequence) for no words, Error(invalid_field) naming the
/// first word outside the vocabulary (with the word list) and for more than 64 words.
std::vector<int> english_ids(const std::string& sentence);

/// The grammar's French translation of English ids (the rule above, agreement included). Throws
/// Error(invalid_field) naming the position when the words are not a sentence of the grammar.
std::vector<int> reference_translation(const std::vector<int>& source);

/// The grammar's word alignment: for each word of reference_translation(source), the index of the
/// English word it translates (a colour follows its noun in French, so "the black cat" gives
/// {0, 2, 1}). Errors as reference_translation.
std::vector<int> reference_alignment(const std::vector<int>& source);

/// Ids → words joined by single spaces (ids outside the vocabulary print as "<id N>").
std::string words_of(const TranslationVocab& vocab, const std::vector<int>& ids);

}  // namespace attn::lessons
