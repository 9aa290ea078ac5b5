// Attention Lab — the app's entry point, the same on the desktop and in the browser.
//
// Desktop options (for checks under Xvfb; the browser passes none; kUsage prints them):
//   --panel NAME                          start on that panel
//   --frames N                            quit after N frames
//   --screenshot FILE.png                 save the last frame (with --frames)
//   --set JSON                            inputs, as window.attentionLab.set(JSON)
//   --size WxH                            window size (default 1280x800)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "app/api.hpp"
#include "app/app.hpp"
#include "widgets/heatmap_cursor.hpp"
#include "widgets/heatmap_gl.hpp"
#include "widgets/keyboard_nav.hpp"
#include "widgets/ui_style.hpp"
#include "platform/browser_glue.hpp"
#include "platform/emscripten_shim.hpp"
#include "platform/platform.hpp"

namespace {

const char* const kUsage =
    "usage: attention_lab [--panel NAME] [--set JSON]... [--size WxH] [--details-open]\n"
    "                     [--frames N [--screenshot FILE.png]]\n"
    "\n"
    "Attention Lab's desktop window: the same panels and core as the page.\n"
    "\n"
    "  --panel NAME          start on that panel (alignment, heads, permutation, masks, attribution,\n"
    "                        scaling, temperature, dropout, additive, script, cost, learned_heads,\n"
    "                        translate; language_model: here only, not yet in the page)\n"
    "  --set JSON            inputs, as window.attentionLab.set(JSON); may be repeated\n"
    "  --size WxH            window size in pixels (default 1280x800)\n"
    "  --details-open        every collapsed section drawn open (the page's details=open)\n"
    "  --frames N            quit after N frames (scripted runs draw every frame)\n"
    "  --screenshot FILE.png save the last frame as PNG (with --frames)\n"
    "  --help, -h            print this and exit\n";

struct Options {
  bool help = false;
  std::string panel;
  long frames = -1;
  std::string screenshot;
  std::vector<std::string> patches;
  int width = 1280, height = 800;
  bool details_open = false;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) o.help = true;
    else if (!std::strcmp(argv[i], "--panel") && has_value) o.panel = argv[++i];
    else if (!std::strcmp(argv[i], "--frames") && has_value) o.frames = std::strtol(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--screenshot") && has_value) o.screenshot = argv[++i];
    else if (!std::strcmp(argv[i], "--set") && has_value) o.patches.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--details-open")) o.details_open = true;
    else if (!std::strcmp(argv[i], "--size") && has_value) std::sscanf(argv[++i], "%dx%d", &o.width, &o.height);
    else std::fprintf(stderr, "attention_lab: ignoring argument '%s' (--help lists the options)\n", argv[i]);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  // Static, not locals: in the browser main() is unwound while the loop keeps running.
  static Options options = parse_options(argc, argv);
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  static app::Platform platform;
  static app::GlHeatmapGpu gpu;

  std::string error;
  app::PlatformConfig config;
  config.width = options.width > 0 ? options.width : 1280;
  config.height = options.height > 0 ? options.height : 800;
  if (!platform.init(config, &error)) {
    std::fprintf(stderr, "attention_lab: %s\n", error.c_str());
    app::shim::report_fatal(error.c_str());
    return 1;
  }
  if (!gpu.init()) std::fprintf(stderr, "attention_lab: heatmaps will show labels only (shader failed)\n");
  platform.set_callback_describer([](const ImDrawCmd& cmd) { return gpu.footprint(cmd); });

  static app::App application(gpu);
  if (options.details_open) app::style::set_details_open(true);
  app::set_api_app(&application);
  app::glue::Hooks hooks;
  hooks.request_frame = [] { application.request_frame(); };
  hooks.recreate_gpu = [] {
    gpu.shutdown();
    return gpu.init();
  };
  hooks.cell_mode = [] { return app::heatmap_cell_mode_active(); };
  hooks.placeholder_frame = [] { return app::style::last_placeholder_frame(); };
  hooks.touch_sizes = [](bool on) { app::style::set_touch_sizes(on); };
  hooks.item_added = app::kbd::item_added;
  hooks.item_label = app::kbd::item_label;
  app::glue::install(&platform, std::move(hooks));
#ifndef __EMSCRIPTEN__
  // A desktop window has no page to Tab out to: past the last control Tab starts over.
  platform.on_tab = [](int dir) {
    if (!app::kbd::tab(dir)) app::kbd::focus_entered(dir);
    application.request_frame();
  };
#endif
  if (!options.panel.empty()) attn_app_show_panel(options.panel.c_str());
  for (const std::string& patch : options.patches) std::printf("--set: %s\n", attn_app_set(patch.c_str()));

  ATTN_MAIN_LOOP_BEGIN {
    bool input = false;
    if (!platform.poll_events(&input)) break;
    const double now = platform.seconds();
    if (options.frames > 0) application.request_frame();  // scripted runs draw every tick
    if (!application.needs_frame(input, now)) {
      platform.idle_wait(0.05);
      continue;  // (in the browser: ends this tick)
    }
    // WebGL context lost: draw nothing until the browser gives it back (GL objects are then
    // rebuilt by before_frame); a pasted text is typed as Ctrl+V.
    if (!app::glue::before_frame()) {
      platform.idle_wait(0.05);
      continue;
    }
    // Fonts follow the device pixel ratio (rasterised at points × ratio, so text stays sharp).
    if (application.ensure_fonts(platform.pixel_ratio())) platform.reload_fonts();
    platform.new_frame();
    application.frame();
    const bool last = options.frames > 0 && static_cast<long>(application.state().frames) + 1 >= options.frames;
    if (last && !options.screenshot.empty()) platform.request_screenshot(options.screenshot);
    platform.render(ImGui::GetStyle().Colors[ImGuiCol_WindowBg]);
    application.frame_presented(now);
    app::shim::notify_frame_presented(static_cast<int>(application.state().frames));
    if (last) break;
  }
  ATTN_MAIN_LOOP_END;

  gpu.shutdown();
  platform.shutdown();
  return 0;
}
