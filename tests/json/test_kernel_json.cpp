// tests/json/test_kernel_json.cpp — "kernel" and "tile" in the JSON attention op.
#include <nlohmann/json.hpp>

#include "support/support.hpp"

#include <json/json_case.hpp>

using namespace attn_test;
using Json = nlohmann::json;

namespace {

Json request(const Json& extra) {
  Json r = {{"op", "attention"},
            {"query", {{1, 0}, {0, 1}, {1, 1}}},
            {"key", {{1, 0}, {0, 1}, {0.5, 0.5}, {-1, 2}}},
            {"value", {{1, 2}, {3, 4}, {5, 6}, {7, 8}}},
            {"mask", {{"causal", "bottom_right"}}}};
  for (auto it = extra.begin(); it != extra.end(); ++it) r[it.key()] = *it;
  return r;
}

std::string error_code(const Json& out) { return out.contains("error") ? out["error"]["code"].get<std::string>() : ""; }

}  // namespace

TEST_CASE("json kernel tiled gives the dense reply") {
  bool ok = false;
  const Json dense = attn::run_case_text(request(Json::object()).dump(), &ok);
  REQUIRE(ok);
  for (int tile : {1, 2, 3, 7, 16, 64, 128}) {
    const Json tiled = attn::run_case_text(request({{"kernel", "tiled"}, {"tile", tile}}).dump(), &ok);
    INFO("tile " << tile << ": " << tiled.dump());
    REQUIRE(ok);
    for (const char* field : {"output", "weights"}) CHECK_JSON_NEAR(tiled[field], dense[field], 1e-12);
    CHECK(tiled["scores"] == dense["scores"]);
    CHECK(tiled["empty_row"] == dense["empty_row"]);
  }
  const Json explicit_dense = attn::run_case_text(request({{"kernel", "dense"}}).dump(), &ok);
  CHECK(ok);
  CHECK(explicit_dense == dense);
  const Json default_tile = attn::run_case_text(request({{"kernel", "tiled"}}).dump(), &ok);
  CHECK(ok);
}

TEST_CASE("json kernel and tile reject invalid values with invalid_field") {
  for (const Json& extra : {Json{{"kernel", "flash"}}, Json{{"kernel", 1}}, Json{{"kernel", "tiled"}, {"tile", 0}},
                            Json{{"kernel", "tiled"}, {"tile", -3}}, Json{{"kernel", "tiled"}, {"tile", 4097}},
                            Json{{"kernel", "tiled"}, {"tile", 2.5}}, Json{{"kernel", "tiled"}, {"tile", "8"}},
                            Json{{"kernel", "tiled"}, {"tile", 18446744073709551615ull}},
                            Json{{"tile", 4}}, Json{{"kernel", "dense"}, {"tile", 4}}}) {
    const Json out = attn::run_case_text(request(extra).dump());
    INFO(extra.dump() << " -> " << out.dump());
    CHECK(error_code(out) == "invalid_field");
  }
}

TEST_CASE("json kernel tiled keeps the reference errors") {
  Json all_masked = request({{"kernel", "tiled"}, {"tile", 2}});
  all_masked["mask"] = {{"key_valid", {false, false, false, false}}};
  CHECK(error_code(attn::run_case_text(all_masked.dump())) == "no_allowed_key");
  Json ambiguous = request({{"kernel", "tiled"}});
  ambiguous["mask"] = {{"causal", true}};
  CHECK(error_code(attn::run_case_text(ambiguous.dump())) == "causal_alignment_required");
  Json overflow = request({{"kernel", "tiled"}});
  overflow["query"] = {{1e200, 1e200}};
  overflow["key"] = {{1e200, 1e200}};
  overflow["value"] = {{1}};
  overflow.erase("mask");
  CHECK(error_code(attn::run_case_text(overflow.dump())) == "non_finite");
}

TEST_CASE("json kernel tiled gives the same bits whichever instruction set is active") {
  // The reply is what a learner sees, so it must not depend on the CPU: the JSON path runs the
  // baseline build (as wasm does) even where the AVX2 or AVX-512 build is active. A 40×37
  // problem with d_k = 24 so that fused multiply-adds would round differently somewhere.
  attn::Rng rng(5);
  const Matrix q = uniform(rng, 40, 24), k = uniform(rng, 37, 24), v = uniform(rng, 37, 6);
  Json r = {{"op", "attention"}, {"kernel", "tiled"}, {"tile", 8}, {"mask", {{"causal", "top_left"}}}};
  for (const auto& [name, m] : {std::pair<const char*, const Matrix*>{"query", &q}, {"key", &k}, {"value", &v}}) {
    Json rows = Json::array();
    for (Index i = 0; i < m->rows(); ++i) {
      Json row = Json::array();
      for (Index j = 0; j < m->cols(); ++j) row.push_back((*m)(i, j));
      rows.push_back(row);
    }
    r[name] = rows;
  }
  IsaGuard guard;
  std::vector<std::string> replies;
  for (const auto isa : attn::kernels::available_isas()) {
    REQUIRE(attn::kernels::set_isa(isa));
    replies.push_back(attn::dump(attn::run_case_text(r.dump())));
  }
  for (const auto& reply : replies) CHECK(reply == replies.front());
}
