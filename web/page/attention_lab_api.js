// web/page/attention_lab_api.js — window.attentionLab, linked into attention_lab.js (--post-js).
//
// For tests and course pages. Every call goes through the C functions in web/app/api.cpp,
// which use the same app-state path as the on-screen widgets:
//   ready                     Promise, resolves (to this object) after the first frame is drawn
//   state()                   {panel, frames, <panel name>: {inputs, result, error, ...} for every panel
//                              of the registry (web/panels/registry.cpp), recall:{tasks, result:{answers},
//                              error}}; a panel whose first study waits for a frame also has pending: true
//   showPanel(name)           a panel's name in the registry ("alignment", "heads", ...)
//   set(patch)                e.g. {heads: {seed: 3, causal: true}, permutation: {permutation: [1,0,2]}}
//   setSentence(s)            heads and permutation panels      setSeed(n)      both panels
//   setHeads(n)               setCausal(panel, on)              setPositions(panel, on)
//   setPermutation([..])      compute(caseObject)  → Promise of the JSON case contract's result
//                             (attention-lab-compute.js, fetched from this folder on first use)
//   frames()                  frames presented so far     nextFrame()  Promise of the next one's number
//   firstFrameAt              ms from navigation start to the first presented frame (null before)
//   frameStats()              {intervals, work}: ms between the last presented frames, and
//                             main-thread ms spent in each of them (most recent 600)
// Course pages (embed.js, built from web/page/embed/; docs/embed.md):
//   view(maxCells)            what the last frame showed: {panel, title, busy, heatmaps:[{name, row_labels,
//                             col_labels, values, allowed, vmin, vmax, rect, cursor}], active, checks,
//                             errors}; maxCells > 0 cuts bigger matrices to their top-left 50×50;
//                             maxCells < 0: the outline (no values; of the heatmaps only the one the
//                             keyboard is on, for its cursor); busy: a run is training;
//                             working: busy or a study under way (its figures come by themselves)
//   linkInputs()              {panel, <panel>: {inputs}}: what a link needs to reproduce this view
//   setEmbed(on)              the panel alone, without navigation (index.html?embed=1)
//   setDetailsOpen(on)        every collapsed detail section open (index.html?details=open)
//   inputState()              keys/modifiers/mouse as ImGui sees them (focus and touch tests);
//                             pending_input: events not yet given to ImGui (0: all delivered)
//   fit()                     whether the panel on screen fits its width, measured in the last frame
//                             (web/page/fit_report.hpp): {panel, canvas_width, visible_right, widest
//                             (right edge of the widest item before clipping), fits, cut:[{where,
//                             right, edge}], sideways_tables, split_numbers: numbers a wrapped line
//                             ended inside, as "3.|33e-16"}; not part of state()
//   fitProbe(px)              tests only: one item px wider than the panel and a number wider than its
//                             column (the check's negative controls)
//   drawnPixels()             canvas pixels the last frame drew: only what changed (platform/damage.hpp),
//                             0 when nothing did
//   redrawAll()               tests only: the next frame draws the whole canvas (to compare with frames
//                             drawn by damage)
//   trainWorker()             the training Worker: {created, rehearsals: [{steps, ms, ended}]}, one
//                             per rehearsal asked for (a trained panel's step 0 stepped and thrown
//                             away when the panel opens, web/worker/train_worker_api.js), once it
//                             ended: "steps", "time", "run" (a run took over), "busy" (none: the
//                             Worker was busy) or why it failed; slice_ms and rest_ms, the length of
//                             the Worker's slices and its wait between them, as it reported them
//                             with the last run's states (rest_ms 0 on more than two cores; both
//                             null before any state came)
//   takeEvents()              the host events queued since the last call, oldest first (and empties the
//                             queue): {type: "answered", panel, question, prompt, choice, answer, correct}
//                             when a "check yourself" question is answered, {type: "trained", panel,
//                             step, source} when a run finishes or a model is installed; embed.js takes
//                             them after each frame and posts them to the parent (docs/embed.md)
//   contentHeight()           the panel's content height in CSS px in the last frame (from the canvas top)
//   locate(label)             Promise of the on-screen rectangles [{label, full, rect, visible}] of
//                             the widgets labelled `label` ("sentence", or "##v" for unnamed ones;
//                             all widgets when omitted), in drawing order
// Models (docs/models.md; the Learned heads and Translate panels):
//   loadModel(bytes, name, panel)  a safetensors file (Uint8Array or ArrayBuffer) to the panel of its
//                             kind, which is then shown → {ok, panel, [error]}; a file over 16 MiB is
//                             refused without being copied
//   modelFailed(name, message) a model that could not be fetched (model= links): the message shows
//   exportModel(panel, which) the panel's model as safetensors → {ok, panel, name, bytes: Uint8Array}
//                             (translate: which "additive" or "none")
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

  // A C function taking two strings and returning JSON.
  function call2(name, a, b) {
    const fn = Module['_' + name];
    if (!fn) throw new Error('attentionLab: the module is not loaded yet (await attentionLab.ready)');
    const ptrs = [a, b].map(function (t) {
      const n = lengthBytesUTF8(t) + 1, p = _malloc(n);
      stringToUTF8(t, p, n);
      return p;
    });
    try {
      return JSON.parse(UTF8ToString(fn(ptrs[0], ptrs[1])));
    } finally {
      ptrs.forEach(function (p) { _free(p); });
    }
  }

  // The JSON case contract runs in attention-lab-compute.js, the core's own module, fetched from
  // this script's folder on the first compute(): the page's first download carries no op table.
  let computeLoading = null;
  function computeModule() {
    if (computeLoading) return computeLoading;
    computeLoading = new Promise(function (resolve, reject) {
      if (window.attentionLabCompute) return resolve(window.attentionLabCompute.ready);
      const src = locateFile('attention-lab-compute.js');
      const s = document.createElement('script');
      s.src = src;
      s.onload = function () {
        if (window.attentionLabCompute) resolve(window.attentionLabCompute.ready);
        else reject(new Error(src + ' loaded but defined no attentionLabCompute'));
      };
      s.onerror = function () { reject(new Error('could not load ' + src)); };
      document.head.appendChild(s);
    });
    computeLoading.catch(function () { computeLoading = null; });  // a later call tries again
    return computeLoading;
  }

  const MAX_MODEL_BYTES = 16 * 1024 * 1024;  // app::kMaxPageModelBytes

  // A C function taking one int and returning JSON.
  function callInt(name, n) {
    const fn = Module['_' + name];
    if (!fn) throw new Error('attentionLab: the module is not loaded yet (await attentionLab.ready)');
    return JSON.parse(UTF8ToString(fn(n)));
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
      const text = typeof caseObject === 'string' ? caseObject : JSON.stringify(caseObject);
      return computeModule().then(function (core) { return core.compute(text); },
        function (err) { return { error: { code: 'not_ready', message: err.message } }; });
    },
    setSentence: function (s) { return api.set({ heads: { sentence: String(s) }, permutation: { sentence: String(s) } }); },
    setSeed: function (n) { return api.set({ heads: { seed: n }, permutation: { seed: n } }); },
    setHeads: function (n) { return api.set({ heads: { heads: n } }); },
    setCausal: function (panel, on) { return api.set(patchFor(panel, { causal: !!on })); },
    setPositions: function (panel, on) { return api.set(patchFor(panel, { positions: !!on })); },
    setPermutation: function (p) { return api.set({ permutation: { permutation: p } }); },
    view: function (maxCells) { return callInt('attn_app_view', maxCells | 0); },
    linkInputs: function () { return call('attn_app_link_inputs'); },
    setEmbed: function (on) { Module['_attn_app_set_embed'](on ? 1 : 0); },
    setDetailsOpen: function (on) { Module['_attn_app_set_details_open'](on ? 1 : 0); },
    inputState: function () { return call('attn_app_input_state'); },
    fit: function () { return call('attn_app_fit'); },
    takeEvents: function () { return Module['_attn_app_pending_events']() > 0 ? call('attn_app_take_events') : []; },
    contentHeight: function () { return Module['_attn_app_content_height'](); },
    fitProbe: function (px) { Module['_attn_app_fit_probe'](px | 0); },
    drawnPixels: function () { return Module['_attn_app_drawn_pixels'](); },
    redrawAll: function () { Module['_attn_app_redraw_all'](); },
    trainWorker: function () { return { created: !!trainWorker, rehearsals: trainRehearsals.slice(), slice_ms: trainSliceMs, rest_ms: trainRestMs }; },
    locate: function (label) {
      Module['_attn_app_locate_begin']();
      return api.nextFrame().then(function () { return api.nextFrame(); }).then(function () {
        const items = call('attn_app_locate_result');
        return label === undefined ? items
          : items.filter(function (it) { return it.label === String(label) || it.full === String(label); });
      });
    },
    loadModel: function (bytes, name, panel) {
      // A number: the size of a file that was not read (over the limit; the app names both).
      const data = typeof bytes === 'number' ? { length: bytes } : bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
      const fn = Module['_attn_app_load_model'];
      if (!fn) throw new Error('attentionLab: the module is not loaded yet (await attentionLab.ready)');
      const strings = [String(name || 'model.safetensors'), String(panel || '')].map(function (t) {
        const n = lengthBytesUTF8(t) + 1, p = _malloc(n);
        stringToUTF8(t, p, n);
        return p;
      });
      // A file over the page's limit is not copied: the app answers with the limit and the size.
      const copy = data.length <= MAX_MODEL_BYTES;
      const pd = copy ? _malloc(Math.max(1, data.length)) : 0;
      if (copy) HEAPU8.set(data, pd);
      try {
        return JSON.parse(UTF8ToString(fn(strings[0], strings[1], pd, data.length)));
      } finally {
        if (pd) _free(pd);
        strings.forEach(function (p) { _free(p); });
      }
    },
    modelFailed: function (name, message) { return call2('attn_app_model_failed', String(name), String(message)); },
    exportModel: function (panel, which) {
      const reply = call2('attn_app_export_model', String(panel || ''), String(which || ''));
      if (!reply.ok) return reply;
      const p = Module['_attn_app_export_data']();
      reply.bytes = HEAPU8.slice(p, p + reply.bytes);
      return reply;
    },
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
  // Shipped checkpoints (web/app/api.hpp fetch_checkpoint): fetched relative to the page when a
  // panel asks, copied into the wasm heap, handed to the app; a failure is reported, not thrown.
  Module['attnFetchCheckpoint'] = function (url) {
    const report = function (message) {
      const u = lengthBytesUTF8(url) + 1, m = lengthBytesUTF8(message) + 1;
      const pu = _malloc(u), pm = _malloc(m);
      stringToUTF8(url, pu, u);
      stringToUTF8(message, pm, m);
      try { Module['_attn_app_checkpoint_failed'](pu, pm); } finally { _free(pu); _free(pm); }
    };
    fetch(url).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + url);
      return r.arrayBuffer();
    }).then(function (buf) {
      const bytes = new Uint8Array(buf);
      const u = lengthBytesUTF8(url) + 1;
      const pu = _malloc(u), pd = _malloc(Math.max(1, bytes.length));
      stringToUTF8(url, pu, u);
      HEAPU8.set(bytes, pd);
      try { Module['_attn_app_checkpoint_loaded'](pu, pd, bytes.length); } finally { _free(pu); _free(pd); }
    }).catch(function (e) { report(String(e && e.message || e)); });
  };
  // The training Worker (web/worker/, web/panels/train_worker.hpp): a trained panel's steps run
  // there while this thread draws. Created when a trained panel first opens (it then rehearses
  // that panel's step 0); ?train_worker=0 keeps every run in the page's frames. The state bytes
  // go back into the wasm heap for the panel to take.
  let trainWorker = null, trainWorkerError = '';
  const trainRuns = new Set();
  const trainRehearsals = [];
  // The slices' length and the rest between them (ms) the Worker reported with the last state; null before any.
  let trainSliceMs = null, trainRestMs = null;
  Module['attnTrainWorkerAllowed'] = function () {
    if (typeof Worker === 'undefined') return 0;
    try { return new URLSearchParams(location.search).get('train_worker') === '0' ? 0 : 1; } catch (e) { return 1; }
  };
  const trainFailed = function (id, message) {
    const m = lengthBytesUTF8(message) + 1, pm = _malloc(m);
    stringToUTF8(message, pm, m);
    try { Module['_attn_app_train_failed'](id, pm); } finally { _free(pm); }
  };
  // Creates the Worker once (false when it cannot be: the page then trains in its frames).
  const ensureTrainWorker = function () {
    if (trainWorker) return true;
    try {
      trainWorker = new Worker(new URL('attention-lab-train-worker.js', document.baseURI));
    } catch (e) {
      trainWorkerError = 'the training worker could not start: ' + (e && e.message || e);
      return false;
    }
    trainWorker.onmessage = function (e) {
      const d = e.data || {};
      if (d.type === 'rehearsed') return void trainRehearsals.push({ steps: d.steps, ms: d.ms, ended: d.ended });
      if (!trainRuns.has(d.id)) return;
      if (d.type === 'failed') {
        trainRuns.delete(d.id);
        return trainFailed(d.id, d.message || 'the training worker failed');
      }
      if (d.type !== 'state') return;
      if (d.done) trainRuns.delete(d.id);
      if (typeof d.slice_ms === 'number') trainSliceMs = d.slice_ms;
      if (typeof d.rest_ms === 'number') trainRestMs = d.rest_ms;
      const bytes = new Uint8Array(d.state), p = _malloc(Math.max(1, bytes.length));
      if (!p) {
        trainRuns.delete(d.id);
        return trainFailed(d.id, 'no memory for the training state (' + bytes.length + ' bytes)');
      }
      HEAPU8.set(bytes, p);
      try { Module['_attn_app_train_state'](d.id, d.step, d.done ? 1 : 0, p, bytes.length); } finally { _free(p); }
    };
    trainWorker.onerror = function (e) {
      e.preventDefault();
      const why = 'the training worker failed to load: ' + (e.message || 'attention-lab-train-worker.js');
      for (const r of trainRuns) trainFailed(r, why);
      trainRuns.clear();
      trainWorker.terminate();
      trainWorker = null;
    };
    return true;
  };
  Module['attnTrainWorkerWarm'] = function () { ensureTrainWorker(); };
  Module['attnTrainWorkerRehearse'] = function (ptr, size, steps, maxMs) {
    if (!ensureTrainWorker()) return;
    const state = HEAPU8.slice(ptr, ptr + size).buffer;
    trainWorker.postMessage({ type: 'rehearse', state: state, steps: steps, max_ms: maxMs }, [state]);
  };
  // The Worker rests restMs between slices only where its core is half the machine (at most two
  // logical cores, or a browser that does not say): there the page's frames and the GPU process
  // share the other core (WorkerPace in web/panels/trained_run.hpp).
  const fewCores = !(Number(navigator.hardwareConcurrency) > 2);
  Module['attnTrainWorkerRun'] = function (id, ptr, size, budgetMs, syncEvery, restMs) {
    const state = HEAPU8.slice(ptr, ptr + size).buffer;
    if (!ensureTrainWorker()) return setTimeout(function () { trainFailed(id, trainWorkerError); });
    trainRuns.add(id);
    // The Worker checks budget_ms and rest_ms (numbers >= 0) as it checks the rest of the message.
    trainWorker.postMessage({ type: 'run', id: id, state: state, budget_ms: budgetMs, sync_every: syncEvery,
                              rest_ms: fewCores ? restMs : 0 }, [state]);
  };
  Module['attnTrainWorkerStop'] = function (id) {
    trainRuns.delete(id);
    if (trainWorker) trainWorker.postMessage({ type: 'stop', id: id });
  };
  Module['attnFatal'] = function (message) { rejectReady(new Error(message)); };
  const previousAbort = Module['onAbort'];
  Module['onAbort'] = function (what) {
    rejectReady(new Error('Attention Lab failed to start: ' + what));
    if (previousAbort) previousAbort(what);
  };
  window.attentionLab = api;
})();
