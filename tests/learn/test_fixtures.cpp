// The learning ops against PyTorch 1.13 autograd (tests/learn/fixtures, generate_learn_fixtures.py),
// through attn::run_case exactly as `attn run` reads them: every number within the fixture's
// tolerance (1e-10, absolute), named tensors compared name by name.
#include <attn/error.hpp>
#include <json/json_case.hpp>
#include <catch2/catch.hpp>

#include "support/support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef ATTN_LEARN_FIXTURES_DIR
#error "ATTN_LEARN_FIXTURES_DIR must name tests/learn/fixtures"
#endif

namespace {

using attn::Json;

}  // namespace

TEST_CASE("learn fixtures: every op matches PyTorch autograd to 1e-10", "[learn][reference]") {
  std::vector<std::string> paths;
  for (const auto& f : std::filesystem::directory_iterator(ATTN_LEARN_FIXTURES_DIR))
    if (f.path().extension() == ".json") paths.push_back(f.path().string());
  std::sort(paths.begin(), paths.end());
  REQUIRE(paths.size() >= 20);
  int ops[4] = {0, 0, 0, 0};
  for (const std::string& path : paths) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const Json f = Json::parse(ss.str());
    INFO("fixture " << f.value("name", path) << " (torch " << f.value("torch", "?") << "): " << f.value("about", ""));
    CHECK(f.value("generator", "") == "tests/learn/generate_learn_fixtures.py");
    CHECK(f.value("tolerance", 1.0) <= 1e-10);
    const std::string op = f["case"].value("op", "");
    ops[0] += op == "attention_backward";
    ops[1] += op == "model_gradients" && f["case"]["model"]["kind"] == "decoder";
    ops[2] += op == "model_gradients" && f["case"]["model"]["kind"] == "seq2seq";
    ops[3] += op == "train_steps";
    Json result;
    try {
      result = attn::run_case(f.at("case"));
    } catch (const attn::Error& e) {
      FAIL_CHECK("run_case threw " << e.code_name() << ": " << e.what());
      continue;
    }
    attn_test::JsonDiff d;  // the shared JSON comparer (tests/support/support.hpp)
    d.tol = f["tolerance"].get<double>();
    for (auto it = f["expect"].begin(); it != f["expect"].end(); ++it) {
      if (!result.contains(it.key())) {
        d.note(it.key() + ": missing from the result");
        continue;
      }
      d.walk(it.value(), result[it.key()], it.key());
    }
    INFO("compared " << d.compared << " numbers, max |diff| " << d.max_diff << d.problems());
    CHECK(d.compared > 0);
    CHECK(d.bad == 0);
  }
  CHECK(ops[0] >= 3);
  CHECK(ops[1] >= 4);
  CHECK(ops[2] >= 2);
  CHECK(ops[3] >= 3);
}
