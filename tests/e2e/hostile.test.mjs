// Hostile input on the page (robustness), in headless Chromium: what a learner can type or paste
// into the fields, what a link can carry, and a lost WebGL context. Every case must end with a
// clear message and the last good result on screen, and no uncaught exception.
// Run: node --test tests/e2e/hostile.test.mjs (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { frames, launchChromium, pngStats, repoRoot, siteDir } from './lib.mjs';
import { centre, clickLabel, comparableState, diffPaths, serveSite, state, view, watch } from './embed_lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const shot = (name) => path.join(artifacts, `hostile-${name}.png`);

let server, browser;
before(async () => {
  server = await serveSite(siteDir(), '/');
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.close();
});

async function open(query = '', opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: opts.height || 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  const page = await context.newPage();
  const log = watch(page);
  await page.goto(server.url('/' + query));
  await page.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  await frames(page, 3);
  return { context, page, log };
}

// Replace the text of a field with `text` (pasted: fast, and any character). `where` finds the
// field again each time (an error message above it moves it down).
async function replaceField(page, where, text, { enter = true } = {}) {
  const at = typeof where === 'function' ? await where() : where;
  await page.mouse.click(at.x, at.y);
  await frames(page, 2);
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.keyboard.press('Control+A');
  if (text === '') await page.keyboard.press('Backspace');
  else await page.keyboard.press('Control+V');
  await frames(page, 3);
  if (enter) await page.keyboard.press('Enter');
  await frames(page, 3);
}

// The text field of an InputInt/InputDouble: left of its "-" step button.
async function stepField(page, index) {
  const minus = await centre(page, '-', index);
  return { x: minus.rect[0] - 30, y: minus.y };
}

const heads = async (page) => (await state(page)).heads;

test('the sentence field: empty, one token, 2,000 tokens, Unicode', async () => {
  const { context, page, log } = await open('?panel=heads');
  const field = () => centre(page, 'sentence');
  const good = await heads(page);

  await replaceField(page, field, '');
  let h = await heads(page);
  assert.equal(h.error.code, 'empty_sequence');
  assert.match(h.error.message, /no tokens/);
  assert.deepEqual(h.result, good.result, 'the last good result stays');
  await frames(page, 2);
  await page.screenshot({ path: shot('empty-sentence') });
  assert.ok((await view(page)).errors.some((e) => e.code === 'empty_sequence'), 'the message is on screen');
  await page.waitForFunction(() => /Input rejected \(empty_sequence\)/.test(document.getElementById('mirror').textContent));

  await replaceField(page, field, 'hello');
  h = await heads(page);
  assert.equal(h.error, null);
  assert.deepEqual(h.result.tokens, ['hello']);
  for (const head of h.result.heads) assert.deepEqual(head.weights, [[1]]);
  await page.screenshot({ path: shot('one-token') });

  const many = Array.from({ length: 2000 }, (_, i) => 'w' + i).join(' ');
  await replaceField(page, field, many);
  h = await heads(page);
  assert.equal(h.error.code, 'too_large');
  assert.match(h.error.message, /2000 tokens; the page draws at most 512/);
  assert.deepEqual(h.result.tokens, ['hello'], 'the last good result stays');
  await page.screenshot({ path: shot('2000-tokens') });

  // Unicode: accented letters are drawn; CJK and emoji (no glyph in the embedded font) show as
  // "U+732B" placeholders with a line that explains them, and the tokens themselves are kept exactly.
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).placeholders, false, 'no placeholder for "hello"');
  await replaceField(page, field, 'café 猫 🐈 naïve Ωmega Ärger');
  h = await heads(page);
  assert.equal(h.error, null);
  assert.deepEqual(h.result.tokens, ['café', '猫', '🐈', 'naïve', 'Ωmega', 'Ärger']);
  assert.equal(h.inputs.sentence, 'café 猫 🐈 naïve Ωmega Ärger', 'the field keeps characters beyond U+FFFF');
  await page.mouse.move(5, 850);
  await frames(page, 3);
  await page.screenshot({ path: shot('unicode') });
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).placeholders, true, '猫 and 🐈 drawn as placeholders');
  const headers = await page.evaluate(() => [...document.querySelectorAll('#mirror table')][0].tHead.textContent);
  assert.ok(headers.includes('猫') && headers.includes('🐈'), 'the text mirror has the real characters');
  assert.deepEqual(log.errors, []);
  assert.deepEqual(log.dialogs, []);
  await context.close();
});

test('numbers typed into fields: NaN, infinity, huge values, huge d_model and head counts', async () => {
  const { context, page, log } = await open('?panel=heads', { height: 1000 });
  const good = await heads(page);
  // heads panel: "-" buttons are seed (0), d_model (1), d_k (2).
  await replaceField(page, () => stepField(page, 1), '99999');
  let h = await heads(page);
  assert.ok(h.error && ['too_large', 'invalid_field'].includes(h.error.code), JSON.stringify(h.error));
  assert.match(h.error.message, /d_model/);
  assert.deepEqual(h.result, good.result);
  assert.equal(h.inputs.d_model, good.inputs.d_model, 'the shown inputs are the last good ones');
  await page.screenshot({ path: shot('huge-d_model') });

  await replaceField(page, () => stepField(page, 2), '100000');
  h = await heads(page);
  assert.ok(h.error && ['too_large', 'invalid_field'].includes(h.error.code), JSON.stringify(h.error));
  assert.deepEqual(h.result, good.result);

  await replaceField(page, () => stepField(page, 1), 'nan');  // not an integer: the field refuses it
  h = await heads(page);
  assert.equal(h.inputs.d_model, good.inputs.d_model);

  // The heads slider takes typed values with Ctrl+click: far beyond its range.
  const slider = await centre(page, 'heads');
  await page.keyboard.down('Control');
  await page.mouse.click(slider.x, slider.y);
  await page.keyboard.up('Control');
  // The slider turns into a text field once the page's frames have taken the click in (on a
  // loaded machine that can take more than two frames; ImGui reports it a frame later).
  await frames(page, 1);
  const typing = await page.evaluate(async () => {
    const lab = window.attentionLab;
    for (let i = 0; i < 60 && !lab.inputState().want_text; ++i) await lab.nextFrame();
    return lab.inputState().want_text;
  });
  assert.ok(typing, 'Ctrl+click turned the heads slider into a text field');
  await page.evaluate((t) => navigator.clipboard.writeText(t), '1000000');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await frames(page, 2);  // frames() also waits until the pasted input is taken
  await page.keyboard.press('Enter');
  await frames(page, 3);
  h = await heads(page);
  assert.equal(h.error.code, 'invalid_field', JSON.stringify(h.error));
  assert.match(h.error.message, /heads/);
  assert.equal(h.result.heads.length, good.result.heads.length);
  await page.screenshot({ path: shot('huge-heads') });

  // Alignment values: NaN, infinities and numbers too large for a double.
  await page.evaluate(() => window.attentionLab.showPanel('alignment'));
  await frames(page, 3);
  const a0 = (await state(page)).alignment;
  const valueField = (k) => stepField(page, k);  // the values table's fields, by their "-" buttons
  // "nan" and "inf" cannot even be typed (the field accepts digits, sign, '.', 'e');
  // overflowing literals parse to infinity and the core refuses them.
  for (const bad of ['nan', 'inf', '1e400', '-1e400']) {
    await replaceField(page, () => valueField(0), bad);
    const a = (await state(page)).alignment;
    if (bad.includes('e4')) assert.equal(a.error && a.error.code, 'non_finite', `${bad}: ${JSON.stringify(a.error)}`);
    assert.deepEqual(a.result, a0.result, `${bad}: the last good result stays`);
    assert.deepEqual(a.inputs.values, a0.inputs.values, `${bad}: the inputs shown are the last good ones`);
  }
  await page.screenshot({ path: shot('nan-value') });
  await replaceField(page, () => valueField(1), '1e300');  // huge but finite: computed exactly
  let a = (await state(page)).alignment;
  assert.equal(a.error, null, JSON.stringify(a.error));
  assert.ok(a.result.contexts.flat().every(Number.isFinite), 'contexts stay finite');

  // Permutation text: not a permutation, absurd integers.
  await page.evaluate(() => window.attentionLab.showPanel('permutation'));
  await frames(page, 3);
  const p0 = (await state(page)).permutation;
  for (const bad of ['nan', '99999999999999999999', '1 1 1 1 1 1', '0 1 2']) {
    await replaceField(page, () => centre(page, 'permutation P'), bad);
    const p = (await state(page)).permutation;
    assert.ok(p.error, `${bad} is refused`);
    assert.deepEqual(p.result, p0.result, `${bad}: the last good result stays`);
  }
  await page.screenshot({ path: shot('bad-permutation') });
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('URL parameters are validated; a script in the address is only ever text', async () => {
  const ref = await open('');
  const defaults = comparableState(await state(ref.page));
  await ref.context.close();

  const attack = '<img src=x onerror=alert(1)><script>alert(2)</script>';
  const { context, page, log } = await open('?panel=heads&sentence=' + encodeURIComponent(attack));
  const h = await heads(page);
  assert.equal(h.inputs.sentence, attack, 'the text arrives as text');
  assert.deepEqual(h.result.tokens, attack.split(' '));
  await frames(page, 3);
  await page.evaluate(() => window.attentionLabPage.sync());
  const dom = await page.evaluate(() => ({
    imgs: document.querySelectorAll('img').length,
    scripts: [...document.scripts].map((s) => s.src || 'inline').length,
    mirror: document.getElementById('mirror').textContent,
  }));
  assert.equal(dom.imgs, 0, 'no element was created from the address');
  assert.ok(dom.mirror.includes('<img'), 'the mirror shows the text literally');
  await page.waitForTimeout(300);
  assert.deepEqual(log.dialogs, [], 'no script ran');
  await page.screenshot({ path: shot('url-injection') });
  await context.close();

  // Malformed and unknown parameters: defaults and a warning each, nothing else.
  const bad = [
    'panel=%3Cscript%3E', 'heads.heads=abc', 'heads.heads=99', 'heads.seed=1e400', 'heads.seed=-1',
    'alignment.weights=%5B%5B1%2C2%5D%2C%5B3', 'alignment.weights=%5B%5B1%2C2%5D%5D', 'unknown=1', 'heads.__proto__=1',
    'constructor.prototype=1', 'permutation.permutation=nan', 'heads.causal=maybe', 'sentence=', 'seed=%E0%A4%A',
    'heads.d_model=1e9', 'embed=0',
  ];
  // One more, too long for a link (20,000 characters): in the hash, which no server sees.
  const b = await open('?' + bad.join('&') + '#heads.sentence=' + 'x%20'.repeat(5001));
  const got = comparableState(await state(b.page));
  assert.deepEqual(diffPaths(got, defaults), [], 'every bad parameter fell back to the default');
  assert.ok(b.log.warnings.length >= bad.length, `one warning per bad parameter:\n${b.log.warnings.join('\n').slice(0, 3000)}`);
  assert.ok(b.log.warnings.every((w) => w.startsWith('Attention Lab: ')));
  for (const panel of ['alignment', 'heads', 'permutation']) assert.equal(got[panel].error, null, `${panel} shows no error box`);
  assert.deepEqual(b.log.errors, []);
  await b.page.screenshot({ path: shot('url-bad-params') });
  await b.context.close();
});

// The page answers ImGui's per-frame GL state queries from a cache (web/platform/
// webgl_state_cache.js): its answers must be what WebGL itself reports.
async function cachedGlStateMatches(page) {
  return page.evaluate(() => {
    const gl = document.getElementById('canvas').getContext('webgl2');
    const real = WebGL2RenderingContext.prototype.getParameter;
    const out = [];
    for (const p of ['SCISSOR_BOX', 'VIEWPORT', 'BLEND_SRC_RGB', 'BLEND_DST_RGB', 'BLEND_SRC_ALPHA', 'BLEND_DST_ALPHA',
                     'BLEND_EQUATION_RGB', 'BLEND_EQUATION_ALPHA']) {
      const a = gl.getParameter(gl[p]), b = real.call(gl, gl[p]);
      out.push([p, JSON.stringify(a && a.length !== undefined ? Array.from(a) : a), JSON.stringify(b && b.length !== undefined ? Array.from(b) : b)]);
    }
    return { cached: gl.getParameter !== real, diff: out.filter((x) => x[1] !== x[2]) };
  });
}

test('WebGL context loss: a message while it is gone, rendering resumes on restore', async () => {
  const { context, page, log } = await open('?panel=heads');
  let gls = await cachedGlStateMatches(page);
  assert.ok(gls.cached, 'the GL state cache is installed');
  assert.deepEqual(gls.diff, [], 'cached GL state = WebGL state');
  const before = await pngStats(page, await page.screenshot());
  await page.evaluate(() => {
    const gl = document.getElementById('canvas').getContext('webgl2');
    window.__lose = gl.getExtension('WEBGL_lose_context');
    window.__lose.loseContext();
  });
  await page.waitForSelector('#gl-lost:not([hidden])');
  assert.match(await page.textContent('#gl-lost'), /graphics .*lost.*Waiting/s);
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).context_lost, true);
  // The lab keeps computing while the screen is gone.
  assert.equal((await page.evaluate(() => window.attentionLab.setSeed(5))).ok, true);
  await page.screenshot({ path: shot('context-lost') });
  await page.evaluate(() => window.__lose.restoreContext());
  await page.waitForSelector('#gl-lost', { state: 'hidden' });
  await frames(page, 5);
  gls = await cachedGlStateMatches(page);
  assert.deepEqual(gls.diff, [], 'cached GL state = WebGL state after the restore');
  const png = await page.screenshot({ path: shot('context-restored') });
  const after = await pngStats(page, png);
  assert.ok(after.variance > 0.5 * before.variance && after.colours > 200, `rendering resumed: ${JSON.stringify(after)}`);
  // Heatmap cells are drawn again (their viridis colours are back under the first head).
  const v = await view(page);
  const [x0, y0] = v.heatmaps[0].rect;
  const px = await page.evaluate(async ({ data, x, y }) => {
    const img = new Image(); img.src = 'data:image/png;base64,' + data; await img.decode();
    const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
    const g = c.getContext('2d'); g.drawImage(img, 0, 0);
    return Array.from(g.getImageData(x, y, 1, 1).data);
  }, { data: png.toString('base64'), x: Math.round(x0 + 8), y: Math.round(y0 + 8) });
  assert.ok(px[2] > px[1] && px[2] > 60, `a viridis cell colour at the heatmap: ${px}`);
  assert.equal((await state(page)).heads.inputs.seed, 5);
  // A context that never comes back: the message offers a reload.
  await page.evaluate(() => window.__lose.loseContext());
  await page.waitForFunction(() => /did not come back/.test(document.getElementById('gl-lost').textContent), null, { timeout: 10000 });
  assert.equal(await page.locator('#gl-lost button').textContent(), 'Reload the page');
  await page.screenshot({ path: shot('context-gone') });
  assert.deepEqual(log.errors, [], 'no uncaught exception');
  await context.close();
});
