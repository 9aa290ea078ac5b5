// Browser test of the Additive panel's trained view: switching to "trained translator" fetches
// the Translate panel's shipped checkpoint if it is not installed yet ("loading the trained
// translator…" meanwhile), then shows the real encoder states, scores, weights and context of a
// target step. Its weights sum to 1 and equal, to 1e-12, the Translate panel's teacher-forced
// alignment row for the same sentence and step; a bad sentence is refused and the last good read
// kept; a link carries the view. Screenshots at 1280 and 390 CSS pixels wide:
// test-artifacts/e2e-additive-trained-*.png.
// Run: node --test tests/e2e/additive.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, requestsTo, sleep } from './lib.mjs';

const site = await labSite();
const { artifacts, scrolled } = site;

const additive = (page) => page.evaluate(() => window.attentionLab.state().additive);
const set = (page, p) => page.evaluate((q) => window.attentionLab.set(q), p);

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

test('additive: the trained view reads the Translate panel\'s attention model; rows equal its alignment', () => site.check('?panel=additive', async ({ page }) => {
  const fetched = requestsTo(page, 'checkpoints/translate');
  await frames(page, 3);
  let a = await additive(page);
  assert.equal(a.view, 'untrained');
  assert.equal(fetched.length, 0, 'the untrained view fetches nothing');
  await page.screenshot({ path: path.join(artifacts, 'e2e-additive-untrained-1280.png') });

  let r = await set(page, { additive: { view: 'trained' } });
  assert.equal(r.ok, true, JSON.stringify(r));
  a = await additive(page);
  assert.equal(a.view, 'trained');
  if (!a.trained.result) assert.match(a.trained.status, /loading the trained translator/);
  a = await waitTrained(page);
  assert.equal(fetched.length, 1, 'the Translate panel\'s checkpoint, fetched once');
  assert.equal(a.trained.source, 'checkpoint');
  const tr = await page.evaluate(() => window.attentionLab.state().translate);
  assert.equal(tr.checkpoint.status, 'installed');

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
  const u = new URL(page.url());
  assert.equal(u.searchParams.get('additive.view'), 'trained');
  await scrolled(page, 'e2e-additive-trained-1280', 3);
  await site.check(u.search, async (other) => {
    const got = await waitTrained(other.page);
    assert.equal(got.trained.step, 2, 'the link carries the trained step');
    assert.equal(got.trained.result.target_word, 'noir');
    assert.deepEqual(got.trained.result, (await additive(page)).trained.result, 'the same read, bit for bit');
  });
}));

test('additive: trained view at phone width (390 px)', () => site.check('?panel=additive&additive.view=trained&additive.trained_step=1', async ({ page }) => {
  const a = await waitTrained(page);
  assert.equal(a.trained.result.target_word, 'chat');
  await frames(page, 4);
  await scrolled(page, 'e2e-additive-trained-390', 6);
}, { width: 390, height: 844 }));
