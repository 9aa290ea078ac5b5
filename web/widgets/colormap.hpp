// web/widgets/colormap.hpp — which colours stand for which numbers.
//
// Two maps: viridis for quantities that are never negative (attention weights, accuracies), and
// Paul Tol's diverging "sunset" for signed ones (Δloss, entries of X, encoder states), centred at
// 0 over a symmetric range [-r, r] so that the pale middle always means zero, blue below it and
// red above. Both are readable with the common colour-vision deficiencies. Heatmap cells are
// coloured on the GPU (shaders/heatmap.frag holds the same stops); legends and table cells here.
#pragma once

#include <cstdint>
#include <vector>

#include "imgui.h"

namespace app {

enum class ColorMap { viridis, sunset };

namespace cmap {

/// Paul Tol's "sunset", the 11 colours as published (0xRRGGBB), from negative to positive: P. Tol,
/// "Colour Schemes", SRON technical note SRON/EPS/TN/09-002, version 3.2 (2021), fig. 19, and
/// https://personal.sron.nl/~pault/ ("can be used as given or linearly interpolated"). Its
/// bad-data colour (white) is not used: masked cells are hatched.
inline constexpr std::uint32_t kSunset[11] = {0x364B9A, 0x4A7BB7, 0x6EA6CD, 0x98CAE1, 0xC2E4EF, 0xEAECCC,
                                              0xFEDA8B, 0xFDB366, 0xF67E4B, 0xDD3D2D, 0xA50026};

/// "viridis" or "sunset" (the name the page view and the tests see).
const char* name(ColorMap map);
/// Sunset at t in [0, 1] (0: the most negative end, 0.5: zero, 1: the most positive), linearly
/// interpolated between the 11 stops as the shader does; t is clamped, NaN gives the middle.
/// RGB in [0, 1], alpha 1.
ImVec4 sunset(double t);
/// The colour of signed `v` on sunset over [-range, range] (range <= 0 or not finite: 1).
ImU32 diverging_u32(double v, double range, float alpha = 1.0f);
/// A symmetric display range for signed values: the largest |v| (non-finite ones skipped)
/// rounded up to 1, 2 or 5 times a power of ten, so the legend reads round numbers; 1 when all
/// are 0. A display choice only, like a plot's axis range.
double symmetric_range(const std::vector<double>& values);
/// Dark or light text, whichever reads on the map's colour at t in [0, 1].
ImU32 text_on(ColorMap map, double t);
/// The colour range a map shows for data in [vmin, vmax]: sunset centres it at 0 ([-r, r] with
/// r = max(|vmin|, |vmax|)); an empty or flat range becomes [vmin, vmin + 1]. Used by the heatmap
/// and by the page view, which reports the range as drawn.
void shown_range(ColorMap map, double& vmin, double& vmax);
/// A table cell (the current ImGui table column) showing `text` on sunset's colour for signed `v`
/// over [-range, range], in the text colour that reads on it.
void diverging_cell(double v, double range, const char* text);

}  // namespace cmap
}  // namespace app
