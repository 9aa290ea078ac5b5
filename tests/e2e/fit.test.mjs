// Narrow frames in headless Chromium: every panel of the registry at 320 and 390 CSS px (a phone,
// a narrow column of a course page), plain and embedded. The app measures, each frame, the right
// edge of the widest item of the panel on screen before clipping (web/page/fit_report.hpp;
// boxes that scroll sideways count with their own box) and reports it through
// window.attentionLab.fit(); nothing may reach past the panel's visible area or the canvas, and no
// box (a table column, a child) may cut its content. No number label wraps, at 1280 px or on a
// phone: the report lists every number a line break of the frame's wrapped text fell inside
// ("3.|33e-16"), and that list must be empty. Negative control: the page's test switch
// fitProbe(px) adds one item px too wide and a number in a column narrower than it, which the
// check must flag. Screenshots of every panel go to $ATTN_ARTIFACTS (build/web/test-artifacts/fit
// when run by hand). At 1280 px no table may scroll sideways.
// Run: node --test tests/e2e/fit.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, repoRoot } from './lib.mjs';

const artifacts = path.join(process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'build', 'web', 'test-artifacts'), 'fit');
fs.mkdirSync(artifacts, { recursive: true });

const site = await labSite();

// The panels of the registry, as state() lists them (one key per panel; "recall" is the shared
// "check yourself" strips, not a panel).
const panelNames = (page) => page.evaluate(() => {
  const s = window.attentionLab.state();
  return Object.keys(s).filter((k) => k !== 'recall' && s[k] && typeof s[k] === 'object' && 'inputs' in s[k]);
});

async function fitOf(page, name) {
  const shown = await page.evaluate((n) => window.attentionLab.showPanel(n), name);
  assert.equal(shown.ok, true, `showPanel(${name})`);
  await frames(page, 5);  // the layout settles (scrollbars, table columns sized from the last frame)
  return page.evaluate(() => window.attentionLab.fit());
}

// A desktop canvas shows every table whole: at 1280 px no panel's table scrolls sideways (the fit
// report names each table that does), and every panel still fits.
test('fit: at 1280 px no table scrolls sideways, no number wraps, and every panel fits', async () => {
  const { page, context, problems } = await site.open('', { width: 1280, height: 900 });
  const names = await panelNames(page);
  for (const name of names) {
    const fit = await fitOf(page, name);
    await page.screenshot({ path: path.join(artifacts, `page-1280-${name}.png`) });
    assert.deepEqual(fit.sideways_tables, [], `${name} at 1280 px: tables that scroll sideways`);
    assert.deepEqual(fit.split_numbers, [], `${name} at 1280 px: numbers cut across lines`);
    assert.equal(fit.fits, true, `${name} at 1280 px fits: ${JSON.stringify(fit.cut)}`);
  }
  // The detector's control: on a phone some table does scroll sideways, and the report says so.
  assert.deepEqual(problems, []);
  await context.close();
  const phone = await site.open('', { width: 320, height: 800 });
  let sideways = 0;
  for (const name of names) sideways += (await fitOf(phone.page, name)).sideways_tables.length;
  assert.ok(sideways > 0, 'at 320 px some table scrolls sideways and is named');
  assert.deepEqual(phone.problems, []);
  await phone.context.close();
});

for (const { width, embed } of [{ width: 320, embed: false }, { width: 390, embed: false }, { width: 320, embed: true }]) {
  const mode = embed ? 'embedded' : 'page';
  test(`fit: every panel at ${width} px (${mode}) keeps its content inside the canvas; the too-wide probe is flagged`, async () => {
    const { page, context, problems } = await site.open(embed ? '?embed=1' : '', { width, height: 800 });
    const names = await panelNames(page);
    assert.ok(names.length >= 12, `the registry's panels: ${names}`);
    const widest = {};
    for (const name of names) {
      const fit = await fitOf(page, name);
      widest[name] = fit.widest;
      await page.screenshot({ path: path.join(artifacts, `${mode}-${width}-${name}.png`) });
      assert.equal(fit.panel, name, 'the report is of the panel shown');
      assert.equal(fit.canvas_width, width, 'the canvas is as wide as the frame');
      assert.ok(fit.visible_right <= width, `${name}: the visible area ends inside the canvas (${fit.visible_right})`);
      assert.ok(fit.widest <= fit.visible_right + 0.5 && fit.widest <= width,
                `${name} at ${width} px: widest item ends at ${fit.widest}, past the visible edge ${fit.visible_right}`);
      assert.deepEqual(fit.cut, [], `${name} at ${width} px: content cut by its box`);
      assert.deepEqual(fit.split_numbers, [], `${name} at ${width} px: numbers cut across lines`);
      assert.equal(fit.fits, true, `${name} at ${width} px fits`);
    }
    console.log(`widest item at ${width} px (${mode}):`, JSON.stringify(widest));

    // Negative control: one item 40 px wider than the panel's content area, on the first panel.
    await fitOf(page, names[0]);
    await page.evaluate(() => window.attentionLab.fitProbe(40));
    await frames(page, 3);
    const probed = await page.evaluate(() => window.attentionLab.fit());
    await page.screenshot({ path: path.join(artifacts, `${mode}-${width}-probe.png`) });
    assert.equal(probed.fits, false, 'the too-wide probe is flagged');
    assert.ok(probed.widest > width && probed.cut.length > 0, `the probe reaches past the canvas: ${JSON.stringify(probed)}`);
    assert.ok(probed.split_numbers.length > 0,
              `the probe's number, wider than its column, is flagged as cut: ${JSON.stringify(probed.split_numbers)}`);
    await page.evaluate(() => window.attentionLab.fitProbe(0));
    await frames(page, 3);
    const unprobed = await page.evaluate(() => window.attentionLab.fit());
    assert.equal(unprobed.fits, true, 'and the panel fits again without it');
    assert.deepEqual(unprobed.split_numbers, [], 'and no number is cut');

    // The report is not part of the lesson's state.
    const s = await page.evaluate(() => window.attentionLab.state());
    assert.equal(JSON.stringify(s).includes('visible_right'), false, 'state() does not carry the fit report');
    assert.deepEqual(problems, []);
    await context.close();
  });
}
