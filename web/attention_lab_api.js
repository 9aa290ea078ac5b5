// web/attention_lab_api.js — window.attentionLab, linked into attention_lab.js (--post-js).
//
// For tests and course pages. Every call goes through the C functions in web/api.cpp,
// which use the same app-state path as the on-screen widgets:
//   ready                     Promise, resolves (to this object) after the first frame is drawn
//   state()                   {panel, frames, alignment:{inputs, selected_row, result, row_sums, error},
//                              heads:{inputs, sentence_text, result, row_sums, error},
//                              permutation:{inputs, sentence_text, permutation_text, result, error}}
//   showPanel(name)           "alignment" | "heads" | "permutation"
//   set(patch)                e.g. {heads: {seed: 3, causal: true}, permutation: {permutation: [1,0,2]}}
//   setSentence(s)            heads and permutation panels      setSeed(n)      both panels
//   setHeads(n)               setCausal(panel, on)              setPositions(panel, on)
//   setPermutation([..])      compute(caseObject)  → the JSON case contract (attn::run_case_text)
//   frames()                  frames presented so far     nextFrame()  Promise of the next one's number
//   firstFrameAt              ms from navigation start to the first presented frame (null before)
//   frameStats()              {intervals, work}: ms between the last presented frames, and
//                             main-thread ms spent in each of them (most recent 600)
// Setters return {ok: true} or {ok: false, error: {code, message}}; on error the page keeps
// showing its last good result and displays the message.
(function () {
  if (typeof window === 'undefined') return;
  let resolveReady, rejectReady;
  const ready = new Promise(function (resolve, reject) { resolveReady = resolve; rejectReady = reject; });
  const frameWaiters = [];
  let lastFrame = 0;  // number of the last presented frame (0 before the first)
  const intervals = [], work = [];
  let lastPresentAt = null;
  const keep = function (list, v) { list.push(v); if (list.length > 600) list.shift(); };

  function call(name, arg) {
    const fn = Module['_' + name];
    if (!fn) throw new Error('attentionLab: the module is not loaded yet (await attentionLab.ready)');
    let ptr = 0;
    if (arg !== undefined) {
      const n = lengthBytesUTF8(arg) + 1;
      ptr = _malloc(n);
      stringToUTF8(arg, ptr, n);
    }
    try {
      return JSON.parse(UTF8ToString(ptr ? fn(ptr) : fn()));
    } finally {
      if (ptr) _free(ptr);
    }
  }

  function panelKey(panel) {
    if (panel !== 'heads' && panel !== 'permutation')
      throw new Error('attentionLab: panel must be "heads" or "permutation", got ' + JSON.stringify(panel));
    return panel;
  }
  function patchFor(panel, inputs) { const p = {}; p[panelKey(panel)] = inputs; return p; }

  const api = {
    ready: ready,
    state: function () { return call('attn_app_state'); },
    showPanel: function (name) { return call('attn_app_show_panel', String(name)); },
    set: function (patch) { return call('attn_app_set', JSON.stringify(patch)); },
    compute: function (caseObject) {
      return call('attn_app_compute', typeof caseObject === 'string' ? caseObject : JSON.stringify(caseObject));
    },
    setSentence: function (s) { return api.set({ heads: { sentence: String(s) }, permutation: { sentence: String(s) } }); },
    setSeed: function (n) { return api.set({ heads: { seed: n }, permutation: { seed: n } }); },
    setHeads: function (n) { return api.set({ heads: { heads: n } }); },
    setCausal: function (panel, on) { return api.set(patchFor(panel, { causal: !!on })); },
    setPositions: function (panel, on) { return api.set(patchFor(panel, { positions: !!on })); },
    setPermutation: function (p) { return api.set({ permutation: { permutation: p } }); },
    frames: function () { return lastFrame; },
    nextFrame: function () {
      // The app skips frames while idle; ask for one so this resolves within a frame.
      if (lastFrame > 0) Module['_attn_app_request_frame']();
      return new Promise(function (resolve) { frameWaiters.push(resolve); });
    },
    firstFrameAt: null,
    frameStats: function () { return { intervals: intervals.slice(), work: work.slice() }; },
  };

  Module['attnFrameWork'] = function (ms) { keep(work, ms); };
  Module['attnFramePresented'] = function (frames) {
    const now = performance.now();
    if (lastPresentAt !== null) keep(intervals, now - lastPresentAt);
    lastPresentAt = now;
    lastFrame = frames;
    if (frames === 1) {
      api.firstFrameAt = now;
      resolveReady(api);
    }
    while (frameWaiters.length) frameWaiters.shift()(frames);
  };
  Module['attnFatal'] = function (message) { rejectReady(new Error(message)); };
  const previousAbort = Module['onAbort'];
  Module['onAbort'] = function (what) {
    rejectReady(new Error('Attention Lab failed to start: ' + what));
    if (previousAbort) previousAbort(what);
  };
  window.attentionLab = api;
})();
