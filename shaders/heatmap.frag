#version 300 es
// Heatmap cells from a float texture: one texel per cell, R = value, G = allowed (1) or
// masked (0). Texel (col, row) is matrix cell (row, col): row 0 = first query, at the top.
// Allowed cells are coloured with viridis (u_map 0: weights, never negative) or Paul Tol's diverging
// sunset (u_map 1: signed values over a range centred at 0), both readable with the common
// colour-vision deficiencies; masked cells get grey diagonal hatching, which no value can
// produce, so a masked key never looks like a zero weight.
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D u_cells;
uniform vec2 u_dims;      // cols, rows
uniform vec2 u_range;     // value mapped to the bottom / top of the colour map
uniform float u_hatch;    // hatch period in framebuffer pixels
uniform float u_grid;     // 1: draw 1-pixel separators between cells
uniform vec3 u_grid_rgb;  // separator colour (the page background)
uniform vec4 u_rect;      // the grid, ImGui coordinates (x0, y0, x1, y1)
uniform vec4 u_display;   // ImGui display pos (x, y) and size (w, h)
uniform vec3 u_fb;        // framebuffer scale x, y and framebuffer height in pixels
uniform int u_map;        // 0: viridis, 1: sunset

in vec2 v_uv;
out vec4 frag_color;

// Viridis as a degree-6 polynomial fit (Matt Zucker's CC0 fit of matplotlib's viridis);
// error well below one 8-bit step.
vec3 viridis(float t) {
  const vec3 c0 = vec3(0.2777273272234177, 0.005407344544966578, 0.3340998053353061);
  const vec3 c1 = vec3(0.1050930431085774, 1.404613529898575, 1.384590162594685);
  const vec3 c2 = vec3(-0.3308618287255563, 0.214847559468213, 0.09509516302823659);
  const vec3 c3 = vec3(-4.634230498983486, -5.799100973351585, -19.33244095627987);
  const vec3 c4 = vec3(6.228269936347081, 14.17993336680509, 56.69055260068105);
  const vec3 c5 = vec3(4.776384997670288, -13.74514537774601, -65.35303263337234);
  const vec3 c6 = vec3(-5.435455855934631, 4.645852612178535, 26.3124352495832);
  return c0 + t * (c1 + t * (c2 + t * (c3 + t * (c4 + t * (c5 + t * c6)))));
}

// Paul Tol's diverging "sunset" (SRON/EPS/TN/09-002, fig. 19; personal.sron.nl/~pault), its 11
// published colours as 8-bit RGB, linearly interpolated: blue below 0, pale at 0, red above.
// web/widgets/colormap.hpp holds the same stops for legends and table cells.
const vec3 SUNSET[11] = vec3[11](
    vec3(54, 75, 154),
    vec3(74, 123, 183),
    vec3(110, 166, 205),
    vec3(152, 202, 225),
    vec3(194, 228, 239),
    vec3(234, 236, 204),
    vec3(254, 218, 139),
    vec3(253, 179, 102),
    vec3(246, 126, 75),
    vec3(221, 61, 45),
    vec3(165, 0, 38));
vec3 sunset(float t) {
  float x = clamp(t, 0.0, 1.0) * 10.0;
  int k = min(9, int(floor(x)));
  return mix(SUNSET[k], SUNSET[k + 1], x - float(k)) / 255.0;
}

void main() {
  // The cell under this pixel's centre, from gl_FragCoord rather than the interpolated v_uv, so
  // the widget's hover (heatmap.cpp, cell_under) can repeat the same arithmetic exactly when a
  // pixel spans several cells (a 2048-column map in a few hundred pixels).
  vec2 p = vec2(gl_FragCoord.x / u_fb.x, (u_fb.z - gl_FragCoord.y) / u_fb.y) + u_display.xy;
  vec2 grid = (p - u_rect.xy) / (u_rect.zw - u_rect.xy) * u_dims;
  ivec2 cell = clamp(ivec2(floor(grid)), ivec2(0), ivec2(u_dims) - 1);
  vec2 texel = texelFetch(u_cells, cell, 0).rg;

  vec3 rgb;
  if (texel.g < 0.5) {
    float k = mod(gl_FragCoord.x + gl_FragCoord.y, u_hatch);
    rgb = k < u_hatch * 0.4 ? vec3(0.58) : vec3(0.86);
  } else {
    float t = clamp((texel.r - u_range.x) / (u_range.y - u_range.x), 0.0, 1.0);
    rgb = u_map == 1 ? sunset(t) : clamp(viridis(t), 0.0, 1.0);
  }
  if (u_grid > 0.5) {
    // A separator on the left/top edge of every cell except the first row/column.
    vec2 f = fract(grid);
    vec2 px = fwidth(grid);
    bool left = f.x < px.x && cell.x > 0;
    bool top = f.y < px.y && cell.y > 0;
    if (left || top) rgb = u_grid_rgb;
  }
  frag_color = vec4(rgb, 1.0);
}
