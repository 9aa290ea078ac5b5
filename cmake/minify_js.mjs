// node cmake/minify_js.mjs FILE... — minifies the page's first-download scripts in place with
// terser (Debian's node-terser; NODE_PATH=/usr/share/nodejs): comments and white space go,
// and names local to a function are shortened. Top-level names stay (index.html, course pages
// and the emscripten glue reach them by name), so the scripts behave exactly as before.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let terser;
try {
  terser = require('terser');
} catch (e) {
  console.error('minify_js.mjs: terser not found (apt-get install node-terser; scripts/setup.sh installs it; ' +
                'NODE_PATH must include /usr/share/nodejs)');
  process.exit(1);
}
for (const file of process.argv.slice(2)) {
  const source = fs.readFileSync(file, 'utf8');
  const out = await terser.minify(source, { compress: true, mangle: true, toplevel: false });
  if (!out.code) {
    console.error(`minify_js.mjs: ${file}: terser gave no output`);
    process.exit(1);
  }
  fs.writeFileSync(file, out.code + '\n');
}
