#include "page/page_tools.hpp"

#include <algorithm>

#include "panels/ui.hpp"  // same_line_if_fits
#include "platform/emscripten_shim.hpp"

namespace app {

namespace {

std::string g_toast;
double g_toast_until = 0.0;

struct Tool {
  const char* label;
  const char* action;  // handled by embed.js (web/page/embed/export.js: Module.attnPageAction)
  const char* help;
};

const Tool kTools[] = {
    {"Copy link", "copy_link", "Copy a link that reopens exactly this view (inputs and panel)."},
    {"PNG", "png", "Download the current heatmap as a PNG at the screen's resolution."},
    {"PNG 2\xC3\x97", "png2", "Download the current heatmap as a PNG at twice the screen's resolution."},
    {"CSV", "csv", "Download the current heatmap's matrix as CSV (exact values)."},
    {"JSON", "json", "Download every matrix of this panel, with its inputs, as JSON."},
};

}  // namespace

void page_tools_toast(const std::string& text) {
  g_toast = text;
  g_toast_until = ImGui::GetTime() + 2.5;
}

void draw_page_tools(const Fonts& fonts, bool embed) {
  const float title_right = ImGui::GetItemRectMax().x;
  const float title_top = ImGui::GetItemRectMin().y;
  const float title_h = ImGui::GetItemRectSize().y;
  ImGui::PushFont(fonts.small);
  // A touch device keeps the theme's 44 px frames (a fingertip); a mouse gets small buttons.
  const bool touch = style::touch_sizes();
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, touch ? ImGui::GetStyle().FramePadding : ImVec2(6, 2));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(5, 4));
  const ImGuiStyle& st = ImGui::GetStyle();
  // One "⋯" button opens the exports (Copy link, PNG, PNG 2×, CSV, JSON): the panel's own
  // controls stay the loudest thing on screen.
  const char* menu_label = "\xE2\x8B\xAF###page_tools";
  const char* open_label = "Open the full lab";
  float width = ImGui::CalcTextSize(menu_label, nullptr, true).x + st.FramePadding.x * 2 + st.ItemSpacing.x;
  if (embed) width += ImGui::CalcTextSize(open_label).x + st.FramePadding.x * 2 + st.ItemSpacing.x;
  const float right = ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x;
  const float frame_h = ImGui::GetFrameHeight();
  if (right - title_right > width + ImGui::GetFontSize() * 2.0f) {
    // Same line as the title, right-aligned, vertically centred on it.
    ImGui::SetCursorScreenPos(ImVec2(right - width, title_top + std::max(0.0f, (title_h - frame_h) * 0.5f)));
  }
  ImGui::BeginGroup();
  if (touch ? ImGui::Button(menu_label) : ImGui::SmallButton(menu_label)) ImGui::OpenPopup("##page_tools_menu");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy link, PNG, CSV, JSON");
  if (ImGui::BeginPopup("##page_tools_menu")) {
    for (const Tool& t : kTools) {
      if (ImGui::MenuItem(t.label)) shim::page_action(t.action);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", t.help);
    }
    ImGui::EndPopup();
  }
  if (embed) {
    widgets::same_line_if_fits(widgets::button_width(open_label));
    if (touch ? ImGui::Button(open_label) : ImGui::SmallButton(open_label)) shim::page_action("open_full");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Open this view in a new tab, with the navigation.");
  }
  ImGui::EndGroup();
  if (!g_toast.empty() && ImGui::GetTime() < g_toast_until) {
    const ImVec2 p = ImGui::GetItemRectMin();
    const ImVec2 ts = ImGui::CalcTextSize(g_toast.c_str());
    const ImVec2 at(std::max(ImGui::GetWindowPos().x, ImGui::GetItemRectMax().x - ts.x), p.y + frame_h + 2);
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    dl->AddRectFilled(ImVec2(at.x - 6, at.y - 2), ImVec2(at.x + ts.x + 6, at.y + ts.y + 2), IM_COL32(31, 35, 40, 235), 4.0f);
    dl->AddText(at, IM_COL32(255, 255, 255, 255), g_toast.c_str());
  }
  ImGui::PopStyleVar(2);
  ImGui::PopFont();
}

}  // namespace app
