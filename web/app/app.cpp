#include "app/app.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "app/api.hpp"
#include "widgets/heatmap_cursor.hpp"
#include "widgets/keyboard_nav.hpp"
#include "page/page_tools.hpp"
#include "widgets/page_view.hpp"
#include "page/fit_report.hpp"
#include "panels/registry.hpp"

namespace app {

App::App(HeatmapGpu& gpu) : gpu_(gpu), state_(make_default_state()) {}

bool App::ensure_fonts(float pixel_ratio) {
  const float r = std::max(1.0f, std::min(4.0f, pixel_ratio));
  if (fonts_ready_ && std::fabs(r - fonts_.pixel_ratio) < 0.01f) return false;
  fonts_ = style::load_fonts(r);
  style::apply_theme();
  fonts_ready_ = true;
  return true;
}

void App::frame_presented(double now_seconds) {
  ++state_.frames;
  frame_requested_ = false;
  drawn_generation_ = generation();
  drawn_panel_ = state_.panel;
  last_frame_at_ = now_seconds;
}

bool App::needs_frame(bool had_input, double now) const {
  if (had_input) busy_until_ = now + 0.4;
  const ImGuiIO& io = ImGui::GetIO();
  return frame_requested_ || now < busy_until_ || panels_busy(state_) || generation() != drawn_generation_ ||
         state_.panel != drawn_panel_ || io.WantTextInput || (ImGui::IsAnyItemActive() && !heatmap_cell_mode_active()) || last_frame_at_ < 0 ||
         now - last_frame_at_ > 0.5;
}

void App::draw_nav(float width) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  ImGui::PushFont(fonts_.title);
  ImGui::TextUnformatted("Attention Lab");
  ImGui::PopFont();
  ImGui::PushFont(fonts_.small);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  style::paragraph("Soft retrieval: score the keys, normalise over the allowed ones, blend the values.");
  ImGui::PopStyleColor();
  ImGui::PopFont();
  ImGui::Dummy(ImVec2(0, fs * 0.6f));

  // Twelve entries: tight spacing between them so the list and its notes fit an 800-pixel-high window.
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 3.0f));
  const std::vector<PanelDef>& entries = panels();
  for (size_t i = 0; i < entries.size(); ++i) {
    const PanelDef& e = entries[i];
    const std::string number = panel_number(i);
    const bool active = state_.panel == static_cast<int>(i);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float h = fs * 2.85f;
    ImGui::PushID(number.c_str());
    if (ImGui::Selectable("##nav", active, 0, ImVec2(width, h))) show_panel(state_, static_cast<int>(i));
    kbd::name_item(number + " " + e.title);  // its title is drawn over it, not by it
    ImGui::PopID();
    // Number badge, title and one-line blurb drawn over the selectable.
    const ImVec2 c(p0.x + fs * 1.0f, p0.y + h * 0.5f);
    dl->AddCircleFilled(c, fs * 0.75f, active ? style::accent_u32() : IM_COL32(205, 210, 218, 255));
    const ImVec2 ns = ImGui::CalcTextSize(number.c_str());
    dl->AddText(ImVec2(c.x - ns.x * 0.5f, c.y - ns.y * 0.5f),
                active ? IM_COL32(255, 255, 255, 255) : IM_COL32(60, 64, 70, 255), number.c_str());
    const float tx = p0.x + fs * 2.3f;
    const ImVec4 clip(tx, p0.y, p0.x + width - 4, p0.y + h);
    dl->AddText(fonts_.bold, fonts_.bold->FontSize * ImGui::GetIO().FontGlobalScale, ImVec2(tx, p0.y + h * 0.5f - fs * 1.05f),
                ImGui::GetColorU32(ImGuiCol_Text), e.title, nullptr, 0.0f, &clip);
    dl->AddText(fonts_.small, fonts_.small->FontSize * ImGui::GetIO().FontGlobalScale, ImVec2(tx, p0.y + h * 0.5f + fs * 0.05f),
                ImGui::GetColorU32(ImGuiCol_TextDisabled), e.subtitle, nullptr, 0.0f, &clip);
  }
  ImGui::PopStyleVar();

  ImGui::Dummy(ImVec2(0, fs * 0.6f));
  ImGui::Separator();
  ImGui::PushFont(fonts_.small);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  // Each note only when it fits the window's height entirely (no half-cut lines, no scrollbar).
  auto note_if_fits = [](const char* text) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (ImGui::CalcTextSize(text, nullptr, false, avail.x).y + ImGui::GetStyle().ItemSpacing.y > avail.y) return;
    style::paragraph(text);
  };
  note_if_fits(
      "Every number on screen is computed in double precision by the lesson's C++ core, which also checks "
      "its own claims (the PASS/FAIL lines). The panels only draw.");
  note_if_fits(
      "Masks here are allowed masks: a cell is hatched when that query may not attend to that key. "
      "(PyTorch's attn_mask uses the opposite convention.)");
  note_if_fits("Hover a cell for its exact value.");
  ImGui::PopStyleColor();
  ImGui::PopFont();
}

void App::draw_top_nav() {
  const float fs = ImGui::GetFontSize();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float h = fs * 2.6f;
  const float right = p0.x + ImGui::GetContentRegionAvail().x;
  // The bar's background goes under the tabs (channel 0) once their rows are known.
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  ImGui::SetCursorScreenPos(ImVec2(p0.x + fs, p0.y + (h - fonts_.bold->FontSize * ImGui::GetIO().FontGlobalScale) * 0.5f));
  ImGui::PushFont(fonts_.bold);
  ImGui::TextUnformatted("Attention Lab");
  ImGui::PopFont();
  const float row_x = ImGui::GetItemRectMax().x + fs * 1.2f;  // tabs wrap back to here
  const std::vector<PanelDef>& entries = panels();
  for (size_t i = 0; i < entries.size(); ++i) {
    const PanelDef& e = entries[i];
    const bool active = state_.panel == static_cast<int>(i);
    const std::string number = panel_number(i);
    const std::string label = number + "  " + e.title;
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    if (ImGui::GetItemRectMax().x + fs * 1.2f + w > right - fs * 0.5f) {
      const float y = ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y * 0.5f;
      ImGui::SetCursorScreenPos(ImVec2(row_x, y));
    } else {
      ImGui::SameLine(0, fs * 1.2f);
    }
    ImGui::PushID(number.c_str());
    if (active) ImGui::PushStyleColor(ImGuiCol_Text, style::accent());
    if (ImGui::Selectable(label.c_str(), active, 0, ImVec2(ImGui::CalcTextSize(label.c_str()).x, 0)))
      show_panel(state_, static_cast<int>(i));
    if (active) ImGui::PopStyleColor();
    ImGui::PopID();
  }
  const float bottom = std::max(p0.y + h, ImGui::GetItemRectMax().y + (h - fs) * 0.5f);
  dl->ChannelsSetCurrent(0);
  dl->AddRectFilled(p0, ImVec2(right, bottom), IM_COL32(238, 236, 229, 255));
  dl->ChannelsMerge();
  ImGui::SetCursorScreenPos(ImVec2(p0.x, bottom));
  ImGui::Dummy(ImVec2(0, 0));
}

// Below this width (CSS px) the navigation collapses into one menu button: on a 390 px phone the
// rows of tabs took about a quarter of the first screen.
constexpr float kMenuNavWidth = 600.0f;

void App::draw_menu_nav() {
  const float fs = ImGui::GetFontSize();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float right = p0.x + ImGui::GetContentRegionAvail().x;
  dl->ChannelsSplit(2);
  dl->ChannelsSetCurrent(1);
  ImGui::SetCursorScreenPos(ImVec2(p0.x + fs * 0.6f, p0.y + fs * 0.4f));
  // The button names the panel on screen; three bars mark it as a menu.
  const PanelDef& shown = current_panel(state_);
  const std::string label = std::string("        ") + panel_number(static_cast<size_t>(state_.panel)) + "  " + shown.title +
                            (menu_open_ ? "   (close)" : "   (all panels)") + "###navmenu";
  ImGui::PushFont(fonts_.bold);
  ImGui::PushStyleVar(ImGuiStyleVar_ButtonTextAlign, ImVec2(0.0f, 0.5f));
  if (ImGui::Button(label.c_str(), ImVec2(right - p0.x - fs * 1.2f, fs * 2.2f))) menu_open_ = !menu_open_;
  ImGui::PopStyleVar();
  ImGui::PopFont();
  const ImVec2 b0 = ImGui::GetItemRectMin();
  const float bx = b0.x + fs * 0.7f, by = b0.y + fs * 0.75f;
  for (int k = 0; k < 3; ++k)
    dl->AddLine(ImVec2(bx, by + k * fs * 0.35f), ImVec2(bx + fs * 1.1f, by + k * fs * 0.35f), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  if (menu_open_) {
    const std::vector<PanelDef>& entries = panels();
    for (size_t i = 0; i < entries.size(); ++i) {
      const bool active = state_.panel == static_cast<int>(i);
      ImGui::SetCursorScreenPos(ImVec2(p0.x + fs * 0.6f, ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y));
      const std::string item = panel_number(i) + "  " + entries[i].title;
      ImGui::PushID(static_cast<int>(i));
      if (active) ImGui::PushStyleColor(ImGuiCol_Text, style::accent());
      if (ImGui::Selectable(item.c_str(), active, 0, ImVec2(right - p0.x - fs * 1.2f, fs * 1.8f))) {
        show_panel(state_, static_cast<int>(i));
        menu_open_ = false;
      }
      if (active) ImGui::PopStyleColor();
      ImGui::PopID();
    }
  }
  const float bottom = ImGui::GetItemRectMax().y + fs * 0.4f;
  dl->ChannelsSetCurrent(0);
  dl->AddRectFilled(p0, ImVec2(right, bottom), IM_COL32(238, 236, 229, 255));
  dl->ChannelsMerge();
  ImGui::SetCursorScreenPos(ImVec2(p0.x, bottom));
  ImGui::Dummy(ImVec2(0, 0));
}

void App::frame() {
  if (!fonts_ready_) ensure_fonts(1.0f);
  // Each panel's work between frames (pending studies, the Learned heads panel's training slice),
  // before anything is drawn: the frame then draws the state as it stands. Never in a draw call.
  // The edits the last frame's draw calls forwarded come first.
  apply_deferred_edits(state_);
  tick_panels(state_);
  kbd::begin_frame();  // the keyboard cursor's move asked for since the last frame (Tab, arrows)
  fit::begin_frame();  // the numbers this frame's word wrap cuts (none, unless one outgrows its line)
  gpu_.begin_frame();
  const PanelDef& shown = current_panel(state_);
  view::begin_frame(shown.name, shown.heading, shown.changing && shown.changing(state_), shown.busy && shown.busy(state_));  // the DOM mirror's record
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  // NoBackground: the frame is cleared to WindowBg before ImGui draws (Platform::render), so this
  // full-window rectangle only repainted the same colour; with a software rasteriser
  // (SwiftShader in headless Chromium) filling it cost about a third of each frame (the frame-time budget).
  ImGui::Begin("Attention Lab", nullptr,
               ImGuiWindowFlags_NoBackground |
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();

  const float fs = ImGui::GetFontSize();
  const float width = ImGui::GetContentRegionAvail().x;
  // Narrow (an iframe in a course page): the navigation becomes one row of tabs on top.
  // Embed mode (index.html?embed=1): the panel alone, no navigation.
  const bool compact = width < fs * 48.0f || embed_;
  if (embed_) {
  } else if (compact && width < kMenuNavWidth) {
    draw_menu_nav();
  } else if (compact) {
    draw_top_nav();
  } else {
    // Sidebar wide enough for the longest entry, a slightly darker column.
    float need = ImGui::CalcTextSize("Attention Lab").x * fonts_.title->FontSize / fonts_.body->FontSize;
    for (const PanelDef& e : panels()) {
      need = std::max(need, fs * 2.3f + ImGui::CalcTextSize(e.title).x * 1.08f);
      need = std::max(need, fs * 2.3f + ImGui::CalcTextSize(e.subtitle).x * 0.9f);
    }
    const float nav_w = std::floor(std::min(width * 0.3f, std::max(fs * 14.0f, need + fs * 2.5f)));
    ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(238, 236, 229, 255));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(fs, fs * 1.1f));
    ImGui::BeginChild("##nav", ImVec2(nav_w, 0), false, ImGuiWindowFlags_AlwaysUseWindowPadding);
    draw_nav(ImGui::GetContentRegionAvail().x);
    ImGui::EndChild();
    ImGui::PopStyleVar();
    ImGui::PopStyleColor();
  }

  if (!compact) ImGui::SameLine(0, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(fs * (compact ? 1.0f : 1.6f), fs * 1.1f));
  ImGui::BeginChild("##panel", ImVec2(0, 0), false, ImGuiWindowFlags_AlwaysUseWindowPadding);
  {
    // A newly shown panel starts at its top, not at the scroll position of the previous one.
    ImGuiStorage* store = ImGui::GetStateStorage();
    const ImGuiID shown_id = ImGui::GetID("##shown_panel");
    if (store->GetInt(shown_id, -1) != state_.panel) {
      ImGui::SetScrollY(0.0f);
      store->SetInt(shown_id, state_.panel);
    }
  }
  // The panel chosen by the navigation above (it may have changed during this frame).
  const PanelDef& panel = current_panel(state_);
  ImGui::PushFont(fonts_.title);
  ImGui::PushTextWrapPos(0.0f);  // a long heading wraps on a narrow canvas
  ImGui::TextUnformatted(panel.heading);
  ImGui::PopTextWrapPos();
  ImGui::PopFont();
  draw_page_tools(fonts_, embed_);  // copy link, PNG/CSV/JSON export (page_tools.hpp)
  ImGui::Dummy(ImVec2(0, fs * 0.2f));
  Ui ui{gpu_, fonts_};
  // Each panel under its own ID scope, so equal labels in different panels never clash.
  ImGui::PushID(panel.name);
  // Text wraps at the panel's edge unless a panel sets its own wrap position (a column's edge);
  // tables turn it off for their cells (widgets::begin_table_fit), whose columns size to content.
  ImGui::PushTextWrapPos(0.0f);
  panel.draw(state_, ui);
  ImGui::PopTextWrapPos();
  ImGui::PopID();
  if (fit::probe() > 0.0f) {  // the fit check's negative controls (tests only): one item too wide,
    ImGui::Button("fit probe", ImVec2(ImGui::GetContentRegionAvail().x + fit::probe(), 0));
    // and a number in a column narrower than the number (the wrap must cut it)
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + ImGui::CalcTextSize("0.000").x);
    ImGui::TextUnformatted("probe 3.3333333333e-16");
    ImGui::PopTextWrapPos();
  }
  ImGui::Dummy(ImVec2(0, fs));
  fit::measure(panel.name);  // the widest item of this frame, before clipping (page/fit_report.hpp)
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::End();
  kbd::end_frame();  // every control of the frame is known: the reading order, the focus ring
}

}  // namespace app
