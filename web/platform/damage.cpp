// web/platform/damage.cpp — see damage.hpp.
#include "platform/damage.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace app {
namespace {

// splitmix64's finaliser: every input bit reaches every output bit.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
std::uint64_t bits(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
std::uint64_t hash_vec4(std::uint64_t h, const ImVec4& v) {
  h = mix(h + bits(v.x));
  h = mix(h + bits(v.y));
  h = mix(h + bits(v.z));
  return mix(h + bits(v.w));
}

// A coordinate in framebuffer pixels as an int, rounded down (up), within ±1e7: a NaN or a huge
// vertex must not overflow the conversion. NaN gives `if_nan`.
int px_floor(double v, int if_nan) { return std::isnan(v) ? if_nan : static_cast<int>(std::floor(std::clamp(v, -1e7, 1e7))); }
int px_ceil(double v, int if_nan) { return std::isnan(v) ? if_nan : static_cast<int>(std::ceil(std::clamp(v, -1e7, 1e7))); }
constexpr int kFar = 10000000;

// The framebuffer pixels a rectangle in display coordinates can colour (their centres inside it),
// and one more on each side.
PixelRect padded_box(float x0, float y0, float x1, float y1, const ImDrawData& dd) {
  const ImVec2 pos = dd.DisplayPos, s = dd.FramebufferScale;
  return PixelRect{px_floor((x0 - pos.x) * s.x, -kFar) - 1, px_floor((y0 - pos.y) * s.y, -kFar) - 1,
                   px_ceil((x1 - pos.x) * s.x, kFar) + 1, px_ceil((y1 - pos.y) * s.y, kFar) + 1};
}

// The pixels a clip rectangle scissors to, as ImGui's OpenGL3 backend computes them: x from the
// left edge, y from the bottom edge of a framebuffer (int)(DisplaySize.y · scale) high, each
// position and size truncated (glScissor(x0, fb_h - y1, x1 - x0, y1 - y0) cast to int).
PixelRect clip_pixels(const ImVec4& c, const ImDrawData& dd) {
  const ImVec2 pos = dd.DisplayPos, s = dd.FramebufferScale;
  const float x0 = (c.x - pos.x) * s.x, y0 = (c.y - pos.y) * s.y;
  const float x1 = (c.z - pos.x) * s.x, y1 = (c.w - pos.y) * s.y;
  PixelRect r;
  if (!(x1 > x0) || !(y1 > y0)) return r;  // empty, or NaN
  auto trunc = [](float v) { return static_cast<int>(std::clamp(v, -1e7f, 1e7f)); };
  const int fb_h = trunc(dd.DisplaySize.y * s.y);
  r.x0 = trunc(x0);
  r.x1 = r.x0 + trunc(x1 - x0);
  r.y1 = fb_h - trunc(static_cast<float>(fb_h) - y1);
  r.y0 = r.y1 - trunc(y1 - y0);
  return r;
}

PixelRect intersect(const PixelRect& a, const PixelRect& b) {
  return PixelRect{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
}
PixelRect bound(const PixelRect& a, const PixelRect& b) {
  return PixelRect{std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

}  // namespace

bool exact_pixel_mapping(const ImDrawData& dd) {
  const ImVec2 s = dd.FramebufferScale, p = dd.DisplayPos;
  const bool scale_ok = (s.x == 1.0f || s.x == 2.0f) && s.y == s.x;
  return scale_ok && p.x == std::floor(p.x) && p.y == std::floor(p.y);
}

void snap_clip_rects(ImDrawData& dd) {
  const ImVec2 pos = dd.DisplayPos, s = dd.FramebufferScale;
  for (int n = 0; n < dd.CmdListsCount; ++n)
    for (ImDrawCmd& cmd : dd.CmdLists[n]->CmdBuffer) {
      const PixelRect r = clip_pixels(cmd.ClipRect, dd);
      if (r.empty()) {
        cmd.ClipRect = ImVec4(pos.x, pos.y, pos.x, pos.y);
        continue;
      }
      cmd.ClipRect = ImVec4(pos.x + r.x0 / s.x, pos.y + r.y0 / s.y, pos.x + r.x1 / s.x, pos.y + r.y1 / s.y);
    }
}

std::vector<PixelRect> DamageTracker::update(const ImDrawData& dd, int fb_w, int fb_h, const ImVec4& background,
                                             const CallbackDescriber& describe) {
  fb_w = std::max(0, fb_w);
  fb_h = std::max(0, fb_h);
  const bool resized = fb_w != fb_w_ || fb_h != fb_h_;
  fb_w_ = fb_w;
  fb_h_ = fb_h;
  cols_ = (fb_w + kTile - 1) / kTile;
  rows_ = (fb_h + kTile - 1) / kTile;
  const PixelRect screen{0, 0, fb_w, fb_h};
  // Every tile starts from the clear colour: a new background changes them all.
  tiles_.assign(static_cast<size_t>(cols_) * rows_, hash_vec4(0x6a09e667f3bcc908ULL, background));

  auto add = [&](PixelRect box, std::uint64_t h) {
    box = intersect(box, screen);
    if (box.empty()) return;
    const int tx0 = box.x0 / kTile, tx1 = (box.x1 - 1) / kTile;
    const int ty0 = box.y0 / kTile, ty1 = (box.y1 - 1) / kTile;
    for (int ty = ty0; ty <= ty1; ++ty)
      for (int tx = tx0; tx <= tx1; ++tx) {
        std::uint64_t& t = tiles_[static_cast<size_t>(ty) * cols_ + tx];
        t = mix(t + h);  // order matters: blending depends on it
      }
  };

  bool unknown = false;
  for (int n = 0; n < dd.CmdListsCount; ++n) {
    const ImDrawList* list = dd.CmdLists[n];
    const ImDrawVert* vtx = list->VtxBuffer.Data;
    const ImDrawIdx* idx = list->IdxBuffer.Data;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      const PixelRect clip = clip_pixels(cmd.ClipRect, dd);
      if (cmd.UserCallback) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState) continue;
        CallbackFootprint f;
        if (describe) f = describe(cmd);
        PixelRect box = clip;
        std::uint64_t h = hash_vec4(0x3c6ef372fe94f82bULL, ImVec4(static_cast<float>(clip.x0), static_cast<float>(clip.y0),
                                                                  static_cast<float>(clip.x1), static_cast<float>(clip.y1)));
        if (f.known) {
          box = intersect(box, padded_box(f.rect.x, f.rect.y, f.rect.z, f.rect.w, dd));
          h = mix(h + f.hash);
        } else {
          unknown = true;  // it may paint anything anywhere: the whole frame is damaged
        }
        add(box, h);
        continue;
      }
      if (clip.empty()) continue;
      const std::uint64_t base = hash_vec4(mix(0xa54ff53a5f1d36f1ULL + reinterpret_cast<std::uintptr_t>(cmd.TextureId)),
                                           ImVec4(static_cast<float>(clip.x0), static_cast<float>(clip.y0),
                                                  static_cast<float>(clip.x1), static_cast<float>(clip.y1)));
      const ImDrawIdx* id = idx + cmd.IdxOffset;
      const ImDrawVert* vb = vtx + cmd.VtxOffset;
      for (unsigned int i = 0; i + 2 < cmd.ElemCount; i += 3) {
        std::uint64_t h = base;
        float xmin = 1e30f, ymin = 1e30f, xmax = -1e30f, ymax = -1e30f;
        for (int k = 0; k < 3; ++k) {
          const ImDrawVert& v = vb[id[i + k]];
          h = mix(h + (bits(v.pos.x) << 32 | bits(v.pos.y)));
          h = mix(h + (bits(v.uv.x) << 32 | bits(v.uv.y)));
          h = mix(h + v.col);
          xmin = std::min(xmin, v.pos.x), xmax = std::max(xmax, v.pos.x);
          ymin = std::min(ymin, v.pos.y), ymax = std::max(ymax, v.pos.y);
        }
        add(intersect(padded_box(xmin, ymin, xmax, ymax, dd), clip), h);
      }
    }
  }

  std::vector<PixelRect> out;
  const bool all = resized || unknown || prev_.size() != tiles_.size();
  if (all) {
    prev_ = tiles_;
    if (!screen.empty()) out.push_back(screen);
    return out;
  }
  // Runs of damaged tiles per row, grown downwards while the next row has the same run.
  std::vector<PixelRect> open, done;
  for (int ty = 0; ty < rows_; ++ty) {
    std::vector<PixelRect> row;
    for (int tx = 0; tx < cols_;) {
      const size_t i = static_cast<size_t>(ty) * cols_ + tx;
      if (tiles_[i] == prev_[i]) {
        ++tx;
        continue;
      }
      int end = tx;
      while (end < cols_ && tiles_[static_cast<size_t>(ty) * cols_ + end] != prev_[static_cast<size_t>(ty) * cols_ + end]) ++end;
      row.push_back(PixelRect{tx, ty, end, ty + 1});
      tx = end;
    }
    std::vector<PixelRect> next;
    for (const PixelRect& r : row) {
      auto it = std::find_if(open.begin(), open.end(), [&](const PixelRect& o) { return o.x0 == r.x0 && o.x1 == r.x1; });
      if (it != open.end()) {
        PixelRect g = *it;
        g.y1 = r.y1;
        open.erase(it);
        next.push_back(g);
      } else {
        next.push_back(r);
      }
    }
    done.insert(done.end(), open.begin(), open.end());
    open = std::move(next);
  }
  done.insert(done.end(), open.begin(), open.end());
  prev_ = tiles_;
  // Few rectangles: merge the pair whose bounding box adds the least area; many: one box.
  if (done.size() > 64) {
    PixelRect b = done[0];
    for (const PixelRect& r : done) b = bound(b, r);
    done.assign(1, b);
  }
  while (done.size() > static_cast<size_t>(kMaxRects)) {
    size_t bi = 0, bj = 1;
    long long best = -1;
    for (size_t i = 0; i < done.size(); ++i)
      for (size_t j = i + 1; j < done.size(); ++j) {
        const long long extra = bound(done[i], done[j]).area() - done[i].area() - done[j].area();
        if (best < 0 || extra < best) best = extra, bi = i, bj = j;
      }
    done[bi] = bound(done[bi], done[bj]);
    done.erase(done.begin() + static_cast<std::ptrdiff_t>(bj));
  }
  // Bounding boxes may overlap other rectangles: merge those too, so that every pixel is in one
  // rectangle (the platform clears them all, then draws each command once per rectangle).
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < done.size() && !merged; ++i)
      for (size_t j = i + 1; j < done.size() && !merged; ++j)
        if (!intersect(done[i], done[j]).empty()) {
          done[i] = bound(done[i], done[j]);
          done.erase(done.begin() + static_cast<std::ptrdiff_t>(j));
          merged = true;
        }
  }
  for (const PixelRect& t : done)
    out.push_back(PixelRect{t.x0 * kTile, t.y0 * kTile, std::min(fb_w, t.x1 * kTile), std::min(fb_h, t.y1 * kTile)});
  return out;
}

}  // namespace app
