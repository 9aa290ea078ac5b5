// web/worker/train_worker_api.js — appended after the training Worker's emscripten module
// (--extern-post-js): in a Worker, it answers the page's messages.
//
//   page → Worker  {type: 'run', id, state: ArrayBuffer, budget_ms, sync_every}
//                  {type: 'stop', id}
//   Worker → page  {type: 'state', id, step, done, state: ArrayBuffer}   after every slice
//                  {type: 'failed', id, message}
//
// Between slices the Worker yields to its message queue (a MessageChannel, not setTimeout, whose
// nested calls are clamped to 4 ms), so a 'stop' or a newer 'run' is seen within one slice.
(function () {
  'use strict';
  if (typeof self === 'undefined' || typeof importScripts !== 'function' || typeof AttentionLabTrainer !== 'function') return;
  var ready = AttentionLabTrainer();
  var current = null;  // the run being stepped: {id, budget, sync}
  var wanted = 0;      // the run last asked for and not stopped (it may wait for the module)
  // Each yield carries its run's id: a yield left over from a stopped or replaced run starts no
  // second chain of slices for the next one.
  var channel = new MessageChannel();
  channel.port1.onmessage = function (e) { if (current && current.id === e.data) ready.then(slice); };

  function fail(id, message) {
    if (current && current.id === id) current = null;
    if (wanted === id) wanted = 0;
    self.postMessage({ type: 'failed', id: id, message: String(message) });
  }

  // A trap in the module (an abort, a stack overflow) is the run's failure, never silence.
  function slice(M) {
    var r = current;
    if (!r) return;
    try {
      sliceOf(M, r);
    } catch (err) {
      fail(r.id, 'the training module stopped: ' + (err && err.message || err));
    }
  }

  function sliceOf(M, r) {
    var step = M._attn_train_slice(r.budget, r.sync);
    if (step < 0) return fail(r.id, M.UTF8ToString(M._attn_train_error()));
    var ptr = M._attn_train_data(), n = M._attn_train_size();
    var bytes = M.HEAPU8.slice(ptr, ptr + n);
    var done = M._attn_train_done() === 1;
    if (done) current = null;
    self.postMessage({ type: 'state', id: r.id, step: step, done: done, state: bytes.buffer }, [bytes.buffer]);
    if (!done) channel.port2.postMessage(r.id);
  }

  self.onmessage = function (e) {
    var d = e.data || {};
    if (d.type === 'stop') {
      if (current && current.id === d.id) current = null;
      if (wanted === d.id) wanted = 0;  // also a run still waiting for the module
      return;
    }
    if (d.type !== 'run') return;
    current = null;
    wanted = d.id;
    ready.then(function (M) {
      if (wanted !== d.id) return;  // stopped or replaced while the module loaded
      try {
        var bytes = new Uint8Array(d.state);
        var p = M._malloc(Math.max(1, bytes.length));
        if (!p) return fail(d.id, 'no memory for the training state (' + bytes.length + ' bytes)');
        M.HEAPU8.set(bytes, p);
        var ok = M._attn_train_begin(p, bytes.length);
        M._free(p);
        if (!ok) return fail(d.id, M.UTF8ToString(M._attn_train_error()));
      } catch (err) {
        return fail(d.id, 'the training module stopped: ' + (err && err.message || err));
      }
      current = { id: d.id, budget: d.budget_ms, sync: d.sync_every };
      slice(M);
    }, function (err) { fail(d.id, 'the training module did not load: ' + (err && err.message || err)); });
  };
})();
