// Browser test of models from files (docs/models.md) on the Learned heads panel: the shipped run
// exported by the page is byte for byte what `attn export` writes natively; a decoder brought
// through the file picker and through a model= link is measured by the page — its head maps on the
// display sequence equal, bit for bit, the attention weights the native `attn` computes from the
// same file (model_logits) — and trains further here; hostile files (not safetensors, a NaN weight,
// over the page's 16 MiB) are refused with a message naming what is wrong while the model shown
// and the panel keep working. The Translate panel exports both its models as `attn export` does, and
// shows a seq2seq model over other vocabularies with tokens as numbers, its alignment the native one.
// Needs the native build's attn (ATTN_NATIVE_ATTN, default build/native/core/attn; scripts/test.sh
// builds it first). Screenshots: test-artifacts/e2e-models-*.png.
// A decoder over training's parameter limit is measured across frames, its progress on show.
// Run: node --test tests/e2e/models.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, repoRoot, scrolledScreenshots, siteDir, sleep, trainingPanel, waitCheckpoint } from './lib.mjs';

const attn = process.env.ATTN_NATIVE_ATTN || path.join(repoRoot, 'build', 'native', 'core', 'attn');
if (!fs.existsSync(attn)) throw new Error(`no native attn at ${attn}: build the native preset first (scripts/test.sh does)`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-models-'));
const fixtures = path.join(repoRoot, 'tests', 'reference', 'safetensors');

// The native tool's export of a shipped checkpoint.
function nativeExport(ckpt, which) {
  const out = path.join(tmp, `${path.basename(ckpt, '.ckpt')}-${which || 'first'}.safetensors`);
  execFileSync(attn, ['export', path.join(repoRoot, 'checkpoints', ckpt), out, ...(which ? ['--model', which] : [])]);
  return fs.readFileSync(out);
}
// The native attention weights of one sequence: weights[layer][head] = T×T.
function nativeWeights(file, tokens) {
  const r = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_logits', model: file, tokens: [tokens] }) }).toString());
  if (r.error) throw new Error(JSON.stringify(r.error));
  return r.weights.map((layer) => layer[0]);
}

// A model= link needs the file beside the page: a folder of the built site, removed afterwards.
const served = path.join(siteDir(), 'test-models');
fs.mkdirSync(served, { recursive: true });
const rope = 'decoder-rope-mlp-ln-f64.safetensors';
fs.copyFileSync(path.join(fixtures, rope), path.join(served, rope));

const site = await labSite();
const { artifacts } = site;
process.on('exit', () => fs.rmSync(served, { recursive: true, force: true }));

const api = (page) => trainingPanel(page, 'learned_heads', { timeoutMs: 120000, pollMs: 200 });
const exported = (page, panel, which) => page.evaluate(([p, w]) => {
  const r = window.attentionLab.exportModel(p, w);
  return r.ok ? { ok: true, name: r.name, bytes: Array.from(r.bytes) } : r;
}, [panel, which]);

// The page's maps of the shown snapshot, from view(): name "... L<l> H<h>" → values.
async function pageMaps(page) {
  await frames(page, 3);
  const v = await page.evaluate(() => window.attentionLab.view(0));
  const maps = {};
  for (const h of v.heatmaps) {
    const m = /L(\d+) H(\d+)$/.exec(h.name);
    if (m && !/step 0|initial/i.test(h.name)) maps[`${m[1]}.${m[2]}`] = maps[`${m[1]}.${m[2]}`] || h.values;
  }
  return maps;
}

function sameMaps(maps, weights, what) {
  let n = 0;
  weights.forEach((layer, l) => layer.forEach((w, h) => {
    const got = maps[`${l + 1}.${h + 1}`];
    assert.ok(got, `${what}: the page shows L${l + 1} H${h + 1}`);
    for (let q = 0; q < w.length; ++q)
      for (let k = 0; k <= q; ++k) {
        assert.equal(got[q][k], w[q][k], `${what}: L${l + 1} H${h + 1} weight (${q}, ${k})`);
        ++n;
      }
  }));
  return n;
}

test('models: the page exports the shipped runs as attn export does', () => site.check('?panel=learned_heads', async ({ page }) => {
  assert.equal((await waitCheckpoint(page, 'learned_heads')).status, 'installed');
  const e = await exported(page, 'learned_heads', '');
  assert.equal(e.ok, true, JSON.stringify(e));
  assert.ok(Buffer.from(e.bytes).equals(nativeExport('learned_heads.ckpt')), 'Learned heads: the page\'s bytes are attn export\'s');
  assert.match(e.name, /\.safetensors$/);

  await page.evaluate(() => window.attentionLab.showPanel('translate'));
  assert.equal((await waitCheckpoint(page, 'translate', 60000)).status, 'installed');
  for (const which of ['additive', 'none']) {
    const t = await exported(page, 'translate', which);
    assert.equal(t.ok, true, JSON.stringify(t));
    assert.ok(Buffer.from(t.bytes).equals(nativeExport('translate.ckpt', which)), `Translate ${which}: attn export's bytes`);
  }
  const bad = await page.evaluate(() => window.attentionLab.exportModel('translate', 'both'));
  assert.equal(bad.ok, false);
  assert.match(bad.error.message, /none.*additive/);

  // A seq2seq file over the lesson's vocabularies takes its kind's place in the pair: the shipped
  // fixed summary, exported and loaded back, scores the shipped figures.
  const shipped = await page.evaluate(() => window.attentionLab.state().translate);
  const none = nativeExport('translate.ckpt', 'none');
  let r = await page.evaluate(([d]) => window.attentionLab.loadModel(new Uint8Array(d), 'summary.safetensors'), [Array.from(none)]);
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.panel, 'translate');
  let t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(t.source, 'file');
  assert.match(t.model.config, /fixed summary/);
  assert.deepEqual(t.accuracy.buckets.map((b) => b.none), shipped.accuracy.buckets.map((b) => b.none),
                   'the loaded fixed summary scores the shipped one\'s figures');
  assert.match(t.model.config, /bidirectional encoder/);
  // The loaded model keeps its own shape whatever the inputs say: with the forward encoder picked
  // for the lab's model, the loaded one still exports as the bidirectional file it came from.
  const loadedHash = t.model.params_fnv1a;
  r = await page.evaluate(() => window.attentionLab.set({ translate: { encoder: 'forward' } }));
  assert.equal(r.ok, true, JSON.stringify(r));
  const kept = await exported(page, 'translate', 'none');
  assert.equal(kept.ok, true, JSON.stringify(kept));
  r = await page.evaluate(([d]) => window.attentionLab.loadModel(new Uint8Array(d), 'kept.safetensors'), [kept.bytes]);
  assert.equal(r.ok, true, JSON.stringify(r));
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(t.model.params_fnv1a, loadedHash, 'the loaded model, exported at other inputs, loads back to its bits');
  assert.match(t.model.config, /bidirectional encoder/);
  r = await page.evaluate(() => window.attentionLab.set({ translate: { encoder: 'bidirectional' } }));
  assert.equal(r.ok, true, JSON.stringify(r));
  // torch's tiny fixture has other vocabularies: shown instead of the pair, tokens as numbers,
  // its alignment the native model_logits' to the bit; what needs the lesson's words is listed.
  const tinyFile = path.join(fixtures, 'seq2seq-additive-f64.safetensors');
  const tiny = fs.readFileSync(tinyFile);
  r = await page.evaluate(([d]) => window.attentionLab.loadModel(new Uint8Array(d), 'tiny.safetensors'), [Array.from(tiny)]);
  assert.equal(r.ok, true, JSON.stringify(r));
  assert.equal(r.panel, 'translate');
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(t.model.name, 'tiny.safetensors');
  assert.equal(t.accuracy, null, 'the pair\'s accuracy is not shown for a model over other vocabularies');
  assert.ok(t.tokens, 'the token analysis is on show');
  assert.deepEqual(t.tokens.source, [3, 4, 5, 3]);
  assert.ok(t.tokens.needs_lesson_words.some((w) => /accuracy by sentence length/.test(w)));
  assert.ok(t.tokens.needs_lesson_words.some((w) => /training/.test(w)));
  assert.equal(t.tokens.removals.length, 4);
  assert.ok(t.tokens.checks.every((c) => c.pass), JSON.stringify(t.tokens.checks));
  const nativeTokens = (source, target) => {
    const out = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_logits', model: tinyFile,
      source: [source], target_in: [[1, ...target]] }) }).toString());
    if (out.error) throw new Error(JSON.stringify(out.error));
    return out.alignment[0];
  };
  assert.deepEqual(t.tokens.alignment.weights, nativeTokens(t.tokens.source, t.tokens.target), 'the page\'s alignment is the native one, bit for bit');
  r = await page.evaluate(() => window.attentionLab.set({ translate: { tokens: { source: [4, 4, 5, 3], target: [4, 3] } } }));
  assert.equal(r.ok, true, JSON.stringify(r));
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(t.tokens.target_given, true);
  assert.deepEqual(t.tokens.alignment.weights, nativeTokens([4, 4, 5, 3], [4, 3]));
  assert.deepEqual(t.tokens.alignment.rows, ['4', '3', 'EOS']);
  // Bad ids and Train are refused by name; the last good inputs stay.
  r = await page.evaluate(() => window.attentionLab.set({ translate: { tokens: { source: [9] } } }));
  assert.equal(r.ok, false);
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.match(t.error.message, /source\[0\] = 9/);
  assert.deepEqual(t.tokens.source, [4, 4, 5, 3], 'the last good source stays');
  await page.evaluate(() => window.attentionLab.set({ translate: { train: true } }));
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.match(t.error.message, /Train needs the lesson's sentence pairs/);
  assert.equal(t.running, false);
  // Its export loads back to the same parameters.
  const ex = await exported(page, 'translate', '');
  assert.equal(ex.ok, true, JSON.stringify(ex));
  r = await page.evaluate(([d]) => window.attentionLab.loadModel(new Uint8Array(d), 'again.safetensors'), [ex.bytes]);
  assert.equal(r.ok, true, JSON.stringify(r));
  const again = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(again.model.params_fnv1a, t.model.params_fnv1a, 'export then load: the same parameters');
  await scrolledScreenshots(page, artifacts, 'e2e-models-translate-tokens', 2);
  // A hostile file is refused with its message; the model shown stays.
  r = await page.evaluate(() => window.attentionLab.loadModel(new Uint8Array([1, 2, 3]), 'junk.safetensors', 'translate'));
  assert.equal(r.ok, false);
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(t.model.name, 'again.safetensors', 'the last good model stays');
  assert.ok(t.tokens);
  r = await page.evaluate(() => window.attentionLab.set({ translate: { model: null } }));
  assert.equal(r.ok, true);
  t = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(t.model, null);
  assert.equal(t.tokens, undefined, 'back to the lab\'s pair');
  assert.ok(t.accuracy, 'the pair\'s accuracy is back');
}));

test('models: a decoder through the file picker is measured as natively, trains here, and hostile files leave it working', async () => {
  const lab = await site.open('?panel=learned_heads');
  const { page, context, problems } = lab;
  assert.equal((await waitCheckpoint(page, 'learned_heads')).status, 'installed');
  const h = api(page);
  const shipped = await h.state();

  // The Load a model... button's page action opens the file picker.
  const file = path.join(fixtures, 'decoder-learned-f64.safetensors');
  const chooser = page.waitForEvent('filechooser');
  await page.evaluate(() => window.attentionLabPage.pageAction('load_model:learned_heads'));
  await (await chooser).setFiles(file);
  let s;
  for (let i = 0; i < 100; ++i) {
    s = await h.state();
    if (s.model) break;
    await sleep(100);
  }
  assert.equal(s.error, null, JSON.stringify(s.error));
  assert.equal(s.source, 'file');
  assert.equal(s.model.name, 'decoder-learned-f64.safetensors');
  assert.equal(s.model.bytes, fs.statSync(file).size);
  const info = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_info', model: file }) }).toString());
  assert.match(s.model.config, new RegExp(`vocab ${info.config.vocab}, context ${info.config.context}`));
  assert.equal(s.model.params_fnv1a, info.params_fnv1a, 'the parameters as the native reader reads them');
  assert.equal(s.params_fnv1a, info.params_fnv1a);
  assert.equal(s.step, 0);
  assert.ok(info.config.context < 32);
  assert.equal(s.sequence.length, info.config.context, 'the task shrank to the model\'s context');
  const cells = sameMaps(await pageMaps(page), nativeWeights(file, s.sequence), 'file picker');
  assert.ok(cells >= 2 * 2 * 15, `${cells} weights compared`);
  assert.equal(s.interventions.step, 0, 'ablation and patching ran on the loaded model');
  assert.equal(s.interventions.heads.length, 4);
  assert.ok(s.decoding.max_logit_diff < 1e-12, 'K/V-cache decoding of the loaded model');
  await scrolledScreenshots(page, artifacts, 'e2e-models-loaded-1280', 2);

  // Hostile files: each refused by name, the loaded model and its figures kept.
  const hostile = [
    ['not-safetensors.bin', Array.from(Buffer.from('PK\u0003\u0004 this is a zip, not a model')), /header|shorter|length/],
    ['huge.safetensors', 17 * 1024 * 1024, /16777216/],
  ];
  // A NaN weight: the fixture with its first F64 value overwritten.
  const bytes = fs.readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const nan = Buffer.from(bytes);
  nan.writeDoubleLE(NaN, 8 + n);
  hostile.push(['nan.safetensors', Array.from(nan), /non.finite|NaN/i]);
  for (const [name, data, why] of hostile) {
    const r = await page.evaluate(([d, nm]) => window.attentionLab.loadModel(typeof d === 'number' ? d : new Uint8Array(d), nm, 'learned_heads'), [data, name]);
    assert.equal(r.ok, false, name);
    assert.match(r.error.message, why, `${name}: ${r.error.message}`);
    const after = await h.state();
    assert.equal(after.model.name, 'decoder-learned-f64.safetensors', `${name}: the last good model stays`);
    assert.equal(after.params_fnv1a, info.params_fnv1a);
    assert.match(after.model_message, new RegExp(name.replace('.', '\\.')));
    assert.match(after.error.message, /stayed/);
  }
  assert.equal((await page.evaluate(() => window.attentionLab.state().panel)), 'learned_heads');

  // Train continues from the loaded model; Reset goes back to it.
  let r = await h.set({ steps: 6, train: true });
  assert.equal(r.ok, true, JSON.stringify(r));
  for (let i = 0; i < 200 && (await h.state()).status !== 'done'; ++i) await sleep(100);
  s = await h.state();
  assert.equal(s.status, 'done');
  assert.equal(s.source, 'file, trained here');
  assert.equal(s.step, 6);
  assert.notEqual(s.params_fnv1a, info.params_fnv1a, 'Adam moved the loaded weights');
  const trained = await exported(page, 'learned_heads', '');
  const out = path.join(tmp, 'trained.safetensors');
  fs.writeFileSync(out, Buffer.from(trained.bytes));
  const back = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_info', model: out }) }).toString());
  assert.equal(back.params_fnv1a, s.params_fnv1a, 'the export reads back natively as the trained parameters');
  r = await h.set({ reset: true });
  assert.equal((await h.state()).params_fnv1a, info.params_fnv1a, 'Reset: back to the file\'s weights');

  // Back to the lab's model: the default run at step 0.
  r = await h.set({ model: null });
  assert.equal(r.ok, true, JSON.stringify(r));
  s = await h.state();
  assert.equal(s.model, null);
  assert.equal(s.source, 'untrained');
  assert.equal(s.latest.scores.length, shipped.latest.scores.length);
  assert.deepEqual(problems.filter((p) => !/model .* refused|could not/.test(p)), []);
  await context.close();
});

test('models: a model= link loads a course page\'s own model, and keeps it in the link', async () => {
  const lab = await site.open(`?model=test-models/${rope}`);
  const { page, context, problems } = lab;
  const h = api(page);
  let s;
  for (let i = 0; i < 150; ++i) {
    s = await h.state();
    if (s.model || s.model_message) break;
    await sleep(100);
  }
  assert.equal(s.error, null, JSON.stringify(s.error));
  assert.equal(s.model.name, `test-models/${rope}`);
  assert.equal((await page.evaluate(() => window.attentionLab.state().panel)), 'learned_heads', 'the panel of its kind opened');
  const ropeInfo = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_info', model: path.join(fixtures, rope) }) }).toString());
  assert.equal(s.sequence.length, Math.min(32, ropeInfo.config.context), 'the task fits the model\'s context');
  sameMaps(await pageMaps(page), nativeWeights(path.join(fixtures, rope), s.sequence), 'model= link');
  await frames(page, 4);
  const link = await page.evaluate(() => window.attentionLabPage.link());
  assert.match(link, new RegExp(`model=test-models%2F${rope.replace(/\./g, '\\.')}`));
  await scrolledScreenshots(page, artifacts, 'e2e-models-link-1280', 1);

  // A link to nothing: the message names it, the page stays usable.
  const missing = await site.open('?panel=learned_heads&model=test-models/missing.safetensors');
  for (let i = 0; i < 100; ++i) {
    s = await missing.page.evaluate(() => window.attentionLab.state().learned_heads);
    if (s.model_message) break;
    await sleep(100);
  }
  assert.match(s.model_message, /missing\.safetensors.*404/);
  assert.equal(s.model, null);
  await missing.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

// A safetensors decoder written here (docs/models.md's names), F64 weights from a fixed LCG:
// V 16, context 32, d_model 128, 4 heads, 2 layers, MLP 256 = 271,104 parameters, over training's
// 262,144, so the page measures it in slices.
function bigDecoder(file) {
  const V = 16, T = 32, d = 128, mlp = 256, layers = 2;
  const shapes = [['embed.weight', [V, d]], ['pos.weight', [T, d]]];
  for (let l = 0; l < layers; ++l)
    shapes.push([`layers.${l}.attn.in_proj_weight`, [3 * d, d]], [`layers.${l}.attn.out_proj.weight`, [d, d]],
      [`layers.${l}.mlp.0.weight`, [mlp, d]], [`layers.${l}.mlp.0.bias`, [mlp]],
      [`layers.${l}.mlp.2.weight`, [d, mlp]], [`layers.${l}.mlp.2.bias`, [d]]);
  shapes.push(['unembed.weight', [V, d]]);
  writeSafetensors(file, { kind: 'decoder', heads: '4' }, shapes, 12345, 0.2);
}

// A safetensors file of F64 tensors (name, shape) in that order, uniform in ±scale/2 from a fixed LCG.
function writeSafetensors(file, metadata, shapes, seed, scale) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, shape] of shapes) {
    const bytes = 8 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F64', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const data = Buffer.alloc(offset);
  let x = seed;
  for (let i = 0; i < offset / 8; ++i) {
    x = (x * 1103515245 + 12345) % 2147483648;
    data.writeDoubleLE((x / 2147483648 - 0.5) * scale, 8 * i);
  }
  const n = Buffer.alloc(8);
  n.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([n, json, data]));
}

test('models: a decoder over training\'s parameter limit is measured in slices, with progress', async () => {
  const file = path.join(tmp, 'decoder-271k.safetensors');
  bigDecoder(file);
  const info = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_info', model: file }) }).toString());
  assert.equal(info.params, 271104);
  const lab = await site.open('?panel=learned_heads');
  const { page, context, problems } = lab;
  assert.equal((await waitCheckpoint(page, 'learned_heads')).status, 'installed');
  const h = api(page);
  const chooser = page.waitForEvent('filechooser');
  await page.evaluate(() => window.attentionLabPage.pageAction('load_model:learned_heads'));
  await (await chooser).setFiles(file);
  const seen = new Set();
  let s, total = 0;
  for (let i = 0; i < 1200; ++i) {
    s = await h.state();
    if (s.interventions_progress) {
      seen.add(s.interventions_progress.units_done);
      total = s.interventions_progress.units_total;
      assert.equal(s.interventions, null, 'no half-measured figures on show');
    }
    if (s.model && s.interventions) break;
    await sleep(50);
  }
  assert.equal(s.error, null, JSON.stringify(s.error));
  assert.equal(s.model.params_fnv1a, info.params_fnv1a);
  assert.equal(total, 3 * 8 + 2 + 3 + 32 / 4, 'one unit per pass: clean run, 8 zero and 8 mean ablations, corrupted run, 8 patches; ' +
               'decoding in parts: teacher-forced and cached, dependency, 4 of the 32 held-out sequences a unit, edits');
  assert.ok(seen.size >= 3, `progress seen between frames: ${[...seen].join(', ')}`);
  assert.equal(s.interventions_progress, undefined, 'gone once measured');
  assert.equal(s.interventions.step, 0);
  assert.equal(s.interventions.heads.length, 8);
  assert.ok(s.decoding.max_logit_diff < 1e-12, 'K/V-cache decoding of the big model');
  assert.deepEqual(problems.filter((p) => !/model .* refused|could not/.test(p)), []);
  await context.close();
});

// A seq2seq model over the lesson's vocabularies (28 English, 37 French ids), written here as
// bigDecoder is: E 32, H 160, A 32, additive attention = 287,301 parameters, over training's
// 262,144, so the Translate panel scores it on the test set in slices.
function bigSeq2seq(file) {
  const Vs = 28, Vt = 37, E = 32, H = 160, A = 32;
  const shapes = [['src_embed.weight', [Vs, E]], ['tgt_embed.weight', [Vt, E]],
    ['encoder.weight_ih_l0', [3 * H, E]], ['encoder.weight_hh_l0', [3 * H, H]], ['encoder.bias_ih_l0', [3 * H]],
    ['encoder.bias_hh_l0', [3 * H]], ['decoder.weight_ih', [3 * H, E + H]], ['decoder.weight_hh', [3 * H, H]],
    ['decoder.bias_ih', [3 * H]], ['decoder.bias_hh', [3 * H]], ['attn.w_s.weight', [A, H]], ['attn.w_h.weight', [A, H]],
    ['attn.w_h.bias', [A]], ['attn.v.weight', [1, A]], ['out.weight', [Vt, 2 * H]], ['out.bias', [Vt]]];
  writeSafetensors(file, { kind: 'seq2seq', attention: 'additive' }, shapes, 54321, 0.3);
}

test('models: a translator over training\'s parameter limit is scored on the test set in slices, with progress', async () => {
  const file = path.join(tmp, 'seq2seq-287k.safetensors');
  bigSeq2seq(file);
  const info = JSON.parse(execFileSync(attn, ['run', '-'], { input: JSON.stringify({ op: 'model_info', model: file }) }).toString());
  assert.equal(info.params, 287301);
  const lab = await site.open('?panel=translate');
  const { page, context, problems } = lab;
  assert.equal((await waitCheckpoint(page, 'translate')).status, 'installed');
  const chooser = page.waitForEvent('filechooser');
  await page.evaluate(() => window.attentionLabPage.pageAction('load_model:translate'));
  await (await chooser).setFiles(file);
  const seen = new Set(), phases = new Set();
  let t, total = 0;
  for (let i = 0; i < 2400; ++i) {
    t = await page.evaluate(() => window.attentionLab.state().translate);
    if (t.scores_progress) {
      seen.add(t.scores_progress.units_done);
      phases.add(t.scores_progress.phase);
      total = t.scores_progress.units_total;
      assert.equal(t.accuracy, null, 'no half-measured figures on show');
    }
    if (t.model && t.accuracy) break;
    await sleep(50);
  }
  assert.equal(t.error, null, JSON.stringify(t.error));
  assert.equal(t.model.params_fnv1a, info.params_fnv1a);
  assert.equal(total, 4 * t.accuracy.overall.none.sentences, 'one unit per test sentence in each of four phases');
  assert.ok(seen.size >= 3, `progress seen between frames: ${[...seen].join(', ')}`);
  assert.ok(phases.has('attention'), [...phases].join(', '));
  assert.equal(t.scores_progress, undefined, 'gone once measured');
  assert.equal(t.accuracy.step, 0);
  assert.equal(t.accuracy.overall.additive.sentences, t.accuracy.overall.none.sentences);
  assert.ok(t.agreement && t.agreement.overall.targets > 0, 'the agreement of the big model');
  assert.deepEqual(problems.filter((p) => !/model .* refused|could not/.test(p)), []);
  await context.close();
});
