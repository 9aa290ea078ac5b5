// web/platform/webgl_state_cache.js — answers the page's WebGL state queries without a GPU
// round trip (linked with --post-js into attention_lab.js; it runs in emscripten's scope).
//
// Why: ImGui 1.86's OpenGL3 backend saves the GL state at the start of every
// ImGui_ImplOpenGL3_RenderDrawData and restores it at the end. Most of what it reads WebGL
// answers from the page's side (bindings, enables), but glGetIntegerv(GL_SCISSOR_BOX,
// GL_VIEWPORT, GL_BLEND_SRC_RGB, ... GL_BLEND_EQUATION_ALPHA) becomes gl.getParameter(), a
// synchronous call into the GPU process that waits until every command queued so far has
// run: the main thread stalls for the previous frame's rasterisation. In headless Chromium
// (SwiftShader) that was ~90% of each frame's main-thread time (the frame-time budget). The third-party
// backend is not patched; instead the context created for the canvas remembers those eight
// values: the first query of each goes to WebGL, later ones come from what this page's own
// calls set (scissor, viewport, blendFunc[Separate], blendEquation[Separate]).
//
// Exactness: a setter call WebGL would reject (bad enum, negative size, a size beyond
// MAX_VIEWPORT_DIMS that WebGL clamps) forgets the cached value instead of guessing, so the
// next query asks WebGL again; a lost or restored context forgets everything.
// Also asks the context for preserveDrawingBuffer (see GL.createContext below).
// Depends on emscripten's GL.createContext (not minified: the page is linked without closure).
(function () {
  'use strict';
  const SCISSOR_BOX = 0x0C10, VIEWPORT = 0x0BA2, MAX_VIEWPORT_DIMS = 0x0D3A;
  const BLEND_SRC_RGB = 0x80C9, BLEND_DST_RGB = 0x80C8, BLEND_SRC_ALPHA = 0x80CB, BLEND_DST_ALPHA = 0x80CA;
  const BLEND_EQUATION_RGB = 0x8009, BLEND_EQUATION_ALPHA = 0x883D;
  const TRACKED = new Set([SCISSOR_BOX, VIEWPORT, BLEND_SRC_RGB, BLEND_DST_RGB, BLEND_SRC_ALPHA,
                           BLEND_DST_ALPHA, BLEND_EQUATION_RGB, BLEND_EQUATION_ALPHA]);
  // ZERO, ONE, SRC_COLOR .. SRC_ALPHA_SATURATE, CONSTANT_COLOR .. ONE_MINUS_CONSTANT_ALPHA
  const FACTORS = new Set([0, 1, 0x0300, 0x0301, 0x0302, 0x0303, 0x0304, 0x0305, 0x0306, 0x0307, 0x0308,
                           0x8001, 0x8002, 0x8003, 0x8004]);
  const isConstColor = (f) => f === 0x8001 || f === 0x8002;
  const isConstAlpha = (f) => f === 0x8003 || f === 0x8004;
  // FUNC_ADD, FUNC_SUBTRACT, FUNC_REVERSE_SUBTRACT, MIN, MAX
  const EQUATIONS = new Set([0x8006, 0x800A, 0x800B, 0x8007, 0x8008]);

  function install(gl) {
    if (!gl || gl.__attnStateCache) return;
    gl.__attnStateCache = true;
    const cache = new Map();  // pname -> number | Int32Array (never handed out: callers get copies)
    const realGet = gl.getParameter;
    const call = (f, args) => f.apply(gl, args);
    let maxDims = null;
    const forget = () => { cache.clear(); maxDims = null; };
    if (gl.canvas && gl.canvas.addEventListener) {
      gl.canvas.addEventListener('webglcontextlost', forget);
      gl.canvas.addEventListener('webglcontextrestored', forget);
    }

    gl.getParameter = function (pname) {
      if (!TRACKED.has(pname) || gl.isContextLost()) return call(realGet, arguments);
      let v = cache.get(pname);
      if (v === undefined) {
        v = call(realGet, arguments);
        if (v === null || v === undefined) return v;
        if (v instanceof Int32Array) v = v.slice();
        cache.set(pname, v);
      }
      return v instanceof Int32Array ? v.slice() : v;
    };

    const after = (name, record) => {
      const real = gl[name];
      gl[name] = function () {
        const r = call(real, arguments);
        record.apply(null, arguments);
        return r;
      };
    };
    const rect = (pname) => function (x, y, w, h) {
      if (maxDims === null) maxDims = call(realGet, [MAX_VIEWPORT_DIMS]);
      const vi = [x | 0, y | 0, w | 0, h | 0];
      const ok = vi[2] >= 0 && vi[3] >= 0 &&
                 (pname !== VIEWPORT || (maxDims && vi[2] <= maxDims[0] && vi[3] <= maxDims[1]));
      if (ok) cache.set(pname, Int32Array.from(vi));
      else cache.delete(pname);
    };
    after('scissor', rect(SCISSOR_BOX));
    after('viewport', rect(VIEWPORT));
    const setFactors = (sr, dr, sa, da) => {
      const ok = [sr, dr, sa, da].every((f) => FACTORS.has(f)) &&
                 !((isConstColor(sr) && isConstAlpha(dr)) || (isConstAlpha(sr) && isConstColor(dr))) &&
                 !((isConstColor(sa) && isConstAlpha(da)) || (isConstAlpha(sa) && isConstColor(da)));
      const pnames = [BLEND_SRC_RGB, BLEND_DST_RGB, BLEND_SRC_ALPHA, BLEND_DST_ALPHA];
      pnames.forEach((p, i) => { if (ok) cache.set(p, [sr, dr, sa, da][i]); else cache.delete(p); });
    };
    after('blendFunc', (s, d) => setFactors(s, d, s, d));
    after('blendFuncSeparate', setFactors);
    const setEquations = (rgb, alpha) => {
      const ok = EQUATIONS.has(rgb) && EQUATIONS.has(alpha);
      if (ok) { cache.set(BLEND_EQUATION_RGB, rgb); cache.set(BLEND_EQUATION_ALPHA, alpha); }
      else { cache.delete(BLEND_EQUATION_RGB); cache.delete(BLEND_EQUATION_ALPHA); }
    };
    after('blendEquation', (m) => setEquations(m, m));
    after('blendEquationSeparate', setEquations);
  }

  const createContext = GL.createContext;
  GL.createContext = function (canvas, attributes) {
    // The canvas keeps its pixels between frames, so the platform redraws only what changed
    // (platform/damage.hpp): with a software rasteriser that is most of a frame's cost.
    attributes = Object.assign({}, attributes, { preserveDrawingBuffer: true });
    const handle = createContext.call(GL, canvas, attributes);
    const entry = handle && GL.contexts[handle];
    if (entry && entry.GLctx) install(entry.GLctx);
    return handle;
  };
})();
