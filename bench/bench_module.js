// bench/bench_module.js — the emscripten Module of the benchmark pages (wasm_bench.html,
// train_bench.html), loaded before the benchmark's own script: its arguments from the query
// string (?args=...), its output lines to the console (which bench/run_wasm.mjs collects) and to
// the page. No top-level const/let: the emscripten script shares this global scope.
var Module = {
  arguments: (new URLSearchParams(location.search).get('args') || '').split(' ').filter(Boolean),
  print: (line) => { console.log(line); document.getElementById('out').textContent += line + '\n'; },
  printErr: (line) => { console.error(line); },
};
