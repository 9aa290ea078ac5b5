// tests/e2e/lib.mjs — shared pieces of the browser tests and scripts/bench_page.mjs:
// find playwright-core (installed by scripts/setup.sh into the cache, never a browser),
// serve build/web/site from a tiny static server on a free port, launch Debian's
// Chromium headless with SwiftShader WebGL2 (flags for software-rendered WebGL2), open the page.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run', '--disable-quic',
];

/** playwright-core from NODE_PATH, else from the setup cache (~/.cache/attention-lab/playwright-core-X). */
export function loadPlaywright() {
  const dirs = (process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean);
  const cache = process.env.ATTN_CACHE_DIR ||
    path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'attention-lab');
  if (fs.existsSync(cache))
    for (const d of fs.readdirSync(cache).filter((n) => n.startsWith('playwright-core-')).sort().reverse())
      dirs.push(path.join(cache, d, 'node_modules'));
  for (const dir of dirs) {
    if (!fs.existsSync(path.join(dir, 'playwright-core', 'package.json'))) continue;
    return createRequire(path.join(dir, 'noop.js'))('playwright-core');
  }
  throw new Error('playwright-core not found in NODE_PATH or ' + cache + ': run scripts/setup.sh');
}

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png', '.css': 'text/css',
};

/** Serve `root` on 127.0.0.1 (port 0 = a free one). Resolves to {url, close()}. */
export function serveStatic(root, port = 0) {
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(root, urlPath === '/' ? 'index.html' : urlPath);
    if (!file.startsWith(path.resolve(root))) { res.writeHead(403).end(); return; }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file)] || 'application/octet-stream',
        'Content-Length': st.size, 'Cache-Control': 'no-store',
      });
      fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** The built site: ATTN_SITE_DIR or build/web/site. */
export function siteDir() {
  const dir = process.env.ATTN_SITE_DIR || path.join(repoRoot, 'build', 'web', 'site');
  if (!fs.existsSync(path.join(dir, 'index.html')))
    throw new Error(`no built page in ${dir}: run cmake --build --preset web`);
  return dir;
}

export async function launchChromium() {
  const { chromium } = loadPlaywright();
  return chromium.launch({
    executablePath: process.env.ATTN_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/**
 * Open the page in a fresh context and wait for attentionLab.ready.
 * Returns {page, context, problems}: problems collects console errors, page errors and failed requests.
 */
export async function openLab(browser, url, { width = 1280, height = 800, deviceScaleFactor = 1, timeout = 90000 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console.error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('requestfailed', (r) => {
    const why = (r.failure() || {}).errorText || '';
    // Chromium reports a wasm fetch that a later browser context repeats as ERR_ABORTED even
    // though the body arrives (it does not with another MIME type); a really missing wasm
    // fails attentionLab.ready instead, so only other failures count here.
    if (why === 'net::ERR_ABORTED' && r.url().endsWith('.wasm')) return;
    problems.push('request failed: ' + r.url() + ' ' + why);
  });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.url()}`); });
  await page.goto(url, { waitUntil: 'load', timeout });
  await page.waitForFunction(() => window.attentionLab && window.attentionLab.ready, null, { timeout });
  await page.evaluate(() => window.attentionLab.ready.then(() => true));
  return { page, context, problems };
}

/** Wait until every input event sent so far has reached the lab (keys that change twice
 *  between two frames are spread over several), then `n` more frames (so a change is on screen). */
export async function frames(page, n = 2) {
  // After one frame every event dispatched so far has been polled (given to ImGui or queued).
  await page.evaluate(async () => {
    const lab = window.attentionLab;
    await lab.nextFrame();
    for (let i = 0; i < 100 && lab.inputState().pending_input > 0; ++i) await lab.nextFrame();
  });
  for (let i = 1; i < n; ++i) await page.evaluate(() => window.attentionLab.nextFrame());
}

/**
 * Decode a PNG (Buffer) with the page's own canvas decoder: {width, height, pixels}, pixels the
 * RGBA at each [x, y] of `points`; with `stats`, also the luminance variance and the number of
 * distinct colours over every 7th pixel (plenty to tell a drawn frame from a blank one); with
 * `other` (a second PNG), `differing`: how many pixels' RGB differ between the two.
 */
export async function pngRead(page, png, points = [], { stats = false, other = null } = {}) {
  return page.evaluate(async ({ data, pts, stats, otherData }) => {
    const decode = async (b64) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width; c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return { c, g, img };
    };
    const { c, g, img } = await decode(data);
    const out = { width: img.width, height: img.height,
                  pixels: pts.map(([x, y]) => Array.from(g.getImageData(x, y, 1, 1).data)) };
    if (stats) {
      const px = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0, mean = 0, m2 = 0;
      const colours = new Set();
      for (let i = 0; i < px.length; i += 4 * 7) {
        const v = 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2];
        n++; const d = v - mean; mean += d / n; m2 += d * (v - mean);
        if (colours.size < 5000) colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
      }
      out.variance = m2 / n;
      out.colours = colours.size;
    }
    if (otherData) {  // pixels whose RGB differs from the other PNG's (-1: another size)
      const o = await decode(otherData);
      const pa = g.getImageData(0, 0, c.width, c.height).data;
      const pb = o.g.getImageData(0, 0, o.c.width, o.c.height).data;
      let n = 0;
      if (pa.length !== pb.length) n = -1;
      else for (let i = 0; i < pa.length; i += 4) if (pa[i] !== pb[i] || pa[i + 1] !== pb[i + 1] || pa[i + 2] !== pb[i + 2]) ++n;
      out.differing = n;
    }
    return out;
  }, { data: png.toString('base64'), pts: points, stats, otherData: other ? other.toString('base64') : null });
}

/** Per-channel variance of a PNG screenshot's pixels: {width, height, variance, colours}. */
export async function pngStats(page, png) {
  const { width, height, variance, colours } = await pngRead(page, png, [], { stats: true });
  return { width, height, variance, colours };
}

/** Where the browser tests write screenshots: $ATTN_ARTIFACTS, else test-artifacts/ (created). */
export function artifactsDir() {
  const dir = process.env.ATTN_ARTIFACTS || path.join(repoRoot, 'test-artifacts');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Screenshots of a panel that scrolls inside the canvas: the mouse over it, one
 *  `${name}-${i}.png` in `dir` per stop, a wheel of 0.8 viewport heights between stops. */
export async function scrolledScreenshots(page, dir, name, stops) {
  await page.mouse.move(page.viewportSize().width * 0.7, page.viewportSize().height * 0.6);
  for (let i = 0; i < stops; ++i) {
    await page.screenshot({ path: path.join(dir, `${name}-${i}.png`) });
    await page.mouse.wheel(0, page.viewportSize().height * 0.8);
    await frames(page, 4);
  }
}

/**
 * A trained panel's part of window.attentionLab (key: 'learned_heads', 'translate'): state(),
 * set(patch), frames(n), waitStep(min), which polls every `pollMs` until the training reaches
 * step `min` and throws if it stops first or takes longer than `timeoutMs`, and framesWhileWorkerTrains.
 */
export function trainingPanel(page, key, { timeoutMs, pollMs }) {
  return {
    state: () => page.evaluate((k) => window.attentionLab.state()[k], key),
    set: (patch) => page.evaluate(([k, p]) => window.attentionLab.set({ [k]: p }), [key, patch]),
    frames: async (n) => { for (let i = 0; i < n; ++i) await page.evaluate(() => window.attentionLab.nextFrame()); },
    async waitStep(min, waitMs = timeoutMs) {
      const t0 = Date.now();
      for (;;) {
        const s = await page.evaluate((k) => { const h = window.attentionLab.state()[k]; return { step: h.step, running: h.running }; }, key);
        if (s.step >= min) return s.step;
        if (!s.running) throw new Error(`training stopped at step ${s.step} before step ${min}`);
        if (Date.now() - t0 > waitMs) throw new Error(`step ${s.step} after ${waitMs} ms, waiting for ${min}`);
        await sleep(pollMs);
      }
    },
    /**
     * Frames the page drew while its run trained in the Worker: from the first state taken (step
     * > 0, so the Worker's start-up is not counted) until step `min` and at least `atLeastMs`.
     * Returns {drawn, ms, pace: trainWorker() ({slice_ms, rest_ms} as the Worker reported),
     * states: the states its slices and rests allow in that time}. The page draws a frame for each
     * state it takes (one per slice, more at sync steps, fewer when two come between frames).
     */
    async framesWhileWorkerTrains(min, atLeastMs = 1000) {
      await this.waitStep(1);
      const f0 = await page.evaluate(() => window.attentionLab.state().frames);
      const t0 = Date.now();
      await this.waitStep(min);
      await sleep(Math.max(0, atLeastMs - (Date.now() - t0)));
      const f1 = await page.evaluate(() => window.attentionLab.state().frames);
      const ms = Date.now() - t0;
      const pace = await page.evaluate(() => window.attentionLab.trainWorker());
      if (typeof pace.slice_ms !== 'number' || typeof pace.rest_ms !== 'number')
        throw new Error('no Worker run reported its pace: ' + JSON.stringify(pace));
      return { drawn: f1 - f0, ms, pace, states: ms / (pace.slice_ms + pace.rest_ms) };
    },
  };
}

/** Wait until the panel `key`'s checkpoint is neither 'requested' nor 'not_requested'; its state. */
export async function waitCheckpoint(page, key, timeoutMs = 30000) {
  const t0 = Date.now();
  for (;;) {
    const c = await page.evaluate((k) => window.attentionLab.state()[k].checkpoint, key);
    if (c.status !== 'requested' && c.status !== 'not_requested') return c;
    if (Date.now() - t0 > timeoutMs) throw new Error(`checkpoint still ${c.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The URLs of the page's requests from now on that contain `part` (a live array). */
export function requestsTo(page, part) {
  const urls = [];
  page.on('request', (r) => { if (r.url().includes(part)) urls.push(r.url()); });
  return urls;
}

/** A trained panel at phone width (390×844 CSS px): opened by ?panel=`key`, its checkpoint
 *  installed, `stops` scrolled screenshots `${name}-${i}.png` in `dir`, and no page problems. */
export async function phoneWidthScreenshots(browser, server, key, dir, name, stops) {
  const lab = await openLab(browser, server.url + '?panel=' + key, { width: 390, height: 844 });
  const { page, context, problems } = lab;
  const c = await waitCheckpoint(page, key);
  assert.equal(c.status, 'installed');
  await frames(page, 4);
  await scrolledScreenshots(page, dir, name, stops);
  assert.deepEqual(problems, []);
  await context.close();
}

/** The browser tests' shared set-up: node:test hooks that serve the built site and launch
 *  Chromium before the file's tests and close both after; `use(server, browser, lab)` receives
 *  them. With `open` (a link suffix such as '?panel=cost'), one page is also opened for the
 *  whole file (lab = openLab(...)) and its context closed first. */
export async function serveSiteAndChromium(use, { open } = {}) {
  const { before, after } = await import('node:test');
  let server, browser, lab;
  before(async () => {
    server = await serveStatic(siteDir());
    browser = await launchChromium();
    if (open !== undefined) lab = await openLab(browser, server.url + open);
    use(server, browser, lab);
  });
  after(async () => {
    if (lab) await lab.context.close();
    if (browser) await browser.close();
    if (server) await server.close();
  });
}

/** The set-up of a file whose tests open their own pages: serveSiteAndChromium's hooks, with
 *  `site.server` and `site.browser` there from the first test on; `site.open(suffix, opts)` opens
 *  the lab at the served URL + suffix (openLab); `site.scrolled(page, name, stops)` takes the
 *  screenshots of a panel scrolled inside the canvas, one per stop, into `site.artifacts`. */
export async function labSite() {
  const artifacts = artifactsDir();
  const site = {
    artifacts,
    open: (suffix, opts) => openLab(site.browser, site.server.url + suffix, opts),
    scrolled: (page, name, stops) => scrolledScreenshots(page, artifacts, name, stops),
    // Opens the lab at `suffix`, runs `body(lab)`, then expects no console error or failed
    // request on the page and closes it (closed on a failure too).
    check: async (suffix, body, opts) => {
      const lab = await site.open(suffix, opts);
      try {
        await body(lab);
        assert.deepEqual(lab.problems, [], 'no console error or failed request');
      } finally {
        await lab.context.close();
      }
    },
    // Writes the page's state into its address, then opens that address in a second page (as
    // check does) and runs body(other, url).
    viaLink: async (page, body) => {
      await page.evaluate(() => window.attentionLabPage.sync());
      const u = new URL(page.url());
      await site.check(u.search, (other) => body(other, u));
    },
  };
  await serveSiteAndChromium((s, b) => { site.server = s; site.browser = b; });
  return site;
}
