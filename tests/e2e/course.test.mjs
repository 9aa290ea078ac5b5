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
// The lesson's order: a soft read, the bottleneck, the fix, one head, masks, scaling, soft to hard,
// dropout, weight against contribution, order, learned heads, cost, the script.
const PANELS = ['alignment', 'translate', 'additive', 'heads', 'masks', 'scaling', 'temperature', 'dropout',
                'attribution', 'permutation', 'learned_heads', 'cost', 'script'];

let server, browser;
before(async () => {
  server = await serveSite(siteDir(), PREFIX);
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

async function readCourse(width, height, touch = false) {
  const context = await browser.newContext({ viewport: { width, height }, hasTouch: touch, isMobile: touch });
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
    if (PANELS[i] === 'language_model') {
      await frame.waitForFunction(() => { const m = window.attentionLab.state().language_model; return m.model && !m.busy; }, null, { timeout: 90000 });
    }
    if (PANELS[i] === 'additive') assert.equal(s.additive.inputs.view, 'trained', 'the panel opens on the trained translator');
    // The frame sized itself to its content (up to the window's height) from the resize message.
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
  for (const h of heights) assert.ok(h > 300 && h <= 800, `a frame height from its content, at most the window's: ${h}`);
  const captions = await page.evaluate(() => [...document.querySelectorAll('.caption')].map((c) => c.textContent));
  captions.forEach((c, i) => assert.match(c, new RegExp(`^Panel ${i + 1}, `), 'the course numbers the panels in order'));
  assert.equal(await page.locator('p.try').count(), PANELS.length, 'each section has a try → notice prompt and a question');
  await context.close();
});

test('course page at 390 px: the same panels on a phone, a swipe over a frame scrolls the page', async () => {
  const { context, page } = await readCourse(390, 844, true);
  await page.evaluate(() => document.getElementById('lookup').scrollIntoView());
  await sleep(500);
  await page.screenshot({ path: path.join(artifacts, 'course-390-lookup.png') });
  // Each frame is covered until tapped: the cover is the page's, so a swipe over it scrolls the page.
  const box = await page.locator('.frame').first().boundingBox();
  assert.ok(await page.locator('.frame').first().evaluate((el) => el.classList.contains('covered')), 'the first frame starts covered');
  const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y).className, [box.x + box.width / 2, box.y + box.height / 2]);
  assert.equal(hit, 'cover', 'a touch on the frame lands on the page, not in the frame');
  const y0 = await page.evaluate(() => window.scrollY);
  await page.mouse.wheel(0, 400);
  await sleep(300);
  assert.ok((await page.evaluate(() => window.scrollY)) > y0, 'the page scrolls over a covered frame');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.locator('.frame .cover').first().tap();
  assert.ok(!(await page.locator('.frame').first().evaluate((el) => el.classList.contains('covered'))), 'a tap opens the frame');
  await context.close();
});
