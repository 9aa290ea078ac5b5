#include "page/fit_report.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "imgui.h"
#include "learn/json_obj.hpp"
#include "imgui_internal.h"  // window and table layout records (CursorMaxPos, columns)

// Told each line end ImGui's word wrap picks (cmake/deps.cmake writes it into imgui_draw.cpp).
extern void (*ImFontWrapHook)(const char* text, const char* line_end, const char* text_end);

namespace app::fit {

namespace {

Report g_last;
float g_probe = 0.0f;
std::vector<std::string> g_split;  // this frame's cut numbers, until measure() takes them

bool digit(char c) { return c >= '0' && c <= '9'; }
bool number_char(char c) { return digit(c) || c == '.' || c == ',' || c == 'e' || c == 'E' || c == '+' || c == '-'; }

void wrapped_line(const char* text, const char* line_end, const char* text_end) {
  if (!splits_number(text, line_end, text_end) || g_split.size() >= 20) return;
  const char* l = line_end;
  while (l > text && number_char(l[-1])) --l;
  const char* r = line_end;
  while (r < text_end && number_char(*r)) ++r;
  std::string cut = std::string(l, line_end) + "|" + std::string(line_end, r);
  // Measuring and drawing wrap the same text at the same places: list each cut once.
  if (std::find(g_split.begin(), g_split.end(), cut) == g_split.end()) g_split.push_back(std::move(cut));
}

// Half a unit of slack: edges are fractional, and ImGui floors some of them.
constexpr float kSlack = 0.5f;

bool scrolls_sideways(const ImGuiWindow* w) {
  return (w->Flags & ImGuiWindowFlags_HorizontalScrollbar) || w->ScrollbarX || w->ScrollMax.x > 0.0f;
}

// `w` lies inside `panel` and no box between them scrolls sideways (its content is then exempt:
// it can be scrolled into view).
bool measured_inside(const ImGuiWindow* w, const ImGuiWindow* panel) {
  for (const ImGuiWindow* p = w; p; p = p->ParentWindow) {
    if (p == panel) return true;
    if (!(p->Flags & ImGuiWindowFlags_ChildWindow) || scrolls_sideways(p)) return false;
  }
  return false;
}

}  // namespace

bool splits_number(const char* text, const char* line_end, const char* text_end) {
  if (!text || line_end <= text || line_end >= text_end) return false;
  bool left = false, right = false;
  for (const char* p = line_end; p > text && number_char(p[-1]); --p) left = left || digit(p[-1]);
  for (const char* p = line_end; p < text_end && number_char(*p); ++p) right = right || digit(*p);
  return left && right;
}

void begin_frame() {
  ImFontWrapHook = wrapped_line;
  g_split.clear();
}

void measure(const char* panel) {
  ImGuiContext& g = *GImGui;
  ImGuiWindow* win = g.CurrentWindow;
  Report r;
  r.panel = panel;
  r.frame = g.FrameCount;
  r.canvas_width = g.IO.DisplaySize.x;
  r.visible_right = win->InnerClipRect.Max.x;
  r.widest = win->DC.CursorMaxPos.x;
  // CursorMaxPos is in screen space, moved up by the scroll: add the scroll back.
  r.content_height = win->DC.CursorMaxPos.y + win->Scroll.y + g.Style.WindowPadding.y;
  if (r.widest > r.visible_right + kSlack) r.cut.push_back({"panel", r.widest, r.visible_right});

  for (ImGuiWindow* c : g.Windows) {
    if (c == win || c->LastFrameActive != g.FrameCount || !measured_inside(c, win)) continue;
    const float right = c->DC.CursorMaxPos.x;
    r.widest = std::max(r.widest, right);
    if (right > c->InnerClipRect.Max.x + kSlack)
      r.cut.push_back({std::string("child ") + c->Name, right, c->InnerClipRect.Max.x});
  }

  for (int n = 0; n < g.Tables.GetMapSize(); ++n) {
    ImGuiTable* t = g.Tables.TryGetMapData(n);
    if (!t || t->LastFrameActive != g.FrameCount) continue;
    if ((t->Flags & ImGuiTableFlags_ScrollX) && measured_inside(t->OuterWindow, win)) {
      char where[32];
      std::snprintf(where, sizeof where, "table 0x%08X", t->ID);
      r.sideways_tables.push_back(where);
    }
    if (!measured_inside(t->InnerWindow, win)) continue;
    for (int k = 0; k < t->ColumnsCount; ++k) {
      const ImGuiTableColumn& col = t->Columns[k];
      if (!col.IsEnabled) continue;
      const float right = std::max({col.ContentMaxXFrozen, col.ContentMaxXUnfrozen, col.ContentMaxXHeadersIdeal});  // a header: its label's own extent
      r.widest = std::max(r.widest, right);
      if (right > col.ClipRect.Max.x + kSlack) {
        char where[64];
        std::snprintf(where, sizeof where, "table 0x%08X column %d", t->ID, k);
        r.cut.push_back({where, right, col.ClipRect.Max.x});
      }
    }
  }
  r.split_numbers = std::move(g_split);
  g_split.clear();
  g_last = std::move(r);
}

const Report& last() { return g_last; }

attn::Json report_json(const Report& r) {
  attn::Json cut = attn::Json::array();
  for (const Cut& c : r.cut) cut.push_back({{"where", c.where}, {"right", c.right}, {"edge", c.edge}});
  return ::attn::obj({{"panel", r.panel},
                    {"frame", r.frame},
                    {"canvas_width", r.canvas_width},
                    {"visible_right", r.visible_right},
                    {"widest", r.widest},
                    {"content_height", r.content_height},
                    {"fits", r.cut.empty() && r.widest <= r.canvas_width + kSlack},
                    {"cut", cut},
                    {"sideways_tables", r.sideways_tables},
                    {"split_numbers", r.split_numbers}});
}

void set_probe(float px) { g_probe = std::max(0.0f, px); }
float probe() { return g_probe; }

}  // namespace app::fit
