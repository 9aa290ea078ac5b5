// attn.js under node (--pre-js of the attn target, web build): emscripten's getenv() reads its own
// environment (ENV), not node's, so the variables the core reads are copied from process.env
// before main() runs: ATTN_GPT2_TOKENIZER_DIR (json/tokenize_json.hpp).
Module['preRun'] = (Module['preRun'] || []).concat([function () {
  if (typeof process === 'undefined' || typeof ENV === 'undefined') return;
  for (const name of ['ATTN_GPT2_TOKENIZER_DIR']) {
    if (process.env[name] !== undefined) ENV[name] = process.env[name];
  }
}]);
