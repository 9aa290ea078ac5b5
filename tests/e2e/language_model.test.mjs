// The Language model panel in headless Chromium: a GPT-2-family file through model=URL&config=URL
// (torch 1.13's fixture and the handed case ../shared/cases' layout), read by the language-model
// Worker, gives torch's next-token distribution and attention weights on the page; a hostile file
// leaves the model shown with its message; screenshots at 1280 px and at phone width.
// Run: node --test tests/e2e/language_model.test.mjs (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, repoRoot, siteDir } from './lib.mjs';

const fixtures = path.join(repoRoot, 'tests', 'reference', 'gpt2');
const served = path.join(siteDir(), 'test-lm');
fs.mkdirSync(served, { recursive: true });
for (const f of ['hf-generate-model.safetensors', 'hf-generate-model.config.json', 'bad-missing-tensor.safetensors'])
  fs.copyFileSync(path.join(fixtures, f), path.join(served, f));
const truncated = fs.readFileSync(path.join(fixtures, 'hf-generate-model.safetensors')).subarray(0, 300);
fs.writeFileSync(path.join(served, 'truncated.safetensors'), truncated);
process.on('exit', () => fs.rmSync(served, { recursive: true, force: true }));

const site = await labSite();

// The panel's state once nothing is under way (the Worker's answers arrive between frames).
async function settled(page, timeoutMs = 60000) {
  const t0 = Date.now();
  for (;;) {
    await frames(page, 2);
    const s = await page.evaluate(() => window.attentionLab.state().language_model);
    if (!s.busy) return s;
    if (Date.now() - t0 > timeoutMs) throw new Error('the Language model panel stays busy: ' + JSON.stringify(s).slice(0, 300));
  }
}

function softmax(row) {
  const mx = Math.max(...row), e = row.map((x) => Math.exp(x - mx)), z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

test('language model: a model=URL&config=URL file gives torch\'s next tokens and maps in the page', () => site.check(
  '?panel=language_model&model=test-lm/hf-generate-model.safetensors&config=test-lm/hf-generate-model.config.json',
  async ({ page }) => {
    let s = await settled(page);
    assert.equal(s.error, null, JSON.stringify(s.error));
    assert.equal(s.model.source, 'url');
    assert.equal(s.model.layout, 'transformers');
    const spec = JSON.parse(fs.readFileSync(path.join(fixtures, 'hf-generate-model.json'), 'utf8'));
    const tokens = spec.case.tokens[0];
    const r = await page.evaluate((t) => window.attentionLab.set({ language_model: { tokens: t, layer: 1, head: 2 } }), tokens);
    assert.equal(r.ok, true, JSON.stringify(r));
    s = await settled(page);
    assert.deepEqual(s.tokens, tokens);
    const logits = spec.expect.logits[0];
    const ref = softmax(logits[logits.length - 1]);
    assert.equal(s.next.length, 10);
    for (const row of s.next) assert.ok(Math.abs(row.p - ref[row.id]) <= 2e-4, `next ${row.id}: ${row.p} vs torch ${ref[row.id]}`);
    const w = spec.expect.weights[1][0][2];
    s.map.weights.forEach((row, i) => row.forEach((v, j) => assert.ok(Math.abs(v - w[i][j]) <= 2e-4, `map ${i},${j}`)));
    // The link keeps the model and its config.
    await page.evaluate(() => window.attentionLabPage.sync());
    const u = new URL(page.url());
    assert.equal(u.searchParams.get('model'), 'test-lm/hf-generate-model.safetensors');
    assert.equal(u.searchParams.get('config'), 'test-lm/hf-generate-model.config.json');

    // Greedy generation with the K/V cache: torch's tokens.
    const greedy = JSON.parse(fs.readFileSync(path.join(fixtures, 'hf-generate-greedy.json'), 'utf8'));
    await page.evaluate((n) => window.attentionLab.set({ language_model: { steps: n, temperature: 0, generate: true } }), greedy.case.steps);
    s = await settled(page);
    assert.deepEqual(s.generation.tokens, greedy.expect.tokens);

    // Hostile files: a truncated one and one missing a tensor; the model shown stays.
    const hash = s.model.hash;
    for (const [file, code] of [['truncated.safetensors', null], ['bad-missing-tensor.safetensors', 'missing_field']]) {
      await page.evaluate((f) => window.attentionLab.set({ language_model: { model: 'test-lm/' + f, config: 'test-lm/hf-generate-model.config.json' } }), file);
      s = await settled(page);
      assert.ok(s.error && s.error.message, `${file}: a message`);
      if (code) assert.equal(s.error.code, code, JSON.stringify(s.error));
      assert.equal(s.model.hash, hash, `${file}: the last good model stays`);
    }
    await page.screenshot({ path: path.join(site.artifacts, 'language_model-1280.png') });
  }));

test('language model: at phone width the panel fits and the fixture loads', () => site.check(
  '?panel=language_model&model=test-lm/hf-generate-model.safetensors&config=test-lm/hf-generate-model.config.json',
  async ({ page }) => {
    const s = await settled(page);
    assert.equal(s.error, null, JSON.stringify(s.error));
    const fit = await page.evaluate(() => window.attentionLab.fit());
    assert.equal(fit.fits, true, JSON.stringify(fit.cut));
    await page.screenshot({ path: path.join(site.artifacts, 'language_model-390.png') });
  }, { width: 390, height: 844 }));
