// tests/e2e/embed_lib.mjs — helpers of the course-page tests (embed, hostile, conformance):
// a static host that serves the built site under a sub-path next to test pages of its own,
// widget lookup through window.attentionLab.locate, and small checks.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { frames, pngRead } from './lib.mjs';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm',
  '.json': 'application/json', '.png': 'image/png', '.css': 'text/css',
};

/**
 * Serve `site` under `prefix` (e.g. "/courses/attention/") and `pages` ({"/host.html": "<html>..."})
 * at the root, as a plain static host would (no rewrites, real MIME types). Resolves to
 * {origin, url(pathname), close()}.
 */
export function serveSite(site, prefix, pages = {}, port = 0) {
  const root = path.resolve(site);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    let p;
    try { p = decodeURIComponent(u.pathname); } catch { res.writeHead(400).end(); return; }
    if (Object.prototype.hasOwnProperty.call(pages, p)) {
      res.writeHead(200, { 'Content-Type': MIME['.html'], 'Cache-Control': 'no-store' }).end(pages[p]);
      return;
    }
    if (!p.startsWith(prefix)) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
    let rel = p.slice(prefix.length);
    if (rel === '' || rel.endsWith('/')) rel += 'index.html';
    const file = path.join(root, rel);
    if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
      res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream',
                           'Content-Length': st.size, 'Cache-Control': 'no-store' });
      fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      resolve({ origin, url: (p = '') => origin + p, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Collect console warnings / errors, page errors and dialogs of a page (or all pages of a context). */
export function watch(page) {
  const log = { warnings: [], errors: [], dialogs: [] };
  page.on('console', (m) => {
    if (m.type() === 'warning') log.warnings.push(m.text());
    if (m.type() === 'error') log.errors.push('console.error: ' + m.text());
  });
  page.on('pageerror', (e) => log.errors.push('page error: ' + e.message));
  page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  return log;
}

/** Rectangles of widgets labelled `label` (frame: a Page or Frame running the lab). */
export async function locate(frame, label) {
  return frame.evaluate((l) => window.attentionLab.locate(l), label);
}

/** Centre of the `index`-th visible widget labelled `label`, in the frame's CSS pixels. */
export async function centre(frame, label, index = 0) {
  const items = (await locate(frame, label)).filter((it) => it.visible);
  if (items.length <= index) throw new Error(`no visible widget "${label}" #${index} (found ${items.length})`);
  const [x0, y0, x1, y1] = items[index].rect;
  return { x: (x0 + x1) / 2, y: (y0 + y1) / 2, rect: items[index].rect };
}

/** Click a widget by label and wait for the frames that apply it. */
export async function clickLabel(page, label, index = 0, opts = {}) {
  const c = await centre(page, label, index);
  await page.mouse.click(c.x + (opts.dx || 0), c.y + (opts.dy || 0));
  await frames(page, 3);
  return c;
}

export const lab = (page, fn, arg) => page.evaluate(fn, arg);
export const state = (page) => page.evaluate(() => window.attentionLab.state());
export const view = (page, max = 0) => page.evaluate((m) => window.attentionLab.view(m), max);

/**
 * state() without what legitimately differs between two page loads: the frame count, and the
 * lesson script's CPU timing fixture (wall-clock measurements).
 */
export function comparableState(s) {
  const c = JSON.parse(JSON.stringify(s));
  delete c.frames;
  if (c.script && c.script.result) delete c.script.result.timing;
  return c;
}

/** Paths where two JSON values differ (first `max`), e.g. ["heads.inputs.seed: 3 != 4"]. */
export function diffPaths(a, b, max = 10, at = '') {
  const out = [];
  const walk = (x, y, p) => {
    if (out.length >= max) return;
    if (typeof x !== typeof y || Array.isArray(x) !== Array.isArray(y) || (x === null) !== (y === null)) {
      out.push(`${p}: ${JSON.stringify(x)?.slice(0, 80)} != ${JSON.stringify(y)?.slice(0, 80)}`);
      return;
    }
    if (x && typeof x === 'object') {
      const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
      for (const k of keys) walk(x[k], y[k], p ? `${p}.${k}` : k);
      return;
    }
    if (!Object.is(x, y)) out.push(`${p}: ${JSON.stringify(x)} != ${JSON.stringify(y)}`);
  };
  walk(a, b, at);
  return out;
}

/** Decode a PNG (Buffer) in the page: {width, height, rgba at (x, y)}. */
export async function pngPixels(page, png, points) {
  return pngRead(page, png, points || []);
}

/** Viridis at t in [0, 1], as shaders/heatmap.frag and embed.js (web/page/embed/export.js) compute it. */
export function viridis(t) {
  const c = [[0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
             [0.1050930431085774, 1.404613529898575, 1.384590162594685],
             [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
             [-4.634230498983486, -5.799100973351585, -19.33244095627987],
             [6.228269936347081, 14.17993336680509, 56.69055260068105],
             [4.776384997670288, -13.74514537774601, -65.35303263337234],
             [-5.435455855934631, 4.645852612178535, 26.3124352495832]];
  return [0, 1, 2].map((k) => {
    let v = c[6][k];
    for (let i = 5; i >= 0; --i) v = c[i][k] + t * v;
    return Math.round(255 * Math.min(1, Math.max(0, v)));
  });
}

export const near = (a, b, tol) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

/** Parse CSV written by embed.js (quoted fields, CRLF). */
export function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; ++i) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; ++i; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(field); field = ''; }
    else if (ch === '\r') continue;
    else if (ch === '\n') { row.push(field); rows.push(row); row = []; field = ''; }
    else field += ch;
  }
  if (field !== '' || row.length) { row.push(field); rows.push(row); }
  return rows;
}

/** Wait until `fn` (in the page) returns a truthy value. */
export async function until(page, fn, arg, timeout = 15000) {
  await page.waitForFunction(fn, arg, { timeout, polling: 50 });
}
