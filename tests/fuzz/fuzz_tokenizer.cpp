// tests/fuzz/fuzz_tokenizer.cpp — libFuzzer target: arbitrary bytes as a vocab.json, a merges.txt
// and a text → the BPE tokenizer's loaders and encoder (json/tokenize_json.hpp, attn/bpe.hpp).
//
// The input is split at its first two 0xFF bytes (never part of UTF-8 or JSON) into vocab | merges
// | text; the vocab part is also read as a Hugging Face tokenizer.json. Tokenizer files come from
// anywhere: whatever they hold, the loaders must refuse them with attn::Error or load them, never
// crash, leak another exception type or hang. Checked on every input (abort() = a finding):
//   - only attn::Error escapes (anything else aborts under libFuzzer);
//   - the pre-tokeniser's pieces tile the text, none empty;
//   - whatever a tokenizer encodes decodes to the same bytes, with one piece and one text per id;
//   - a byte-level tokenizer (every byte a token, no merges) encodes any valid UTF-8 text.
#include <attn/bpe.hpp>
#include <attn/error.hpp>
#include <json/tokenize_json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_tokenizer: %s: %s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

const attn::BpeTokenizer& bytes_only() {
  static const attn::BpeTokenizer t = [] {
    std::vector<std::pair<std::string, long long>> vocab;
    for (int b = 0; b < 256; ++b) vocab.emplace_back(attn::gpt2_byte_chars()[b], b);
    vocab.emplace_back(attn::kEndOfText, 256);
    return attn::BpeTokenizer(vocab, {});
  }();
  return t;
}

void check_encode(const attn::BpeTokenizer& t, const std::string& text, bool special) {
  attn::BpeEncoding e;
  try {
    e = t.encode(text, special);
  } catch (const attn::Error&) {
    return;
  }
  if (e.pieces.size() != e.ids.size() || e.texts.size() != e.ids.size()) finding("pieces or texts not one per id", text);
  const std::vector<long long> ids(e.ids.begin(), e.ids.end());
  if (t.decode_bytes(ids) != text) finding("decode(encode(text)) != text", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const std::size_t a = in.find('\xFF');
  const std::size_t b = a == std::string::npos ? a : in.find('\xFF', a + 1);
  const std::string vocab = in.substr(0, a);
  const std::string merges = a == std::string::npos ? "" : in.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  const std::string text = b == std::string::npos ? "" : in.substr(b + 1);

  bool valid_text = true;
  try {
    std::size_t at = 0;
    for (const auto& [begin, end] : attn::gpt2_pretokenize(text)) {
      if (begin != at || end <= begin) finding("pieces do not tile the text", text);
      at = end;
    }
    if (at != text.size()) finding("pieces do not reach the end of the text", text);
  } catch (const attn::Error&) {
    valid_text = false;
  }
  for (bool special : {false, true}) {
    try {
      bytes_only().encode(text, special);
    } catch (const attn::Error& e) {
      if (valid_text) finding("the byte-level tokenizer refused valid UTF-8", e.what());
    }
    check_encode(bytes_only(), text, special);
  }
  try {
    const attn::BpeTokenizer t = attn::load_bpe_tokenizer(vocab, merges);
    check_encode(t, text, false);
    check_encode(t, text, true);
  } catch (const attn::Error&) {
  }
  try {
    const attn::BpeTokenizer t = attn::load_hf_tokenizer_json(vocab);
    check_encode(t, text, false);
  } catch (const attn::Error&) {
  }
  return 0;
}
