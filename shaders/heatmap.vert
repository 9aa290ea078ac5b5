#version 300 es
// Heatmap quad. No vertex buffer: the four corners come from gl_VertexID (a triangle
// strip), placed at u_rect, given in ImGui's coordinates (window units, y down).
precision highp float;

uniform vec4 u_rect;     // x0, y0, x1, y1 of the grid, ImGui coordinates
uniform vec4 u_display;  // ImGui display pos (x, y) and size (w, h)

out vec2 v_uv;           // (0,0) top-left of the grid .. (1,1) bottom-right

void main() {
  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
  vec2 p = mix(u_rect.xy, u_rect.zw, corner);
  vec2 ndc = (p - u_display.xy) / u_display.zw * 2.0 - 1.0;
  v_uv = corner;
  gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
