//! web/page/embed/messages.js — embed.js, part 3: postMessage with a parent page.
  // --------------------------------------------------------------------- postMessage
  function targetOrigin() {
    if (parentOrigin) return parentOrigin;
    if (location.ancestorOrigins && location.ancestorOrigins.length) return location.ancestorOrigins[0];
    return '*';
  }

  function post(message, origin) {
    if (window.parent === window) return;
    message.version = PROTOCOL_VERSION;
    try { window.parent.postMessage(message, origin || targetOrigin()); } catch (e) { warn('postMessage failed: ' + e.message); }
  }

  // After each frame: the host events the app queued (answered, trained) and, when the content's
  // height changed, resize; each as attention-lab:<type> with version 1. ?events=0 turns them
  // off. The same objects go to this window as a CustomEvent "attention-lab" (a page that
  // loads the lab without a frame).
  function pumpHostEvents() {
    if (!lab || !readyPosted) return;  // ready comes first
    const events = lab.takeEvents();
    if (events.length) dirty = true;  // a run ended, a model came: the link and the mirror follow
    if (!hostEvents) return;
    const h = Math.ceil(canvas ? canvas.getBoundingClientRect().top + window.scrollY + lab.contentHeight() : lab.contentHeight());
    if (h > 0 && Math.abs(h - lastHeight) >= 1) {
      lastHeight = h;
      events.unshift({ type: 'resize', height: h });
    }
    for (const ev of events) {
      const message = Object.assign({}, ev, { type: PROTOCOL + ':' + ev.type });
      post(message);
      try { window.dispatchEvent(new CustomEvent(PROTOCOL, { detail: Object.assign({ version: PROTOCOL_VERSION }, message) })); } catch (err) { /* no CustomEvent */ }
    }
  }

  function onMessage(e) {
    if (window.parent === window || e.source !== window.parent) return;  // only our embedder
    if (parentOrigin && e.origin !== parentOrigin) return;
    const d = e.data;
    if (!d || typeof d !== 'object' || typeof d.type !== 'string' || d.type.indexOf(PROTOCOL + ':') !== 0) return;
    const id = typeof d.id === 'string' || typeof d.id === 'number' ? d.id : null;
    const reply = function (body) {
      body.type = PROTOCOL + ':reply';
      body.id = id;
      body.request = d.type;
      post(body, e.origin === 'null' ? '*' : e.origin);
    };
    let size = 0;
    try { size = JSON.stringify(d).length; } catch (err) { size = Infinity; }
    if (size > MAX_MESSAGE) return reply({ ok: false, error: { code: 'too_large', message: 'message larger than ' + MAX_MESSAGE + ' characters' } });
    const bad = function (msg) { reply({ ok: false, error: { code: 'invalid_message', message: msg } }); };
    switch (d.type.slice(PROTOCOL.length + 1)) {
      case 'set': {
        if (!d.patch || typeof d.patch !== 'object' || Array.isArray(d.patch)) return bad('set needs {patch: {panel?: name, <panel>: {inputs}}}');
        const r = lab.set(d.patch);
        dirty = true;
        return reply(r);
      }
      case 'show': {
        if (typeof d.panel !== 'string') return bad('show needs {panel: name}');
        const r = lab.showPanel(d.panel);
        dirty = true;
        return reply(r);
      }
      case 'embed': setEmbed(!!d.on); dirty = true; return reply({ ok: true });
      case 'get': return reply({ ok: true, inputs: lab.linkInputs(), url: currentLink() });
      case 'view': return reply({ ok: true, view: lab.view(MIRROR_CELLS) });
      case 'compute': {
        if (!d.case || (typeof d.case !== 'object' && typeof d.case !== 'string')) return bad('compute needs {case: {...}}');
        lab.compute(d.case).then(function (result) { reply({ ok: true, result: result }); });
        return;
      }
      default: return bad('unknown message type ' + JSON.stringify(d.type.slice(0, 60)));
    }
  }

