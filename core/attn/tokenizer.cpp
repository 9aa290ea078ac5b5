#include "attn/tokenizer.hpp"

#include <algorithm>

#include "attn/error.hpp"

namespace attn {

std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

Vocabulary build_vocabulary(const std::vector<std::string>& tokens) {
  Vocabulary v;
  v.tokens = tokens;
  std::sort(v.tokens.begin(), v.tokens.end());
  v.tokens.erase(std::unique(v.tokens.begin(), v.tokens.end()), v.tokens.end());
  for (size_t i = 0; i < v.tokens.size(); ++i) v.ids[v.tokens[i]] = static_cast<int>(i);
  return v;
}

std::vector<int> token_ids(const Vocabulary& vocab, const std::vector<std::string>& tokens) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto it = vocab.ids.find(tokens[i]);
    if (it == vocab.ids.end())
      throw Error(ErrorCode::invalid_field,
                  "token " + std::to_string(i) + " (\"" + tokens[i] + "\") is not in the vocabulary");
    ids.push_back(it->second);
  }
  return ids;
}

Matrix embed(const Matrix& table, const std::vector<int>& ids) {
  Matrix x(static_cast<Index>(ids.size()), table.cols());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= table.rows())
      throw Error(ErrorCode::invalid_field, "token id " + std::to_string(ids[i]) + " at position " +
                                                std::to_string(i) + " is outside the " +
                                                std::to_string(table.rows()) + "-row embedding table");
    x.row(static_cast<Index>(i)) = table.row(ids[i]);
  }
  return x;
}

}  // namespace attn
