//! web/page/embed/prelude.js — embed.js, part 1 of 10: what the page does around the canvas, the
//! shared constants (protocol, limits, the link's short parameter names) and state. The build
//! (cmake/build_embed_js.cmake) concatenates the parts in web/CMakeLists.txt's order into the one
//! embed.js the site serves, dropping these //! lines.
// web/embed.js — Attention Lab on course pages: what the page does around the canvas.
//
// Loaded by index.html; window.attentionLabPage.start(lab) runs once attentionLab.ready
// resolves. Documented for course authors in docs/embed.md.
//   link state   the query string always describes the view (panel + every input that differs
//                from the defaults, as <panel>.<input>=value), written with history.replaceState;
//                a link reproduces the view and its numbers. Short names (sentence, seed, heads,
//                causal, ...) are accepted too. Bad or unknown parameters: a console warning,
//                the default stays. Nothing from the URL is ever inserted as HTML.
//   embed mode   ?embed=1: the panel alone (no navigation), for an iframe.
//   postMessage  a parent page can set inputs and panels and hears about changes.
//   text mirror  a visually hidden copy of the panel (tables with token headers, checks), kept
//                in step with the canvas, for screen readers; its status line is a polite live
//                region (values under the keyboard cell cursor, check results, errors).
//   exports      current heatmap as PNG (screen resolution or 2×) and CSV; all matrices as JSON.
//   input        canvas follows its box (ResizeObserver) and the pixel ratio; wheel steps
//                normalised and handed to the page when the lab cannot scroll; keys stay in the
//                lab and are released when it loses focus; Tab leaves the canvas unless a text
//                field is being edited; clipboard copy and paste; WebGL context loss.
//   touch        a vertical swipe scrolls (with momentum), a sideways drag or a held finger
//                drags what it is on; touch-sized widgets on a coarse pointer.
//   soft keys    while a field is edited, an editable element over it takes soft-keyboard and
//                input-method text (composition shown over the field).
// Everything written into the DOM goes through textContent / DOM APIs.
(function () {
  'use strict';

  const PROTOCOL = 'attention-lab';
  const PROTOCOL_VERSION = 1;
  const MAX_PARAM = 20000;           // characters of one URL parameter
  const MAX_MESSAGE = 1000000;       // characters of one postMessage payload (as JSON)
  const MIRROR_CELLS = 2500;         // larger matrices: the mirror shows their top-left 50×50
  const SYNC_MS = 250;               // at most one link update per this many ms

  // Short parameter names → the inputs they set (several panels share a sentence or seed).
  const ALIASES = {
    sentence: ['heads.sentence', 'permutation.sentence'],
    seed: ['heads.seed', 'permutation.seed'],
    heads: ['heads.heads'],
    d_model: ['heads.d_model', 'permutation.d_model'],
    d_k: ['heads.d_k'],
    causal: ['heads.causal', 'permutation.causal'],
    positions: ['heads.positions', 'permutation.positions'],
    padding: ['heads.valid_length'],
    valid_length: ['heads.valid_length'],
    permutation: ['permutation.permutation'],
    query: ['permutation.query'],
    weights: ['alignment.weights'],
    values: ['alignment.values'],
    row: ['alignment.selected_row'],
  };
  const PAGE_PARAMS = ['panel', 'embed', 'origin', 'model', 'events'];
  const MAX_MODEL_FILE = 16 * 1024 * 1024;  // bytes of a model file the page reads (app::kMaxPageModelBytes)

  let lab = null;
  let canvas = null;
  let textBox = null;         // the editable element of a field being edited (text.js)
  let releaseInput = null;    // releases every key and button (input.js), when the lab loses the keyboard
  let defaults = null;        // linkInputs() before the URL was applied
  let lastLinkText = '';      // JSON of the inputs last written to the URL
  let dirty = true;           // something may have changed since the last sync
  let busyUntil = 0;          // keep syncing until then (input reaches the lab a frame or two later)
  let lastSync = 0;
  let hostEvents = true;      // resize / answered / trained messages to the parent (?events=0: off)
  let readyPosted = false;   // attention-lab:ready went out (host events wait for it)
  let lastHeight = -1;        // the content height last posted (resize)
  let parentOrigin = null;    // from ?origin=, else learned from location.ancestorOrigins
  let embedded = false;
  let detailsOpen = false;  // link details=open: every collapsed section open
  let modelLink = null;       // the model= URL whose model is shown (models.js); the link keeps it

  const warn = function (msg) { console.warn('Attention Lab: ' + msg); };

