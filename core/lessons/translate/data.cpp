#include "lessons/translate/data.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::lessons {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::invalid_field, msg); }

enum Gender { masculine = 0, feminine = 1 };

struct Noun {
  const char* en;
  const char* fr;
  Gender g;
};
struct Agreeing {  // an English word with its masculine and feminine French forms
  const char* en;
  const char* m;
  const char* f;
};
struct Plain {
  const char* en;
  const char* fr;
};

// Nouns and size adjectives start with a consonant: no elision ("le chat", never "l'...").
const Noun kNouns[] = {{"cat", "chat", masculine},    {"dog", "chien", masculine},   {"horse", "cheval", masculine},
                       {"book", "livre", masculine},  {"mouse", "souris", feminine}, {"car", "voiture", feminine},
                       {"house", "maison", feminine}, {"ball", "balle", feminine}};
const Agreeing kDets[] = {{"the", "le", "la"}, {"a", "un", "une"}};
const Agreeing kColours[] = {{"black", "noir", "noire"}, {"white", "blanc", "blanche"}, {"green", "vert", "verte"},
                             {"grey", "gris", "grise"},  {"blue", "bleu", "bleue"}};
const Agreeing kSizes[] = {{"big", "grand", "grande"}, {"small", "petit", "petite"}};
const Plain kVerbs[] = {{"sees", "voit"},    {"eats", "mange"}, {"likes", "aime"},
                        {"follows", "suit"}, {"finds", "trouve"}, {"chases", "chasse"}};
const Plain kAnd{"and", "et"}, kWith{"with", "avec"};

template <class T, std::size_t N>
constexpr int count(const T (&)[N]) {
  return static_cast<int>(N);
}

TranslationVocab build_english() {
  TranslationVocab v{{"<pad>", "<bos>", "<eos>"}};
  for (const Agreeing& d : kDets) v.words.push_back(d.en);
  for (const Noun& n : kNouns) v.words.push_back(n.en);
  for (const Agreeing& c : kColours) v.words.push_back(c.en);
  for (const Agreeing& s : kSizes) v.words.push_back(s.en);
  for (const Plain& p : kVerbs) v.words.push_back(p.en);
  v.words.push_back(kAnd.en);
  v.words.push_back(kWith.en);
  return v;
}

TranslationVocab build_french() {
  TranslationVocab v{{"<pad>", "<bos>", "<eos>"}};
  for (const Agreeing& d : kDets) {
    v.words.push_back(d.m);
    v.words.push_back(d.f);
  }
  for (const Noun& n : kNouns) v.words.push_back(n.fr);
  for (const Agreeing& c : kColours) {
    v.words.push_back(c.m);
    v.words.push_back(c.f);
  }
  for (const Agreeing& s : kSizes) {
    v.words.push_back(s.m);
    v.words.push_back(s.f);
  }
  for (const Plain& p : kVerbs) v.words.push_back(p.fr);
  v.words.push_back(kAnd.fr);
  v.words.push_back(kWith.fr);
  return v;
}

// Word classes of the English ids, from the list order above.
constexpr int kEnDet = 3, kEnNoun = kEnDet + 2, kEnColour = kEnNoun + 8, kEnSize = kEnColour + 5,
              kEnVerb = kEnSize + 2, kEnAnd = kEnVerb + 6, kEnWith = kEnAnd + 1;
constexpr int kFrDet = 3, kFrNoun = kFrDet + 4, kFrColour = kFrNoun + 8, kFrSize = kFrColour + 10,
              kFrVerb = kFrSize + 4, kFrAnd = kFrVerb + 6, kFrWith = kFrAnd + 1;

bool in(int id, int first, int n) { return id >= first && id < first + n; }

// One noun phrase: appends English and French ids.
void draw_np(Rng& rng, bool need_adjective, std::vector<int>& en, std::vector<int>& fr) {
  const int det = static_cast<int>(rng.below(2));
  const int noun = static_cast<int>(rng.below(count(kNouns)));
  bool has_size = rng.below(2) == 1, has_colour = rng.below(2) == 1;
  if (need_adjective && !has_size && !has_colour) {
    if (rng.below(2) == 1)
      has_size = true;
    else
      has_colour = true;
  }
  const int size = has_size ? static_cast<int>(rng.below(count(kSizes))) : -1;
  const int colour = has_colour ? static_cast<int>(rng.below(count(kColours))) : -1;
  const int g = kNouns[noun].g;
  en.push_back(kEnDet + det);
  if (size >= 0) en.push_back(kEnSize + size);
  if (colour >= 0) en.push_back(kEnColour + colour);
  en.push_back(kEnNoun + noun);
  fr.push_back(kFrDet + 2 * det + g);
  if (size >= 0) fr.push_back(kFrSize + 2 * size + g);
  fr.push_back(kFrNoun + noun);
  if (colour >= 0) fr.push_back(kFrColour + 2 * colour + g);
}

void draw_clause(Rng& rng, bool with, std::vector<int>& en, std::vector<int>& fr) {
  draw_np(rng, false, en, fr);
  const int verb = static_cast<int>(rng.below(count(kVerbs)));
  en.push_back(kEnVerb + verb);
  fr.push_back(kFrVerb + verb);
  draw_np(rng, false, en, fr);
  if (with) {
    en.push_back(kEnWith);
    fr.push_back(kFrWith);
    draw_np(rng, false, en, fr);
  }
}

TranslationPair draw_sentence(Rng& rng) {
  TranslationPair p;
  // forms 1 : 1 : 2 : 4 (phrase, clause, clause with "with", two clauses), so that long sentences,
  // the hard ones, are not rare
  switch (rng.below(8)) {
    case 0: draw_np(rng, true, p.source, p.target); break;
    case 1: draw_clause(rng, false, p.source, p.target); break;
    case 2:
    case 3: draw_clause(rng, true, p.source, p.target); break;
    default:
      draw_clause(rng, rng.below(2) == 1, p.source, p.target);
      p.source.push_back(kEnAnd);
      p.target.push_back(kFrAnd);
      draw_clause(rng, rng.below(2) == 1, p.source, p.target);
  }
  return p;
}

std::vector<int> multiset_key(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

int TranslationVocab::find(const std::string& word) const {
  for (size_t i = 0; i < words.size(); ++i)
    if (words[i] == word) return static_cast<int>(i);
  return -1;
}

const TranslationVocab& english_vocab() {
  static const TranslationVocab v = build_english();
  return v;
}

const TranslationVocab& french_vocab() {
  static const TranslationVocab v = build_french();
  return v;
}

int bucket_of(const std::vector<LengthBucket>& buckets, int length) {
  for (size_t i = 0; i < buckets.size(); ++i)
    if (length >= buckets[i].lo && length <= buckets[i].hi) return static_cast<int>(i);
  return -1;
}

void validate_translation_data(const TranslationDataConfig& c) {
  require_range("train", c.train, 1, 20000);
  require_range("validation_per_bucket", c.validation_per_bucket, 1, 2000);
  require_range("test_per_bucket", c.test_per_bucket, 1, 2000);
  require_range("max_length", c.max_length, 8, 29);
  if (c.buckets.empty() || c.buckets.size() > 8) bad("buckets must hold 1 to 8 length ranges");
  int prev = 2;
  for (const LengthBucket& b : c.buckets) {
    if (b.lo > b.hi || b.lo <= prev || b.hi > c.max_length)
      bad("buckets must be ascending, disjoint, non-empty ranges within 3.." + std::to_string(c.max_length) + ", got " +
          std::to_string(b.lo) + ".." + std::to_string(b.hi));
    prev = b.hi;
  }
}

TranslationDataset make_translation_dataset(const TranslationDataConfig& cfg) {
  validate_translation_data(cfg);
  TranslationDataset d;
  d.config = cfg;
  const size_t nb = cfg.buckets.size();
  d.train_per_bucket.assign(nb, 0);
  d.validation_per_bucket_count.assign(nb, 0);
  d.test_per_bucket_count.assign(nb, 0);
  std::set<std::vector<int>> seen;
  auto place = [&](const TranslationPair& p) {
    const int b = bucket_of(cfg.buckets, static_cast<int>(p.source.size()));
    if (b < 0) return false;
    if (d.test_per_bucket_count[b] < cfg.test_per_bucket) {
      d.test.push_back(p);
      ++d.test_per_bucket_count[b];
    } else if (d.validation_per_bucket_count[b] < cfg.validation_per_bucket) {
      d.validation.push_back(p);
      ++d.validation_per_bucket_count[b];
    } else if (static_cast<int>(d.train.size()) < cfg.train) {
      d.train.push_back(p);
      ++d.train_per_bucket[b];
    } else {
      return false;
    }
    return true;
  };
  // "the black cat" first: held out of training.
  TranslationPair ref;
  ref.source = {kEnDet, kEnColour + 0, kEnNoun + 0};
  ref.target = reference_translation(ref.source);
  seen.insert(multiset_key(ref.source));
  place(ref);

  const long wanted = cfg.train + static_cast<long>(nb) * (cfg.test_per_bucket + cfg.validation_per_bucket);
  const long limit = 200 * wanted;
  Rng rng(cfg.seed);
  auto full = [&] {
    if (static_cast<int>(d.train.size()) < cfg.train) return false;
    for (size_t b = 0; b < nb; ++b)
      if (d.test_per_bucket_count[b] < cfg.test_per_bucket ||
          d.validation_per_bucket_count[b] < cfg.validation_per_bucket)
        return false;
    return true;
  };
  while (!full()) {
    if (d.drawn >= limit)
      bad("the grammar did not fill every bucket's quota in " + std::to_string(limit) +
          " draws; lower the quotas or widen the buckets");
    TranslationPair p = draw_sentence(rng);
    ++d.drawn;
    if (static_cast<int>(p.source.size()) > cfg.max_length) continue;
    if (!seen.insert(multiset_key(p.source)).second) {
      ++d.dropped;
      continue;
    }
    place(p);
  }
  return d;
}

std::vector<int> english_ids(const std::string& sentence) {
  std::vector<int> ids;
  const TranslationVocab& v = english_vocab();
  size_t i = 0;
  while (i < sentence.size()) {
    if (sentence[i] == ' ') {
      ++i;
      continue;
    }
    size_t j = sentence.find(' ', i);
    if (j == std::string::npos) j = sentence.size();
    const std::string w = sentence.substr(i, j - i);
    const int id = v.find(w);
    if (id < 3) {
      std::string list;
      for (size_t k = 3; k < v.words.size(); ++k) list += (k > 3 ? " " : "") + v.words[k];
      bad("sentence: \"" + w + "\" is not in the vocabulary (lowercase words: " + list + ")");
    }
    ids.push_back(id);
    if (ids.size() > 64) bad("sentence: at most 64 words");
    i = j;
  }
  if (ids.empty()) throw Error(ErrorCode::empty_sequence, "sentence: no words");
  return ids;
}

namespace {
// The grammar's translation of s, with the source index of each French word in *from.
std::vector<int> translate_aligned(const std::vector<int>& s, std::vector<int>* from) {
  std::vector<int> out;
  const auto put = [&](int word, int source_index) {
    out.push_back(word);
    from->push_back(source_index);
  };
  const int n = static_cast<int>(s.size());
  auto fail = [&](int i, const char* want) -> void {
    bad("sentence: word " + std::to_string(i + 1) + " should be " + want + " (the grammar: det [size] [colour] noun, " +
        "verb, \"with\", \"and\")");
  };
  int i = 0;
  auto np = [&] {
    if (i >= n || !in(s[i], kEnDet, 2)) fail(i, "a determiner (the, a)");
    const int det_at = i;
    const int det = s[i++] - kEnDet;
    int size = -1, colour = -1, size_at = -1, colour_at = -1;
    if (i < n && in(s[i], kEnSize, 2)) size_at = i, size = s[i++] - kEnSize;
    if (i < n && in(s[i], kEnColour, 5)) colour_at = i, colour = s[i++] - kEnColour;
    if (i >= n || !in(s[i], kEnNoun, 8)) fail(i, "a noun");
    const int noun_at = i;
    const int noun = s[i++] - kEnNoun;
    const int g = kNouns[noun].g;
    put(kFrDet + 2 * det + g, det_at);
    if (size >= 0) put(kFrSize + 2 * size + g, size_at);
    put(kFrNoun + noun, noun_at);
    if (colour >= 0) put(kFrColour + 2 * colour + g, colour_at);
    return size >= 0 || colour >= 0;
  };
  auto clause = [&] {
    np();
    if (i >= n || !in(s[i], kEnVerb, 6)) fail(i, "a verb");
    put(kFrVerb + (s[i] - kEnVerb), i);
    ++i;
    np();
    if (i < n && s[i] == kEnWith) {
      put(kFrWith, i);
      ++i;
      np();
    }
  };
  if (n == 0) throw Error(ErrorCode::empty_sequence, "sentence: no words");
  // a phrase is a lone NP with an adjective; otherwise one or two clauses
  const bool lone_np = n <= 4 && [&] {
    for (int k = 0; k < n; ++k)
      if (in(s[k], kEnVerb, 6)) return false;
    return true;
  }();
  if (lone_np) {
    if (!np()) fail(1, "an adjective (a sentence that is a noun phrase has one)");
  } else {
    clause();
    if (i < n && s[i] == kEnAnd) {
      put(kFrAnd, i);
      ++i;
      clause();
    }
  }
  if (i != n) fail(i, "the end of the sentence");
  return out;
}
}  // namespace

std::vector<int> reference_translation(const std::vector<int>& s) {
  std::vector<int> from;
  return translate_aligned(s, &from);
}

std::vector<int> reference_alignment(const std::vector<int>& s) {
  std::vector<int> from;
  translate_aligned(s, &from);
  return from;
}

std::string words_of(const TranslationVocab& v, const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ' ';
    const int id = ids[i];
    s += id >= 0 && id < v.size() ? v.words[static_cast<size_t>(id)] : "<id " + std::to_string(id) + ">";
  }
  return s;
}

}  // namespace attn::lessons
