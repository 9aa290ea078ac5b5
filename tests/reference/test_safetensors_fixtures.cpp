// Model files written by PyTorch 1.13 (safetensors/, generate_safetensors_fixtures.py): each file
// goes through the model_logits op as `attn run` reads it, and the core's logits and attention
// weights (decoder) or alignment (seq2seq) must match torch's within the fixture's 1e-10.
#include <json/case_files.hpp>
#include <json/json_case.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef ATTN_SAFETENSORS_FIXTURES_DIR
#error "ATTN_SAFETENSORS_FIXTURES_DIR must name tests/reference/safetensors"
#endif

namespace {

using attn::Json;

/// Largest |a − b| over two nested arrays of numbers; -1 when their shapes differ.
double max_diff(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return std::fabs(a.get<double>() - b.get<double>());
  if (!a.is_array() || !b.is_array() || a.size() != b.size()) return -1.0;
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = max_diff(a[i], b[i]);
    if (d < 0.0) return -1.0;
    m = std::max(m, d);
  }
  return m;
}

}  // namespace

TEST_CASE("safetensors fixtures: torch's modules saved as files give torch's logits to 1e-10", "[reference][safetensors]") {
  attn::set_case_file_reader(attn::read_case_file);
  std::vector<std::string> paths;
  for (const auto& f : std::filesystem::directory_iterator(ATTN_SAFETENSORS_FIXTURES_DIR))
    if (f.path().extension() == ".json") paths.push_back(f.path().string());
  std::sort(paths.begin(), paths.end());
  REQUIRE(paths.size() == 10);
  int decoders = 0, alignments = 0, f32 = 0, bidirectional = 0;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const Json f = Json::parse(ss.str());
    INFO("fixture " << f["name"].get<std::string>() << " (torch " << f["torch"].get<std::string>() << "): " << f["about"]);
    CHECK(f["generator"] == "tests/reference/generate_safetensors_fixtures.py");
    Json req = f["case"];
    req["model"] = std::string(ATTN_SAFETENSORS_FIXTURES_DIR) + "/" + f["file"].get<std::string>();
    const Json out = attn::run_case(req);
    const double tol = f["tolerance"].get<double>();
    REQUIRE(tol <= 1e-10);
    for (auto it = f["expect"].begin(); it != f["expect"].end(); ++it) {
      INFO("field " << it.key());
      REQUIRE(out.contains(it.key()));
      const double d = max_diff(out[it.key()], it.value());
      CHECK(d >= 0.0);
      CHECK(d <= tol);
    }
    CHECK(out.size() == f["expect"].size());  // no field torch did not compute (nor one missing)
    decoders += out.contains("weights");
    bidirectional += f["name"].get<std::string>().find("bidirectional") != std::string::npos;
    alignments += out.contains("alignment");
    f32 += f["file"].get<std::string>().find("f32") != std::string::npos;
  }
  CHECK(decoders == 5);
  CHECK(alignments == 3);
  CHECK(bidirectional == 2);  // nn.GRU(bidirectional=True), recognised by its _reverse tensors
  CHECK(f32 == 4);
}
