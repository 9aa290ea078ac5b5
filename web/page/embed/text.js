//! web/page/embed/text.js — embed.js, part 7: the editable element that phones' soft keyboards and
//! input methods type into while an ImGui text field is being edited.
  // --------------------------------------------------------------------- soft keyboard and IME
  // A canvas raises no soft keyboard and receives no input-method text. While ImGui edits a
  // field, a transparent <input> over its caret holds the focus: committed text (soft keyboards,
  // IMEs, dictation, dead keys) reaches the lab once through attn_app_text; a hardware key is
  // handed to the canvas exactly as if the canvas had it (its keydown, keypress and keyup), and
  // its default is prevented so the element never also inserts it.
  function installTextInput() {
    const box = el('input', '', { id: 'lab-text', type: 'text', autocomplete: 'off', autocorrect: 'off',
                                  autocapitalize: 'off', spellcheck: 'false', tabindex: '-1',
                                  'aria-label': 'Text of the field being edited' });
    box.style.cssText = 'position:fixed;left:0;top:0;width:8em;height:20px;margin:0;padding:0;border:0;' +
      'outline:none;background:transparent;color:transparent;caret-color:transparent;opacity:0;' +
      'font-size:16px;pointer-events:none;z-index:1';  // 16px: iOS zooms into smaller fields
    // The input method's text before it is committed, shown over the field.
    const preedit = el('span', '', { id: 'lab-preedit', 'aria-hidden': 'true' });
    preedit.style.cssText = 'position:fixed;left:0;top:0;display:none;white-space:pre;padding:0 2px;' +
      'background:#fff;color:#1f2328;border-bottom:2px solid #1f6fb2;font:17px sans-serif;pointer-events:none;z-index:2';
    document.body.append(box, preedit);
    textBox = box;
    let field = { active: false };
    let composing = false;
    let composed = null;  // text a compositionend just committed (Safari repeats it in an input event)

    const send = function (text) {
      if (!text) return;
      const n = Module.lengthBytesUTF8(text) + 1, p = Module._malloc(n);
      Module.stringToUTF8(text, p, n);
      Module._attn_app_text(p);
      Module._free(p);
      dirty = true;
    };
    // A key for the lab as the canvas receives it (SDL's handlers listen there; embed.js's
    // paste and Tab handling see it as one of the canvas' own).
    const toCanvas = function (type, init) {
      const ev = new KeyboardEvent(type, Object.assign({ bubbles: true, cancelable: true }, init));
      ev.attnForwarded = true;
      canvas.dispatchEvent(ev);
    };
    const keyInit = function (e) {
      return { key: e.key, code: e.code, keyCode: e.keyCode, which: e.which, charCode: e.charCode, location: e.location,
               repeat: e.repeat, ctrlKey: e.ctrlKey, shiftKey: e.shiftKey, altKey: e.altKey, metaKey: e.metaKey };
    };
    const press = function (key, code, keyCode, mods) {
      const init = Object.assign({ key: key, code: code, keyCode: keyCode, which: keyCode }, mods || {});
      toCanvas('keydown', init);
      toCanvas('keyup', init);
    };
    // The input method's keys (229, "Process", dead keys) are its own; text follows as events.
    const imeKey = function (e) {
      return composing || e.isComposing || e.keyCode === 229 || e.key === 'Process' || e.key === 'Dead' || e.key === 'Unidentified';
    };
    box.addEventListener('keydown', function (e) {
      if (imeKey(e)) return;
      composed = null;
      toCanvas('keydown', keyInit(e));
      const paste = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === 'v' || e.key === 'V');
      if (paste) return;  // the browser's paste event brings the text (embed.js's paste handler)
      e.preventDefault();
      // The keypress the browser no longer sends: SDL types printable keys from it.
      const cp = e.key.codePointAt(0);
      // (AltGr arrives as Ctrl+Alt and types; Ctrl or Cmd alone are shortcuts.)
      if ([...e.key].length === 1 && cp >= 32 && !e.metaKey && (!e.ctrlKey || e.altKey))
        toCanvas('keypress', Object.assign(keyInit(e), { charCode: cp, keyCode: cp, which: cp }));
    });
    box.addEventListener('keyup', function (e) { if (!imeKey(e)) toCanvas('keyup', keyInit(e)); });
    // Soft keyboards' edits, as the lab's own operations; the element itself stays empty.
    box.addEventListener('beforeinput', function (e) {
      const t = e.inputType || '';
      if (composing || e.isComposing || t === 'insertCompositionText') return;  // the IME owns it until it commits
      if (!e.cancelable) return;  // the input event below takes the text
      e.preventDefault();
      composed = null;
      if (t === 'insertText' || t === 'insertReplacementText') send(e.data || (e.dataTransfer && e.dataTransfer.getData('text/plain')));
      else if (t === 'deleteContentBackward') press('Backspace', 'Backspace', 8);
      else if (t === 'deleteWordBackward') press('Backspace', 'Backspace', 8, { ctrlKey: true });
      else if (t === 'deleteContentForward') press('Delete', 'Delete', 46);
      else if (t === 'deleteWordForward') press('Delete', 'Delete', 46, { ctrlKey: true });
      else if (t === 'insertLineBreak' || t === 'insertParagraph') press('Enter', 'Enter', 13);
    });
    box.addEventListener('input', function (e) {
      if (composing || e.isComposing) return;
      const t = e.inputType || '';
      if (composed !== null && (t.indexOf('Composition') >= 0 || e.data === composed)) {
        composed = null;  // the text compositionend already committed
        box.value = '';
        return;
      }
      composed = null;
      if (box.value) send(box.value);
      box.value = '';
    });
    box.addEventListener('compositionstart', function () { composing = true; composed = null; showPreedit(''); });
    box.addEventListener('compositionupdate', function (e) { showPreedit(e.data || ''); });
    box.addEventListener('compositionend', function (e) {
      composing = false;
      showPreedit('');
      composed = e.data || '';
      send(composed);
      box.value = '';
    });
    const showPreedit = function (text) {
      preedit.textContent = text;
      preedit.style.display = text ? 'block' : 'none';
    };
    // Leaving the element for anything but the canvas: as the canvas' own blur (keys released).
    box.addEventListener('blur', function (e) {
      composing = false;
      showPreedit('');
      box.value = '';
      if (e.relatedTarget !== canvas && releaseInput) releaseInput();
    });

    // After each frame: follow the field being edited (place the element, focus or blur it).
    const read = function () {
      try { return JSON.parse(Module.UTF8ToString(Module._attn_app_text_field())); } catch (e) { return { active: false }; }
    };
    const place = function (f) {
      box.style.left = Math.max(0, f.x) + 'px';
      box.style.top = Math.max(0, f.y) + 'px';
      box.style.height = Math.max(16, f.h) + 'px';
      preedit.style.left = Math.max(0, f.x) + 'px';
      preedit.style.top = Math.max(0, f.y - 2) + 'px';
      const mode = f.mode === 'text' ? 'text' : f.mode;
      if (box.inputMode !== mode) box.inputMode = mode;
      const hint = f.multiline ? 'enter' : 'done';
      if (box.enterKeyHint !== hint) box.enterKeyHint = hint;
    };
    // The soft keyboard covers the bottom of the window: scroll the field above it.
    const reveal = function (f) {
      const vv = window.visualViewport;
      if (!vv || !f.active) return;
      const bottom = Math.min(canvas.clientHeight, vv.offsetTop + vv.height) - 12;
      const over = f.y + f.h + (f.pad || 0) - bottom;  // the whole field, not just its caret
      if (over > 0) Module._attn_app_touch_scroll(f.x, f.y, over);
    };
    const update = function () {
      const was = field;
      field = read();
      const focused = document.activeElement;
      if (field.active) {
        place(field);
        if (was.id !== field.id) { box.value = ''; composed = null; }
        // Only from the canvas: a course page's own fields keep their focus.
        if (focused === canvas) box.focus({ preventScroll: true });
        if (focused === canvas || focused === box) reveal(field);
      } else if (focused === box) {
        canvas.focus({ preventScroll: true });
      }
    };
    // A tap's end is a user gesture: iOS raises its keyboard only for a focus inside one.
    canvas.addEventListener('touchend', function () {
      const f = read();
      if (f.active && document.activeElement === canvas) { place(f); box.focus({ preventScroll: true }); }
    });
    if (window.visualViewport) visualViewport.addEventListener('resize', function () { dirty = true; reveal(field); });
    const presented = Module.attnFramePresented;
    Module.attnFramePresented = function (n) { presented(n); update(); };
  }

