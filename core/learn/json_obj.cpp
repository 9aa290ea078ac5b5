#include "learn/json_obj.hpp"

namespace attn {

nlohmann::json obj(std::initializer_list<std::pair<const char*, nlohmann::json>> items) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& kv : items) o.emplace(kv.first, kv.second);  // emplace: the first value of a key stays
  return o;
}

}  // namespace attn
