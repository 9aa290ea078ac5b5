// The page's first download (the scripts and wasm the browser fetches until the first frame is
// drawn) is at most 800 KB gzip -9 (KB = 1000 bytes). Measured from what headless Chromium
// actually requested, so a script added to index.html, or a module linked in by accident, is
// counted; the sizes are the site's files, compressed here. Modules fetched later (the case
// contract's core, the training and language-model Workers, checkpoints) are not part of it.
// scripts/bench_page.mjs prints the same figure beside the frame times.
// Run: node --test tests/e2e/budget.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import zlib from 'node:zlib';

import { openLab, serveSiteAndChromium, siteDir } from './lib.mjs';

const BUDGET_BYTES = 800 * 1000;
let server, browser;
await serveSiteAndChromium((s, b) => { server = s; browser = b; });

test('first download: the scripts and wasm fetched for the first frame are at most 800 KB gzip', async () => {
  const { page, context, problems } = await openLab(browser, server.url);
  const urls = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  const files = [...new Set(urls.map((u) => decodeURIComponent(new URL(u).pathname).replace(/^\//, ''))
    .filter((p) => /\.(js|wasm)$/.test(p)))].sort();
  assert.ok(files.includes('attention_lab.wasm') && files.includes('attention_lab.js'), files.join(', '));
  for (const later of ['attention-lab-compute', 'attention-lab-train-worker', 'attention-lab-lm'])
    assert.ok(!files.some((f) => f.startsWith(later)), `${later} is fetched before it is needed`);
  let total = 0;
  for (const f of files) {
    const gz = zlib.gzipSync(fs.readFileSync(path.join(siteDir(), f)), { level: 9 }).length;
    total += gz;
    console.log(`# ${f.padEnd(24)} ${(gz / 1000).toFixed(1).padStart(7)} KB gzip -9`);
  }
  console.log(`# first download: ${(total / 1000).toFixed(1)} KB of ${BUDGET_BYTES / 1000} KB`);
  assert.ok(total <= BUDGET_BYTES, `first download ${(total / 1000).toFixed(1)} KB > ${BUDGET_BYTES / 1000} KB`);
  assert.deepEqual(problems, []);
  await context.close();
});
