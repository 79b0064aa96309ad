#!/usr/bin/env node
/**
 * `node bench/follower/profileTop.js <.cpuprofile or folder of them> [blocks] [top]`: the functions
 * with the most self time in V8 CPU profiles (BENCH_PROFILE_DIR), summed over the files given, in
 * ms and, with `blocks`, ms a block. A folder is one catch-up's detect threads (one file a thread).
 */
const { readFileSync, readdirSync, statSync } = require('node:fs');
const { basename, join } = require('node:path');

function files(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(path, f));
}

/** Self ms by function (name, file, line): a sample's time goes to the node it was taken in. */
function selfTimes(file, into) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const deltas = p.timeDeltas;
  for (let i = 0; i < p.samples.length; i++) {
    // The delta after a sample is the time it stood for (the last one has none: left out).
    const ms = (deltas[i + 1] ?? 0) / 1000;
    const cf = byId.get(p.samples[i]).callFrame;
    const key = `${cf.functionName || '(anonymous)'} ${cf.url ? `${basename(cf.url)}:${cf.lineNumber + 1}` : ''}`.trim();
    into.set(key, (into.get(key) ?? 0) + ms);
  }
}

const [path, blocksArg, topArg] = process.argv.slice(2);
if (!path) {
  console.error('usage: node bench/follower/profileTop.js <file.cpuprofile | folder> [blocks] [top]');
  process.exit(1);
}
const times = new Map();
for (const f of files(path)) selfTimes(f, times);
const total = [...times.values()].reduce((a, b) => a + b, 0);
const blocks = Number(blocksArg || 0);
// Waiting, not working: the main thread's (idle), a Piscina thread blocked in Atomics.wait for its next task.
const waiting =
  (times.get('(idle)') ?? 0) + [...times.entries()].filter(([k]) => k.startsWith('atomicsWaitLoop ')).reduce((a, [, ms]) => a + ms, 0);
const busy = total - waiting;
console.log(
  `${path}: ${total.toFixed(1)} ms sampled, ${busy.toFixed(1)} ms not waiting${blocks ? `, ${(busy / blocks).toFixed(3)} ms a block` : ''}`,
);
for (const [k, ms] of [...times.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg || 25)))
  console.log(`${ms.toFixed(1).padStart(9)} ms${blocks ? ` ${(ms / blocks).toFixed(3).padStart(7)} ms/block` : ''}  ${k}`);
