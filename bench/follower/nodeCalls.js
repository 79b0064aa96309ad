/**
 * The follower bench's calls outside the follower: the devnet's JSON-RPC (mining, receipts), the
 * floors (the same blocks fetched by the plugin reader alone) and what PostgreSQL spent its time on.
 */
const { performance } = require('node:perf_hooks');
const { observeNodeCalls } = require('@walletd/plugin-kit');
const { printStatements } = require('../pgStatements');

async function rpc(url, method, params = []) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
async function mined(url, hash) {
  for (;;) {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash]);
    if (r) {
      if (r.status !== '0x1') throw new Error(`transaction ${hash} failed`);
      return r;
    }
    await new Promise((res) => setTimeout(res, 5));
  }
}
/** The floors, measured with anvil's CPU beside the bench process's (`others`: procCpu.js). */
function floorsOf(others) {
  /** The floor: the same blocks fetched one after the other, nothing else. */
  async function floor(reader, from, to) {
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const main0 = process.threadCpuUsage();
    const other = others();
    let bytes = 0;
    for (let h = from; h <= to; h++) bytes += (await reader.fetchBlock(h)).length;
    const cpu = process.cpuUsage(cpu0);
    const main = process.threadCpuUsage(main0);
    const n = Number(to - from + 1n);
    const { anvil } = other();
    return {
      seconds: (performance.now() - t0) / 1000,
      bytes: bytes / n,
      cpuPerBlock: (cpu.user + cpu.system) / 1000 / n,
      // The main thread's share (the rest: V8's GC helpers and libuv; the floor has no detect threads).
      mainCpuPerBlock: (main.user + main.system) / 1000 / n,
      anvilPerBlock: anvil === null ? null : anvil / n,
    };
  }
  /** The same blocks over RPC alone with `depth` requests in flight: what the node serves at once. */
  async function floorInFlight(reader, from, to, depth) {
    const t0 = performance.now();
    let next = from;
    const worker = async () => {
      while (next <= to) {
        const h = next++;
        await reader.fetchBlock(h);
      }
    };
    await Promise.all(Array.from({ length: depth }, worker));
    return (performance.now() - t0) / 1000;
  }
  return { floor, floorInFlight };
}

/** BENCH_PG_STATEMENTS=1: the statements of a catch-up, per block; counted afresh for the next one. */
async function pgStatements(db, label, blocks) {
  await printStatements(db, label, { per: blocks, unit: 'block', top: 10, width: 140 });
  await db.raw('select pg_stat_statements_reset()');
}

/**
 * The node calls of one catch-up, per block: the HTTP requests by method as the transport sends
 * them (a JSON-RPC batch is one: `eth_call batch`), and the calls inside the reader's batches (the
 * balance check's `eth_call`s; "deployless" are those without `to`, BalancesAt). What the follower
 * asks of the node beside the floor's three requests a block, whatever the machine's load.
 */
function countNodeCalls(reader) {
  const requests = new Map();
  const batched = new Map();
  const add = (map, k, n = 1) => map.set(k, (map.get(k) ?? 0) + n);
  observeNodeCalls(({ what }) => add(requests, what));
  const counted = Object.create(reader);
  counted.batch = (calls) => {
    for (const c of calls) add(batched, c.method === 'eth_call' && !c.params?.[0]?.to ? 'eth_call (deployless)' : c.method);
    return reader.batch(calls);
  };
  const line = (map, blocks) =>
    [...map.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k} ${(n / blocks).toFixed(2)}`)
      .join(', ') || 'none';
  return {
    reader: counted,
    /** Stops counting; one line per kind, per block. */
    done(blocks) {
      observeNodeCalls(null);
      return `node requests a block: ${line(requests, blocks)}; calls inside batches a block: ${line(batched, blocks)}`;
    },
  };
}

module.exports = { countNodeCalls, floorsOf, mined, pgStatements, rpc };
