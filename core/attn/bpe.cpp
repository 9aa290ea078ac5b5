#include "attn/bpe.hpp"

#include <algorithm>

#include "attn/error.hpp"
#include "attn/unicode.hpp"

namespace attn {
namespace {

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

// bytes_to_unicode() of encoder.py as code points.
std::array<char32_t, 256> byte_code_points() {
  std::array<char32_t, 256> cps{};
  std::array<bool, 256> printable{};
  for (int b = '!'; b <= '~'; ++b) printable[b] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) cps[b] = printable[b] ? static_cast<char32_t>(b) : next++;
  return cps;
}

// Code point → byte for the 256 characters of bytes_to_unicode (all below U+0144), −1 otherwise.
const std::array<int, 0x144>& byte_of_code_point() {
  static const std::array<int, 0x144> table = [] {
    std::array<int, 0x144> t;
    t.fill(-1);
    const std::array<char32_t, 256> cps = byte_code_points();
    for (int b = 0; b < 256; ++b) t[cps[b]] = b;
    return t;
  }();
  return table;
}

bool is_other(char32_t c) { return !is_unicode_white_space(c) && !is_unicode_letter(c) && !is_unicode_number(c); }

std::string quoted(const std::string& s) { return "\"" + (s.size() > 80 ? s.substr(0, 80) + "..." : s) + "\""; }

}  // namespace

const std::array<std::string, 256>& gpt2_byte_chars() {
  static const std::array<std::string, 256> chars = [] {
    std::array<std::string, 256> out;
    const std::array<char32_t, 256> cps = byte_code_points();
    for (int b = 0; b < 256; ++b) append_utf8(out[b], cps[b]);
    return out;
  }();
  return chars;
}

std::vector<std::pair<std::size_t, std::size_t>> gpt2_pretokenize(const std::string& text) {
  std::vector<char32_t> cp;
  std::vector<std::size_t> off;
  decode_utf8(text, cp, off);
  const std::size_t n = cp.size();
  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  // Every code point starts a match of some alternative (it is \s, \p{L}, \p{N} or none of them),
  // so findall's matches tile the text: at each position, the first alternative that matches.
  const auto run = [&](std::size_t j, bool (*cls)(char32_t)) {
    while (j < n && cls(cp[j])) ++j;
    return j;
  };
  const auto letter = [](char32_t c) { return is_unicode_letter(c); };
  const auto number = [](char32_t c) { return is_unicode_number(c); };
  const auto space = [](char32_t c) { return is_unicode_white_space(c); };
  for (std::size_t i = 0; i < n;) {
    std::size_t end = i;
    // 's|'t|'re|'ve|'m|'ll|'d (ASCII apostrophe, lower case only, as the pattern is written)
    if (cp[i] == '\'' && i + 1 < n) {
      const char32_t a = cp[i + 1], b = i + 2 < n ? cp[i + 2] : 0;
      if (a == 's' || a == 't' || a == 'm' || a == 'd') end = i + 2;
      else if ((a == 'r' || a == 'v') && b == 'e') end = i + 3;
      else if (a == 'l' && b == 'l') end = i + 3;
    }
    // ' ?X+' for X = \p{L}, \p{N}, [^\s\p{L}\p{N}]: the optional space is U+0020 only; without it
    // the space itself would have to be an X, which it never is.
    const std::size_t j = cp[i] == ' ' ? i + 1 : i;
    if (end == i && j < n && letter(cp[j])) end = run(j, letter);
    if (end == i && j < n && number(cp[j])) end = run(j, number);
    if (end == i && j < n && is_other(cp[j])) end = run(j, is_other);
    if (end == i) {
      // Only white space is left. '\s+(?!\S)': the greedy run backs off by one character when a
      // non-space follows it, leaving that character's space to prefix the next piece
      // ("a   b" → "a", "  ", " b"); a run of one before a non-space falls to '\s+'.
      const std::size_t k = run(i, space);
      end = (k == n || k - i == 1) ? k : k - 1;
    }
    pieces.emplace_back(off[i], off[end]);
    i = end;
  }
  return pieces;
}

std::vector<std::pair<std::string, std::string>> parse_bpe_merges(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> merges;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    const bool last = nl == std::string::npos;
    if (last) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1 && line.rfind("#version", 0) == 0) continue;
    if (line.empty() && pos >= text.size()) break;  // the file's final line end
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < line.size();) {
      if (line[k] == ' ' || line[k] == '\t') {
        ++k;
        continue;
      }
      std::size_t e = k;
      while (e < line.size() && line[e] != ' ' && line[e] != '\t') ++e;
      parts.push_back(line.substr(k, e - k));
      k = e;
    }
    if (parts.size() != 2)
      fail(ErrorCode::invalid_field, "merges line " + std::to_string(line_no) + ": expected two symbols separated by a space, got " +
                                         std::to_string(parts.size()) + " (" + quoted(line) + ")");
    if (merges.size() == kMaxMerges)
      fail(ErrorCode::too_large, "merges: more than " + std::to_string(kMaxMerges) + " lines");
    merges.emplace_back(std::move(parts[0]), std::move(parts[1]));
  }
  return merges;
}

int BpeTokenizer::intern(const std::string& s) {
  const auto [it, added] = symbol_index_.emplace(s, static_cast<int>(symbols_.size()));
  if (added) {
    symbols_.push_back(s);
    symbol_id_.push_back(-1);
    symbol_bytes_.emplace_back();
  }
  return it->second;
}

BpeTokenizer::BpeTokenizer(const std::vector<std::pair<std::string, long long>>& vocab,
                           const std::vector<std::pair<std::string, std::string>>& merges) {
  if (vocab.size() > kMaxVocabEntries)
    fail(ErrorCode::too_large, "vocabulary: more than " + std::to_string(kMaxVocabEntries) + " tokens");
  if (merges.size() > kMaxMerges) fail(ErrorCode::too_large, "merges: more than " + std::to_string(kMaxMerges) + " lines");
  const std::array<int, 0x144>& byte_of = byte_of_code_point();
  std::vector<char32_t> cps;
  std::vector<std::size_t> offs;
  for (const auto& [token, id] : vocab) {
    if (id < 0 || id > kMaxTokenId)
      fail(ErrorCode::invalid_field, "vocabulary: token " + quoted(token) + " has id " + std::to_string(id) + ", not in 0.." +
                                         std::to_string(kMaxTokenId));
    decode_utf8(token, cps, offs, ("vocabulary token " + quoted(token)).c_str());
    const int s = intern(token);
    if (symbol_id_[s] != -1) fail(ErrorCode::invalid_field, "vocabulary: token " + quoted(token) + " is listed twice");
    const auto [it, added] = id_symbol_.emplace(id, s);
    if (!added)
      fail(ErrorCode::invalid_field, "vocabulary: id " + std::to_string(id) + " is given to both " + quoted(symbols_[it->second]) +
                                         " and " + quoted(token));
    symbol_id_[s] = id;
    // A token's bytes: each byte-level character back to its byte; any other character (an added
    // token's) stands for its own UTF-8.
    std::string bytes;
    for (std::size_t k = 0; k < cps.size(); ++k) {
      if (cps[k] < byte_of.size() && byte_of[cps[k]] >= 0) bytes += static_cast<char>(byte_of[cps[k]]);
      else bytes.append(token, offs[k], offs[k + 1] - offs[k]);
    }
    symbol_bytes_[s] = std::move(bytes);
    if (token == kEndOfText) end_of_text_id_ = id;
  }
  const std::array<std::string, 256>& chars = gpt2_byte_chars();
  for (int b = 0; b < 256; ++b) byte_symbol_[b] = intern(chars[b]);
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const int a = intern(merges[r].first), b = intern(merges[r].second);
    const int m = intern(merges[r].first + merges[r].second);
    // encoder.py: dict(zip(merges, range(len(merges)))): a repeated pair keeps its later rank.
    merges_[(static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b)] = Merge{static_cast<std::uint32_t>(r), m};
  }
}

void BpeTokenizer::bpe(const std::string& piece, std::vector<int>& out) const {
  const int n = static_cast<int>(piece.size());
  std::vector<int> sym(n), next(n), prev(n), ver(n, 0);
  for (int i = 0; i < n; ++i) {
    sym[i] = byte_symbol_[static_cast<unsigned char>(piece[i])];
    next[i] = i + 1;  // n: none
    prev[i] = i - 1;
  }
  // A candidate merge of the symbols starting at bytes `left` and `right`, valid while both keep
  // the version they had when it was queued (a merge changes or removes them).
  struct Candidate {
    std::uint32_t rank;
    int left, right, left_ver, right_ver;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::vector<Candidate> heap;
  const auto queue = [&](int l, int r) {
    const auto it = merges_.find((static_cast<std::uint64_t>(sym[l]) << 32) | static_cast<std::uint32_t>(sym[r]));
    if (it == merges_.end()) return;
    heap.push_back(Candidate{it->second.rank, l, r, ver[l], ver[r]});
    std::push_heap(heap.begin(), heap.end(), std::greater<Candidate>());
  };
  for (int i = 0; i + 1 < n; ++i) queue(i, i + 1);
  std::vector<Candidate> round;
  std::vector<int> merged;
  while (!heap.empty()) {
    // One round of encoder.py's loop: every occurrence of the lowest-ranked pair, left to right
    // (the heap yields them in position order), skipping one that an earlier merge of the round
    // consumed ("a a a" → "aa a"). Pairs the round creates are queued only after it, as
    // encoder.py looks at them only in its next iteration (for merges not trained in order, a
    // new pair may rank lower than the round's).
    const std::uint32_t rank = heap.front().rank;
    round.clear();
    while (!heap.empty() && heap.front().rank == rank) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<Candidate>());
      round.push_back(heap.back());
      heap.pop_back();
    }
    merged.clear();
    for (const Candidate& c : round) {
      if (ver[c.left] != c.left_ver || ver[c.right] != c.right_ver || ver[c.left] < 0 || ver[c.right] < 0 ||
          next[c.left] != c.right)
        continue;
      const auto it = merges_.find((static_cast<std::uint64_t>(sym[c.left]) << 32) | static_cast<std::uint32_t>(sym[c.right]));
      sym[c.left] = it->second.result;
      ++ver[c.left];
      ver[c.right] = -1;  // gone
      next[c.left] = next[c.right];
      if (next[c.right] < n) prev[next[c.right]] = c.left;
      merged.push_back(c.left);
    }
    for (int l : merged) {
      if (ver[l] < 0) continue;
      if (prev[l] >= 0) queue(prev[l], l);
      if (next[l] < n) queue(l, next[l]);
    }
  }
  for (int i = 0; i < n; i = next[i]) out.push_back(sym[i]);
}

BpeEncoding BpeTokenizer::encode(const std::string& text, bool special) const {
  if (text.size() > kMaxTokenizeBytes)
    fail(ErrorCode::too_large, "text has " + std::to_string(text.size()) + " bytes; at most " + std::to_string(kMaxTokenizeBytes));
  {
    std::vector<char32_t> cps;
    std::vector<std::size_t> offs;
    decode_utf8(text, cps, offs);  // refuses invalid UTF-8 naming the byte offset in the whole text
  }
  if (special && end_of_text_id_ < 0)
    fail(ErrorCode::invalid_field, "special: the vocabulary has no \"<|endoftext|>\" token");
  const std::string eot = kEndOfText;
  std::vector<int> symbols;
  std::unordered_map<std::string, std::vector<int>> cache;  // piece bytes → its symbols, this call
  std::vector<int> word;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t stop = special ? text.find(eot, start) : std::string::npos;
    if (stop == std::string::npos) stop = text.size();
    const std::string segment = text.substr(start, stop - start);
    for (const auto& [b, e] : gpt2_pretokenize(segment)) {
      const std::string piece = segment.substr(b, e - b);
      auto it = cache.find(piece);
      if (it == cache.end()) {
        word.clear();
        bpe(piece, word);
        for (int s : word)
          if (symbol_id_[s] < 0)
            fail(ErrorCode::invalid_field, "the vocabulary has no token " + quoted(symbols_[s]) + " (BPE of the text's bytes " +
                                               std::to_string(start + b) + ".." + std::to_string(start + e) + ")");
        it = cache.emplace(piece, word).first;
      }
      symbols.insert(symbols.end(), it->second.begin(), it->second.end());
    }
    if (stop == text.size()) break;
    symbols.push_back(symbol_index_.at(eot));
    start = stop + eot.size();
  }
  BpeEncoding out;
  out.ids.reserve(symbols.size());
  out.pieces.reserve(symbols.size());
  out.texts.reserve(symbols.size());
  for (int s : symbols) {
    out.ids.push_back(static_cast<int>(symbol_id_[s]));
    out.pieces.push_back(symbols_[s]);
    out.texts.push_back(utf8_with_replacements(symbol_bytes_[s]));
  }
  return out;
}

int BpeTokenizer::symbol_of(long long id, std::size_t position) const {
  const auto it = id_symbol_.find(id);
  if (it == id_symbol_.end())
    fail(ErrorCode::invalid_field, "tokens[" + std::to_string(position) + "] = " + std::to_string(id) + " is not in the vocabulary (" +
                                       std::to_string(id_symbol_.size()) + " tokens)");
  return it->second;
}

const std::string& BpeTokenizer::piece(long long id, std::size_t position) const { return symbols_[symbol_of(id, position)]; }

std::string BpeTokenizer::decode_bytes(const std::vector<long long>& ids) const {
  if (ids.size() > kMaxDetokenizeIds)
    fail(ErrorCode::too_large, "tokens has " + std::to_string(ids.size()) + " ids; at most " + std::to_string(kMaxDetokenizeIds));
  std::string bytes;
  for (std::size_t i = 0; i < ids.size(); ++i) bytes += symbol_bytes_[symbol_of(ids[i], i)];
  return bytes;
}

std::string BpeTokenizer::decode(const std::vector<long long>& ids) const { return utf8_with_replacements(decode_bytes(ids)); }

}  // namespace attn
