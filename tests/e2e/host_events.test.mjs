// Events a host page can use, from another origin (docs/embed.md, section 3): the lab in an
// iframe of a page served from a second server posts attention-lab:ready, then resize with its
// content's height, answered after a scripted "check yourself" answer and trained after a short
// run; with ?events=0 only ready (and replies) arrive. Headless Chromium.
// Run: node --test tests/e2e/host_events.test.mjs (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { frames, launchChromium, repoRoot, siteDir } from './lib.mjs';
import { serveSite, watch } from './embed_lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const PREFIX = '/lab/';

const hostPage = (src) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>course</title></head>
<body style="margin:0;font:16px sans-serif">
<p>A course page on another origin.</p>
<iframe id="lab" title="Attention Lab" src="${src}" width="900" height="500" style="border:0;display:block"></iframe>
<script>
  window.messages = [];
  const lab = document.getElementById('lab');
  const labOrigin = new URL(lab.src).origin;
  window.addEventListener('message', function (e) {
    if (e.source !== lab.contentWindow || e.origin !== labOrigin) return;  // only our panel
    window.messages.push(e.data);
    // The H5P-style handshake: size the frame to its content.
    if (e.data.type === 'attention-lab:resize') lab.style.height = e.data.height + 'px';
  });
  window.send = function (m) { lab.contentWindow.postMessage(m, labOrigin); };
</script>
</body></html>`;

let labServer, hostServer, browser;
before(async () => {
  labServer = await serveSite(siteDir(), PREFIX);
  const src = (q) => labServer.url(PREFIX + 'index.html' + q);
  hostServer = await serveSite(siteDir(), '/nothing-here/', {
    '/course.html': hostPage(src('?panel=scaling&embed=1')),
    '/quiet.html': hostPage(src('?panel=scaling&embed=1&events=0')),
  });
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  if (hostServer) await hostServer.close();
  if (labServer) await labServer.close();
});

async function open(pagePath) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const log = watch(page);
  await page.goto(hostServer.url(pagePath), { waitUntil: 'load' });
  const frame = page.frames().find((f) => f.url().startsWith(labServer.origin));
  assert.ok(frame, 'the lab iframe is there');
  await frame.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:ready'), null, { timeout: 30000 });
  return { context, page, frame, log };
}

const messages = (page, type) => page.evaluate((t) => window.messages.filter((m) => m.type === 'attention-lab:' + t), type);

test('host events from another origin: ready, resize with the content height, answered, trained', async () => {
  assert.notEqual(labServer.origin, hostServer.origin, 'two origins');
  const { context, page, frame, log } = await open('/course.html');
  const all = await page.evaluate(() => window.messages.map((m) => m.type));
  assert.equal(all[0], 'attention-lab:ready', `ready comes first: ${all.join(', ')}`);

  // resize: the content's height, as the lab measures it; the host sized the frame to it.
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:resize'));
  await frames(frame, 4);
  const resize = (await messages(page, 'resize')).pop();
  assert.equal(resize.version, 1);
  const measured = await frame.evaluate(() => document.getElementById('canvas').getBoundingClientRect().top + window.scrollY + window.attentionLab.contentHeight());
  assert.ok(Math.abs(resize.height - Math.ceil(measured)) <= 1, `resize ${resize.height} vs the content ${measured}`);
  assert.ok(resize.height > 800, `the Scaling panel is taller than one screen: ${resize.height}`);
  const frameHeight = await page.evaluate(() => document.getElementById('lab').getBoundingClientRect().height);
  assert.equal(Math.round(frameHeight), resize.height, 'the host sized its frame from the message');
  // Once the frame shows everything, the panel has nothing left to scroll.
  await frames(frame, 6);
  const after = await frame.evaluate(() => window.attentionLab.contentHeight());
  assert.ok(after <= resize.height + 1);

  // answered: a scripted answer to a "check yourself" question, as a learner's click does.
  await page.evaluate(() => window.send({ type: 'attention-lab:set', id: 1, patch: { recall: { task: 'scaling.row_max', choice: 1 } } }));
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:answered'), null, { timeout: 15000 });
  const answered = (await messages(page, 'answered'))[0];
  assert.equal(answered.version, 1);
  assert.equal(answered.panel, 'scaling');
  assert.equal(answered.question, 'scaling.row_max');
  assert.equal(answered.choice, 1);
  assert.equal(answered.answer, 'it makes saturated rows less peaked');
  assert.equal(answered.correct, false, 'the measured truth is choice 0');
  const truth = await frame.evaluate(() => window.attentionLab.state().recall.result.answers['scaling.row_max'].verdict.pass);
  assert.equal(answered.correct, truth, 'the event says what the verdict says');

  // trained: a short run of the Learned heads panel, set from the host.
  await page.evaluate(() => window.send({ type: 'attention-lab:set', id: 2, patch: { panel: 'learned_heads', learned_heads: { steps: 4, train: true } } }));
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:trained' && m.source === 'trained here'), null, { timeout: 60000 });
  const trained = (await messages(page, 'trained')).find((m) => m.source === 'trained here');
  assert.equal(trained.panel, 'learned_heads');
  assert.equal(trained.step, 4);
  assert.equal(trained.version, 1);
  assert.equal((await frame.evaluate(() => window.attentionLab.state().learned_heads.step)), 4);
  // The new panel's height went out too.
  assert.ok((await messages(page, 'resize')).length >= 2);
  assert.deepEqual(log.errors, []);
  await page.screenshot({ path: path.join(artifacts, 'host-events-course.png') });
  await context.close();
});

test('host events: ?events=0 turns them off; ready and replies still arrive', async () => {
  const { context, page, frame, log } = await open('/quiet.html');
  await page.evaluate(() => window.send({ type: 'attention-lab:set', id: 3, patch: { recall: { task: 'scaling.row_max', choice: 0 } } }));
  await page.waitForFunction(() => window.messages.some((m) => m.type === 'attention-lab:reply' && m.id === 3));
  await frames(frame, 6);
  assert.deepEqual(await messages(page, 'resize'), []);
  assert.deepEqual(await messages(page, 'answered'), []);
  const link = await frame.evaluate(() => window.attentionLabPage.link());
  assert.match(link, /events=0/, 'the link keeps the opt-out');
  assert.deepEqual(log.errors, []);
  await context.close();
});
