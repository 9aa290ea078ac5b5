// tests/reference/test_reference.cpp — the core against an independent reference (PyTorch).
//
// Every fixture in tests/reference/fixtures/*.json was computed in float64 by PyTorch
// (generate_torch_fixtures.py; the "torch" header field names the version). Each one goes
// through attn::run_case in-process, exactly as `attn run` would read it, and every number
// of each "expect" field must match to the fixture's tolerance (1e-12, absolute). On a
// failure the report names the fixture, the field, the first differing entries (path,
// expected, actual) and the max difference.
//
// The fixtures directory comes from the compile definition ATTN_REFERENCE_FIXTURES_DIR
// (the source tree; under node the wasm build reads it through NODERAWFS).
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
#include <string>
#include <vector>

#ifndef ATTN_REFERENCE_FIXTURES_DIR
#error "ATTN_REFERENCE_FIXTURES_DIR must name tests/reference/fixtures"
#endif

namespace {

using attn::Json;

constexpr size_t kMinFixtures = 40;  // the reference suite holds at least 40 torch cases

std::vector<std::string> fixture_paths() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(ATTN_REFERENCE_FIXTURES_DIR))
    if (entry.is_regular_file() && entry.path().extension() == ".json") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

Json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

}  // namespace

TEST_CASE("reference fixtures: present with a torch header", "[reference]") {
  const std::vector<std::string> paths = fixture_paths();
  INFO("fixtures directory: " << ATTN_REFERENCE_FIXTURES_DIR);
  REQUIRE(paths.size() >= kMinFixtures);
  for (const std::string& path : paths) {
    INFO("fixture " << path);
    const Json f = read_json(path);
    CHECK(f.value("generator", "") == "tests/reference/generate_torch_fixtures.py");
    CHECK(!f.value("torch", "").empty());
    CHECK(f.value("name", "") + ".json" == std::filesystem::path(path).filename().string());
    CHECK(f.contains("case"));
    CHECK((f.contains("expect") || f.contains("expect_error")));
    CHECK(f.value("tolerance", 1.0) <= 1e-12);
  }
}

TEST_CASE("reference fixtures: the core matches PyTorch to 1e-12", "[reference]") {
  const std::vector<std::string> paths = fixture_paths();
  REQUIRE(paths.size() >= kMinFixtures);
  int passed = 0;
  double worst = 0.0;
  std::string worst_name;
  for (const std::string& path : paths) {
    const Json f = read_json(path);
    const std::string name = f.value("name", path);
    INFO("fixture " << name << " (torch " << f.value("torch", "?") << "): " << f.value("about", ""));

    Json result;
    try {
      result = attn::run_case(f.at("case"));
    } catch (const attn::Error& e) {
      if (f.contains("expect_error")) {
        CHECK(std::string(e.code_name()) == f["expect_error"].get<std::string>());
        ++passed;
      } else {
        FAIL_CHECK("run_case threw " << e.code_name() << ": " << e.what());
      }
      continue;
    }
    if (f.contains("expect_error")) {
      FAIL_CHECK("expected error " << f["expect_error"] << " but run_case succeeded");
      continue;
    }

    bool ok = true;
    for (const auto& [field, expected] : f.at("expect").items()) {
      attn_test::JsonDiff d;  // the shared JSON comparer (tests/support/support.hpp)
      d.tol = f.at("tolerance").get<double>();
      if (!result.contains(field)) {
        FAIL_CHECK("result has no field \"" << field << "\"");
        ok = false;
        continue;
      }
      d.walk(expected, result[field], field);
      if (d.max_diff > worst) {
        worst = d.max_diff;
        worst_name = name + " " + field;
      }
      if (d.bad > 0) {
        std::ostringstream os;
        os << name << ": " << d.bad << " of " << d.compared << " entries of \"" << field
           << "\" differ beyond " << d.tol << "; max |difference| = " << attn_test::fmt17(d.max_diff);
        for (const std::string& s : d.first) os << "\n  " << s;
        FAIL_CHECK(os.str());
        ok = false;
      }
    }
    if (ok) ++passed;
  }
  // Shown with -s (or on failure): how close the core is to torch overall.
  INFO("max |difference| over all fixtures: " << attn_test::fmt17(worst) << " (" << worst_name << ")");
  CHECK(passed == static_cast<int>(paths.size()));
  std::printf("reference: %d/%zu fixtures match torch; max |difference| %s (%s)\n", passed, paths.size(),
              attn_test::fmt17(worst).c_str(), worst_name.c_str());
}
