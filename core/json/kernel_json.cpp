#include "json/kernel_json.hpp"

#include <string>

#include "attn/error.hpp"
#include "attn/kernels/fast_attention.hpp"

namespace attn::kernels {

AttentionResult attention_for_request(const nlohmann::json& req, const Matrix& q, const Matrix& k,
                                      const Matrix& v, const MaskSpec& mask, const AttentionOptions& options) {
  std::string kernel = "dense";
  if (auto it = req.find("kernel"); it != req.end() && !it->is_null()) {
    if (!it->is_string() || (*it != "dense" && *it != "tiled"))
      throw Error(ErrorCode::invalid_field, "kernel must be \"dense\" or \"tiled\", got " + it->dump());
    kernel = it->get<std::string>();
  }
  Index tile = 0;
  if (auto it = req.find("tile"); it != req.end() && !it->is_null()) {
    if (kernel != "tiled")
      throw Error(ErrorCode::invalid_field, "tile applies to \"kernel\":\"tiled\" only");
    if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(kMaxTile)) ||
        it->get<long long>() < 1 || it->get<long long>() > kMaxTile)
      throw Error(ErrorCode::invalid_field,
                  "tile must be an integer between 1 and " + std::to_string(kMaxTile) + ", got " + it->dump());
    tile = static_cast<Index>(it->get<long long>());
  }
  if (kernel == "dense") return attention(q, k, v, mask, options);
  return tiled_attention_result(q, k, v, mask, options, tile, tile);
}

}  // namespace attn::kernels
