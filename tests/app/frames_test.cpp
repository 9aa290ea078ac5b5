// Headless app test: frames: slow first studies wait for a tick, idle frames are skipped.
#include "support.hpp"

namespace headless {

// The damage tracker (platform/damage.hpp) on real frames. Independent check: the triangles that
// differ between two frames (a multiset of vertices, texture and clip rectangle) can only colour
// the pixels of their boxes; every such pixel must lie in a damaged rectangle.
struct DrawnTriangle {
  std::string key;  // the three vertices, the texture and the clip rectangle, as bytes
  app::PixelRect box;
};
std::vector<DrawnTriangle> drawn_triangles(const ImDrawData& dd) {
  std::vector<DrawnTriangle> out;
  for (int n = 0; n < dd.CmdListsCount; ++n) {
    const ImDrawList* l = dd.CmdLists[n];
    for (const ImDrawCmd& cmd : l->CmdBuffer) {
      if (cmd.UserCallback) continue;
      // The scissor ImGui's OpenGL3 backend sets: glScissor(x0, fb_h - y1, x1 - x0, y1 - y0), cast to int.
      const ImVec4 c = cmd.ClipRect;
      const int fb_h = static_cast<int>(dd.DisplaySize.y), cx0 = static_cast<int>(c.x);
      const int cy1 = fb_h - static_cast<int>(static_cast<float>(fb_h) - c.w);
      const app::PixelRect clip{cx0, cy1 - static_cast<int>(c.w - c.y), cx0 + static_cast<int>(c.z - c.x), cy1};
      for (unsigned i = 0; i + 2 < cmd.ElemCount; i += 3) {
        DrawnTriangle t;
        float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
        for (int k = 0; k < 3; ++k) {
          const ImDrawVert& v = l->VtxBuffer[static_cast<int>(cmd.VtxOffset + l->IdxBuffer[static_cast<int>(cmd.IdxOffset + i + k)])];
          t.key.append(reinterpret_cast<const char*>(&v), sizeof v);
          x0 = std::min(x0, v.pos.x), x1 = std::max(x1, v.pos.x), y0 = std::min(y0, v.pos.y), y1 = std::max(y1, v.pos.y);
        }
        t.key.append(reinterpret_cast<const char*>(&cmd.TextureId), sizeof cmd.TextureId);
        t.key.append(reinterpret_cast<const char*>(&clip), sizeof clip);
        // Pixels whose centres the triangle can cover (display = framebuffer pixels here).
        t.box = app::PixelRect{std::max(clip.x0, static_cast<int>(std::floor(x0))), std::max(clip.y0, static_cast<int>(std::floor(y0))),
                               std::min(clip.x1, static_cast<int>(std::ceil(x1))), std::min(clip.y1, static_cast<int>(std::ceil(y1)))};
        out.push_back(std::move(t));
      }
    }
  }
  return out;
}

// Pixels of the changed triangles' boxes that no damaged rectangle covers (0 when the damage is right),
// and how many triangles changed.
std::pair<long long, int> undamaged_changes(const std::vector<DrawnTriangle>& a, const std::vector<DrawnTriangle>& b,
                                            const std::vector<app::PixelRect>& rects, int w, int h) {
  std::multiset<std::string> in_a, in_b;
  for (const DrawnTriangle& t : a) in_a.insert(t.key);
  for (const DrawnTriangle& t : b) in_b.insert(t.key);
  long long missed = 0;
  int changed = 0;
  auto check = [&](const std::vector<DrawnTriangle>& side, const std::multiset<std::string>& other) {
    std::map<std::string, int> used;
    for (const DrawnTriangle& t : side) {
      if (++used[t.key] <= static_cast<int>(other.count(t.key))) continue;  // also in the other frame
      ++changed;
      for (int y = std::max(0, t.box.y0); y < std::min(h, t.box.y1); ++y)
        for (int x = std::max(0, t.box.x0); x < std::min(w, t.box.x1); ++x) {
          bool covered = false;
          for (const app::PixelRect& r : rects) covered = covered || (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1);
          if (!covered) ++missed;
        }
    }
  };
  check(a, in_b);
  check(b, in_a);
  return {missed, changed};
}

void check_damage(Driver& d, app::App& a) {
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const int w = static_cast<int>(size.x), h = static_cast<int>(size.y);
  const ImVec4 bg(0.97f, 0.97f, 0.95f, 1.0f);
  app::DamageTracker t;
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  d.frames(3);
  auto frame = [&]() {
    ImDrawData* dd = ImGui::GetDrawData();
    expect(dd && app::exact_pixel_mapping(*dd), "the headless frames map display to framebuffer pixels exactly");
    app::snap_clip_rects(*dd);
    return dd;
  };
  std::vector<app::PixelRect> r = t.update(*frame(), w, h, bg);
  expect(r.size() == 1 && r[0].x0 == 0 && r[0].y0 == 0 && r[0].x1 == w && r[0].y1 == h, "the first frame is damaged whole");
  std::vector<DrawnTriangle> before = drawn_triangles(*frame());
  d.frame();
  r = t.update(*frame(), w, h, bg);
  expect(r.empty(), "a frame that repeats the last one damages nothing");
  expect(undamaged_changes(before, drawn_triangles(*frame()), r, w, h).second == 0, "...and no triangle changed");

  // Hover the navigation's third entry: a highlight and nothing else.
  ImGui::GetIO().MousePos = ImVec2(120.0f, 245.0f);
  d.frames(2);
  r = t.update(*frame(), w, h, bg);
  const std::vector<DrawnTriangle> after = drawn_triangles(*frame());
  const auto [missed, changed] = undamaged_changes(before, after, r, w, h);
  long long area = 0;
  for (const app::PixelRect& x : r) area += x.area();
  expect(changed > 0 && !r.empty(), "hovering an entry changes triangles and damages pixels");
  expect(missed == 0, "every pixel a changed triangle can colour is damaged (" + std::to_string(missed) + " missed)");
  expect(area * 10 < static_cast<long long>(w) * h, "a hover damages a small part of the frame, not all of it");
  expect(r.size() <= static_cast<size_t>(app::DamageTracker::kMaxRects), "at most kMaxRects rectangles");
  const auto disjoint = [](const std::vector<app::PixelRect>& rs) {
    for (size_t i = 0; i < rs.size(); ++i)
      for (size_t j = i + 1; j < rs.size(); ++j)
        if (std::max(rs[i].x0, rs[j].x0) < std::min(rs[i].x1, rs[j].x1) && std::max(rs[i].y0, rs[j].y0) < std::min(rs[i].y1, rs[j].y1))
          return false;
    return true;
  };
  expect(disjoint(r), "the damaged rectangles are disjoint (each pixel is cleared and drawn once)");

  // A panel switch: far more changes, still all of them inside the damage.
  before = after;
  app::show_panel(a.state(), "masks");
  d.frames(2);
  r = t.update(*frame(), w, h, bg);
  const auto [missed2, changed2] = undamaged_changes(before, drawn_triangles(*frame()), r, w, h);
  expect(changed2 > 100 && missed2 == 0, "a panel switch: every changed triangle's pixels damaged");
  expect(disjoint(r), "a panel switch's damaged rectangles are disjoint");
  d.frame();
  expect(t.update(*frame(), w, h, bg).empty(), "...and the next frame damages nothing again");

  // Everything again: another background, another framebuffer size, invalidate().
  d.frame();
  r = t.update(*frame(), w, h, ImVec4(0, 0, 0, 1));
  expect(r.size() == 1 && r[0].area() == static_cast<long long>(w) * h, "a new background damages every tile");
  d.frame();
  r = t.update(*frame(), w - 10, h, ImVec4(0, 0, 0, 1));
  expect(r.size() == 1 && r[0].x1 == w - 10, "a resized framebuffer is damaged whole");
  t.invalidate();
  d.frame();
  expect(t.update(*frame(), w - 10, h, ImVec4(0, 0, 0, 1)).size() == 1, "invalidate(): whole again");
  // A draw callback the tracker cannot describe may paint anywhere: the whole frame.
  d.frame();
  ImDrawData* dd = frame();
  ImDrawList* list = dd->CmdLists[0];
  ImDrawCmd cb;
  cb.UserCallback = [](const ImDrawList*, const ImDrawCmd*) {};
  cb.ClipRect = ImVec4(0, 0, 10, 10);
  list->CmdBuffer.push_back(cb);
  r = t.update(*dd, w - 10, h, ImVec4(0, 0, 0, 1));
  list->CmdBuffer.pop_back();
  expect(r.size() == 1 && r[0].area() == static_cast<long long>(w - 10) * h, "an unknown callback damages the whole frame");
  // The same callback described: only its own rectangle.
  list->CmdBuffer.push_back(cb);
  app::CallbackDescriber known = [](const ImDrawCmd&) {
    app::CallbackFootprint f;
    f.known = true;
    f.hash = 42;
    f.rect = ImVec4(0, 0, 10, 10);
    return f;
  };
  t.update(*dd, w - 10, h, ImVec4(0, 0, 0, 1), known);
  r = t.update(*dd, w - 10, h, ImVec4(0, 0, 0, 1), [](const ImDrawCmd&) {
    app::CallbackFootprint f;
    f.known = true;
    f.hash = 43;  // its texture or uniforms changed
    f.rect = ImVec4(0, 0, 10, 10);
    return f;
  });
  list->CmdBuffer.pop_back();
  expect(r.size() == 1 && r[0].x0 == 0 && r[0].y0 == 0 && r[0].x1 == app::DamageTracker::kTile &&
             r[0].y1 == app::DamageTracker::kTile,
         "a described callback whose paint changed damages the tile it paints");

  // Hand-made frames, on tile boundaries (tiles of 32 pixels): which tiles each change reaches.
  struct Fill {
    float x0, y0, x1, y1;
    ImU32 col;
  };
  auto damage_of = [&](app::DamageTracker& tr, const std::vector<Fill>& fills) {
    ImDrawList list(ImGui::GetDrawListSharedData());
    list._ResetForNewFrame();
    list.PushClipRect(ImVec2(0, 0), ImVec2(256, 256));
    list.PushTextureID(ImGui::GetIO().Fonts->TexID);
    for (const Fill& f : fills) list.AddRectFilled(ImVec2(f.x0, f.y0), ImVec2(f.x1, f.y1), f.col);
    ImDrawList* lists[] = {&list};
    ImDrawData data;
    data.Valid = true;
    data.CmdLists = lists;
    data.CmdListsCount = 1;
    data.DisplayPos = ImVec2(0, 0);
    data.DisplaySize = ImVec2(256, 256);
    data.FramebufferScale = ImVec2(1, 1);
    app::snap_clip_rects(data);
    return tr.update(data, 256, 256, bg);
  };
  auto covers = [](const std::vector<app::PixelRect>& rs, int x, int y) {
    for (const app::PixelRect& q : rs)
      if (x >= q.x0 && x < q.x1 && y >= q.y0 && y < q.y1) return true;
    return false;
  };
  const ImU32 red = IM_COL32(200, 30, 30, 255), blue = IM_COL32(30, 30, 200, 255);
  app::DamageTracker hand;
  damage_of(hand, {{40, 40, 80, 80, red}});
  expect(damage_of(hand, {{40, 40, 80, 80, red}}).empty(), "hand-made: the same rectangle again damages nothing");
  r = damage_of(hand, {{40, 40, 80, 80, blue}});
  area = 0;
  for (const app::PixelRect& x : r) area += x.area();
  expect(area == 64 * 64 && covers(r, 32, 32) && covers(r, 95, 95),
         "hand-made: a new colour alone damages exactly the 2×2 tiles the rectangle lies on");
  damage_of(hand, {{40, 40, 63, 60, blue}});
  r = damage_of(hand, {{40, 40, 65, 60, blue}});
  expect(covers(r, 64, 40), "hand-made: a right edge moved past x = 64 damages the next tile (pixel 64 is painted)");
  damage_of(hand, {{40, 40, 100, 60, red}, {70, 40, 130, 60, blue}});
  r = damage_of(hand, {{70, 40, 130, 60, blue}, {40, 40, 100, 60, red}});
  expect(covers(r, 80, 45) && !covers(r, 20, 45) && !covers(r, 140, 45),
         "hand-made: two overlapping rectangles drawn in the other order damage where they overlap, not beside them");
  // Five damaged regions (tiles): A (0,0), B (0,2), X row 1 across tiles 0-4, D (7,0), E (7,7). The
  // cheapest pair to merge down to kMaxRects is A and B, whose box covers part of X: X joins them.
  const std::vector<Fill> five = {{4, 4, 28, 28, red}, {4, 68, 28, 92, red}, {4, 36, 156, 60, red}, {228, 4, 252, 28, red},
                                  {228, 228, 252, 252, red}};
  std::vector<Fill> five_blue = five;
  for (Fill& f : five_blue) f.col = blue;
  damage_of(hand, five);
  r = damage_of(hand, five_blue);
  bool all_covered = true;
  for (const Fill& f : five) all_covered = all_covered && covers(r, static_cast<int>(f.x0), static_cast<int>(f.y0));
  expect(all_covered && r.size() == 3 && disjoint(r),
         "hand-made: a merged box that overlaps another damaged rectangle takes it in (3 disjoint rectangles, " +
             std::to_string(r.size()) + " given)");

  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  app::show_panel(a.state(), "alignment");
  d.frames(2);
}

// a slow first study waits for the next frame when the navigation opens its panel: the
// panel's state() says pending until the ticks before the frames run it (never a draw call);
// the Scaling study runs in slices across several ticks, its progress in state()
void check_slow_study(Driver& d, app::App& a) {
  g_step = "pending";
  {
    app::AppState fresh = app::make_default_state();
    int pending_panels = 0;
    for (const app::PanelDef& p : app::panels()) {
      app::show_panel(fresh, p.name, false);
      const Json before = p.state(fresh);
      if (!before.contains("pending")) continue;
      ++pending_panels;
      expect(before["pending"] == true && app::panels_busy(fresh), std::string(p.name) + ": pending after the nav");
      int ticks = 0;
      long long last_done = -1;
      do {
        app::tick_panels(fresh);
        const Json mid = p.state(fresh);
        if (mid.contains("progress")) {  // a sliced study: its units only go up
          const long long done = mid["progress"]["units_done"];
          expect(done > last_done && done < mid["progress"]["total_units"].get<long long>(),
                 std::string(p.name) + ": progress goes up");
          last_done = done;
        }
      } while (app::panels_busy(fresh) && ++ticks < 100000);
      const Json after = p.state(fresh);
      expect(!after.contains("pending") && !app::panels_busy(fresh), std::string(p.name) + ": complete after the tick");
      app::show_panel(fresh, p.name, true);  // shown again: nothing left to do
      expect(!p.state(fresh).contains("pending"), std::string(p.name) + ": stays complete");
    }
    expect(pending_panels == 2, "two panels (scaling, cost) defer their first study");
  }
}

// idle frames are skipped, changes and requests are not
void check_idle_frames(Driver& d, app::App& a) {
  ImGuiIO& io = ImGui::GetIO();
  g_step = "idle";
  io.MousePos = ImVec2(-1000, -1000);
  d.frames(30);
  const double t = Driver::now();
  expect(!a.needs_frame(false, t + 0.1), "an idle page skips frames");
  expect(a.needs_frame(true, t + 0.05), "input draws a frame");
  expect(a.needs_frame(false, t + 0.3), "and keeps drawing briefly after it");
  expect(!a.needs_frame(false, t + 0.47), "then stops again");
  expect(a.needs_frame(false, t + 0.6), "at least two frames a second");
  expect_accepted({{"heads", {{"seed", 5}}}});
  expect(a.needs_frame(false, t + 0.1), "a state change draws a frame");
  d.frames(1);
  a.request_frame();
  expect(a.needs_frame(false, Driver::now() + 0.01), "request_frame draws a frame");
  d.frames(1);
}

}  // namespace headless
