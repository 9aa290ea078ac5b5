// tests/fuzz/fuzz_json_case.cpp — libFuzzer target: arbitrary bytes → attn::run_case_text.
//
// The JSON case reader is the page's and the CLI's front door: whatever arrives, it must
// answer with a result or {"error":{code,message}} and never crash, throw or hang.
// Checked on every input (abort() = a finding):
//   - run_case_text never throws (an escaping exception aborts under libFuzzer anyway);
//   - an error carries one of the documented codes (core/attn/error.hpp) and a message;
//   - a success holds no NaN anywhere and serialises with attn::dump;
//   - every "weights" row (attention: Tq×Tk, multi_head: h×Tq×Tk) sums to 1 within 1e-12
//     or is all zero (an empty row under empty_rows = "zero"), and each weight whose
//     "scores" entry is null (a masked pair) is exactly 0;
//   - the learning ops: a "loss" and every entry of "losses" are finite and >= 0, and no
//     gradient or parameter is infinite (written as null by the serialiser).
#include <json/json_case.hpp>
#include <json/ops.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace {

using attn::Json;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_json_case: %s: %s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

const std::set<std::string>& documented_codes() {
  static const std::set<std::string> codes = {
      "invalid_json",  "unknown_op",     "missing_field", "invalid_field",
      "empty_sequence", "shape_mismatch", "non_finite",    "no_allowed_key",
      "causal_alignment_required", "invalid_scale", "invalid_mask", "too_large"};
  return codes;
}

void no_nan(const Json& j, const std::string& path) {
  if (j.is_number_float()) {
    if (std::isnan(j.get<double>())) finding("NaN in a result", path);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) no_nan(j[i], path + "[" + std::to_string(i) + "]");
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) no_nan(it.value(), path + "." + it.key());
  }
}

bool is_row(const Json& j) { return j.is_array() && (j.empty() || j[0].is_number()); }

/// weights/scores at the same nesting: a row is an array of numbers.
void check_rows(const Json& w, const Json* s, const std::string& path) {
  if (!w.is_array()) finding("weights are not an array", path);
  if (s && (!s->is_array() || s->size() != w.size())) finding("scores do not match weights in shape", path);
  if (!is_row(w)) {
    for (size_t i = 0; i < w.size(); ++i)
      check_rows(w[i], s ? &(*s)[i] : nullptr, path + "[" + std::to_string(i) + "]");
    return;
  }
  double sum = 0.0;
  bool all_zero = true;
  for (size_t j = 0; j < w.size(); ++j) {
    if (!w[j].is_number()) finding("a weight is not a number", path);
    const double x = w[j].get<double>();
    if (!(x >= 0.0 && x <= 1.0)) finding("a weight is outside [0, 1]", path + " = " + w[j].dump());
    if (s && (*s)[j].is_null() && x != 0.0)
      finding("a masked pair (null score) has a non-zero weight", path + "[" + std::to_string(j) + "]");
    sum += x;
    all_zero = all_zero && x == 0.0;
  }
  if (!all_zero && !(std::fabs(sum - 1.0) <= 1e-12))
    finding("a weights row does not sum to 1 within 1e-12", path + " sums to " + std::to_string(sum));
}

}  // namespace

// The file ops are in the table as in the attn tool (no file reader is installed: they stop at
// their file, after their fields are read).
[[maybe_unused]] const bool file_ops_registered = (attn::register_file_ops(), true);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  bool ok = false;
  const Json out = attn::run_case_text(text, &ok);
  if (!out.is_object()) finding("result is not an object", out.dump());
  if (!ok) {
    const Json& e = out.at("error");
    const std::string code = e.at("code").get<std::string>();
    if (!documented_codes().count(code)) finding("undocumented error code", code);
    if (e.at("message").get<std::string>().empty()) finding("empty error message", code);
    return 0;
  }
  if (out.contains("error")) finding("success result carries an error", out.dump());
  no_nan(out, "result");
  (void)attn::dump(out);
  if (out.contains("loss") && !(out["loss"].is_number() && out["loss"].get<double>() >= 0.0 &&
                                std::isfinite(out["loss"].get<double>())))
    finding("loss is not a finite number >= 0", out["loss"].dump());
  if (out.contains("losses"))
    for (const Json& l : out["losses"])
      if (!(l.is_number() && l.get<double>() >= 0.0 && std::isfinite(l.get<double>())))
        finding("a training loss is not a finite number >= 0", l.dump());
  for (const char* named : {"grads", "params"})
    if (out.contains(named))
      for (auto it = out[named].begin(); it != out[named].end(); ++it)
        if (it.value().dump().find("null") != std::string::npos)
          finding("an infinite entry (null) in a named tensor", std::string(named) + "." + it.key());
  if (out.contains("weights")) check_rows(out["weights"], out.contains("scores") ? &out["scores"] : nullptr, "weights");
  return 0;
}
