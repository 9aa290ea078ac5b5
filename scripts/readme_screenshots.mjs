#!/usr/bin/env node
// scripts/readme_screenshots.mjs — the README's two pictures, made from the built page so that they
// stay current: the Learned heads panel on its shipped checkpoint at 1280×800, and the alignment
// panel on a 390×844 phone. Needs the web build (cmake --build --preset web; ATTN_SITE_DIR to use
// another site folder) and the browser from scripts/setup.sh.
//
//   node scripts/readme_screenshots.mjs        # writes docs/images/learned-heads-1280.png, alignment-phone.png
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { frames, launchChromium, openLab, serveStatic, siteDir, waitCheckpoint } from '../tests/e2e/lib.mjs';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'images');
const server = await serveStatic(siteDir());
const browser = await launchChromium();
try {
  // A trained panel at 1280 px: its head maps after the shipped run, scrolled to them.
  let lab = await openLab(browser, server.url + '?panel=learned_heads', { width: 1280, height: 800 });
  const c = await waitCheckpoint(lab.page, 'learned_heads');
  if (c.status !== 'installed') throw new Error('the Learned heads checkpoint did not install: ' + c.status);
  await frames(lab.page, 6);
  await lab.page.mouse.move(900, 500);
  await lab.page.mouse.wheel(0, 1000);
  await frames(lab.page, 6);
  await lab.page.mouse.move(-10, -10);
  await frames(lab.page, 2);
  await lab.page.screenshot({ path: path.join(out, 'learned-heads-1280.png') });
  if (lab.problems.length) throw new Error('page problems: ' + lab.problems.join('; '));
  await lab.context.close();

  // A phone: the constructed alignment, at 390 CSS px wide (2× pixels).
  lab = await openLab(browser, server.url + '?panel=alignment', { width: 390, height: 844, deviceScaleFactor: 2 });
  await frames(lab.page, 6);
  await lab.page.screenshot({ path: path.join(out, 'alignment-phone.png') });
  if (lab.problems.length) throw new Error('page problems: ' + lab.problems.join('; '));
  await lab.context.close();
  console.log('wrote', path.join(out, 'learned-heads-1280.png'), 'and', path.join(out, 'alignment-phone.png'));
} finally {
  await browser.close();
  server.close();
}
