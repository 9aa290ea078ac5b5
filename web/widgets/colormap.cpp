#include "widgets/colormap.hpp"

#include <algorithm>
#include <cmath>

namespace app::cmap {

const char* name(ColorMap map) { return map == ColorMap::sunset ? "sunset" : "viridis"; }

ImVec4 sunset(double t) {
  if (std::isnan(t)) t = 0.5;
  t = std::min(1.0, std::max(0.0, t));
  const double x = t * 10.0;
  const int k = std::min(9, static_cast<int>(std::floor(x)));
  const double f = x - k;
  auto channel = [&](int shift) {
    const double a = (kSunset[k] >> shift) & 0xFF, b = (kSunset[k + 1] >> shift) & 0xFF;
    return static_cast<float>((a + (b - a) * f) / 255.0);
  };
  return ImVec4(channel(16), channel(8), channel(0), 1.0f);
}

ImU32 diverging_u32(double v, double range, float alpha) {
  if (!(range > 0.0) || !std::isfinite(range)) range = 1.0;
  ImVec4 c = sunset(0.5 + 0.5 * v / range);
  c.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

double symmetric_range(const std::vector<double>& values) {
  double m = 0.0;
  for (double v : values)
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  if (m == 0.0) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(m)));
  for (double step : {1.0, 2.0, 5.0, 10.0})
    if (step * p >= m * (1.0 - 1e-12)) return step * p;
  return 10.0 * p;
}

ImU32 text_on(ColorMap map, double t) {
  const ImU32 dark = IM_COL32(20, 20, 30, 255), light = IM_COL32(250, 250, 250, 255);
  // Viridis gets lighter from dark blue to yellow; sunset is pale in its middle, dark at both ends.
  if (map == ColorMap::viridis) return t > 0.55 ? dark : light;
  return std::fabs(t - 0.5) < 0.36 ? dark : light;
}

void shown_range(ColorMap map, double& vmin, double& vmax) {
  if (map == ColorMap::sunset) {  // the pale middle means zero
    const double r = std::max(std::fabs(vmin), std::fabs(vmax));
    vmin = -r, vmax = r;
  }
  if (!(vmax > vmin)) vmax = vmin + 1.0;  // flat data still gets a valid range
}

void diverging_cell(double v, double range, const char* text) {
  if (!(range > 0.0) || !std::isfinite(range)) range = 1.0;
  ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, diverging_u32(v, range));
  ImGui::PushStyleColor(ImGuiCol_Text, text_on(ColorMap::sunset, 0.5 + 0.5 * v / range));
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
}

}  // namespace app::cmap
