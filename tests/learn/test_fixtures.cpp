// The learning ops against PyTorch 1.13 autograd (tests/learn/fixtures, generate_learn_fixtures.py),
// through attn::run_case exactly as `attn run` reads them: every number within the fixture's
// tolerance (1e-10, absolute), named tensors compared name by name.
#include <attn/error.hpp>
#include <json/json_case.hpp>
#include <catch2/catch.hpp>

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

struct Diff {
  double tol = 0.0, max_diff = 0.0;
  long compared = 0, bad = 0;
  std::string first;
  void note(const std::string& m) {
    if (++bad <= 5) first += m + "\n";
  }
  void walk(const Json& e, const Json& a, const std::string& path) {
    if (e.is_number()) {
      if (!a.is_number()) return note(path + ": expected a number, got " + a.dump());
      const double d = std::fabs(a.get<double>() - e.get<double>());
      ++compared;
      if (d > max_diff || d != d) max_diff = d;
      if (!(d <= tol)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, ": expected %.17g, actual %.17g", e.get<double>(), a.get<double>());
        note(path + buf);
      }
      return;
    }
    if (e.is_array()) {
      if (!a.is_array() || a.size() != e.size()) return note(path + ": array length differs");
      for (size_t i = 0; i < e.size(); ++i) walk(e[i], a[i], path + "[" + std::to_string(i) + "]");
      return;
    }
    if (e.is_object()) {
      if (!a.is_object()) return note(path + ": expected an object");
      if (a.size() != e.size()) note(path + ": " + std::to_string(a.size()) + " names, expected " + std::to_string(e.size()));
      for (auto it = e.begin(); it != e.end(); ++it) {
        if (!a.contains(it.key())) {
          note(path + "." + it.key() + ": missing");
          continue;
        }
        walk(it.value(), a[it.key()], path + "." + it.key());
      }
      return;
    }
    if (e != a) note(path + ": expected " + e.dump() + ", got " + a.dump());
  }
};

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
    Diff d;
    d.tol = f["tolerance"].get<double>();
    for (auto it = f["expect"].begin(); it != f["expect"].end(); ++it) {
      if (!result.contains(it.key())) {
        d.note(it.key() + ": missing from the result");
        continue;
      }
      d.walk(it.value(), result[it.key()], it.key());
    }
    INFO("compared " << d.compared << " numbers, max |diff| " << d.max_diff << "\n" << d.first);
    CHECK(d.compared > 0);
    CHECK(d.bad == 0);
  }
  CHECK(ops[0] >= 3);
  CHECK(ops[1] >= 4);
  CHECK(ops[2] >= 2);
  CHECK(ops[3] >= 3);
}
