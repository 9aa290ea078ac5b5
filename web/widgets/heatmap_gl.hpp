// web/widgets/heatmap_gl.hpp — HeatmapGpu on OpenGL 3.3 core / WebGL2.
//
// Each heatmap is an RG32F texture (one texel per cell) drawn by shaders/heatmap.{vert,frag}
// from inside ImGui's draw list: heatmap() queues an ImDrawList callback, which the ImGui
// OpenGL3 backend runs at its place in the draw order, followed by
// ImDrawCallback_ResetRenderState so ImGui's own state is restored for what follows.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "platform/damage.hpp"
#include "widgets/heatmap.hpp"

namespace app {

class GlHeatmapGpu final : public HeatmapGpu {
 public:
  /// Compile and link the shaders (GL context must be current). On failure prints the
  /// compile/link log and the GLSL version to stderr (the browser console), returns false
  /// and the widget draws only its labels.
  bool init();
  void shutdown();

  void begin_frame() override;
  bool has(ImGuiID id, std::uint64_t version) const override;
  void upload(ImGuiID id, std::uint64_t version, int rows, int cols, const float* cells) override;
  void draw(ImDrawList* dl, ImGuiID id, ImVec2 p0, ImVec2 p1, float vmin, float vmax, bool grid, ColorMap map) override;
  /// What a draw command of this frame paints, for the platform's damage tracking: for a
  /// heatmap's callback a hash of its texture (id and content version), rectangle, range,
  /// grid and colour map, and its rectangle; anything else: not known.
  CallbackFootprint footprint(const ImDrawCmd& cmd) const;

 private:
  struct Texture {
    unsigned tex = 0;
    std::uint64_t version = 0;
    int rows = 0, cols = 0;
    std::uint64_t last_used = 0;
  };
  struct Draw {
    unsigned tex = 0;
    ImGuiID id = 0;
    std::uint64_t version = 0;  ///< the texture's content version when drawn
    float rect[4];
    float dims[2];
    float range[2];
    bool grid = false;
    ColorMap map = ColorMap::viridis;
  };
  static void callback(const ImDrawList* list, const ImDrawCmd* cmd);
  void render(const ImDrawCmd* cmd, const Draw& d);

  unsigned program_ = 0, vao_ = 0;
  int u_rect_ = -1, u_display_ = -1, u_cells_ = -1, u_dims_ = -1, u_range_ = -1, u_hatch_ = -1, u_grid_ = -1,
      u_grid_rgb_ = -1, u_fb_ = -1, u_map_ = -1;
  std::unordered_map<ImGuiID, Texture> textures_;
  std::vector<Draw> draws_;
  std::uint64_t frame_ = 0;
};

}  // namespace app
