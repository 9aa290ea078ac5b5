#!/usr/bin/env node
// tests/kernels/tiled_cases.mjs — the tiled-kernel variants of the shared dense cases.
//
// Each variant is a case file of tests/cases/ with "kernel":"tiled" and a tile size added to its
// case and the same expectation: the tiled kernel must give the dense reply (or the same error).
// This list is the only place they are written; the cases that exist only for the tiled kernel
// (larger shapes, tile errors) are files in tests/kernels/cases/.
//
//   node tests/kernels/tiled_cases.mjs OUT_DIR [PREFIX]   writes OUT_DIR/PREFIXtiled-<name>.json
//
// Used by tests/kernels/CMakeLists.txt (at configure time, into the build tree; registered as
// "kernel case: tiled-<name>"), tests/fuzz/run.sh (seeds) and tests/e2e/conformance.test.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const denseDir = path.join(here, '..', 'cases');

/// dense case name -> tile size (tiles from 1 to 128, so that tile edges fall everywhere)
export const TILES = {
  'causal-bottom-right-2x3': 1,
  'causal-equal-scores': 2,
  'causal-top-left-2x3': 3,
  'causal-true-needs-alignment': 7,
  'dv-differs-from-dk': 16,
  'empty-row-zero-policy': 64,
  'large-logits-no-overflow': 128,
  'lesson-alignment-le-chat-noir': 1,
  'lesson-all-masked-rejected': 2,
  'lesson-attribution-counterexample': 3,
  'shape-mismatch': 7,
};

/// [{ file: 'tiled-<name>.json', json: {name, about, case, ...the dense file's other fields} }]
export function tiledCases() {
  return Object.entries(TILES).map(([name, tile]) => {
    const dense = JSON.parse(fs.readFileSync(path.join(denseDir, `${name}.json`), 'utf8'));
    const { name: _n, about, case: c, ...rest } = dense;
    const json = {
      name: `tiled-${name}`,
      about: `Shared case ${name}.json run with "kernel":"tiled", tile ${tile}: same expectation. ${about}`,
      case: { ...c, kernel: 'tiled', tile },
      ...rest,
    };
    return { file: `tiled-${name}.json`, json };
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [out, prefix = ''] = process.argv.slice(2);
  if (!out) {
    console.error('usage: node tests/kernels/tiled_cases.mjs OUT_DIR [PREFIX]');
    process.exit(2);
  }
  fs.mkdirSync(out, { recursive: true });
  for (const { file, json } of tiledCases()) fs.writeFileSync(path.join(out, prefix + file), JSON.stringify(json));
}
