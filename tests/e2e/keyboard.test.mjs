// The keyboard alone, in headless Chromium (no mouse event at all): Tab from the page into the
// canvas shows the lab's cursor on its first control, ringed in the theme's colour; Tab goes one
// control on per press, in reading order (the navigation, the page tools, then the panel), to the
// Soft to hard panel's temperature slider, which Space takes and the arrow keys change (state()
// says by how much); Space lets go, the arrows move the cursor again; Enter and Space press the
// focused buttons. In embed mode Tab leaves the canvas after the last control for the page's next
// field (no keyboard trap) and Shift+Tab comes back in at the last control. Screenshots: test-artifacts/e2e-keyboard-*.png.
// Run: node --test tests/e2e/keyboard.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, pngRead } from './lib.mjs';

const site = await labSite();
const { artifacts } = site;

const SLIDER = 'temperature \u03c4';
// The control under the keyboard cursor as the text mirror announces it (null: no cursor shown).
const control = (page) => page.evaluate(() => window.attentionLab.view(-1).control ?? null);
const inputs = (page) => page.evaluate(() => window.attentionLab.state().temperature.inputs);
const focusedId = (page) => page.evaluate(() => (document.activeElement ? document.activeElement.id : ''));
async function key(page, k, n = 1) {
  for (let i = 0; i < n; ++i) {
    await page.keyboard.press(k);
    await frames(page, 2);
  }
}
// A focusable field before the canvas and one after it, as a page around the lab has (script,
// not the mouse, puts the focus on the first: where a learner's Tab would come from).
async function fieldsAround(page) {
  await page.evaluate(() => {
    const canvas = document.getElementById('canvas');
    const field = (id) => Object.assign(document.createElement('input'), { id, ariaLabel: id });
    canvas.before(field('before'));
    canvas.after(field('after'));
    document.getElementById('before').focus();
  });
  await frames(page, 2);
}

// Press `k` (Tab, Shift+Tab) until the cursor is on `label`, at most `max` times; returns the
// labels passed, in order.
async function tabTo(page, label, k = 'Tab', max = 80) {
  const seen = [await control(page)];
  while (seen[seen.length - 1] !== label && seen.length <= max) {
    await key(page, k);
    seen.push(await control(page));
  }
  assert.equal(seen[seen.length - 1], label, `${k} reaches "${label}"; passed: ${JSON.stringify(seen)}`);
  return seen;
}

test('keyboard only: Tab into the canvas, in reading order to the temperature slider, arrows change it', () => site.check('?panel=temperature', async ({ page }) => {
  // The page took the focus at load without showing it; it goes to a field before the canvas
  // (no mouse), then Tab comes in.
  await fieldsAround(page);
  assert.equal(await control(page), null, 'no cursor before the keyboard is used');
  const plain = await page.screenshot();
  await key(page, 'Tab');
  assert.equal(await focusedId(page), 'canvas', 'Tab brings the focus to the canvas');
  assert.equal(await control(page), '1 Alignment', 'focus by Tab shows the cursor on the first control');
  await page.screenshot({ path: path.join(artifacts, 'e2e-keyboard-entered.png') });

  // One control on per press, in reading order, to the slider.
  const seen = await tabTo(page, SLIDER);
  const at = (label) => seen.indexOf(label);
  assert.ok(at('2 Translate') === 1 && at('13 Translate') < 0, `the navigation's entries first: ${JSON.stringify(seen)}`);
  assert.ok(at('\u22EF') > at('3 Additive') && at(SLIDER) > at('\u22EF'), 'then the page tools, then the panel');

  // The ring: the theme's NavHighlight colour just left of the slider's frame, where the picture
  // before the keyboard had the page's ground.
  const [item] = (await page.evaluate((l) => window.attentionLab.locate(l), SLIDER)).filter((it) => it.visible);
  assert.ok(item, 'the slider is on screen');
  const probe = [Math.round(item.rect[0] - 4), Math.round((item.rect[1] + item.rect[3]) / 2)];
  const ring = (await pngRead(page, await page.screenshot({ path: path.join(artifacts, 'e2e-keyboard-slider.png') }), [probe])).pixels[0];
  const ground = (await pngRead(page, plain, [probe])).pixels[0];
  const accent = [31, 111, 178];
  assert.ok(ring.slice(0, 3).every((v, i) => Math.abs(v - accent[i]) <= 40), `the ring's colour at ${probe}: ${ring}`);
  assert.ok(ground.slice(0, 3).some((v, i) => Math.abs(v - accent[i]) > 80), `no ring there before: ${ground}`);

  // Space takes the slider, the arrow keys change it, Space lets go.
  const before = (await inputs(page)).temperature;
  await key(page, 'Space');
  await key(page, 'ArrowRight', 3);
  await key(page, 'Space');
  const after = (await inputs(page)).temperature;
  assert.ok(after > before, `the arrow keys raised the temperature: ${before} -> ${after}`);
  // Let go, the arrows move the cursor again and leave the value; Shift+Tab comes back.
  await key(page, 'ArrowDown');
  assert.notEqual(await control(page), SLIDER, 'ArrowDown moves the cursor on');
  assert.equal((await inputs(page)).temperature, after, 'and the value stays');
  await tabTo(page, SLIDER, 'Shift+Tab');

  // Enter and Space press the focused button.
  await tabTo(page, '\u03c4 = 10');
  await key(page, 'Enter');
  assert.equal((await inputs(page)).temperature, 10, 'Enter presses the focused button');
  await key(page, 'Shift+Tab');
  assert.equal(await control(page), '\u03c4 = 1');
  await key(page, 'Space');
  assert.equal((await inputs(page)).temperature, 1, 'Space presses the focused button');
  await page.waitForFunction(() => /Keyboard on: \u03c4 = 1\./.test(document.getElementById('mirror-status').textContent));
}));

test('keyboard only: Tab leaves the canvas after the last control; Shift+Tab comes back in at the last', () => site.check('?panel=temperature&embed=1', async ({ page }) => {
  await fieldsAround(page);
  await key(page, 'Tab');
  assert.equal(await focusedId(page), 'canvas');
  const first = await control(page);
  assert.equal(first, '\u22EF', 'embedded, the first control is the page tools\' first');
  let last = first, presses = 0;
  while ((await focusedId(page)) === 'canvas' && presses < 200) {
    last = await control(page);
    await key(page, 'Tab');
    ++presses;
  }
  assert.equal(await focusedId(page), 'after', `Tab left the canvas for the next field after ${presses} presses`);
  assert.ok(presses > 5, 'after going through the controls');
  assert.equal(await control(page), null, 'and the cursor is hidden while the focus is elsewhere');
  await key(page, 'Shift+Tab');
  assert.equal(await focusedId(page), 'canvas', 'Shift+Tab comes back');
  assert.equal(await control(page), last, 'onto the last control');
  await page.screenshot({ path: path.join(artifacts, 'e2e-keyboard-last.png') });
}));
