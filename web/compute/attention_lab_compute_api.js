// web/compute/attention_lab_compute_api.js — window.attentionLabCompute: Attention Lab's core
// for course pages that want numbers without the canvas. Appended after the emscripten
// module (--extern-post-js), so attention-lab-compute.js is one script plus its .wasm, which
// is loaded from the script's own folder (any static host, any sub-path).
//
//   <script src="attention-lab-compute.js"></script>
//   const out = await attentionLabCompute.compute({op: 'attention', query: [[1, 0]],
//                                                  key: [[1, 0], [0, 1]], value: [[1], [2]]});
//   // → {output: [[...]], weights: [[...]]}  or  {error: {code, message}}
//
//   attentionLabCompute.ready      Promise of {compute(case), computeText(text), version}
//                                  (synchronous; computeText returns the result's JSON text,
//                                  exactly as `attn run` prints it)
//   attentionLabCompute.compute(c) Promise of the result; `c` is an object or a JSON string
//
// The contract is the one of `attn run` (README, "The JSON contract"): the same input gives
// the same bits natively, here, and in the lab page's window.attentionLab.compute.
(function () {
  'use strict';
  var factory = typeof AttentionLabCore === 'function' ? AttentionLabCore : null;
  var root = typeof window !== 'undefined' ? window : (typeof self !== 'undefined' ? self : globalThis);
  var ready = null;

  function start() {
    if (ready) return ready;
    if (!factory) return (ready = Promise.reject(new Error('attention-lab-compute.js: the core module is missing')));
    ready = factory().then(function (Module) {
      function computeText(text) {
        if (typeof text !== 'string') text = '';
        var n = Module.lengthBytesUTF8(text) + 1;
        var ptr = Module._malloc(n);
        try {
          Module.stringToUTF8(text, ptr, n);
          return Module.UTF8ToString(Module._attn_compute(ptr));
        } finally {
          Module._free(ptr);
        }
      }
      function compute(caseValue) {
        return JSON.parse(computeText(typeof caseValue === 'string' ? caseValue : JSON.stringify(caseValue)));
      }
      return { compute: compute, computeText: computeText,
               version: Module.UTF8ToString(Module._attn_compute_version()) };
    });
    return ready;
  }

  var api = {
    get ready() { return start(); },
    compute: function (caseValue) { return start().then(function (lab) { return lab.compute(caseValue); }); },
  };
  root.attentionLabCompute = api;
  if (typeof module === 'object' && module.exports) module.exports = api;
})();
