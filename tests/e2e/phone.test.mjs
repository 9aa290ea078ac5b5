// Phone tests of the built site in headless Chromium, emulating a phone (touch, 390×844 CSS px,
// device scale 3): typing with a soft keyboard and an input method into the lab's text fields,
// Android's key path, Enter and blur; swipes that scroll without editing, sideways drags that
// still move a slider; touch-sized widgets. Run: node --test tests/e2e/phone.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { frames, repoRoot, serveSiteAndChromium, siteDir } from './lib.mjs';
import { centre, locate, state, watch } from './embed_lib.mjs';

const artifacts = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });
const shot = (name) => path.join(artifacts, `phone-${name}.png`);

let server, browser;
await serveSiteAndChromium((s, b) => { server = s; browser = b; });

async function openPhone(query, { reducedMotion = 'no-preference' } = {}) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3,
                                             hasTouch: true, isMobile: true, reducedMotion });
  const page = await context.newPage();
  const log = watch(page);
  await page.goto(server.url + query, { waitUntil: 'load' });
  await page.waitForFunction(() => window.attentionLab && window.attentionLab.firstFrameAt !== null, null, { timeout: 90000 });
  await frames(page, 3);
  return { context, page, log };
}

const active = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return { id: a && a.id, inputMode: a && a.inputMode, enterKeyHint: a && a.enterKeyHint,
           autocorrect: a && a.getAttribute('autocorrect'), autocapitalize: a && a.getAttribute('autocapitalize'),
           spellcheck: a && a.getAttribute('spellcheck'), editable: !!a && a.tagName === 'INPUT' && !a.readOnly && !a.disabled };
});
const sentence = async (page) => (await state(page)).heads.inputs.sentence;
// Every panel's inputs (what a swipe must leave alone).
const allInputs = async (page) => {
  const s = await state(page);
  const out = {};
  for (const [k, v] of Object.entries(s)) if (v && typeof v === 'object' && 'inputs' in v) out[k] = v.inputs;
  return out;
};

test('phone: a tapped field takes soft-keyboard text, IME compositions, Android backspace, Enter; tapping elsewhere blurs', async () => {
  const { context, page, log } = await openPhone('?panel=heads');
  assert.equal(await page.evaluate(() => matchMedia('(pointer: coarse)').matches), true, 'a coarse pointer');
  const field = await centre(page, 'sentence');
  assert.ok(field.rect[3] - field.rect[1] >= 44, `the field is a touch target: ${field.rect[3] - field.rect[1]} px tall`);
  assert.equal(await sentence(page), 'The cat sat on the mat');
  assert.notEqual((await active(page)).id, 'lab-text', 'no editable element before the tap');

  // The tap lands at the field's right end: the cursor goes after the last word.
  await page.touchscreen.tap(field.rect[2] - 4, field.y);
  await frames(page, 4);
  let a = await active(page);
  assert.equal(a.id, 'lab-text', 'an editable element has the focus');
  assert.equal(a.editable, true);
  assert.deepEqual([a.inputMode, a.enterKeyHint, a.autocorrect, a.autocapitalize, a.spellcheck],
                   ['text', 'done', 'off', 'off', 'false']);
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).want_text, true);

  // Soft keyboards and dictation commit text as input events (no key events).
  await page.keyboard.insertText(' again');
  await frames(page, 3);
  assert.equal(await sentence(page), 'The cat sat on the mat again', 'inserted once, at the cursor');

  // An input method: the text in progress is shown over the field, committed once at the end.
  await page.evaluate(() => {
    const box = document.activeElement;
    box.dispatchEvent(new CompositionEvent('compositionstart', { data: '' }));
    box.dispatchEvent(new CompositionEvent('compositionupdate', { data: ' na' }));
    box.dispatchEvent(new CompositionEvent('compositionupdate', { data: ' naï' }));
  });
  await frames(page, 2);
  const pre = await page.evaluate(() => {
    const p = document.getElementById('lab-preedit');
    return { text: p.textContent, shown: getComputedStyle(p).display !== 'none', rect: p.getBoundingClientRect().toJSON() };
  });
  assert.deepEqual([pre.text, pre.shown], [' naï', true], 'the composition is on screen');
  assert.ok(pre.rect.top >= field.rect[1] - 4 && pre.rect.bottom <= field.rect[3] + 4, 'over the field');
  await page.screenshot({ path: shot('composition') });
  assert.equal(await sentence(page), 'The cat sat on the mat again', 'nothing committed while composing');
  await page.evaluate(() => {
    const box = document.activeElement;
    box.dispatchEvent(new CompositionEvent('compositionupdate', { data: ' naïve' }));
    box.dispatchEvent(new CompositionEvent('compositionend', { data: ' naïve' }));
    box.dispatchEvent(new InputEvent('input', { data: ' naïve', inputType: 'insertCompositionText' }));
  });
  await frames(page, 3);
  assert.equal(await sentence(page), 'The cat sat on the mat again naïve', 'committed once, as UTF-8');
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('lab-preedit')).display), 'none');

  // Android: keydown 229, then the edit as beforeinput deleteContentBackward: one character goes.
  const deletions = await page.evaluate(() => {
    const box = document.activeElement;
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Unidentified', keyCode: 229, which: 229, bubbles: true, cancelable: true }));
    const ev = new InputEvent('beforeinput', { inputType: 'deleteContentBackward', bubbles: true, cancelable: true });
    box.dispatchEvent(ev);
    box.dispatchEvent(new KeyboardEvent('keyup', { key: 'Unidentified', keyCode: 229, which: 229, bubbles: true }));
    return ev.defaultPrevented;
  });
  assert.equal(deletions, true, 'the element keeps no text of its own');
  await frames(page, 3);
  assert.equal(await sentence(page), 'The cat sat on the mat again naïv', 'one character deleted');

  // A hardware key on the element reaches the field once (no doubled characters).
  await page.keyboard.type('e!');
  await frames(page, 3);
  assert.equal(await sentence(page), 'The cat sat on the mat again naïve!');
  await page.keyboard.press('Backspace');
  await frames(page, 3);
  assert.equal(await sentence(page), 'The cat sat on the mat again naïve');
  await page.screenshot({ path: shot('typed') });

  // The d_model field: a number keyboard; ImGui selects its text on activation, so the typed
  // digits replace it; Enter commits and ends the edit.
  // The field left of its "-" button (the field has no label of its own). In drawing order the
  // "-" buttons are the seed's, d_model's, d_k's (the seed's is on screen too, now that the row
  // wraps at 390 px instead of running off the right edge).
  const minusItem = (await locate(page, '-'))[1];
  assert.ok(minusItem && minusItem.visible, 'the d_model field\'s "-" button is on screen');
  const minus = { x: (minusItem.rect[0] + minusItem.rect[2]) / 2, y: (minusItem.rect[1] + minusItem.rect[3]) / 2,
                  rect: minusItem.rect };
  assert.equal((await state(page)).heads.inputs.d_model, 8);
  await page.touchscreen.tap(minus.rect[0] - 14, minus.y);
  await frames(page, 4);
  a = await active(page);
  assert.equal(a.id, 'lab-text');
  assert.equal(a.inputMode, 'numeric', 'digits keyboard for an integer field');
  await page.keyboard.insertText('16');
  await page.keyboard.press('Enter');
  await frames(page, 4);
  assert.equal((await state(page)).heads.inputs.d_model, 16, 'Enter commits d_model');
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).want_text, false, 'the edit ended');
  assert.notEqual((await active(page)).id, 'lab-text', 'the element is blurred (the keyboard hides)');

  // The soft keyboard takes the lower half of the window (the visual viewport shrinks): the
  // panel scrolls the field being edited above it.
  await page.touchscreen.tap(field.rect[2] - 4, field.y);
  await frames(page, 4);
  assert.equal((await active(page)).id, 'lab-text');
  await page.setViewportSize({ width: 390, height: 480 });
  await frames(page, 6);
  const shown = await centre(page, 'sentence');
  assert.ok(shown.rect[3] <= 480 && shown.rect[1] >= 0, `the field is above the keyboard: ${shown.rect}`);
  assert.equal((await active(page)).id, 'lab-text', 'and still being edited');
  await page.screenshot({ path: shot('keyboard-up') });
  await page.setViewportSize({ width: 390, height: 844 });
  await frames(page, 4);

  // Tapping elsewhere (the panel's paragraph above the field) blurs a field being edited.
  assert.equal((await active(page)).id, 'lab-text');
  const now = await centre(page, 'sentence');
  await page.touchscreen.tap(now.x, now.rect[1] - 40);
  await frames(page, 4);
  assert.equal((await state(page)).panel, 'heads', 'the tap hit the panel text, nothing else');
  assert.equal((await page.evaluate(() => window.attentionLab.inputState())).want_text, false);
  assert.equal((await active(page)).id, 'canvas', 'focus back on the canvas');
  assert.equal(await sentence(page), 'The cat sat on the mat again naïve', 'the tap typed nothing');
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('phone: a vertical swipe over a slider scrolls and edits nothing; a sideways drag moves it', async () => {
  const { context, page, log } = await openPhone('?panel=alignment&embed=1');
  const cdp = await context.newCDPSession(page);
  const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  const slider = async () => centre(page, '##w', 0);  // "le → the"
  await page.screenshot({ path: shot('alignment-before') });
  const before = await allInputs(page);
  let s0 = await slider();
  assert.ok(s0.rect[3] - s0.rect[1] >= 44, `the slider is a touch target: ${s0.rect[3] - s0.rect[1]} px tall`);
  // A swipe up from the slider, as a finger moves (about 60 Hz).
  const x = s0.x, y0 = s0.y;  // the finger lands on the slider
  await touch('touchStart', x, y0);
  for (let y = y0 - 25; y >= y0 - 300; y -= 25) { await touch('touchMove', x + 3, y); await page.waitForTimeout(16); }
  await touch('touchEnd');
  const justAfter = (await centre(page, '##w', 0)).y;
  await page.waitForTimeout(600);
  await frames(page, 3);
  const s1 = await slider();
  assert.deepEqual(await allInputs(page), before, 'the swipe left every input unchanged');
  assert.ok(s0.y - s1.y > 150, `the panel scrolled: the slider moved from y ${s0.y} to ${s1.y}`);
  assert.ok(justAfter - s1.y > 5, `and kept moving after the lift (momentum): ${justAfter} → ${s1.y}`);
  const input = await page.evaluate(() => window.attentionLab.inputState());
  assert.equal(input.active_item, false);
  assert.equal(input.mouse_down, false);
  await page.screenshot({ path: shot('alignment-scrolled') });

  // Scroll back, then drag the slider sideways: it moves.
  await touch('touchStart', 200, 200);
  for (let y = 225; y <= 800; y += 25) await touch('touchMove', 200, y);
  await touch('touchEnd');
  await page.waitForTimeout(1200);
  await frames(page, 3);
  s0 = await slider();
  const w0 = (await state(page)).alignment.inputs.weights[0][0];
  const start = { x: s0.rect[0] + 10, y: s0.y };
  await touch('touchStart', start.x, start.y);
  await frames(page, 2);
  for (const dx of [15, 40, 70, 100]) { await touch('touchMove', start.x + dx, start.y + 2); await frames(page, 1); }
  await touch('touchEnd');
  await frames(page, 4);
  const w1 = (await state(page)).alignment.inputs.weights[0][0];
  assert.notEqual(w1, w0, `the sideways drag moved the slider (${w0} → ${w1})`);
  await page.screenshot({ path: shot('alignment-dragged') });
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('phone, prefers-reduced-motion: a swipe stops with the finger, and an idle page does not change', async () => {
  const { context, page, log } = await openPhone('?panel=alignment&embed=1', { reducedMotion: 'reduce' });
  assert.equal(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches), true);
  const cdp = await context.newCDPSession(page);
  const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  const s0 = await centre(page, '##w', 0);
  // The same fast swipe that flings the panel without the preference.
  await touch('touchStart', s0.x, s0.y);
  for (let y = s0.y - 25; y >= s0.y - 300; y -= 25) { await touch('touchMove', s0.x + 3, y); await page.waitForTimeout(16); }
  await touch('touchEnd');
  await frames(page, 2);
  const justAfter = (await centre(page, '##w', 0)).y;
  await page.waitForTimeout(600);
  await frames(page, 3);
  const s1 = await centre(page, '##w', 0);
  assert.ok(s0.y - s1.y > 150, `the swipe scrolled: ${s0.y} → ${s1.y}`);
  assert.ok(Math.abs(justAfter - s1.y) <= 1, `no momentum after the lift: ${justAfter} → ${s1.y}`);
  // Idle: nothing moves by itself from one frame to the next.
  await page.mouse.move(-10, -10);
  await frames(page, 4);
  const a = await page.screenshot();
  await page.waitForTimeout(700);
  await frames(page, 4);
  const b = await page.screenshot();
  assert.ok(a.equals(b), 'two idle frames 0.7 s apart are the same pixels');
  assert.deepEqual(log.errors, []);
  await context.close();
});

test('phone: below 600 px the navigation is one menu button; the list opens, and a choice closes it', async () => {
  const { context, page, log } = await openPhone('?panel=alignment');
  const all = () => page.evaluate(() => window.attentionLab.locate());
  let items = await all();
  const menu = items.find((it) => it.full.endsWith('###navmenu'));
  assert.ok(menu, 'the menu button is drawn');
  assert.ok(/1 {2}Alignment/.test(menu.label), `it names the panel on screen: ${menu.label}`);
  assert.equal(items.filter((it) => /^\d+ {2}/.test(it.label)).length, 0, 'no tabs while the menu is closed');
  // The panel starts right under it: the navigation takes under 10% of the first screen (was ~26%).
  const copy = items.find((it) => it.label === '\u22EF');
  assert.ok(copy && copy.rect[1] < 844 * 0.2, `the panel's "⋯" menu (under its two-line heading) at y ${copy && copy.rect[1]}`);
  assert.ok(menu.rect[3] < 844 * 0.1, `the menu bar ends at y ${menu.rect[3]}`);
  await page.screenshot({ path: shot('nav-menu-closed') });
  await page.touchscreen.tap((menu.rect[0] + menu.rect[2]) / 2, (menu.rect[1] + menu.rect[3]) / 2);
  await frames(page, 4);
  items = await all();
  const entries = items.filter((it) => /^\d+ {2}/.test(it.label));
  assert.equal(entries.length, 13, 'the list shows every panel');
  await page.screenshot({ path: shot('nav-menu-open') });
  const scaling = entries.find((it) => it.label === '6  Scaling');
  await page.touchscreen.tap((scaling.rect[0] + scaling.rect[2]) / 2, (scaling.rect[1] + scaling.rect[3]) / 2);
  await frames(page, 4);
  assert.equal((await state(page)).panel, 'scaling');
  items = await all();
  assert.equal(items.filter((it) => /^\d+ {2}/.test(it.label)).length, 0, 'the list closed');
  assert.ok(/6 {2}Scaling/.test(items.find((it) => it.full.endsWith('###navmenu')).label));
  assert.deepEqual(log.errors, []);
  await context.close();
});
