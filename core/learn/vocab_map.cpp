#include "learn/vocab_map.hpp"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "attn/error.hpp"

namespace attn::learn {
namespace {

[[noreturn]] void bad(ErrorCode c, const std::string& msg) { throw Error(c, msg); }

std::string token_name(const std::vector<int>& ids, const std::vector<std::string>& pieces, std::size_t i) {
  std::string s = "tokens[" + std::to_string(i) + "] = " + std::to_string(ids[i]);
  if (i < pieces.size()) s += " (" + nlohmann::json(pieces[i]).dump() + ")";
  return s;
}

std::string vocab_phrase(const VocabMap& map) {
  return "the model's vocabulary (" + std::to_string(map.size()) + " of GPT-2's " + std::to_string(kGpt2VocabSize) +
         " tokens)";
}

}  // namespace

int VocabMap::local_of(int gpt2_id) const {
  const auto it = std::lower_bound(to_gpt2.begin(), to_gpt2.end(), gpt2_id);
  return it != to_gpt2.end() && *it == gpt2_id ? static_cast<int>(it - to_gpt2.begin()) : -1;
}

VocabMap make_vocab_map(std::vector<int> gpt2_ids, int vocab) {
  if (vocab >= 0 && gpt2_ids.size() != static_cast<std::size_t>(vocab))
    bad(ErrorCode::shape_mismatch, "the vocabulary map has " + std::to_string(gpt2_ids.size()) +
                                       " GPT-2 ids; the model's embedding has " + std::to_string(vocab) + " rows");
  for (std::size_t i = 0; i < gpt2_ids.size(); ++i) {
    const int id = gpt2_ids[i];
    if (id < 0 || id >= kGpt2VocabSize)
      bad(ErrorCode::invalid_field, "gpt2_ids[" + std::to_string(i) + "] = " + std::to_string(id) +
                                        " is not a GPT-2 id (0.." + std::to_string(kGpt2VocabSize - 1) + ")");
    if (i > 0 && id <= gpt2_ids[i - 1])
      bad(ErrorCode::invalid_field, "gpt2_ids[" + std::to_string(i) + "] = " + std::to_string(id) +
                                        " does not exceed gpt2_ids[" + std::to_string(i - 1) + "] = " +
                                        std::to_string(gpt2_ids[i - 1]) + " (the ids must be strictly increasing)");
  }
  VocabMap m;
  m.to_gpt2 = std::move(gpt2_ids);
  return m;
}

std::map<std::string, std::string> vocab_map_metadata(const VocabMap& map) {
  return {{"vocab_map", "gpt2"}, {"gpt2_ids", nlohmann::json(map.to_gpt2).dump()}};
}

std::optional<VocabMap> read_vocab_map(const std::map<std::string, std::string>& metadata, int vocab) {
  const auto kind = metadata.find("vocab_map");
  const auto ids = metadata.find("gpt2_ids");
  if (kind == metadata.end() && ids == metadata.end()) return std::nullopt;
  if (kind == metadata.end()) bad(ErrorCode::invalid_field, "__metadata__ has gpt2_ids but no vocab_map (\"gpt2\")");
  if (kind->second != "gpt2")
    bad(ErrorCode::invalid_field, "__metadata__ vocab_map must be \"gpt2\", got " + nlohmann::json(kind->second).dump());
  if (ids == metadata.end()) bad(ErrorCode::invalid_field, "__metadata__ has vocab_map but no gpt2_ids");
  const nlohmann::json j = nlohmann::json::parse(ids->second, nullptr, false);
  if (j.is_discarded() || !j.is_array())
    bad(ErrorCode::invalid_field, "__metadata__ gpt2_ids must be a JSON array of integers");
  std::vector<int> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& v = j[i];
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= kGpt2VocabSize)
      bad(ErrorCode::invalid_field, "__metadata__ gpt2_ids[" + std::to_string(i) + "] = " + v.dump() +
                                        " is not a GPT-2 id (an integer 0.." + std::to_string(kGpt2VocabSize - 1) + ")");
    out.push_back(v.get<int>());
  }
  return make_vocab_map(std::move(out), vocab);
}

std::vector<int> to_local_ids(const VocabMap& map, const std::vector<int>& gpt2_ids, const std::vector<std::string>& pieces) {
  std::vector<int> out(gpt2_ids.size());
  for (std::size_t i = 0; i < gpt2_ids.size(); ++i) {
    out[i] = map.local_of(gpt2_ids[i]);
    if (out[i] < 0) bad(ErrorCode::invalid_field, token_name(gpt2_ids, pieces, i) + " is not in " + vocab_phrase(map));
  }
  return out;
}

MappedPrompt map_prompt(const VocabMap& map, const std::vector<int>& gpt2_ids, const std::vector<std::string>& pieces) {
  MappedPrompt p;
  std::string names;
  for (std::size_t i = 0; i < gpt2_ids.size(); ++i) {
    const int local = map.local_of(gpt2_ids[i]);
    if (local >= 0) {
      p.local.push_back(local);
      p.kept.push_back(static_cast<int>(i));
      continue;
    }
    p.dropped.push_back(static_cast<int>(i));
    if (p.dropped.size() <= 5) names += (names.empty() ? "" : ", ") + token_name(gpt2_ids, pieces, i);
  }
  if (!p.dropped.empty()) {
    if (p.dropped.size() > 5) names += " and " + std::to_string(p.dropped.size() - 5) + " more";
    p.message = names + (p.dropped.size() == 1 ? " is" : " are") + " not in " + vocab_phrase(map) +
                " and left out; the rest of the prompt is kept";
  }
  return p;
}

}  // namespace attn::learn
