// Preloaded (NODE_OPTIONS=-r) into every process and worker of a short bench run by pack.sh: writes
// the files each one compiled, so the pack carries what the benches load and nothing else.
const Module = require('node:module');
const fs = require('node:fs');
const seen = new Set();
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename, ...rest) {
  seen.add(filename);
  return compile.call(this, content, filename, ...rest);
};
for (const ext of ['.json', '.node']) {
  const load = Module._extensions[ext];
  Module._extensions[ext] = function (m, filename, ...rest) {
    seen.add(filename);
    return load.call(this, m, filename, ...rest);
  };
}
const { isMainThread, threadId } = require('node:worker_threads');
const out = `${process.env.DEVPACK_TRACE_DIR}/${process.pid}${isMainThread ? '' : `-${threadId}`}.txt`;
const flush = () => fs.writeFileSync(out, [...seen].join('\n'));
process.on('exit', flush);
setInterval(flush, 2000).unref();
