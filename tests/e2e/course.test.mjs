// The course page (web/examples/course.html, docs/embed.md): all thirteen panels in the lesson's
// order, each configured by its deep link, from a sub-path with every request outside the host
// refused (offline): each frame draws its panel, the trained ones install their checkpoints, the
// frames size themselves from attention-lab:resize, and no frame logs an error. Screenshots at
// 1280 and 390 CSS px. Run: node --test tests/e2e/course.test.mjs (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { launchChromium, repoRoot, siteDir, sleep } from './lib.mjs';
import { serveSite, watch } from './embed_lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const PREFIX = '/courses/attention/';
const PANELS = ['translate', 'additive', 'alignment', 'attribution', 'masks', 'heads', 'scaling', 'temperature',
                'dropout', 'learned_heads', 'permutation', 'cost', 'script'];

let server, browser;
before(async () => {
  server = await serveSite(siteDir(), PREFIX);
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

async function readCourse(width, height) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const log = watch(page);
  const outside = [];
  await page.route('**/*', (route) => {
    if (new URL(route.request().url()).origin === server.origin) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  await page.goto(server.url(PREFIX + 'examples/course.html'), { waitUntil: 'load' });
  const handles = await page.$$('iframe.lab');
  assert.equal(handles.length, PANELS.length, 'one frame per panel');
  for (let i = 0; i < handles.length; ++i) {
    // (no stability wait: frames above may still be resizing to their content)
    await handles[i].evaluate((el) => el.scrollIntoView({ block: 'start' }));
    const frame = await handles[i].contentFrame();
    for (let t = 0; !frame || !(await frame.url()).includes('index.html'); ++t) {
      assert.ok(t < 100, `frame ${i} loads`);
      await sleep(100);
    }
    await frame.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
    const s = await frame.evaluate(() => window.attentionLab.state());
    assert.equal(s.panel, PANELS[i], `frame ${i} shows ${PANELS[i]}`);
    if (PANELS[i] === 'learned_heads' || PANELS[i] === 'translate') {
      await frame.waitForFunction((k) => window.attentionLab.state()[k].checkpoint.status === 'installed', PANELS[i], { timeout: 60000 });
    }
    if (PANELS[i] === 'additive') assert.equal(s.additive.inputs.view, 'trained', 'the deep link set the view');
    // The frame sized itself to its content (capped at 1,400 px) from the resize message.
    await page.waitForFunction((k) => {
      const f = document.querySelectorAll('iframe.lab')[k];
      return f.style.height !== '';
    }, i, { timeout: 45000 });
  }
  assert.deepEqual(outside, [], 'nothing is fetched from outside the host');
  assert.deepEqual(log.errors, [], 'no console error in the page or a frame');
  return { context, page };
}

test('course page at 1280 px: every panel in lesson order, offline, from a sub-path', async () => {
  const { context, page } = await readCourse(1280, 800);
  await page.evaluate(() => window.scrollTo(0, 0));
  await sleep(300);
  await page.screenshot({ path: path.join(artifacts, 'course-1280-top.png') });
  await page.evaluate(() => document.getElementById('patterns').scrollIntoView());
  await sleep(500);
  await page.screenshot({ path: path.join(artifacts, 'course-1280-patterns.png') });
  const heights = await page.evaluate(() => [...document.querySelectorAll('iframe.lab')].map((f) => parseInt(f.style.height, 10)));
  for (const h of heights) assert.ok(h > 300 && h <= 1400, `a frame height from its content: ${h}`);
  await context.close();
});

test('course page at 390 px: the same panels on a phone', async () => {
  const { context, page } = await readCourse(390, 844);
  await page.evaluate(() => document.getElementById('lookup').scrollIntoView());
  await sleep(500);
  await page.screenshot({ path: path.join(artifacts, 'course-390-lookup.png') });
  await context.close();
});
