// Browser test of the Translate panel: the shipped pair opens from its checkpoint, fetched only
// when the panel opens, with the accuracy table by source length in state() and in the text
// mirror (view()); training from step 0 in the training Worker's slices lowers the loss of steps
// 41–50 below steps 1–10 for both models; pausing holds the step and continuing resumes it with
// the same losses; bad inputs are refused with a message and the last good state kept; a link reproduces
// the view. Screenshots at 1280 and 390 CSS pixels wide: test-artifacts/e2e-translate-*.png.
// Run: node --test tests/e2e/translate.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { frames, labSite, mean, phoneWidthScreenshots, requestsTo, trainingPanel, waitCheckpoint } from './lib.mjs';

const site = await labSite();
const { artifacts, scrolled } = site;

const api = (page) => trainingPanel(page, 'translate', { timeoutMs: 40000, pollMs: 100 });

test('translate: opens trained from the checkpoint fetched with the panel; the table in state() and the mirror', () => site.check('?panel=alignment', async ({ page }) => {
  const fetched = requestsTo(page, 'checkpoints/translate');
  await frames(page, 4);
  assert.deepEqual(fetched, [], 'the checkpoint is not part of the first download');
  await page.evaluate(() => window.attentionLab.showPanel('translate'));
  const c = await waitCheckpoint(page, 'translate');
  assert.equal(c.status, 'installed', JSON.stringify(c));
  assert.equal(fetched.length, 1, 'fetched once, when the panel opened');
  const h = api(page);
  const s = await h.state();
  assert.equal(s.source, 'checkpoint');
  assert.equal(s.status, 'done');
  assert.equal(s.step, 1000);
  const acc = s.accuracy;
  assert.equal(acc.step, 1000);
  assert.equal(acc.buckets.length, 3);
  for (const b of acc.buckets) {
    assert.ok(b.sentences > 0);
    for (const m of [b.none, b.additive]) {
      assert.ok(m.exact_match >= 0 && m.exact_match <= 1 && m.token_accuracy >= 0 && m.token_accuracy <= 1);
      assert.equal(m.exact_match, m.exact / m.sentences);
    }
  }
  assert.ok(acc.overall.additive.exact_match >= 0.9, `attention exact ${acc.overall.additive.exact_match}`);
  assert.ok(acc.buckets[2].additive.exact_match > acc.buckets[2].none.exact_match, 'attention wins on long sentences');
  assert.match(acc.caption, /fed to every decoder step/);
  assert.match(s.widths.caption, /Attention needs width too: at H 8/);
  // The H table: four widths for each encoder, each bucket a fraction of its counts; its
  // bidirectional width 32 is this run.
  const w = s.widths;
  assert.equal(s.inputs.encoder, 'bidirectional');
  assert.deepEqual(w.rows.map((x) => x.hidden), [8, 16, 32, 64, 8, 16, 32, 64]);
  assert.deepEqual(w.rows.map((x) => x.encoder), ['bidirectional', 'bidirectional', 'bidirectional', 'bidirectional',
    'forward', 'forward', 'forward', 'forward']);
  for (const x of w.rows) assert.ok(x.agreement.share >= 0 && x.agreement.share <= 1 && x.agreement.targets > 0);
  // The encoders' caption quotes both H 32 rows' agreement, as the table holds them.
  const pc = (v) => `${Math.round(100 * v)}%`;
  assert.ok(w.encoders_caption.includes(`for ${pc(w.rows[2].agreement.share)} and ${pc(w.rows[6].agreement.share)} of target words`),
    w.encoders_caption);
  const w32 = w.rows[2];
  for (const m of ['none', 'additive']) {
    assert.deepEqual(w32[m].buckets.map((b) => b.exact), acc.buckets.map((b) => b[m].exact), `${m}: H 32 = the checkpoint`);
    for (const b of w32[m].buckets) assert.equal(b.exact_match, b.exact / b.sentences);
  }
  assert.match(w.caption, /From H 8 to H 64/);
  assert.ok(s.reproduction && s.reproduction.same, 'the checkpoint has the table\'s H 32 hashes: ' + JSON.stringify(s.reproduction));
  // The traced row: row 1 ("chat") of the alignment, and a row beyond the last is clamped.
  let rr = await h.set({ row: 1 });
  assert.equal(rr.ok, true, JSON.stringify(rr));
  let tr = (await h.state()).alignment.trace;
  assert.equal(tr.target_word, 'chat');
  assert.deepEqual(tr.weights, s.alignment.weights[1]);
  rr = await h.set({ row: 60 });
  assert.equal(rr.ok, true);
  tr = (await h.state()).alignment.trace;
  assert.equal(tr.row, s.alignment.weights.length - 1, 'clamped to the last row');
  rr = await h.set({ row: -1 });
  assert.equal(rr.ok, false, 'a negative row is refused');
  await h.set({ row: 0 });
  const al = s.alignment;
  assert.deepEqual(al.source_words, ['the', 'black', 'cat']);
  assert.ok(al.max_row_sum_error < 1e-9 && al.max_padded_weight === 0);
  assert.ok(al.checks.every((x) => x.pass));
  assert.deepEqual(s.lesson_alignment.rows, ['le', 'chat', 'noir']);
  const d = s.decoding;
  assert.equal(d.greedy.map((g) => g.word).join(' '), al.greedy + (al.greedy_ended ? ' <eos>' : ''));
  assert.equal(d.teacher_forced.rows.length, al.target_words.length);
  assert.ok(d.beam.finished.length >= 1 && d.beam.formula.includes('(5 + |Y|) / 6'));

  // The text mirror: the accuracy table and both alignments, with the values of state().
  await frames(page, 3);
  const v = await page.evaluate(() => window.attentionLab.view());
  const table = v.heatmaps.find((x) => x.name === 'translate_accuracy');
  assert.ok(table, 'the accuracy table is in the mirror: ' + v.heatmaps.map((x) => x.name).join(', '));
  assert.equal(table.rows, 4);
  assert.deepEqual(table.values[2], [acc.buckets[2].none.exact_match, acc.buckets[2].none.token_accuracy,
    acc.buckets[2].additive.exact_match, acc.buckets[2].additive.token_accuracy]);
  const learned = v.heatmaps.find((x) => x.name === 'translate_alignment');
  assert.deepEqual(learned.values, al.weights);
  assert.ok(v.heatmaps.find((x) => x.name === 'translate_lesson_alignment'));
  assert.ok(v.checks.length >= 2 && v.checks.every((x) => x.pass));
  // The H table is detail: collapsed when the panel opens, in the mirror once the sections open.
  assert.equal(v.heatmaps.find((x) => x.name === 'translate_widths'), undefined, 'the H table starts collapsed');
  await page.evaluate(() => window.attentionLab.setDetailsOpen(true));
  await frames(page, 3);
  const vOpen = await page.evaluate(() => window.attentionLab.view());
  const wt = vOpen.heatmaps.find((x) => x.name === 'translate_widths');
  assert.ok(wt, 'the H table is in the mirror');
  assert.equal(wt.rows, 8);
  assert.deepEqual(wt.values[0].slice(0, 3), w.rows[0].none.buckets.map((b) => b.exact_match));
  await scrolled(page, 'e2e-translate-checkpoint-1280', 4);
  await page.evaluate(() => window.attentionLab.setDetailsOpen(false));

  // A long sentence shows its own alignment.
  const longSentence = 'a small grey horse chases the black cat with a big blue ball and the dog eats a green book';
  let r = await h.set({ sentence: longSentence });
  assert.equal(r.ok, true, JSON.stringify(r));
  const long = (await h.state()).alignment;
  assert.deepEqual(long.source_words, longSentence.split(' '), 'one column per source word (20), no BOS/EOS');
  await frames(page, 3);
  await scrolled(page, 'e2e-translate-long-1280', 4);
}));

test('translate: train from step 0, pause, continue, refuse bad inputs, a link', () => site.check('?panel=translate&translate.steps=300', async ({ page }) => {
  const h = api(page);
  let s = await h.state();
  assert.equal(s.inputs.steps, 300, 'the link parameter set the steps');
  assert.equal(s.step, 0);
  assert.equal(s.checkpoint.status, 'not_requested', 'not the default run: no checkpoint');

  let r = await h.set({ reset: true, train: true });
  assert.equal(r.ok, true, JSON.stringify(r));
  // The page draws a frame for each state the Worker sends (one per 100 ms slice): counted from the
  // first state over at least a second, against half of them.
  const fw = await h.framesWhileWorkerTrains(50);
  assert.ok(fw.drawn >= Math.floor(fw.states / 2), `frames drawn while training: ${JSON.stringify(fw)}`);
  r = await h.set({ pause: true });
  assert.equal(r.ok, true);
  s = await h.state();
  assert.equal(s.status, 'paused');
  for (const m of ['none', 'additive']) {
    const l = s.losses[m];
    assert.ok(l.length >= 50 && l.every(Number.isFinite));
    const early = mean(l.slice(0, 10)), late = mean(l.slice(40, 50));
    assert.ok(late < early, `${m}: mean loss of steps 41-50 (${late}) below steps 1-10 (${early})`);
  }
  assert.equal(s.accuracy.step, s.step, 'scored where it paused');
  const pausedAt = s.step, pausedLosses = s.losses;
  await h.frames(8);
  assert.equal((await h.state()).step, pausedAt, 'paused: the step stays');

  assert.equal(s.steps_in, 'worker', 'the steps ran in the training Web Worker');
  // Unlike Learned heads' run, this one does not rest between its slices, on any machine
  // (kTranslateWorkerPace).
  const pace = await page.evaluate(() => window.attentionLab.trainWorker());
  assert.equal(pace.rest_ms, 0, 'no rest between the slices');
  assert.equal(pace.slice_ms, 100, 'the Worker\'s slices');
  r = await h.set({ continue: true });
  assert.equal(r.ok, true);
  await h.waitStep(pausedAt + 5);
  await h.set({ pause: true });
  s = await h.state();
  assert.deepEqual(s.losses.none.slice(0, pausedAt), pausedLosses.none.slice(0, pausedAt), 'resumed where it stopped');
  assert.deepEqual(s.losses.additive.slice(0, pausedAt), pausedLosses.additive.slice(0, pausedAt));
  const good = s;

  for (const [bad, re] of [[{ sentence: '' }, /no words/], [{ sentence: 'the purple cat' }, /purple/],
    [{ hidden: 0 }, /H must be/], [{ steps: 100000 }, /steps/], [{ encoder: 'backward' }, /encoder must be/]]) {
    r = await h.set(bad);
    assert.equal(r.ok, false, JSON.stringify(bad));
    s = await h.state();
    assert.match(s.error.message, re);
    assert.deepEqual(s.inputs, good.inputs, 'the last good inputs stay');
    assert.equal(s.step, good.step, 'the run stays');
    assert.deepEqual(s.alignment, good.alignment, 'the last good alignment stays');
  }
  await frames(page, 3);
  const v = await page.evaluate(() => window.attentionLab.view());
  assert.ok(v.errors.length >= 1, 'the message is on screen');

  // A link reproduces the view: the inputs travel in the address; step 0 of the same run.
  r = await h.set({ hidden: 16, encoder: 'forward', sentence: 'the big dog sees a white mouse' });
  assert.equal(r.ok, true, JSON.stringify(r));
  await frames(page, 3);
  const want = await h.state();
  assert.equal(want.inputs.encoder, 'forward');
  await site.viaLink(page, async (other, u) => {
    assert.equal(u.searchParams.get('translate.hidden'), '16');
    assert.equal(u.searchParams.get('translate.encoder'), 'forward');
    const got = await other.page.evaluate(() => window.attentionLab.state().translate);
    assert.deepEqual(got.inputs, want.inputs);
    assert.deepEqual(got.alignment, want.alignment, 'the same step-0 alignment, bit for bit');
  });
}));

test('translate: phone width (390 px)', async () => {
  await phoneWidthScreenshots(site.browser, site.server, 'translate', artifacts, 'e2e-translate-390', 8);
});
