//! web/page/embed/touch.js — embed.js, part 8: touch gestures (scroll by swipe, drag by a sideways
//! move or a held finger) and touch-sized widgets.
  // --------------------------------------------------------------------- touch
  // SDL makes every touch a mouse press at once, so a swipe meant to scroll would drag the slider
  // it starts on. A touch on the canvas is held back until it is clear what it is: moving up or
  // down more than SLOP scrolls the panel (and keeps scrolling after the lift, slowing down, unless
// the reader asked for reduced motion); moving
  // sideways first, or staying put for HOLD_MS, hands the touch to SDL from where it started; a
  // lift before either is a tap (handed over whole: one tap is one click).
  function installTouch() {
    const SLOP = 10;          // CSS px a finger may wander before the gesture is decided
    const HOLD_MS = 350;      // a finger that stays this long drags what it is on
    const FRICTION_MS = 325;  // momentum's time constant (as phones' own scrolling)
    const coarse = matchMedia('(pointer: coarse)');
    // prefers-reduced-motion: reduce — a swipe scrolls while the finger moves and stops with it.
    const still = matchMedia('(prefers-reduced-motion: reduce)');
    const touchSizes = function () { Module._attn_app_touch_ui(coarse.matches ? 1 : 0); dirty = true; };
    touchSizes();
    coarse.addEventListener('change', touchSizes);

    let g = null;        // the touch being decided or followed
    let flingFrame = 0;
    const stopFling = function () { cancelAnimationFrame(flingFrame); flingFrame = 0; };
    // A touch event as SDL's handler on the canvas receives it (marked, so it passes below).
    const replay = function (type, e) {
      const ev = new TouchEvent(type, { bubbles: true, cancelable: true, touches: [...e.touches],
        targetTouches: [...e.targetTouches], changedTouches: [...e.changedTouches],
        ctrlKey: e.ctrlKey, shiftKey: e.shiftKey, altKey: e.altKey, metaKey: e.metaKey });
      ev.attnReplay = true;
      canvas.dispatchEvent(ev);
    };
    const point = function (t) {
      const r = canvas.getBoundingClientRect();
      return { x: t.clientX - r.left, y: t.clientY - r.top };
    };
    const drag = function () {
      clearTimeout(g.hold);
      g.mode = 'drag';
      replay('touchstart', g.start);
    };
    const scroll = function (x, y, dy) { dirty = true; return Module._attn_app_touch_scroll(x, y, dy); };
    const fling = function (x, y, v) {
      let last = -1;  // (rAF's time may precede performance.now() at the lift)
      const step = function (now) {
        const dt = last < 0 ? 16 : Math.max(0, Math.min(50, now - last));
        last = now;
        v *= Math.exp(-dt / FRICTION_MS);
        if (Math.abs(v) < 0.02 || !scroll(x, y, v * dt)) { flingFrame = 0; return; }
        flingFrame = requestAnimationFrame(step);
      };
      flingFrame = requestAnimationFrame(step);
    };
    const onTouch = function (e) {
      if (e.target !== canvas || e.attnReplay) return;
      e.stopImmediatePropagation();  // SDL hears it only through replay
      if (e.cancelable) e.preventDefault();
      dirty = true;
      if (e.type === 'touchstart') {
        stopFling();
        if (!g) {
          const p = point(e.changedTouches[0]);
          g = { id: e.changedTouches[0].identifier, start: e, mode: 'wait', x0: p.x, y0: p.y, x: p.x, y: p.y,
                t: e.timeStamp, v: 0, hold: 0 };
          g.hold = setTimeout(function () { if (g && g.mode === 'wait') drag(); }, HOLD_MS);
        } else if (g.mode === 'wait') {
          drag();  // a second finger: the touches are SDL's
          replay('touchstart', e);
        } else if (g.mode === 'drag') {
          replay('touchstart', e);
        }
        return;
      }
      if (!g) return;
      // (One finger: its touch, whatever its identifier; some sources renumber it.)
      const t = [...e.changedTouches].find(function (c) { return c.identifier === g.id; }) ||
                (e.touches.length <= 1 ? e.changedTouches[0] : null);
      if (e.type === 'touchmove') {
        if (g.mode === 'wait' && t) {
          const p = point(t);
          const dx = p.x - g.x0, dy = p.y - g.y0;
          if (Math.max(Math.abs(dx), Math.abs(dy)) <= SLOP) return;
          if (Math.abs(dy) > Math.abs(dx)) {
            clearTimeout(g.hold);
            g.mode = 'scroll';
          } else {
            drag();
          }
        }
        if (g.mode === 'drag') replay('touchmove', e);
        else if (g.mode === 'scroll' && t) {
          const p = point(t);
          const dy = g.y - p.y, dt = Math.max(1, e.timeStamp - g.t);
          scroll(g.x0, g.y0, dy);
          g.v = 0.7 * (dy / dt) + 0.3 * g.v;  // px per ms, smoothed over the last moves
          g.gap = g.gap ? 0.7 * dt + 0.3 * g.gap : dt;  // the usual time between moves
          g.x = p.x; g.y = p.y; g.t = e.timeStamp;
        }
        return;
      }
      // touchend / touchcancel
      if (g.mode === 'wait') {
        clearTimeout(g.hold);
        if (e.type === 'touchend') { replay('touchstart', g.start); replay('touchend', e); }
      } else if (g.mode === 'drag') {
        replay(e.type, e);
      } else if (g.mode === 'scroll' && e.type === 'touchend' && !still.matches && Math.abs(g.v) > 0.1 &&
                 e.timeStamp - g.t < Math.max(100, 2 * g.gap)) {  // still moving when it lifted
        fling(g.x0, g.y0, g.v);
      }
      if (!e.touches.length) g = null;
    };
    for (const type of ['touchstart', 'touchmove', 'touchend', 'touchcancel'])
      window.addEventListener(type, onTouch, { capture: true, passive: false });
  }

