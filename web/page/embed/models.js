//! web/page/embed/models.js — embed.js, part 9: model files (docs/models.md): the file picker
//! and a file dropped on the canvas, a model= link, and the Export model download.
  // --------------------------------------------------------------------- models
  // A file the learner brings goes to the panel of its kind; the app reads and checks it (the
  // core's safetensors reader) and keeps the last good model when it refuses one.
  function loadModelBytes(bytes, name, panel) {
    const r = lab.loadModel(bytes, name, panel);
    dirty = true;
    if (r.ok) { toast('Loaded ' + name); say('Model ' + name + ' loaded into ' + r.panel + '.'); }
    else { say('The model file was refused: ' + r.error.message); warn('model ' + name + ': ' + r.error.message); }
    return r;
  }

  function loadModelFile(file, panel) {
    if (file.size > MAX_MODEL_FILE) {  // not read: the app refuses it by its size
      return loadModelBytes(file.size, file.name, panel);
    }
    return file.arrayBuffer().then(function (buf) { modelLink = null; return loadModelBytes(buf, file.name, panel); });
  }

  function pickModel(panel) {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = '.safetensors,application/octet-stream';
    input.style.display = 'none';
    input.addEventListener('change', function () {
      const f = input.files && input.files[0];
      input.remove();
      if (f) Promise.resolve(loadModelFile(f, panel)).catch(function (e) { warn('load: ' + e.message); });
    });
    document.body.append(input);
    input.click();
  }

  function exportModel(panel, which) {
    const r = lab.exportModel(panel, which);
    if (!r.ok) { toast('Export failed: ' + r.error.message); warn('export: ' + r.error.message); return; }
    download(new Blob([r.bytes], { type: 'application/octet-stream' }), r.name);
    toast('Saved ' + r.name);
  }

  // model=URL (relative to the page, or absolute on a host that allows it): fetched once the page
  // runs, within the page's limit; the link keeps it while that model is shown.
  function loadModelLink(url) {
    return fetch(url).then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const n = Number(r.headers.get('content-length') || 0);
      if (n > MAX_MODEL_FILE) throw new Error('the file is ' + n + ' bytes; the page reads at most ' + MAX_MODEL_FILE);
      return r.arrayBuffer();
    }).then(function (buf) {
      const r = loadModelBytes(buf, url, '');
      if (r.ok) modelLink = url;
      dirty = true;
    }).catch(function (e) {
      lab.modelFailed(url, 'could not be fetched (' + e.message + ')');
      warn('model=' + url.slice(0, 80) + ' could not be fetched: ' + e.message);
    });
  }

  function installModelDrop() {
    canvas.addEventListener('dragover', function (e) {
      if (e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types, 'Files') >= 0) e.preventDefault();
    });
    canvas.addEventListener('drop', function (e) {
      const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (!f) return;
      e.preventDefault();
      Promise.resolve(loadModelFile(f, lab.linkInputs().panel)).catch(function (err) { warn('drop: ' + err.message); });
    });
  }

  function modelAction(name) {
    const parts = name.split(':');
    if (parts[0] === 'load_model') pickModel(parts[1] || '');
    else if (parts[0] === 'export_model') exportModel(parts[1] || '', parts[2] || '');
  }
