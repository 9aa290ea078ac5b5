// Headless ImGui test of the app: no window, no GPU backend.
//
// Builds the font atlas, then runs App::frame() for a few hundred frames on every panel
// at three display sizes while it
//   - sweeps the mouse over everything (tooltips, hover outlines, label thinning),
//   - clicks widgets found by their labels (nav entries, checkboxes, Shuffle, Re-roll),
//   - types into fields (a sentence, "nan" into a weight slider via Ctrl+click),
//   - sends good and bad input through the page API (attn_app_set & co, as the JS does):
//     empty sentence, 600 tokens, 9 heads, a broken permutation, NaN, wrong shapes.
// Fails on: any IM_ASSERT (thrown, see attn_test_imconfig.h), two items with one ID in a
// frame, a bad input that is accepted or does not keep the last good result, a
//
// The checks live in one file per panel or concern (support.hpp lists them); main runs them in
// order on one App.
#include "support.hpp"

using namespace headless;

int main() {
  try {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1800);  // tall, so every widget is on screen and clickable

    app::NullHeatmapGpu gpu;
    app::App a(gpu);
    app::set_api_app(&a);
    a.ensure_fonts(1.0f);
    unsigned char* pixels = nullptr;
    int tw = 0, th = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &tw, &th);
    expect(pixels && tw > 0 && th > 0, "font atlas did not build");
    Driver d(a);

    check_defaults(d, a);
    check_alignment(d, a);
    check_navigation(d, a);
    check_random_heads(d, a);
    check_permutation(d, a);
    check_lesson_panels_draw(d, a);
    check_masks(d, a);
    check_attribution(d, a);
    check_scaling(d, a);
    check_temperature(d, a);
    check_dropout(d, a);
    check_additive(d, a);
    check_script(d, a);
    check_recall(d, a);
    check_api(d, a);
    check_learned_heads(d, a);
    check_throwaway_panel(d, a);
    check_translate(d, a);
    check_language_model(d, a);
    check_fit(d, a);
    check_plot_ticks(d, a);
    g_step = "train worker";
    check_train_worker(d, a);
    check_sliders(d, a);
    check_colour_maps(d, a);
    check_slow_study(d, a);
    check_idle_frames(d, a);
    check_keyboard(d, a);

    // --- small and HiDPI displays
    g_step = "sizes";
    for (const ImVec2 size : {ImVec2(640, 480), ImVec2(1280, 800)}) {
      io.DisplaySize = size;
      for (const app::PanelDef& p : app::panels()) {  // every registered panel
        attn_app_show_panel(p.name);
        d.sweep(61);
      }
    }
    expect(a.ensure_fonts(2.0f), "font atlas rebuilds for pixel ratio 2");
    io.Fonts->GetTexDataAsRGBA32(&pixels, &tw, &th);
    d.frames(20);

    for (const std::string& clash : g_id_clashes) fail(clash);
    std::printf("headless app test: %d frames, %d texture uploads, %d heatmap draws\n", g_frame, gpu.uploads, gpu.draws);
    ImGui::DestroyContext();
  } catch (const std::exception& e) {
    fail(std::string("exception: ") + e.what());
  }
  if (g_failures) {
    std::printf("0 passed, 1 failed (%d problems)\n", g_failures);
    return 1;
  }
  std::printf("1 passed, 0 failed\n");
  return 0;
}
