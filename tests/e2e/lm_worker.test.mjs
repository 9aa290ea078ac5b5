// The language-model Worker in headless Chromium: the page's first download fetches neither its
// module nor GPT-2's tokenizer files; in a Worker started from the built site, GPT-2's tokenizer
// (the site's gpt2/encoder.json and vocab.bpe) gives OpenAI's ids, and a GPT-2-family file handed
// over as a Blob (as a dropped file is) is read tensor by tensor and gives torch's attention weights.
// Run: node --test tests/e2e/lm_worker.test.mjs (CTest does, in the web build).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { frames, labSite, repoRoot, requestsTo } from './lib.mjs';

const site = await labSite();
const fixtures = path.join(repoRoot, 'tests', 'reference', 'gpt2');

test('lm worker: not in the first download; in a Worker it tokenizes as OpenAI and gives torch\'s attention', () => site.check('', async ({ page }) => {
  const fetched = [...requestsTo(page, 'attention-lab-lm'), ...requestsTo(page, 'gpt2/')];
  await frames(page, 6);
  assert.deepEqual(fetched, [], 'the language-model module and the tokenizer files are not part of the first download');

  const spec = JSON.parse(fs.readFileSync(path.join(fixtures, 'hf-generate-model.json'), 'utf8'));
  const model = [...fs.readFileSync(path.join(fixtures, spec.case.model))];
  const config = fs.readFileSync(path.join(fixtures, spec.case.config), 'utf8');
  const out = await page.evaluate(async ({ model, config, tokens }) => {
    const worker = new Worker('attention-lab-lm.js');
    let next = 0;
    const pending = new Map();
    worker.onmessage = (e) => { pending.get(e.data.id)(e.data); pending.delete(e.data.id); };
    const ask = (m) => new Promise((resolve) => { m.id = ++next; pending.set(m.id, resolve); worker.postMessage(m); });
    const [vocab, merges] = await Promise.all(['gpt2/encoder.json', 'gpt2/vocab.bpe'].map((u) => fetch(u).then((r) => r.text())));
    const tok = await ask({ type: 'tokenizer', vocab, merges });
    const words = await ask({ type: 'run', request: { op: 'tokenize', text: 'Hello world' } });
    const refused = await ask({ type: 'load', file: new Blob([new Uint8Array(model).slice(0, 100)]), config });
    const loaded = await ask({ type: 'load', file: new Blob([new Uint8Array(model)]), config });
    const forward = await ask({ type: 'run', request: { op: 'forward', tokens, top: 3 } });
    worker.terminate();
    return { tok: tok.reply, words: words.reply, refused: refused.reply, loaded: loaded.reply, forward: forward.reply,
             weights: forward.weights ? [...forward.weights] : null, probs: forward.probs ? forward.probs.length : 0 };
  }, { model, config, tokens: spec.case.tokens[0] });

  assert.equal(out.tok.tokenizer, true, JSON.stringify(out.tok));
  assert.equal(out.tok.end_of_text, 50256);
  assert.deepEqual(out.words.tokens, [15496, 995], 'OpenAI\'s ids for "Hello world"');
  assert.equal(out.refused.error.code, 'invalid_field', JSON.stringify(out.refused));
  assert.equal(out.loaded.loaded, true, JSON.stringify(out.loaded));
  assert.equal(out.loaded.layout, 'transformers');
  const { layers, heads, t } = out.forward;
  assert.equal(out.weights.length, layers * heads * t * t);
  assert.equal(out.probs, out.loaded.config.vocab);
  const w = spec.expect.weights;  // torch's, [layer][batch][head][query][key]
  let i = 0, worst = 0;
  for (let l = 0; l < layers; ++l)
    for (let h = 0; h < heads; ++h)
      for (let q = 0; q < t; ++q)
        for (let k = 0; k < t; ++k) worst = Math.max(worst, Math.abs(out.weights[i++] - w[l][0][h][q][k]));
  assert.ok(worst < spec.tolerance, `attention weights within ${spec.tolerance} of torch's (worst ${worst})`);
  const last = spec.expect.logits[0][t - 1];
  assert.equal(out.forward.top[0].id, last.indexOf(Math.max(...last)), 'the top token is torch\'s argmax');
}));
