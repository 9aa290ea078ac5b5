// tests/reference/script_args.mjs — the command line of this folder's node scripts (gpt2_bits.mjs,
// lm_worker.mjs): their arguments, each required, and the files among them that must exist.
import fs from 'node:fs';

// The first `count` arguments after the script; a missing or empty one prints `usage: USAGE` and
// exits 64 (EX_USAGE), so that CTest names a wrong registration rather than a failed comparison.
export function requireArgs(usage, count) {
  const args = process.argv.slice(2, 2 + count);
  if (args.length < count || args.some((a) => !a)) {
    console.error(`usage: ${usage}`);
    process.exit(64);
  }
  return args;
}

// Every path of `files` exists; otherwise prints `absent(path)` (what to build first) and exits 1.
export function requireFiles(files, absent) {
  for (const f of files) {
    if (!fs.existsSync(f)) {
      console.error(absent(f));
      process.exit(1);
    }
  }
}
