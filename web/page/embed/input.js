//! web/page/embed/input.js — embed.js, part 6: input glue (resize, wheel, keys, paste) and WebGL context loss.
  // --------------------------------------------------------------------- input glue
  function installInput() {
    // The canvas follows its box within a frame (an iframe resized by its page, a phone turned),
    // and the pixel ratio (zoom, another screen): SDL re-reads both on a window resize event.
    const refit = function () { window.dispatchEvent(new Event('resize')); dirty = true; };
    if (window.ResizeObserver) {
      // device-pixel-content-box also fires when only the pixel ratio changes (zoom, another
      // screen); browsers without it get the CSS box plus the resolution query below.
      const ro = new ResizeObserver(refit);
      try { ro.observe(canvas, { box: 'device-pixel-content-box' }); } catch (e) { ro.observe(canvas); }
    }
    const watchRatio = function () {
      const mq = matchMedia('(resolution: ' + (window.devicePixelRatio || 1) + 'dppx)');
      const on = function () { mq.removeEventListener('change', on); refit(); watchRatio(); };
      mq.addEventListener('change', on);
    };
    watchRatio();

    // Wheel: normalised to steps (one notch ≈ 1 whatever the browser reports), given to the lab
    // only when something under the pointer can scroll; otherwise the page scrolls on.
    window.addEventListener('wheel', function (e) {
      if (e.target !== canvas) return;
      e.stopImmediatePropagation();  // SDL's own handler counts only the sign and always blocks
      const unit = e.deltaMode === 1 ? 1 / 3 : e.deltaMode === 2 ? 5 : 1 / 100;
      const clamp = function (v) { return Math.max(-5, Math.min(5, v * unit)); };
      if (Module._attn_app_wheel(clamp(e.deltaX), clamp(e.deltaY))) e.preventDefault();
      dirty = true;
    }, { capture: true, passive: false });

    // Keys: Tab and Shift+Tab move the lab's keyboard cursor to the next or previous control in
    // reading order, and past the last (or before the first) leave the canvas (no keyboard trap);
    // while a text field is being edited ImGui's own Tab goes from field to field. Ctrl/Cmd+V
    // reaches the browser so that a paste event brings the system clipboard.
    // Until the pasted text has arrived (a paste event, or the async clipboard after a short
    // wait), later keys are held back and replayed in order: Ctrl+V then Enter commits the
    // pasted text, not the old one.
    let pasteTimer = 0, holdTimer = 0, pastePending = false;
    const heldKeys = [];
    // The lab queues a paste behind the keys it already has, so held keys can follow at once.
    const endPaste = function () {
      if (!pastePending) return;
      pastePending = false;
      clearTimeout(pasteTimer);
      clearTimeout(holdTimer);
      for (const k of heldKeys.splice(0)) canvas.dispatchEvent(new KeyboardEvent(k.type, k.init));
    };
    const holdKey = function (e) {
      // A hardware key the editable element handed over (text.js) counts as the user's own.
      if (!pastePending || e.target !== canvas || !(e.isTrusted || e.attnForwarded)) return false;
      e.stopImmediatePropagation();
      e.preventDefault();
      heldKeys.push({ type: e.type, init: { key: e.key, code: e.code, keyCode: e.keyCode, which: e.which, charCode: e.charCode,
        location: e.location, repeat: e.repeat, ctrlKey: e.ctrlKey, shiftKey: e.shiftKey, altKey: e.altKey, metaKey: e.metaKey,
        bubbles: true, cancelable: true } });
      return true;
    };
    window.addEventListener('keydown', function (e) {
      if (e.target !== canvas) return;
      dirty = true;
      if (holdKey(e)) return;
      if (e.key === 'Tab' && !e.ctrlKey && !e.altKey && !e.metaKey && !lab.inputState().want_text) {
        e.stopImmediatePropagation();  // SDL never sees it: ImGui's Tab visits text fields only
        if (Module._attn_app_tab(e.shiftKey ? -1 : 1)) e.preventDefault();
        return;
      }
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === 'v' || e.key === 'V')) {
        e.stopImmediatePropagation();
        pastePending = true;
        clearTimeout(pasteTimer);
        // Browsers without a paste event on a canvas: ask the async clipboard (permission).
        pasteTimer = setTimeout(function () {
          if (navigator.clipboard && navigator.clipboard.readText)
            navigator.clipboard.readText().then(paste, function () { warn('paste: the browser gave no clipboard text'); })
              .then(endPaste);
          else endPaste();
        }, 120);
        // Never hold keys for long, whatever the clipboard does.
        clearTimeout(holdTimer);
        holdTimer = setTimeout(endPaste, 3000);
      }
    }, true);
    for (const type of ['keyup', 'keypress']) window.addEventListener(type, holdKey, true);
    // inputState().pending_input also counts the keys held for a paste (and the paste itself).
    const inputState = lab.inputState;
    lab.inputState = function () {
      const st = inputState.apply(lab, arguments);
      if (st && typeof st === 'object') st.pending_input = (st.pending_input || 0) + heldKeys.length + (pastePending ? 1 : 0);
      return st;
    };
    const paste = function (text) {
      if (typeof text !== 'string' || !text.length) return;
      const n = Module.lengthBytesUTF8(text) + 1, p = Module._malloc(n);
      Module.stringToUTF8(text, p, n);
      Module._attn_app_paste(p);
      Module._free(p);
    };
    window.addEventListener('paste', function (e) {
      if (document.activeElement !== canvas && (!textBox || document.activeElement !== textBox)) return;
      clearTimeout(pasteTimer);
      e.preventDefault();
      paste(e.clipboardData ? e.clipboardData.getData('text/plain') : '');
      endPaste();
    }, true);
    // Keys typed in the lab do not bubble to the host page's own shortcuts.
    for (const type of ['keydown', 'keyup', 'keypress']) canvas.addEventListener(type, function (e) { e.stopPropagation(); });
    // Losing focus releases every key and button (their key-up / mouse-up go elsewhere) and hides
    // the keyboard cursor's ring (the focus is elsewhere now).
    releaseInput = function () {
      heldKeys.length = 0;  // their key-ups went elsewhere too
      Module._attn_app_release_input();
      Module._attn_app_focus_left();
      document.dispatchEvent(new MouseEvent('mouseup', { button: 0 }));
    };
    // (Not when the field's editable element takes the focus: the keys are still the lab's.)
    canvas.addEventListener('blur', function (e) { if (!textBox || e.relatedTarget !== textBox) releaseInput(); });
    // Focus from outside by the keyboard shows the cursor on the first control, or on the last
    // after Shift+Tab (when this document saw the key: a host page's Tab into the frame is not
    // seen, and enters at the first). A click, a touch (whose handlers focus the canvas
    // themselves: the cursor would take the tap's press away) or the page's own focus at load do not.
    let tabAt = -1e9, tabBack = false, pointerAt = -1e9;
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Tab') { tabAt = performance.now(); tabBack = e.shiftKey; }
    }, true);
    for (const type of ['pointerdown', 'mousedown', 'touchstart'])
      window.addEventListener(type, function () { pointerAt = performance.now(); }, { capture: true, passive: true });
    canvas.addEventListener('focus', function (e) {
      if (textBox && e.relatedTarget === textBox) return;  // back from the field being edited
      const now = performance.now();
      if (document.documentElement.classList.contains('quiet-focus') || !canvas.matches(':focus-visible') ||
          (now - pointerAt < 1000 && now - tabAt > 1000)) return;
      Module._attn_app_focus_entered(tabBack && now - tabAt < 1000 ? -1 : 1);
      dirty = true;
    });
    // Touch: focus the canvas (SDL forwards the pointer only to a focused window), unless a
    // field's editable element has it (the soft keyboard stays up while the field is edited).
    canvas.addEventListener('touchstart', function () {
      if (document.activeElement !== canvas && document.activeElement !== textBox) canvas.focus({ preventScroll: true });
    }, { capture: true, passive: true });
    for (const type of ['pointerdown', 'pointerup', 'touchend', 'keyup']) canvas.addEventListener(type, function () { dirty = true; });
    document.addEventListener('visibilitychange', function () { dirty = true; });
  }

  // --------------------------------------------------------------------- WebGL context loss
  function installContextLoss() {
    const banner = document.getElementById('gl-lost');
    let timer = 0;
    const show = function (text, reload) {
      if (!banner) return;
      banner.replaceChildren(el('span', text));
      if (reload) {
        const b = el('button', 'Reload the page', { type: 'button' });
        b.addEventListener('click', function () { location.reload(); });
        banner.append(' ', b);
      }
      banner.hidden = false;
    };
    canvas.addEventListener('webglcontextlost', function (e) {
      e.preventDefault();  // tells the browser we will rebuild: it may restore the context
      Module._attn_app_context_lost();
      show('The browser reset the graphics (WebGL context lost). Waiting for them to come back\u2026', true);
      clearTimeout(timer);
      timer = setTimeout(function () {
        show('The graphics did not come back. Reload the page to continue; your inputs are in the address.', true);
      }, 5000);
    });
    canvas.addEventListener('webglcontextrestored', function () {
      clearTimeout(timer);
      Module._attn_app_context_restored();
      if (banner) banner.hidden = true;
      say('Graphics restored.');
    });
  }

