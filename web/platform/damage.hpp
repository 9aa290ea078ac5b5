// web/platform/damage.hpp — which parts of the framebuffer a frame changes (damage tracking).
//
// Why: in headless Chromium the page's WebGL is rasterised in software (SwiftShader), and the
// cost of a frame grows with the triangles it rasterises (about 25–31 ms at 1280×800 for a
// text-heavy panel, enough to hold frames at 33 ms or more while a run trains). Most of a frame
// repeats the last one — the navigation, the lesson's paragraphs — so the platform keeps the
// picture in its own framebuffer and redraws only where this frame's draw data differs.
//
// How: the framebuffer is cut into square tiles. Every triangle of the draw data (and every
// draw callback, such as a heatmap) is hashed — its vertices, texture and clip rectangle — into
// each tile its bounding box (clipped) touches, in draw order, so a tile's hash changes when
// anything that can colour one of its pixels, or their order, changes. Tiles whose hash differs
// from the last frame's are damaged; they are returned as a few rectangles.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "imgui.h"

namespace app {

/// A rectangle in framebuffer pixels, origin top-left, [x0, x1) × [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  long long area() const { return empty() ? 0 : static_cast<long long>(x1 - x0) * (y1 - y0); }
};

/// What a draw callback paints: a hash of everything it reads (uniforms, texture version) and
/// its rectangle in ImGui display coordinates. `known` false: the tracker cannot tell, and the
/// whole frame counts as damaged.
struct CallbackFootprint {
  bool known = false;
  std::uint64_t hash = 0;
  ImVec4 rect;  ///< x0, y0, x1, y1 (display coordinates, like ImDrawCmd::ClipRect)
};
using CallbackDescriber = std::function<CallbackFootprint(const ImDrawCmd&)>;

class DamageTracker {
 public:
  static constexpr int kTile = 32;      ///< tile side, framebuffer pixels
  static constexpr int kMaxRects = 4;   ///< more damaged regions than this: their bounding box

  /// Hash `dd` (a rendered ImGui frame: ImGui::GetDrawData()) over a fb_w × fb_h framebuffer
  /// and return the damaged rectangles since the last call (framebuffer pixels, tile-aligned,
  /// clamped to the framebuffer; at most kMaxRects, pairwise disjoint). Everything is damaged on the
  /// first call, after invalidate(), or when the framebuffer size or `background` changed.
  /// `describe` tells what a draw callback paints (ImDrawCallback_ResetRenderState is skipped).
  std::vector<PixelRect> update(const ImDrawData& dd, int fb_w, int fb_h, const ImVec4& background,
                                const CallbackDescriber& describe = {});
  /// Forget the last frame: the next update() damages everything (the font texture, the GL
  /// objects or the framebuffer's contents changed behind the draw data's back).
  void invalidate() { prev_.clear(); }

 private:
  std::vector<std::uint64_t> tiles_, prev_;
  int cols_ = 0, rows_ = 0, fb_w_ = 0, fb_h_ = 0;
};

/// Every command's clip rectangle in display coordinates snapped to the whole framebuffer
/// pixels the ImGui OpenGL3 backend scissors it to (it truncates to int), so a later
/// intersection with a pixel rectangle scissors exactly that rectangle. Only exact when
/// FramebufferScale is 1 or 2 and DisplayPos is whole (DamageTracker users check
/// exact_pixel_mapping first).
void snap_clip_rects(ImDrawData& dd);
/// Whether display → framebuffer coordinates round-trip exactly (scale 1 or 2, whole DisplayPos).
bool exact_pixel_mapping(const ImDrawData& dd);

}  // namespace app
