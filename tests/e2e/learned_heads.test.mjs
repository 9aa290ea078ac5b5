// Browser test of the Learned heads panel: opened by ?panel=learned_heads (a link parameter sets
// an input), training started through set({learned_heads: {train: true}}) runs in the training
// Worker's slices while the page keeps drawing; the loss of steps 41–50 is below that of steps
// 1–10; pausing holds the step, continuing resumes from the same step with the same losses; a bad input
// (heads 3) is refused with the last good state kept; the interventions run on demand when
// paused. The default run opens trained from its checkpoint, fetched only when the panel opens,
// and Train reproduces it to the bit; the extrapolation study runs in slices and pauses.
// Screenshots at 1280 and 390 CSS pixels wide: test-artifacts/e2e-learned-heads-*.png.
// Run: node --test tests/e2e/learned_heads.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { frames, labSite, mean, phoneWidthScreenshots, requestsTo, sleep, trainingPanel, waitCheckpoint } from './lib.mjs';

const site = await labSite();
const { artifacts, scrolled } = site;

const api = (page) => trainingPanel(page, 'learned_heads', { timeoutMs: 240000, pollMs: 250 });

test('learned heads: train, pause, continue, refuse a bad input, interventions', () => site.check('?panel=learned_heads&learned_heads.steps=1500', async ({ page }) => {
  const h = api(page);
  let s = await h.state();
  assert.equal((await page.evaluate(() => window.attentionLab.state().panel)), 'learned_heads');
  assert.equal(s.inputs.steps, 1500, 'the link parameter set the steps');
  assert.equal(s.step, 0);
  assert.equal(s.status, 'idle');
  assert.equal(s.error, null);
  assert.deepEqual(s.snapshot_steps, [0], 'a snapshot of the initial weights');
  assert.equal(s.latest.scores.length, 8, '2 layers x 4 heads');

  let r = await h.set({ train: true });
  assert.equal(r.ok, true, JSON.stringify(r));
  // The page keeps drawing while it trains: a frame for each state the Worker sends, one per slice
  // and its rest (about 8 a second on two cores, 10 on more), counted from the first state over at
  // least a second (a rehearsed Worker can reach step 50 in a third) against half of them.
  const fw = await h.framesWhileWorkerTrains(50);
  assert.ok(fw.drawn >= Math.floor(fw.states / 2), `frames drawn while training: ${JSON.stringify(fw)}`);
  s = await h.state();
  assert.equal(s.losses.stride, 1);
  const tr = s.losses.train;
  assert.ok(tr.length >= 50 && tr.every(Number.isFinite));
  const early = mean(tr.slice(0, 10)), late = mean(tr.slice(40, 50));
  assert.ok(late < early, `mean loss of steps 41-50 (${late}) below steps 1-10 (${early})`);
  assert.ok(s.steps_per_second > 0, 'a rate is shown');
  assert.ok(s.progress > 0 && s.progress < 1);

  // Pause: the step stays.
  r = await h.set({ pause: true });
  assert.equal(r.ok, true);
  s = await h.state();
  const pausedAt = s.step, pausedLosses = s.losses.train;
  assert.equal(s.status, 'paused');
  await h.frames(10);
  await sleep(500);
  s = await h.state();
  assert.equal(s.step, pausedAt, 'paused: the step stays');

  // Interventions on demand while paused.
  r = await h.set({ interventions: true, ablate: [4, 5], ablate_mode: 'zero' });
  assert.equal(r.ok, true, JSON.stringify(r));
  s = await h.state();
  assert.equal(s.interventions.step, pausedAt);
  assert.equal(s.interventions.heads.length, 8);
  for (const x of s.interventions.heads) assert.ok(Number.isFinite(x.zero_delta_loss) && Number.isFinite(x.recovered));
  assert.ok(s.decoding.max_logit_diff < 1e-9, `parallel vs cached: ${s.decoding.max_logit_diff}`);
  assert.equal(s.decoding.teacher_forced_positions, 32);
  assert.equal(s.decoding.generation.length, 32);
  assert.equal(s.decoding.forced_earlier_max_diff, 0, 'a forced token moves no earlier step');
  assert.ok(s.decoding.forced_step_min_diff > 0, 'each forced token moves its own step');
  assert.equal(s.decoding.sequential_steps, 1 + s.decoding.dependent_steps);
  assert.equal(s.decoding.sequential_steps, 32);
  assert.equal(s.combined.heads.length, 2);
  assert.notEqual(s.combined.delta_loss, 0, 'ablating two heads changes the reported loss');
  assert.equal(s.combined.loss, s.interventions.base.loss + s.combined.delta_loss);

  // Continue: resumes from the same step, the losses so far unchanged.
  r = await h.set({ continue: true });
  assert.equal(r.ok, true);
  await h.waitStep(pausedAt + 5);
  s = await h.state();
  assert.deepEqual(s.losses.train.slice(0, pausedAt), pausedLosses, 'the run resumed where it stopped');

  // A bad input: refused, the last good inputs and the run kept.
  const before = s.step;
  r = await h.set({ heads: 3 });
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'invalid_field');
  s = await h.state();
  assert.equal(s.error.code, 'invalid_field');
  assert.match(s.error.message, /heads/);
  assert.equal(s.inputs.heads, 4);
  assert.ok(s.step >= before, 'the run was not reset');
  assert.deepEqual(s.losses.train.slice(0, pausedAt), pausedLosses);
  r = await h.set({ steps: 0 });
  assert.equal(r.ok, false);
  assert.equal((await h.state()).inputs.steps, 1500);

  await h.set({ pause: true });
  await h.set({ interventions: true });
  await frames(page, 4);
  await scrolled(page, 'e2e-learned-heads-1280', 4);
}));

test('learned heads: opens trained from the checkpoint fetched with the panel, and Train reproduces it to the bit', () => site.check('?panel=alignment', async ({ page }) => {
  const fetched = requestsTo(page, 'checkpoints/');
  await frames(page, 6);
  assert.deepEqual(fetched, [], 'the checkpoint is not part of the first download');
  let s = await page.evaluate(() => window.attentionLab.state().learned_heads);
  assert.equal(s.checkpoint.status, 'not_requested');

  await page.evaluate(() => window.attentionLab.showPanel('learned_heads'));
  const c = await waitCheckpoint(page, 'learned_heads');
  assert.equal(c.status, 'installed', JSON.stringify(c));
  assert.equal(fetched.length, 1, 'fetched once, when the panel opened');
  const h = api(page);
  s = await h.state();
  assert.equal(s.source, 'checkpoint');
  assert.equal(s.status, 'done');
  assert.equal(s.step, 1800);
  assert.equal(s.params_fnv1a, c.params_fnv1a);
  assert.ok(s.latest.accuracy >= 0.9, `shipped accuracy ${s.latest.accuracy}`);
  assert.ok(Math.max(...s.latest.scores.map((x) => x.induction)) >= 0.3, 'an induction head');
  assert.equal(s.snapshot_steps.length, 19);
  assert.equal(s.interventions.step, 1800, 'the interventions of the shipped run');
  assert.equal(s.decoding.future_edit_max_diff, 0, 'edited targets never reach their own prediction');
  assert.ok(s.decoding.target_edit_max_diff > 0);
  const shipped = { latest: s.latest, losses: s.losses, interventions: s.interventions };

  // Recall 7, on the model as it stands: the core's verdict names the measured accuracies.
  let r = await page.evaluate(() => window.attentionLab.set({ recall: { task: 'learned_heads.redundancy', choice: 1 } }));
  assert.equal(r.ok, true, JSON.stringify(r));
  const verdict = (await page.evaluate(() => window.attentionLab.state().recall.result.answers))['learned_heads.redundancy'].verdict;
  assert.match(verdict.feedback, /step 1800/);
  await frames(page, 3);
  await scrolled(page, 'e2e-learned-heads-checkpoint-1280', 6);

  // Opening the panel had the training Worker rehearse the run (step 0 stepped there and thrown
  // away); the run below must not feel it: it still gives the checkpoint's bits.
  let worker;
  for (const w0 = Date.now(); ; await sleep(100)) {
    worker = await page.evaluate(() => window.attentionLab.trainWorker());
    if (worker.rehearsals.length || Date.now() - w0 > 30000) break;
  }
  assert.equal(worker.created, true, 'the panel created the training Worker');
  assert.equal(worker.rehearsals.length, 1, 'one rehearsal: ' + JSON.stringify(worker));
  assert.ok(['steps', 'time'].includes(worker.rehearsals[0].ended) && worker.rehearsals[0].steps > 0,
    'the rehearsal stepped the run: ' + JSON.stringify(worker.rehearsals[0]));

  // Train: the same seed here, in slices, gives the checkpoint's bits.
  const t0 = Date.now();
  r = await h.set({ train: true });
  assert.equal(r.ok, true);
  for (;;) {
    s = await h.state();
    if (s.status === 'done') break;
    assert.ok(s.running, `training stopped at step ${s.step}`);
    assert.ok(Date.now() - t0 < 400000, `step ${s.step} after 400 s`);
    await sleep(500);
  }
  assert.equal(s.source, 'trained here');
  assert.equal(s.steps_in, 'worker', 'the steps ran in the training Web Worker');
  assert.equal(s.params_fnv1a, c.params_fnv1a, 'Train reproduced the checkpoint to the bit');
  assert.deepEqual(s.losses, shipped.losses, 'every loss of the run');
  assert.deepEqual(s.latest, shipped.latest, 'the held-out figures of step 1800');
  assert.deepEqual(s.interventions, shipped.interventions, 'ablation and patching figures');
  // On a machine of two cores the Worker rested between its slices (the bits above are still the
  // checkpoint's); with more cores it does not. slice_ms and rest_ms are what the Worker sent with
  // its states (kHeadsWorkerPace: 100 ms slices, 20 ms of rest).
  const rest = await page.evaluate(() => { const w = window.attentionLab.trainWorker();
    return { ms: w.rest_ms, slice: w.slice_ms, cores: navigator.hardwareConcurrency }; });
  assert.equal(rest.slice, 100, 'the Worker\'s slices: ' + JSON.stringify(rest));
  assert.equal(rest.ms, rest.cores > 2 ? 0 : 20, 'the Worker\'s rest between slices: ' + JSON.stringify(rest));
  console.log(`# trained the default run in the page: ${((Date.now() - t0) / 1000).toFixed(1)} s (the Worker rested ${rest.ms} ms ` +
    `after each ${rest.slice} ms slice on ${rest.cores} cores)`);
}));

test('learned heads: the training Worker and the page\'s own frames give the same run, bit for bit', async () => {
  // ?train_worker=0 keeps the steps in the page's frames (what a page without the Worker does).
  const runs = {};
  for (const [where, suffix] of [['page', '&train_worker=0'], ['worker', '']]) {
    await site.check(`?panel=learned_heads&learned_heads.steps=230&learned_heads.seed=4${suffix}`, async ({ page }) => {
      const h = api(page);
      const r = await h.set({ train: true });
      assert.equal(r.ok, true, JSON.stringify(r));
      let s;
      for (const t0 = Date.now(); ; await sleep(200)) {
        s = await h.state();
        if (s.status === 'done') break;
        assert.ok(s.running && Date.now() - t0 < 120000, `${where}: training stopped at step ${s.step}`);
      }
      assert.equal(s.steps_in, where);
      runs[where] = { fnv: s.params_fnv1a, losses: s.losses, snapshot_steps: s.snapshot_steps, latest: s.latest, interventions: s.interventions };
      if (where === 'worker') {
        // Train came as the panel opened: the rehearsal it asked for was cut short by the run, or
        // found the Worker busy with it; either way it is reported, and the bits below are the page's.
        const w = await page.evaluate(() => window.attentionLab.trainWorker());
        assert.equal(w.rehearsals.length, 1, JSON.stringify(w));
        assert.ok(['run', 'busy', 'steps', 'time'].includes(w.rehearsals[0].ended), JSON.stringify(w));
        console.log(`# the rehearsal ended: ${w.rehearsals[0].ended} after ${w.rehearsals[0].steps} steps`);
      }
    });
  }
  assert.deepEqual(runs.worker.snapshot_steps, [0, 100, 200, 230], 'the Worker stopped at every snapshot step');
  assert.deepEqual(runs.worker, runs.page);
});

test('learned heads: the extrapolation study runs in slices, pauses and continues', () => site.check('?panel=learned_heads&learned_heads.seed=3', async ({ page }) => {
  const h = api(page);
  let r = await h.set({ extrapolation: 'start' });
  assert.equal(r.ok, true);
  let s;
  for (let i = 0; i < 200; ++i) {
    s = (await h.state()).extrapolation;
    if (s.step >= 20) break;
    await sleep(100);
  }
  assert.ok(s.step >= 20, `the study advanced: ${s.step}`);
  await h.set({ extrapolation: 'pause' });
  const at = (await h.state()).extrapolation.step;
  await h.frames(5);
  assert.equal((await h.state()).extrapolation.step, at, 'paused: the study step stays');
  assert.equal((await h.state()).extrapolation.status, 'paused');
  r = await h.set({ extrapolation: 'later' });
  assert.equal(r.ok, false);
  assert.match(r.error.message, /extrapolation/);
  await h.set({ extrapolation: 'continue' });
  await sleep(300);
  assert.ok((await h.state()).extrapolation.step > at, 'continued');

  // A link reproduces the view: the inputs travel in the address, the run starts from them.
  r = await h.set({ heads: 2, positions: 'rope', lr: 0.002 });
  assert.equal(r.ok, true, JSON.stringify(r));
  await frames(page, 3);
  const want = await h.state();
  assert.equal(want.extrapolation, null, 'an input change drops the study');
  await site.viaLink(page, async (other, u) => {
    assert.equal(u.searchParams.get('learned_heads.positions'), 'rope');
    const got = await other.page.evaluate(() => window.attentionLab.state().learned_heads);
    assert.deepEqual(got.inputs, want.inputs);
    assert.deepEqual(got.latest, want.latest, 'the same step-0 maps and scores, bit for bit');
    assert.equal(got.params_fnv1a, want.params_fnv1a);
  });
}));

test('learned heads: phone width (390 px)', async () => {
  await phoneWidthScreenshots(site.browser, site.server, 'learned_heads', artifacts, 'e2e-learned-heads-390', 12);
});
