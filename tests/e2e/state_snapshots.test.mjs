// Browser test: the page's data is what the committed snapshot says. For every panel at its
// default inputs, after each scripted change of the other browser tests, and for a few old links,
// state() (timings removed), the link the page writes and the text mirror must equal
// tests/e2e/snapshots/state.json.br to the bit. A deliberate change of behaviour re-writes the
// snapshot (node tests/e2e/state_snapshots.mjs --write) in the same commit.
// Run: node --test tests/e2e/state_snapshots.test.mjs  (CTest does, in the web build).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { collect, readSnapshots } from './state_snapshots.mjs';

/** The first `limit` paths at which a and b differ. */
function differences(a, b, where, out, limit = 12) {
  if (out.length >= limit) return out;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    out.push(`${where}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`);
  } else if (a && typeof a === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[k], b[k], `${where}.${k}`, out, limit);
  } else if (!Object.is(a, b)) {
    out.push(`${where}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`);
  }
  return out;
}

test('every panel and scripted change gives the committed state(), link and text mirror', { timeout: 900000 }, async () => {
  const want = readSnapshots();
  // Through JSON, as the committed file went (-0 prints as 0; every other double round-trips exactly).
  const got = JSON.parse(JSON.stringify(await collect()));
  assert.equal(got.length, want.length, 'number of snapshots');
  const bad = [];
  for (let i = 0; i < want.length; ++i) {
    const w = want[i], g = got[i];
    const label = `${w.group} step ${w.step} ${JSON.stringify(w.action)}`;
    assert.equal(`${g.group}/${g.step}`, `${w.group}/${w.step}`, 'snapshot order');
    const d = differences(g, w, label, []);
    if (d.length) bad.push(...d.slice(0, 4));
  }
  assert.deepEqual(bad, [], 'got vs committed:\n' + bad.join('\n'));
});
