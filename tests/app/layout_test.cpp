// Headless app test: layout on every panel: narrow canvases, plot ticks, sliders' values, colour maps.
#include "support.hpp"

#include <cfloat>
#include <cstring>

namespace headless {

namespace {
// Puts the canvas back at the size a check found, the detail sections as a panel opens them, and
// the Alignment panel on screen, where the next check starts.
void restore_canvas(Driver& d, const ImVec2& saved) {
  ImGui::GetIO().DisplaySize = saved;
  app::style::set_details_open(false);
  attn_app_show_panel("alignment");
  d.frames(2);
}

// ImGui's word wrap (as cmake/deps.cmake changes it) keeps numbers whole: at every width from the
// text's widest word up, no line of these texts ends inside a number. (ImGui 1.86's own rule
// broke after a '.', ',' or ';' anywhere: "measured 3." | "33e-16".)
void check_wrap_keeps_numbers() {
  const std::string cut = "measured 3.33e-16";
  expect(app::fit::splits_number(cut.c_str(), cut.c_str() + cut.find('.') + 1, cut.c_str() + cut.size()),
         "a line ending at \"3.\" before \"33e-16\" cuts the number");
  expect(app::fit::splits_number(cut.c_str(), cut.c_str() + cut.find("e-") + 2, cut.c_str() + cut.size()),
         "a line ending at \"3.33e-\" cuts it too");
  expect(!app::fit::splits_number(cut.c_str(), cut.c_str() + cut.find(' '), cut.c_str() + cut.size()),
         "a line ending at the space does not");
  const char* const texts[] = {
      "measured 3.33e-16 \xE2\x89\xA4 1e-12 (the largest |w - w'|), so the rows agree.",
      "weights 0.25,0.75 and 1,024 tokens; p = 0.5; lr 5e-3, seed 17! H 32.",
      "entropy 1.0986 nats = log 3.0000, the uniform row's; 12.5% of 1,000,000.5 cells."};
  ImFont* font = ImGui::GetFont();
  for (const char* text : texts) {
    const char* end = text + std::strlen(text);
    float widest_word = 0.0f;
    for (const char* w = text; w < end;) {
      const char* e = w;
      while (e < end && *e != ' ') ++e;
      widest_word = std::max(widest_word, font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, w, e).x);
      w = e + 1;
    }
    const float whole = font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, text, end).x;
    std::string bad;
    for (float width = std::ceil(widest_word); width <= whole + 1.0f && bad.empty(); width += 1.0f)
      for (const char* s = text; s < end;) {
        const char* eol = font->CalcWordWrapPositionA(1.0f, s, end, width);
        if (app::fit::splits_number(text, eol, end)) {
          bad = "at " + std::to_string(static_cast<int>(width)) + " units: \"" + std::string(s, eol) + "\" | \"" + std::string(eol, end) + "\"";
          break;
        }
        s = eol;
        while (s < end && *s == ' ') ++s;
      }
    expect(bad.empty(), std::string("the word wrap keeps numbers whole in \"") + text + "\": " + bad);
  }
}
}  // namespace

// every panel fits a narrow canvas: at each width, after a few frames, the widest item
// (before clipping; boxes that scroll sideways count with their box) stays inside the panel's
// visible area, and no box (child, table column) cuts its content. The throw-away panel,
// laid out too wide, is flagged; its content inside a sideways-scrolling box is not.
void check_fit(Driver& d, app::App& a) {
  ImGuiIO& io = ImGui::GetIO();
  g_step = "fit";
  check_wrap_keeps_numbers();
  {
    const ImVec2 saved = io.DisplaySize;
    io.MousePos = ImVec2(-1000, -1000);
    auto measure = [&](const char* panel) {
      attn_app_show_panel(panel);
      d.frames(4);  // the layout settles (scrollbars, auto-sized columns)
      const Json fit = Json::parse(attn_app_fit());
      expect(fit["panel"] == panel && fit["frame"].get<int>() == ImGui::GetFrameCount(),
             std::string("the fit report is this frame's, of ") + panel);
      return fit;
    };
    std::printf("widest item (right edge, window units) per panel; the canvas width heads each column\n%-14s", "panel");
    const float widths[] = {320, 390, 768, 1280};
    for (float w : widths) std::printf(" %8.0f", w);
    std::printf("\n");
    std::map<std::string, std::vector<float>> widest;
    int sideways_at_320 = 0;  // the detector's control: narrow canvases do scroll some tables
    // plain, touch sizes (phones), embedded (a course page's iframe), every detail section open
    for (const int mode : {0, 1, 2, 3}) {
      const bool touch = mode == 1;
      app::style::set_touch_sizes(touch);
      a.set_embed(mode == 2);
      app::style::set_details_open(mode == 3);
      for (float w : widths) {
        if (mode && w > 390) continue;
        io.DisplaySize = ImVec2(w, 800);
        for (const app::PanelDef& p : app::panels()) {
          const Json fit = measure(p.name);
          if (!mode) widest[p.name].push_back(fit["widest"].get<float>());
          const std::string at = std::string(p.name) + " at " + std::to_string(static_cast<int>(w)) +
                                 (touch ? " (touch sizes)" : mode == 2 ? " (embedded)" : mode == 3 ? " (details open)" : "") + ": ";
          expect(fit["canvas_width"].get<float>() == w, at + "canvas width reported");
          expect(fit["visible_right"].get<float>() <= w, at + "the visible area is inside the canvas");
          expect(fit["split_numbers"].empty(), at + "a number wraps across lines: " + attn::dump(fit["split_numbers"]));
          // A desktop canvas shows every table whole: none may need scrolling sideways.
          if (!mode && w >= 1280)
            expect(fit["sideways_tables"].empty(), at + "a table scrolls sideways: " + attn::dump(fit["sideways_tables"]));
          if (!mode && w == 320) sideways_at_320 += static_cast<int>(fit["sideways_tables"].size());
          // One idea per screen: at most 2 screens of content at 1280×800 and 4.5 on a 390×844 phone;
          // the two panels that train a model, 3.5 and 7.
          if ((!mode && w == 1280) || (touch && w == 390)) {
            const std::string name = p.name;
            const bool trained = name == "translate" || name == "learned_heads";
            const float screen = touch ? 844.0f : 800.0f;
            const float screens = fit["content_height"].get<float>() / screen;
            const float bound = touch ? (trained ? 7.0f : 4.5f) : (trained ? 3.5f : 2.0f);
            std::printf("content height of %-14s at %4d: %.2f screens (at most %.1f)\n", p.name, static_cast<int>(w),
                        screens, bound);
            expect(screens <= bound, at + "content height " + std::to_string(screens) + " screens, past " +
                                         std::to_string(bound));
          }
          if (fit["widest"].get<float>() > fit["visible_right"].get<float>() + 0.5f || fit["fits"] != true) {
            // Name the widgets past the edge (text has no ID and is not listed; the report has its edge).
            std::string past;
            for (const Item& it : g_items)
              if (it.rect.Max.x > fit["visible_right"].get<float>() + 0.5f && !it.label.empty() &&
                  it.label.find("  ") == std::string::npos)  // (not the navigation's tabs)
                past += " '" + it.label + "' (" + std::to_string(static_cast<int>(it.rect.Max.x)) + ")";
            fail(at + "content past the right edge: " + attn::dump(fit) + "; widgets past it:" + past);
          }
        }
      }
    }
    app::style::set_touch_sizes(false);
    a.set_embed(false);
    app::style::set_details_open(false);
    expect(sideways_at_320 > 0, "at 320 units some table scrolls sideways, and the report names it");
    for (const app::PanelDef& p : app::panels()) {
      std::printf("%-14s", p.name);
      for (float v : widest[p.name]) std::printf(" %8.1f", v);
      std::printf("\n");
    }
    for (float w : {320.0f, 390.0f}) {
      io.DisplaySize = ImVec2(w, 800);
      throwaway::state().width = throwaway::Width::too_wide;
      Json fit = measure(throwaway::kName);
      expect(fit["fits"] == false && fit["widest"].get<float>() > w && !fit["cut"].empty(),
             "the too-wide panel is flagged at " + std::to_string(static_cast<int>(w)) + ": " + attn::dump(fit));
      throwaway::state().width = throwaway::Width::scrolls_inside;
      fit = measure(throwaway::kName);
      expect(fit["fits"] == true && fit["widest"].get<float>() <= fit["visible_right"].get<float>(),
             "content inside a sideways-scrolling box is exempt: " + attn::dump(fit));
      throwaway::state().width = throwaway::Width::fits;
      app::fit::set_probe(40.0f);  // the page's test switch: one item 40 units too wide
      fit = measure("heads");
      expect(fit["fits"] == false && fit["widest"].get<float>() > fit["visible_right"].get<float>() + 20.0f,
             "the fit probe is flagged: " + attn::dump(fit));
      expect(!fit["split_numbers"].empty() && fit["split_numbers"][0].get<std::string>().find('|') != std::string::npos,
             "the probe's number, wider than its column, is flagged as cut: " + attn::dump(fit["split_numbers"]));
      app::fit::set_probe(0.0f);
    }
    restore_canvas(d, saved);
  }
}

// plot ticks at round values (1, 2 or 5 times a power of ten apart), read from what
// every panel's plots drew at 1280 units
void check_plot_ticks(Driver& d, app::App& a) {
  ImGuiIO& io = ImGui::GetIO();
  g_step = "ticks";
  app::style::set_details_open(true);  // every plot, those in collapsed sections too
  {
    // Why a tick list is not round, or "" when it is.
    auto not_round = [](const std::vector<double>& t) -> std::string {
      if (t.size() < 2) return "";
      const double step = t[1] - t[0];
      const double e = std::floor(std::log10(step) + 1e-9), m = step / std::pow(10.0, e);
      if (std::fabs(m - 1) > 1e-6 && std::fabs(m - 2) > 1e-6 && std::fabs(m - 5) > 1e-6)
        return "step " + std::to_string(step) + " is not 1, 2 or 5 times a power of ten";
      for (size_t i = 0; i < t.size(); ++i) {
        if (i && std::fabs(t[i] - t[i - 1] - step) > 1e-9 * std::max(1.0, std::fabs(step)))
          return "uneven steps at " + std::to_string(t[i]);
        if (std::fabs(t[i] / step - std::round(t[i] / step)) > 1e-6) return std::to_string(t[i]) + " is not a multiple of the step";
      }
      return "";
    };
    // The check's negative control: the ticks the page drew before (ymin + k·span/4).
    expect(!not_round({0.0, 0.196, 0.393, 0.589, 0.786}).empty(), "0.196 / 0.393 / ... are not round");
    expect(!not_round({0.936, 1.87, 2.81}).empty(), "0.936 / 1.87 / 2.81 are not round");
    auto near_list = [](const std::vector<double>& a, const std::vector<double>& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (std::fabs(a[i] - b[i]) > 1e-12) return false;
      return true;
    };
    expect(near_list(app::plot::round_ticks(0.0, 2.24, 5), {0.0, 0.5, 1.0, 1.5, 2.0}), "round_ticks(0, 2.24, 5)");
    expect(near_list(app::plot::round_ticks(-0.14, 0.79, 6), {0.0, 0.2, 0.4, 0.6}), "round_ticks(-0.14, 0.79, 6)");
    expect(near_list(app::plot::round_ticks(-0.5, 0.5, 6), {-0.4, -0.2, 0.0, 0.2, 0.4}), "round_ticks(-0.5, 0.5, 6)");
    expect(near_list(app::plot::round_ticks(0.0, 1800.0, 6), {0.0, 500.0, 1000.0, 1500.0}), "round_ticks(0, 1800, 6)");
    expect(app::plot::round_ticks(1.0, 1.0, 5).empty(), "an empty range has no ticks");
    const ImVec2 saved = io.DisplaySize;
    io.DisplaySize = ImVec2(1280, 800);
    // Short runs of both trained panels, so that every plot they have is drawn (curves, the
    // scores by step, the ablation scatter, accuracy by length).
    expect_accepted({{"learned_heads", {{"steps", 200}, {"train", true}}}});
    expect_accepted({{"translate", {{"steps", 40}, {"train", true}}}});
    for (int i = 0; i < 3000 && (api_state()["learned_heads"]["step"] != 200 || api_state()["translate"]["step"] != 40); ++i)
      d.frames(5);
    expect(api_state()["learned_heads"]["step"] == 200 && api_state()["translate"]["step"] == 40, "both short runs finished");
    int plots = 0;
    std::string names;
    for (const app::PanelDef& p : app::panels()) {
      attn_app_show_panel(p.name);
      d.frames(30);  // shipped checkpoints install, studies finish their slices
      for (const app::view::PlotTicks& t : app::view::plots()) {
        ++plots;
        names += std::string(" ") + p.name + ":" + t.id;
        const std::string at = std::string(p.name) + " plot '" + t.id + "': ";
        expect(t.y.size() >= 2, at + "at least two y ticks");
        const std::string y = not_round(t.y), x = t.x_are_data ? "" : not_round(t.x);
        expect(y.empty(), at + "y ticks: " + y);
        expect(x.empty(), at + "x ticks: " + x);
      }
    }
    std::printf("ticks: %d plots, every one round:%s\n", plots, names.c_str());
    for (const char* want : {"scaling:maxw", "learned_heads:loss", "learned_heads:scores by step",
                             "translate:train loss", "translate:accuracy by length"})
      expect(names.find(std::string(" ") + want) != std::string::npos, std::string("the ticks of ") + want + " were read");
    restore_canvas(d, saved);
  }
}

// sliders print their value beside the frame, never under the grab: a drag moves the value
// (ImGui's behaviour, rounded to the format), and on every panel at a phone's and a desktop's
// width no slider's value rectangle overlaps its frame (which holds the grab)
void check_sliders(Driver& d, app::App& a) {
  ImGuiIO& io = ImGui::GetIO();
  g_step = "slider";
  {
    const ImVec2 saved = io.DisplaySize;
    auto overlaps = [](const ImRect& a, const ImRect& b) {
      return a.Min.x < b.Max.x && b.Min.x < a.Max.x && a.Min.y < b.Max.y && b.Min.y < a.Max.y;
    };
    for (float w : {1280.0f, 320.0f}) {
      io.DisplaySize = ImVec2(w, 800);
      const std::string at = " at " + std::to_string(static_cast<int>(w)) + ": ";
      expect_accepted({{"dropout", {{"p", 0.1}}}});
      attn_app_show_panel("dropout");
      d.frames(3);
      const Item* it = d.find("p");
      const app::widgets::SliderRects* r = nullptr;
      for (const auto& s : app::widgets::sliders_drawn())
        if (it && s.id == it->id) r = &s;
      expect(it && r, "the dropout slider 'p' is found by its label and records its rectangles" + at);
      if (it && r) {
        const ImRect frame = r->frame;
        const float y = (frame.Min.y + frame.Max.y) * 0.5f;
        io.MousePos = ImVec2(frame.Min.x + 0.1f * frame.GetWidth(), y);
        d.frames(1);
        io.MouseDown[0] = true;
        d.frames(1);
        for (float f = 0.1f; f <= 0.8f; f += 0.1f) {
          io.MousePos = ImVec2(frame.Min.x + f * frame.GetWidth(), y);
          d.frames(1);
        }
        io.MouseDown[0] = false;
        d.frames(3);
        const double p = api_state()["dropout"]["inputs"]["p"].get<double>();
        expect(p > 0.5 && p < 0.95 && std::fabs(p * 100 - std::round(p * 100)) < 1e-4,
               "dragging the slider to 80% of its frame sets p near 0.8, rounded to %.2f: " + std::to_string(p) + at);
        const app::widgets::SliderRects* after = nullptr;
        for (const auto& s : app::widgets::sliders_drawn())
          if (s.id == it->id) after = &s;
        expect(after && after->grab.GetWidth() > 0 && after->value.GetWidth() > 0, "grab and value drawn" + at);
        if (after) {
          expect(!overlaps(after->value, after->grab), "the value does not overlap the grab" + at);
          expect(!overlaps(after->value, after->frame), "the value sits beside the frame" + at);
          if (w >= 1280) expect(!after->value_above, "on a wide canvas the value is right of the frame" + at);
        }
      }
      int sliders = 0;
      for (const app::PanelDef& pd : app::panels()) {
        attn_app_show_panel(pd.name);
        d.frames(3);
        for (const auto& s : app::widgets::sliders_drawn()) {
          ++sliders;
          expect(!overlaps(s.value, s.frame) && !overlaps(s.value, s.grab),
                 std::string(pd.name) + ": a slider's value overlaps its frame" + at);
        }
      }
      expect(sliders >= (w >= 1280 ? 12 : 5), "the panels' sliders were measured (" + std::to_string(sliders) + ")" + at);
    }
    // Ctrl+click still types a value (ImGui's text field in the frame)
    io.DisplaySize = ImVec2(1280, 800);
    attn_app_show_panel("dropout");
    d.click("p", 0, true);
    d.press(kA);  // (select all is Ctrl+A; a plain A types it, so clear with backspaces)
    for (int i = 0; i < 8; ++i) d.press(kBackspace);
    d.type("0.3");
    d.press(kEnter);
    d.frames(2);
    expect(std::fabs(api_state()["dropout"]["inputs"]["p"].get<double>() - 0.3) < 1e-6,
           "Ctrl+click and typing 0.3 sets p: " + attn::dump(api_state()["dropout"]["inputs"]));
    restore_canvas(d, saved);
  }
}

// signed quantities on Paul Tol's diverging sunset, weights on viridis: the map's stops
// as published, the signed heatmaps drawn with it (over a range centred at 0), the Δloss and
// loss-change tables with their legends
void check_colour_maps(Driver& d, app::App& a) {
  ImGuiIO& io = ImGui::GetIO();
  g_step = "colormap";
  app::style::set_details_open(true);  // every heatmap and legend, those in collapsed sections too
  {
    auto hex = [](const ImVec4& c) {
      char b[8];
      std::snprintf(b, sizeof b, "%02X%02X%02X", static_cast<int>(std::lround(c.x * 255)),
                    static_cast<int>(std::lround(c.y * 255)), static_cast<int>(std::lround(c.z * 255)));
      return std::string(b);
    };
    // Paul Tol's published sunset: #364B9A (most negative), #EAECCC (zero), #A50026 (most positive)
    expect(hex(app::cmap::sunset(0.0)) == "364B9A", "sunset's negative end: " + hex(app::cmap::sunset(0.0)));
    expect(hex(app::cmap::sunset(0.5)) == "EAECCC", "sunset's midpoint: " + hex(app::cmap::sunset(0.5)));
    expect(hex(app::cmap::sunset(1.0)) == "A50026", "sunset's positive end: " + hex(app::cmap::sunset(1.0)));
    expect(hex(app::cmap::sunset(0.1)) == "4A7BB7" && hex(app::cmap::sunset(0.9)) == "DD3D2D", "sunset's stops");
    expect(hex(app::cmap::sunset(-3.0)) == "364B9A" && hex(app::cmap::sunset(std::nan(""))) == "EAECCC",
           "sunset clamps, NaN is the middle");
    expect(app::cmap::diverging_u32(0.0, 2.0) == ImGui::ColorConvertFloat4ToU32(app::cmap::sunset(0.5)) &&
               app::cmap::diverging_u32(-2.0, 2.0) == ImGui::ColorConvertFloat4ToU32(app::cmap::sunset(0.0)),
           "diverging_u32 centres 0 over [-range, range]");
    expect(app::cmap::symmetric_range({-0.13, 0.04}) == 0.2 && app::cmap::symmetric_range({0.0}) == 1.0 &&
               app::cmap::symmetric_range({3.0, -5.0}) == 5.0,
           "symmetric_range rounds the largest |v| up to 1, 2 or 5 times a power of ten");
    // The maps each panel's heatmaps were drawn with.
    const ImVec2 saved = io.DisplaySize;
    io.DisplaySize = ImVec2(1280, 800);
    std::map<std::string, std::string> maps;
    std::set<std::string> legends;
    const Json additive_view = api_state()["additive"]["inputs"]["view"];
    expect_accepted({{"additive", {{"view", "trained"}}}});  // the trained encoder's states
    for (const char* panel : {"permutation", "additive", "alignment", "heads", "learned_heads", "translate"}) {
      attn_app_show_panel(panel);
      d.frames(30);  // checkpoints install, interventions show
      const Json v = Json::parse(attn_app_view(2500));
      for (const Json& h : v["heatmaps"]) {
        maps[std::string(panel) + ":" + h["name"].get<std::string>()] = h.value("colormap", "viridis");
        if (h.value("colormap", "viridis") == "sunset")
          expect(h["vmin"].get<double>() == -h["vmax"].get<double>(),
                 std::string(panel) + ": a signed map's range is symmetric: " + attn::dump(h["vmin"]));
      }
      for (const std::string& id : app::diverging_legends_drawn()) legends.insert(std::string(panel) + ":" + id);
    }
    std::string seen;
    for (const auto& kv : maps) seen += " " + kv.first + "=" + kv.second;
    for (const char* want : {"permutation:x", "permutation:px", "permutation:f_px", "permutation:p_f_x"})
      expect(maps.count(want) && maps[want] == "sunset", std::string(want) + " is drawn on sunset;" + seen);
    expect(maps.count("additive:trained_states") && maps["additive:trained_states"] == "sunset",
           "the trained encoder's states (signed) are on sunset;" + seen);
    expect_accepted({{"additive", {{"view", additive_view}}}});
    for (const char* want : {"permutation:w_x", "alignment:alignment_weights", "heads:head 1"})
      expect(maps.count(want) && maps[want] == "viridis", std::string(want) + " (weights) stays on viridis;" + seen);
    std::string ls;
    for (const std::string& l : legends) ls += " " + l;
    expect(legends.count("learned_heads:\xCE\x94loss legend") && legends.count("translate:loss change legend"),
           "the Δloss and loss-change tables draw their diverging legends:" + ls);
    std::printf("colour maps:%s\ndiverging legends:%s\n", seen.c_str(), ls.c_str());
    restore_canvas(d, saved);
  }
}

}  // namespace headless
