// Opens the built page once per ?panel= and reports renderer crashes, console messages and page
// errors (a diagnostic, not a test). Run: node tests/e2e/probe_load.mjs [site dir] [panel...]
import { launchChromium, serveStatic, siteDir } from './lib.mjs';

const dir = process.argv[2] || siteDir();
const panels = process.argv.length > 3 ? process.argv.slice(3) : ['', 'alignment', 'translate'];
const server = await serveStatic(dir);
let browser = await launchChromium();
for (const panel of panels) {
  if (!browser.isConnected()) browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const log = [];
  let crashed = false;
  page.on('crash', () => { crashed = true; log.push('CRASH'); });
  page.on('console', (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => log.push('pageerror: ' + e.message));
  page.on('requestfailed', (r) => log.push('requestfailed: ' + r.url() + ' ' + ((r.failure() || {}).errorText || '')));
  const url = server.url + (panel ? `?panel=${panel}` : '');
  let result = 'ok';
  const t0 = Date.now();
  const tick = setInterval(() => log.push(`t=${((Date.now() - t0) / 1000).toFixed(0)}s`), 10000);
  try {
    await page.goto(url, { waitUntil: 'load', timeout: Number(process.env.PROBE_TIMEOUT || 60000) });
    await page.waitForFunction(() => window.attentionLab && window.attentionLab.ready, null, { timeout: Number(process.env.PROBE_TIMEOUT || 60000) });
    await page.evaluate(() => window.attentionLab.ready.then(() => true));
    for (let i = 0; i < 10; ++i) await page.evaluate(() => window.attentionLab.nextFrame());
    const s = await page.evaluate(() => { const st = window.attentionLab.state(); return { panel: st.panel, frames: st.frames, translate: st.translate && { status: st.translate.status, step: st.translate.step, checkpoint: st.translate.checkpoint } }; });
    result = JSON.stringify(s);
  } catch (e) {
    result = (crashed ? 'CRASHED: ' : 'FAILED: ') + e.message.split('\n')[0];
  }
  clearInterval(tick);
  console.log(`=== ${panel || '(default)'}: ${result}`);
  for (const l of log.slice(0, 40)) console.log('   ' + l);
  await context.close().catch(() => {});
}
await browser.close().catch(() => {});
await server.close();
