import { openLab } from '../tests/e2e/lib.mjs';
import { inChromium, sleep } from './train_page_lib.mjs';
const key = process.argv[2] || 'learned_heads';
await inChromium('/work/main/build/web/site', async (browser, server) => {
  const { page } = await openLab(browser, server.url, { width: 1280, height: 800 });
  await page.evaluate((k) => window.attentionLab.showPanel(k), key);
  await sleep(3000);
  await page.evaluate(() => { const rec = { t: [], on: true, last: null }; window.__r = rec;
    const tick = (t) => { if (rec.last !== null) rec.t.push([t, t - rec.last, window.attentionLab.frames()]); rec.last = t; if (rec.on) requestAnimationFrame(tick); }; requestAnimationFrame(tick); });
  const t0 = await page.evaluate(() => performance.now());
  await page.evaluate((k) => window.attentionLab.set({ [k]: { train: true } }), key);
  const steps = [];
  for (let i = 0; i < 120; i++) { const s = await page.evaluate((k) => { const h = window.attentionLab.state()[k]; return [performance.now(), h.step, h.status ?? h.running]; }, key); steps.push(s); if (s[2] === 'done' || s[2] === false) break; await sleep(250); }
  await sleep(1500);
  const rec = await page.evaluate(() => { window.__r.on = false; return window.__r.t; });
  const long = rec.filter((x) => x[1] > 50).map((x) => [((x[0] - t0) / 1000).toFixed(2), x[1].toFixed(0)]);
  console.log('long frames (s since train, ms):', JSON.stringify(long));
  console.log('steps:', JSON.stringify(steps.filter((_, i) => i % 8 === 0).map((s) => [((s[0] - t0) / 1000).toFixed(1), s[1]])), 'last', JSON.stringify(steps[steps.length - 1]));
});
