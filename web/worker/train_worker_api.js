// web/worker/train_worker_api.js — appended after the training Worker's emscripten module
// (--extern-post-js): in a Worker, it answers the page's messages.
//
//   page → Worker  {type: 'run', id, state: ArrayBuffer, budget_ms, sync_every, rest_ms}
//                  {type: 'stop', id}
//                  {type: 'rehearse', state: ArrayBuffer, steps, max_ms}
//   Worker → page  {type: 'state', id, step, done, state: ArrayBuffer, slice_ms, rest_ms}   after
//                  every slice (slice_ms: its slices' length; rest_ms: the wait it keeps before the
//                  next slice)
//                  {type: 'failed', id, message}
//                  {type: 'rehearsed', steps, ms, ended}   ended: "steps", "time", "run" (one took
//                  over), "busy" (a run or another rehearsal had the Worker: none) or the error
//
// Between slices the Worker yields to its message queue (a MessageChannel, not setTimeout, whose
// nested calls are clamped to 4 ms), so a 'stop' or a newer 'run' is seen within one slice. With
// rest_ms > 0 (the page asks for it on machines of two cores) the next slice waits that long first,
// leaving part of the Worker's core to the page's frames; a 'stop' meanwhile ends the run.
//
// A rehearsal steps a throwaway copy of a run (slot 1 of train_worker.cpp) while nothing trains:
// the engine compiles the hot training code with its optimising tier only once that code has run
// a while, and doing it during a real run took more than a core for the run's first half second,
// beside the page's frames. A run takes over after the rehearsal's current slice (20 ms, or one
// step if that is longer). Its slices end as a run's do, encoding the state (the run does that
// after every slice too); the state goes nowhere.
(function () {
  'use strict';
  if (typeof self === 'undefined' || typeof importScripts !== 'function' || typeof AttentionLabTrainer !== 'function') return;
  var ready = AttentionLabTrainer();
  var RUN = 0, REHEARSAL = 1;  // train_worker.cpp's slots
  var REHEARSAL_SLICE_MS = 20;
  var current = null;    // the run being stepped: {id, budget, sync, rest (ms after each slice)}
  var wanted = 0;        // the run last asked for and not stopped (it may wait for the module)
  var rehearsal = null;  // {id (< 0), steps (to reach), step (reached), t0, maxMs}
  var rehearsals = 0;
  // Each yield carries its run's id (a rehearsal's: negative): a yield left over from a stopped
  // or replaced run or rehearsal starts no second chain of slices for the next one.
  var channel = new MessageChannel();
  channel.port1.onmessage = function (e) {
    if (e.data < 0) {
      if (rehearsal && rehearsal.id === e.data) ready.then(rehearse);
      return;
    }
    if (current && current.id === e.data) ready.then(slice);
  };

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
    var step = M._attn_train_slice(RUN, r.budget, r.sync);
    if (step < 0) return fail(r.id, M.UTF8ToString(M._attn_train_error()));
    var ptr = M._attn_train_data(), n = M._attn_train_size();
    var bytes = M.HEAPU8.slice(ptr, ptr + n);
    var done = M._attn_train_done(RUN) === 1;
    if (done) {
      current = null;
      if (wanted === r.id) wanted = 0;
    }
    self.postMessage({ type: 'state', id: r.id, step: step, done: done, state: bytes.buffer, slice_ms: r.budget, rest_ms: r.rest }, [bytes.buffer]);
    if (done) return;
    if (r.rest > 0) setTimeout(function () { channel.port2.postMessage(r.id); }, r.rest);
    else channel.port2.postMessage(r.id);
  }

  // The state bytes `buffer` into the module's heap for slot `slot` to begin from: '' when it
  // began, else why not (a trap in the module propagates to the caller).
  function beginOn(M, slot, buffer) {
    var bytes = new Uint8Array(buffer);
    var p = M._malloc(Math.max(1, bytes.length));
    if (!p) return 'no memory for the training state (' + bytes.length + ' bytes)';
    M.HEAPU8.set(bytes, p);
    var ok = M._attn_train_begin(slot, p, bytes.length) === 1;
    M._free(p);
    return ok ? '' : M.UTF8ToString(M._attn_train_error());
  }

  // The rehearsal ends (its runner's memory goes back) and the page hears how far it got.
  function endRehearsal(M, ended) {
    var h = rehearsal;
    rehearsal = null;
    try { M._attn_train_end(REHEARSAL); } catch (err) { /* nothing of it is kept */ }
    self.postMessage({ type: 'rehearsed', steps: h.step, ms: Math.round(performance.now() - h.t0), ended: String(ended) });
  }

  function rehearse(M) {
    var h = rehearsal;
    if (!h) return;
    if (current || wanted) return endRehearsal(M, 'run');
    var step;
    try {
      step = M._attn_train_slice(REHEARSAL, REHEARSAL_SLICE_MS, 0);
    } catch (err) {
      return endRehearsal(M, 'the training module stopped: ' + (err && err.message || err));
    }
    if (step < 0) return endRehearsal(M, M.UTF8ToString(M._attn_train_error()));
    h.step = step;
    if (step >= h.steps || M._attn_train_done(REHEARSAL) === 1) return endRehearsal(M, 'steps');
    if (performance.now() - h.t0 >= h.maxMs) return endRehearsal(M, 'time');
    channel.port2.postMessage(h.id);
  }

  function startRehearsal(d) {
    ready.then(function (M) {
      if (current || wanted || rehearsal) {  // a run has the Worker, or another rehearsal
        self.postMessage({ type: 'rehearsed', steps: 0, ms: 0, ended: 'busy' });
        return;
      }
      rehearsal = { id: -(++rehearsals), steps: Math.max(1, d.steps | 0), step: 0, t0: performance.now(), maxMs: +d.max_ms || 0 };
      var why;
      try {
        why = beginOn(M, REHEARSAL, d.state);
      } catch (err) {
        why = 'the training module stopped: ' + (err && err.message || err);
      }
      if (why) return endRehearsal(M, why);
      channel.port2.postMessage(rehearsal.id);
    }, function () { /* a run asked for will report the module's failure */ });
  }

  self.onmessage = function (e) {
    var d = e.data || {};
    if (d.type === 'stop') {
      if (current && current.id === d.id) current = null;
      if (wanted === d.id) wanted = 0;  // also a run still waiting for the module
      return;
    }
    if (d.type === 'rehearse') return startRehearsal(d);
    if (d.type !== 'run') return;
    current = null;
    wanted = d.id;
    ready.then(function (M) {
      if (wanted !== d.id) return;  // stopped or replaced while the module loaded
      if (rehearsal) endRehearsal(M, 'run');
      try {
        var why = beginOn(M, RUN, d.state);
        if (why) return fail(d.id, why);
      } catch (err) {
        return fail(d.id, 'the training module stopped: ' + (err && err.message || err));
      }
      current = { id: d.id, budget: Math.max(0, +d.budget_ms || 0), sync: d.sync_every | 0, rest: Math.max(0, +d.rest_ms || 0) };
      slice(M);
    }, function (err) { fail(d.id, 'the training module did not load: ' + (err && err.message || err)); });
  };
})();
