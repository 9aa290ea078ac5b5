// web/worker/lm_worker_api.js — appended after the language-model Worker's emscripten module
// (--extern-post-js). AttentionLabLm.api(Module) gives the session's calls (node's tests use them);
// in a Worker, it answers the page's messages with them.
//
//   page → Worker  {type: 'load', id, file: Blob | ArrayBuffer | Uint8Array, config: string | null,
//                   heads: number (optional: a nanoGPT file without config.json)}
//                  {type: 'tokenizer', id, vocab: string (encoder.json), merges: string (vocab.bpe)}
//                  {type: 'run', id, request: {op: 'info' | 'unload' | 'tokenize' | 'forward' |
//                                               'generate', ...}}   (lm_session.hpp)
//   Worker → page  {type: 'reply', id, reply, ms}: reply is the session's JSON answer or
//                  {error: {code, message}}; after a forward also `weights` (Float32Array,
//                  layers × heads × t × t) and `probs` (Float32Array, vocab), transferred.
//
// A Blob (a dropped File, a fetched response's blob) is read tensor by tensor with FileReaderSync,
// so the file's bytes are never held whole in the Worker: the model's weights are held once, in the
// module's heap.
(function () {
  'use strict';
  if (typeof AttentionLabLm !== 'function') return;

  function api(M) {
    function withStrings(strings, call) {
      var ptrs = strings.map(function (s) {
        var n = M.lengthBytesUTF8(s) + 1, p = M._malloc(n);
        M.stringToUTF8(s, p, n);
        return p;
      });
      try {
        return JSON.parse(M.UTF8ToString(call.apply(null, ptrs)));
      } finally {
        ptrs.forEach(function (p) { M._free(p); });
      }
    }
    // A reader of `file` for Module.lmRead: offset, length → bytes into the heap at dst.
    function readerOf(file) {
      if (typeof Blob !== 'undefined' && file instanceof Blob) {
        var sync = new FileReaderSync();
        return { size: file.size, read: function (offset, length, dst) {
          var bytes = new Uint8Array(sync.readAsArrayBuffer(file.slice(offset, offset + length)));
          if (bytes.length !== length) throw new Error('the file ended at ' + (offset + bytes.length));
          M.HEAPU8.set(bytes, dst);
        } };
      }
      var all = file instanceof ArrayBuffer ? new Uint8Array(file) : file;
      return { size: all.length, read: function (offset, length, dst) {
        if (offset + length > all.length) throw new Error('the file ends at byte ' + all.length);
        M.HEAPU8.set(all.subarray(offset, offset + length), dst);
      } };
    }
    return {
      load: function (file, config, heads) {
        var r = readerOf(file);
        M.lmRead = r.read;
        try {
          return withStrings([config || ''], function (c) { return M._attn_lm_load(r.size, c, heads | 0); });
        } finally {
          M.lmRead = null;
        }
      },
      tokenizer: function (vocab, merges) {
        return withStrings([vocab, merges], M._attn_lm_tokenizer);
      },
      run: function (request) {
        return withStrings([JSON.stringify(request)], M._attn_lm_run);
      },
      // Copies of the last forward's figures (the heap may move or be reused).
      weights: function () {
        var p = M._attn_lm_weights() >> 2, n = M._attn_lm_weights_size();
        return M.HEAPF32.slice(p, p + n);
      },
      probs: function () {
        var p = M._attn_lm_probs() >> 2, n = M._attn_lm_probs_size();
        return M.HEAPF32.slice(p, p + n);
      },
    };
  }
  AttentionLabLm.api = api;

  if (typeof self === 'undefined' || typeof importScripts !== 'function') return;
  var ready = AttentionLabLm().then(api);
  self.onmessage = function (e) {
    var m = e.data || {};
    ready.then(function (lm) {
      var t0 = performance.now(), reply, transfer = [], extra = {};
      try {
        if (m.type === 'load') reply = lm.load(m.file, m.config, m.heads);
        else if (m.type === 'tokenizer') reply = lm.tokenizer(m.vocab, m.merges);
        else if (m.type === 'run') {
          reply = lm.run(m.request);
          if (m.request && m.request.op === 'forward' && !reply.error) {
            extra.weights = lm.weights();
            extra.probs = lm.probs();
            transfer = [extra.weights.buffer, extra.probs.buffer];
          }
        } else reply = { error: { code: 'unknown_op', message: 'the language-model Worker takes load, tokenizer and run messages' } };
      } catch (err) {
        // A trap in the module (out of memory, an abort) is the request's failure, never silence.
        reply = { error: { code: 'too_large', message: 'the language-model module stopped: ' + (err && err.message || err) } };
      }
      var out = { type: 'reply', id: m.id, reply: reply, ms: performance.now() - t0 };
      for (var k in extra) out[k] = extra[k];
      self.postMessage(out, transfer);
    });
  };
})();
