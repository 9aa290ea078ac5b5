// web/app/app.hpp — the whole page as ImGui calls: title, navigation, the active panel.
//
// App::frame() is called between ImGui::NewFrame() and ImGui::Render(). It needs no GPU
// backend (heatmaps go through HeatmapGpu), so the headless test drives it directly.
#pragma once

#include <cstdint>

#include "app/app_state.hpp"
#include "widgets/heatmap.hpp"
#include "widgets/ui_style.hpp"

namespace app {

class App {
 public:
  /// `gpu` must outlive the App. Builds the default state through the core.
  explicit App(HeatmapGpu& gpu);

  /// (Re)build fonts and theme for a display pixel ratio. Returns true when the atlas
  /// changed (the renderer must then re-upload its font texture).
  bool ensure_fonts(float pixel_ratio);
  /// Draw one frame of UI (inside NewFrame/Render).
  void frame();
  /// Count a frame as drawn (after the renderer presented it).
  void frame_presented(double now_seconds);
  /// Whether this tick needs a frame. An idle lesson page should not redraw 60 times a
  /// second (course pages may embed several): draw when input arrived (and briefly after,
  /// so hover states settle), when the state or panel changed, when a text field is being
  /// edited (cursor blink), when asked (request_frame), and at least every half second.
  bool needs_frame(bool had_input, double now_seconds) const;
  /// Make the next tick draw (window.attentionLab.nextFrame uses it).
  void request_frame() { frame_requested_ = true; }
  /// Embed mode (index.html?embed=1): the current panel alone, without navigation.
  void set_embed(bool on) {
    embed_ = on;
    frame_requested_ = true;
  }
  bool embed() const { return embed_; }

  AppState& state() { return state_; }
  const AppState& state() const { return state_; }
  HeatmapGpu& gpu() { return gpu_; }

 private:
  void draw_nav(float width);      // sidebar (wide windows)
  void draw_top_nav();             // one row of tabs (narrow windows, e.g. an iframe)
  void draw_menu_nav();            // a menu button over the list (phones: under kMenuNavWidth)

  HeatmapGpu& gpu_;
  AppState state_;
  Fonts fonts_;
  bool fonts_ready_ = false;
  bool embed_ = false;
  bool menu_open_ = false;  // the phone navigation's list is shown
  // Idle tracking for needs_frame().
  bool frame_requested_ = true;
  std::uint64_t drawn_generation_ = 0;
  int drawn_panel_ = 0;
  double last_frame_at_ = -1.0;
  mutable double busy_until_ = 0.0;
};

}  // namespace app
