// Browser test of the Additive panel, which opens on its trained view: the Translate panel's
// shipped checkpoint is fetched when the panel opens ("loading the trained translator…" meanwhile,
// no blank panel and no NaN, also at phone width), then the real encoder states, scores, weights
// and context of a target step show. Its weights sum to 1 and equal, to 1e-12, the Translate
// panel's teacher-forced alignment row for the same sentence and step; a bad sentence is refused
// and the last good read kept; a link carries the trained step, and the untrained view (random
// encoder states) is one set() or link away. Screenshots at 1280 and 390 CSS pixels wide:
// test-artifacts/e2e-additive-*.png.
// Run: node --test tests/e2e/additive.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, sleep } from './lib.mjs';

const site = await labSite();
const { artifacts, scrolled } = site;

const additive = (page) => page.evaluate(() => window.attentionLab.state().additive);
const set = (page, p) => page.evaluate((q) => window.attentionLab.set(q), p);
// How many times the page has fetched the Translate panel's checkpoint since it loaded.
const checkpointFetches = (page) => page.evaluate(() =>
  performance.getEntriesByType('resource').filter((e) => e.name.includes('checkpoints/translate')).length);

async function waitTrained(page, timeoutMs = 30000) {
  const t0 = Date.now();
  for (;;) {
    const a = await additive(page);
    if (a.trained.result && !a.trained.pending) return a;
    if (!a.trained.pending) throw new Error('the trained view stopped waiting without a result: ' + a.trained.status);
    if (Date.now() - t0 > timeoutMs) throw new Error(`still "${a.trained.status}" after ${timeoutMs} ms`);
    await sleep(100);
    await frames(page, 1);
  }
}

function maxGap(a, b) {
  assert.equal(a.length, b.length);
  return Math.max(...a.map((x, j) => Math.abs(x - b[j])));
}

test('additive: opens on the trained view, which reads the Translate panel\'s attention model; rows equal its alignment', () => site.check('?panel=additive', async ({ page }) => {
  let a = await additive(page);
  assert.equal(a.view, 'trained', 'the panel opens on the trained translator');
  if (!a.trained.result) assert.match(a.trained.status, /loading the trained translator/);
  a = await waitTrained(page);
  assert.equal(await checkpointFetches(page), 1, 'the Translate panel\'s checkpoint, fetched once');
  assert.equal(a.trained.source, 'checkpoint');
  const tr = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(tr.checkpoint.status, 'installed');
  let r;

  // The same sentence and each step: the additive read equals the Translate panel's alignment row.
  for (const sentence of ['the black cat', 'a big white mouse']) {
    r = await set(page, { translate: { sentence }, additive: { sentence, feed: 'teacher_forced', trained_step: 0 } });
    assert.equal(r.ok, true, JSON.stringify(r));
    const al = (await page.evaluate(() => window.attentionLab.state().translate)).alignment;
    assert.equal(al.sentence, sentence);
    a = await additive(page);
    assert.equal(a.trained.steps, al.weights.length, 'one step per reference word and <eos>');
    assert.deepEqual(a.trained.target_words, al.target_words);
    for (let t = 0; t < al.weights.length; ++t) {
      r = await set(page, { additive: { trained_step: t } });
      assert.equal(r.ok, true);
      const res = (await additive(page)).trained.result;
      const w = res.attention.weights;
      const sum = w.reduce((x, y) => x + y, 0);
      assert.ok(Math.abs(sum - 1) <= 1e-12, `${sentence} step ${t}: weights sum to ${sum}`);
      assert.ok(maxGap(w, al.weights[t]) <= 1e-12, `${sentence} step ${t}: ${w} vs ${al.weights[t]}`);
      assert.equal(res.encoder_states.length, al.source_words.length);
      // Bahdanau's bidirectional encoder: annotations of 2H, the decoder state H, the context 2H.
      assert.equal(res.encoder_states[0].length, 2 * res.state.length, 'd_h = 2 d_s');
      assert.equal(res.attention.context.length, res.encoder_states[0].length);
      for (const c of (await additive(page)).trained.checks_shown) assert.ok(c.pass, JSON.stringify(c));
    }
  }

  // A bad sentence is refused; the last good read stays and the message is shown.
  const good = (await additive(page)).trained.result;
  r = await set(page, { additive: { sentence: 'the black zebra' } });
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'invalid_field');
  a = await additive(page);
  assert.deepEqual(a.trained.result, good);
  await frames(page, 3);
  const v = await page.evaluate(() => window.attentionLab.view());
  assert.ok(v.errors.length >= 1, 'the message is on screen');

  // The view at "the black cat", step 2 ("noir"), for the screenshots, and its link.
  r = await set(page, { additive: { sentence: 'the black cat', trained_step: 2 } });
  assert.equal(r.ok, true, JSON.stringify(r));
  await frames(page, 4);
  await page.evaluate(() => window.attentionLabPage.sync());
  let u = new URL(page.url());
  assert.equal(u.searchParams.get('additive.view'), null, 'the trained view is the default: the link need not name it');
  assert.equal(u.searchParams.get('additive.trained_step'), '2');
  await scrolled(page, 'e2e-additive-trained-1280', 3);
  await site.check(u.search, async (other) => {
    const got = await waitTrained(other.page);
    assert.equal(got.trained.step, 2, 'the link carries the trained step');
    assert.equal(got.trained.result.target_word, 'noir');
    assert.deepEqual(got.trained.result, (await additive(page)).trained.result, 'the same read, bit for bit');
  });

  // The untrained view (random encoder states): one set() away, and its link names it.
  r = await set(page, { additive: { view: 'untrained', step: 1 } });
  assert.equal(r.ok, true, JSON.stringify(r));
  a = await additive(page);
  assert.equal(a.view, 'untrained');
  assert.equal(a.step, 1);
  for (const c of a.result.checks_shown) assert.ok(c.pass, JSON.stringify(c));
  await frames(page, 4);
  await page.screenshot({ path: path.join(artifacts, 'e2e-additive-untrained-1280.png') });
  await page.evaluate(() => window.attentionLabPage.sync());
  u = new URL(page.url());
  assert.equal(u.searchParams.get('additive.view'), 'untrained');
  await site.check(u.search, async (other) => {
    await frames(other.page, 4);
    const got = await additive(other.page);
    assert.equal(got.view, 'untrained', 'additive.view=untrained in a link opens the seeded demo');
    assert.equal(await checkpointFetches(other.page), 0, 'the untrained view fetches nothing');
    assert.equal(got.step, 1);
    assert.deepEqual(got.result, a.result, 'the same demo, bit for bit');
  });
}));

// While the checkpoint is on its way the trained view says so: a status line, the panel's text
// and inputs, no NaN and nothing past the phone's width.
test('additive: while the checkpoint loads, the trained view shows a status line (390 px)', () => site.check('', async ({ page, context }) => {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  await context.route('**/checkpoints/translate*', async (route) => { await gate; await route.continue(); });
  const shown = await page.evaluate(() => window.attentionLab.showPanel('additive'));
  assert.equal(shown.ok, true);
  await frames(page, 6);
  const a = await additive(page);
  assert.equal(a.view, 'trained');
  assert.equal(a.trained.pending, true, 'the view waits for the model');
  assert.equal(a.trained.result, null);
  assert.match(a.trained.status, /loading the trained translator/);
  // Every number there is finite; nothing is missing but the result to come (and no error).
  const missing = [];
  const walk = (v, at) => {
    if (v === null) { if (at !== '.trained.result' && at !== '.error') missing.push(at); return; }
    if (typeof v === 'number' && !Number.isFinite(v)) missing.push(at);
    if (typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  walk(a, '');
  assert.deepEqual(missing, [], 'no number is missing but the result to come');
  const v = await page.evaluate(() => window.attentionLab.view());
  assert.deepEqual(v.errors, [], 'loading is not an error');
  for (const h of v.heatmaps) for (const row of h.values) for (const x of row) assert.ok(Number.isFinite(x), `${h.name}: ${x}`);
  const fit = await page.evaluate(() => window.attentionLab.fit());
  assert.equal(fit.fits, true, `the loading view fits 390 px: ${JSON.stringify(fit.cut)}`);
  await page.screenshot({ path: path.join(artifacts, 'e2e-additive-loading-390.png') });
  release();
  const done = await waitTrained(page);
  assert.equal(done.trained.source, 'checkpoint');
}, { width: 390, height: 844 }));

test('additive: trained view at phone width (390 px)', () => site.check('?panel=additive&additive.trained_step=1', async ({ page }) => {
  const a = await waitTrained(page);
  assert.equal(a.trained.result.target_word, 'chat');
  await frames(page, 4);
  await scrolled(page, 'e2e-additive-trained-390', 6);
}, { width: 390, height: 844 }));
