//! web/page/embed/start.js — embed.js, part 10: start() and window.attentionLabPage.
  // --------------------------------------------------------------------- start
  function start(api) {
    lab = api;
    canvas = document.getElementById('canvas');
    mirror = document.getElementById('mirror');
    mirrorBody = document.getElementById('mirror-body');
    mirrorStatus = document.getElementById('mirror-status');
    mirrorNotice = document.getElementById('mirror-notice');
    defaults = lab.linkInputs();
    // Called from inside a frame (an ImGui button): act once the frame is done, so the action
    // sees the whole frame's record and never re-enters the wasm mid-frame. (Clipboard and
    // downloads keep the click's user activation across the hop.)
    Module.attnPageAction = function (name) { setTimeout(function () { pageAction(name); }, 0); };
    Module.attnSetClipboard = function (text) { writeClipboard(text).catch(function () { warn('copy: the browser refused the clipboard'); }); };
    installInput();
    installTextInput();
    installTouch();
    installContextLoss();
    installModelDrop();
    try { applyAddress(); } catch (e) { warn('the address could not be applied: ' + e.message); }
    window.addEventListener('message', onMessage);
    window.addEventListener('popstate', function () { applyAddress(); dirty = true; });
    // After each presented frame: keep the link, the parent and the mirror in step.
    const presented = Module.attnFramePresented;
    Module.attnFramePresented = function (n) { presented(n); queueMicrotask(function () { sync(false); pumpHostEvents(); }); };
    for (const name of ['set', 'showPanel', 'setSentence', 'setSeed', 'setHeads', 'setCausal', 'setPositions', 'setPermutation']) {
      const f = lab[name];
      lab[name] = function () { dirty = true; return f.apply(lab, arguments); };
    }
    return lab.nextFrame().then(function () {
      const inputs = lab.linkInputs();
      lastLinkText = JSON.stringify(inputs);
      writeLink(inputs);
      post({ type: PROTOCOL + ':ready', panel: inputs.panel, inputs: inputs, url: currentLink() });
      readyPosted = true;
      pumpHostEvents();  // what happened before ready, after it
      dirty = false;
      lastSync = performance.now();
      updateMirror(true);
      return lab;
    });
  }

  window.attentionLabPage = {
    start: start,
    link: function () { return currentLink(); },
    sync: function () { dirty = true; sync(true); },
    exportText: function (kind) {  // for tests: the CSV / JSON text an export would download
      const v = lab.view(0);
      return kind === 'json' ? JSON.stringify(v) : heatmapCsv(activeHeatmap(v));
    },
    pageAction: pageAction,
  };
})();
