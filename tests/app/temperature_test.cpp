// Headless app test: the Soft to hard panel: presets, argmax, refusals.
#include "support.hpp"

namespace headless {

void check_temperature(Driver& d, app::App& a) {
  open_panel_step("temperature");
  // It opens at tau = 0.1, where the rows are visibly peaked, unlike tau = 1.
  Json r = api_state()["temperature"]["result"];
  expect(api_state()["temperature"]["inputs"]["temperature"] == 0.1, "the default tau");
  double peak = 0.0;
  for (const Json& m : r["max_weight"]) peak = std::max(peak, m.get<double>());
  expect(peak > 0.5, "at the default tau some row puts more than half its weight on one key");
  // The gradient caption compares the measured norms with tau = 1; its mean is the rows' mean here.
  const Json& trend = r["gradient_trend"];
  double mean = 0.0;
  for (const Json& g : r["gradient_norm"]) mean += g.get<double>();
  mean /= static_cast<double>(r["gradient_norm"].size());
  expect(std::fabs(trend["mean_norm"].get<double>() - mean) <= 1e-12 * mean, "trend mean = the bars' mean");
  expect(trend["reference_temperature"] == 1.0, "the trend's reference is tau = 1");
  expect(trend["caption"].get<std::string>().find("At \xCF\x84 = 0.1 ") == 0, "the caption names the tau");
  d.click("\xCF\x84 = 1");
  r = api_state()["temperature"]["result"];
  double peak1 = 0.0;
  for (const Json& m : r["max_weight"]) peak1 = std::max(peak1, m.get<double>());
  expect(peak1 < 0.25, "tau = 1: every row nearly uniform (1/6 = 0.167 each)");
  expect(r["gradient_trend"]["caption"].get<std::string>().find("This is the reference") != std::string::npos,
         "at tau = 1 the caption says it is the reference");
  d.click("\xCF\x84 = 0.01");
  expect(api_state()["temperature"]["inputs"]["temperature"] == 0.01, "tau preset button");
  expect_accepted({{"temperature", {{"hard", true}}}});
  expect(api_state()["temperature"]["result"]["hard"] == true, "argmax mode");
  expect(api_state()["temperature"]["result"]["gradient_trend"].is_null(), "argmax: no soft gradient trend");
  d.sweep(89);
  expect_rejected({{"temperature", {{"hard", false}, {"temperature", 0}}}}, "temperature", "invalid_field");
  expect_rejected({{"temperature", {{"hard", false}, {"temperature", -1}}}}, "temperature", "invalid_field");
  expect(!app::set_temperature(a.state().temperature, NAN, false), "NaN temperature refused");
  expect_accepted({{"temperature", {{"hard", false}, {"temperature", 1}}}});
  expect_checks_pass("temperature");
}

}  // namespace headless
