//! web/page/embed/link.js — embed.js, part 2: the link state (URL → inputs, inputs → URL, embed mode).
  // --------------------------------------------------------------------- URL → inputs
  function readParams() {
    const out = [];
    const add = function (text) {
      let params;
      try { params = new URLSearchParams(text); } catch (e) { warn('the address could not be read (' + e.message + ')'); return; }
      params.forEach(function (value, key) { out.push([key, value]); });
    };
    if (location.hash.length > 1 && location.hash.indexOf('=') >= 0) add(location.hash.slice(1));
    add(location.search);
    return out;
  }

  function typeOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    return typeof v;
  }

  function validNested(v, depth) {
    if (typeof v === 'number') return Number.isFinite(v);
    if (typeof v === 'boolean') return true;
    if (Array.isArray(v)) {
      if (depth > 2 || v.length > 4096) return false;
      return v.every(function (x) { return validNested(x, depth + 1); });
    }
    return false;
  }

  // The text of a parameter as the value of an input whose default is `def`; undefined if unusable.
  function parseValue(text, def, name) {
    if (text.length > MAX_PARAM) { warn(name + ' is longer than ' + MAX_PARAM + ' characters; ignored'); return undefined; }
    const t = typeOf(def);
    if (t === 'string') return text;
    if (t === 'boolean') {
      if (/^(1|true|on|yes)$/i.test(text)) return true;
      if (/^(0|false|off|no)$/i.test(text)) return false;
      warn(name + ' must be true or false, got "' + text.slice(0, 40) + '"; ignored');
      return undefined;
    }
    if (t === 'number' || t === 'null') {
      if (t === 'null' && /^(|null|none|off)$/i.test(text)) return null;
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text.trim())) {
        warn(name + ' must be a number, got "' + text.slice(0, 40) + '"; ignored');
        return undefined;
      }
      const n = Number(text);
      if (!Number.isFinite(n)) { warn(name + ' is not a finite number; ignored'); return undefined; }
      return n;
    }
    if (t === 'array') {
      let v;
      try { v = JSON.parse(text); } catch (e) {
        // A permutation may be written "2 0 5 1 4 3" or "2,0,5,1,4,3".
        if (/^[\d\s,()[\]-]+$/.test(text)) v = text.split(/[\s,()[\]]+/).filter(Boolean).map(Number);
      }
      if (!Array.isArray(v) || !validNested(v, 1)) {
        warn(name + ' must be a JSON array of numbers (or booleans), got "' + text.slice(0, 40) + '"; ignored');
        return undefined;
      }
      return v;
    }
    warn(name + ' cannot be set from a link; ignored');
    return undefined;
  }

  // {panel, embed, origin, patches: {panel: {key: value}}} from the address.
  function paramsToPatches(pairs) {
    const out = { panel: null, embed: false, details: null, origin: null, model: null, events: null, patches: {} };
    for (const [key, value] of pairs) {
      if (key === 'panel') { out.panel = value; continue; }
      if (key === 'embed') { out.embed = /^(1|true|yes|on|)$/i.test(value); continue; }
      if (key === 'origin') { out.origin = value; continue; }
      if (key === 'details') {
        if (/^(open|closed)$/i.test(value)) out.details = /^open$/i.test(value);
        else warn('details must be open or closed, got "' + value.slice(0, 40) + '"; ignored');
        continue;
      }
      if (key === 'model') { out.model = value; continue; }
      if (key === 'events') { out.events = !/^(0|false|no|off)$/i.test(value); continue; }
      let targets = ALIASES[key];
      if (!targets) {
        const dot = key.indexOf('.');
        if (dot > 0) targets = [key];
      }
      if (!targets) { warn('unknown parameter "' + key.slice(0, 60) + '" ignored'); continue; }
      for (const target of targets) {
        const dot = target.indexOf('.');
        const panel = target.slice(0, dot), input = target.slice(dot + 1);
        const panelDefaults = defaults[panel];
        if (!panelDefaults || typeof panelDefaults !== 'object' || !Object.prototype.hasOwnProperty.call(panelDefaults, input)) {
          warn('unknown parameter "' + key.slice(0, 60) + '" ignored');
          continue;
        }
        const v = parseValue(value, panelDefaults[input], key);
        if (v === undefined) continue;
        (out.patches[panel] = out.patches[panel] || {})[input] = v;
      }
    }
    return out;
  }

  // Apply patches panel by panel; a rejected one is retried input by input so the good ones
  // stay. The panel's error box is cleared afterwards: a bad link falls back to the default.
  function applyPatches(patches) {
    for (const panel of Object.keys(patches)) {
      const patch = {};
      patch[panel] = patches[panel];
      const reply = lab.set(patch);
      if (reply.ok) continue;
      let failed = false;
      for (const input of Object.keys(patches[panel])) {
        const one = {};
        one[panel] = {};
        one[panel][input] = patches[panel][input];
        const r = lab.set(one);
        if (!r.ok) {
          failed = true;
          warn('parameter ' + panel + '.' + input + ' rejected (' + r.error.code + ': ' + r.error.message + '); the default stays');
        }
      }
      if (failed) {
        // Recompute from the inputs now shown: clears the panel's error message.
        const now = lab.linkInputs()[panel];
        if (now) { const again = {}; again[panel] = now; lab.set(again); }
      }
    }
  }

  function applyAddress() {
    const p = paramsToPatches(readParams());
    if (p.origin !== null) {
      try {
        const o = new URL(p.origin);
        if ((o.protocol === 'https:' || o.protocol === 'http:') && o.origin === p.origin.replace(/\/$/, '')) parentOrigin = o.origin;
        else warn('origin must be like https://example.org; ignored');
      } catch (e) { warn('origin must be like https://example.org; ignored'); }
    }
    applyPatches(p.patches);
    if (p.panel !== null) {
      const r = lab.showPanel(p.panel);
      if (!r.ok) warn('unknown panel "' + p.panel.slice(0, 40) + '"; showing ' + lab.linkInputs().panel);
    }
    if (p.embed) setEmbed(true);
    if (p.details !== null) { detailsOpen = p.details; lab.setDetailsOpen(detailsOpen); }
    if (p.events !== null) hostEvents = p.events;
    if (p.model !== null && p.model !== modelLink) {
      if (p.model.length > MAX_PARAM) warn('model is longer than ' + MAX_PARAM + ' characters; ignored');
      else loadModelLink(p.model);
    }
  }

  function setEmbed(on) {
    embedded = !!on;
    lab.setEmbed(embedded);
    document.documentElement.classList.toggle('embed', embedded);
  }

  // --------------------------------------------------------------------- inputs → URL
  function encodeValue(v) { return typeof v === 'string' ? v : JSON.stringify(v); }

  function linkQuery(inputs) {
    const q = new URLSearchParams();
    q.set('panel', inputs.panel);
    if (embedded) q.set('embed', '1');
    if (detailsOpen) q.set('details', 'open');
    if (parentOrigin) q.set('origin', parentOrigin);
    if (!hostEvents) q.set('events', '0');
    // A model from a link stays in the link while it is the one shown.
    if (modelLink && inputs.models && Object.values(inputs.models).indexOf(modelLink) >= 0) q.set('model', modelLink);
    for (const panel of Object.keys(inputs)) {
      if (panel === 'panel' || panel === 'models' || !defaults[panel]) continue;
      const now = inputs[panel], def = defaults[panel];
      for (const key of Object.keys(now)) {
        if (JSON.stringify(now[key]) === JSON.stringify(def[key])) continue;
        q.set(panel + '.' + key, encodeValue(now[key]));
      }
    }
    return q.toString();
  }

  function currentLink(opts) {
    const inputs = lab.linkInputs();
    const url = new URL(location.href);
    url.search = linkQuery(inputs);
    if (opts && opts.full) url.searchParams.delete('embed');
    url.hash = '';
    return url.toString();
  }

  function sync(force) {
    if (!lab) return;
    const now = performance.now();
    if (dirty) { busyUntil = now + 1000; dirty = false; }
    // Within a second of an input or event, and while the panel shown has work under way.
    if (!force && (now - lastSync < SYNC_MS || (now > busyUntil + SYNC_MS && !mirrorWatching))) return;
    lastSync = now;
    // Past the input window only the mirror watches the panel's work: the link cannot have changed.
    if (force || now <= busyUntil + SYNC_MS) syncLink();
    updateMirror(force);
  }

  function syncLink() {
    const inputs = lab.linkInputs();
    const text = JSON.stringify(inputs);
    if (text !== lastLinkText) {
      lastLinkText = text;
      writeLink(inputs);
      post({ type: PROTOCOL + ':state', panel: inputs.panel, inputs: inputs, url: currentLink() });
    }
  }

  function writeLink(inputs) {
    const query = '?' + linkQuery(inputs);
    if (query === location.search) return;
    try { history.replaceState(history.state, '', query + location.hash); } catch (e) { /* sandboxed: no history */ }
  }

