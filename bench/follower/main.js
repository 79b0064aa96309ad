/**
 * `npm run bench -- follower`: how fast the follower catches up on an anvil devnet, against the
 * floor of fetching the same blocks over RPC alone (the plugin reader's `fetchBlock`, one height
 * after the other), in the same run. Two kinds of blocks: empty ones (`anvil_mine`), and blocks
 * holding one `batchTransfer` of the devnet USDC with BENCH_LOGS Transfer logs (1 % of them to
 * watched addresses, so deposits are recorded and announced).
 * A third kind (issue 41 §1): blocks of one contract batch payout of BENCH_PAYOUTS native-coin calls,
 * seen only in call traces. Each kind is caught up with `internalTransfers` 'trace' and 'off'
 * (BENCH_TRACES), against the floor of fetching the same blocks (with their traces, or without).
 * Knobs: BENCH_EMPTY_BLOCKS (default 500), BENCH_EMPTY_ROUNDS (default 5: rounds.js), BENCH_LOG_BLOCKS (default 100), BENCH_LOGS (default 400),
 * BENCH_PAYOUT_BLOCKS (default 50), BENCH_PAYOUTS (default 100), BENCH_TRACES (default "trace,off"),
 * BENCH_DEPTHS (the follower's `pipelineDepth` values to measure, default "8,32": the default
 * before and since issue 41), BENCH_THREADS (detect pool threads, default 2),
 * BENCH_INLINE_DETECT_BYTES (`indexer.inlineDetectBytes`, default 16384; 0: every block to the pool).
 * Each catch-up starts from a clean chain (cursor, blocks, transfers and their exactly-once keys,
 * events) and must record exactly the deposits its range holds, or the run fails.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { Interface } = require('ethers');
const { createDb, createLogger, migrateLatest, readerOptionsFor, startEmbeddedPostgres } = require('@walletd/core');
const { createEvmPlugin } = require('@walletd/plugin-evm');
const { createDetectPool, createFollower } = require('@walletd/indexer');
const { minePayoutBlocks } = require('./payoutBlocks');
const { renderTables } = require('./tables');
const { mergeCatchUps, mergeFloors } = require('./rounds');
const { startProfile } = require('./cpuProfile');
const { otherCpu } = require('./procCpu');
const { countNodeCalls, floorsOf, mined, pgStatements, rpc } = require('./nodeCalls');
const { freePort } = require('../freePort');
const { createCompany } = require('@walletd/server');
const { startDevnet, DEVNET_FUNDER } = require('@walletd/devchains/dist/anvilDevnet');
const token = require('@walletd/devchains/dist/testToken.json');

const addr = () => `0x${randomBytes(20).toString('hex')}`;
/** The commit measured (a `+` when the tree has changes), for the figures' line. */
function commit() {
  try {
    const git = (args) => require('node:child_process').execFileSync('git', args, { cwd: __dirname, encoding: 'utf8' }).trim();
    return `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--untracked-files=no']) ? '+' : ''}`;
  } catch {
    return 'an unknown commit';
  }
}

async function main() {
  const emptyN = Number(process.env.BENCH_EMPTY_BLOCKS || 500);
  const emptyRounds = Number(process.env.BENCH_EMPTY_ROUNDS || 5);
  const logBlocksN = Number(process.env.BENCH_LOG_BLOCKS || 100);
  const logsN = Number(process.env.BENCH_LOGS || 400);
  const depths = (process.env.BENCH_DEPTHS || '8,32').split(',').map(Number);
  const threads = Number(process.env.BENCH_THREADS || 2);
  // indexer.inlineDetectBytes (16384 by default, as serve runs it); 0 hands every block to the pool.
  const inlineBytes = Number(process.env.BENCH_INLINE_DETECT_BYTES ?? 16384);
  const payoutBlocksN = Number(process.env.BENCH_PAYOUT_BLOCKS || 50);
  const payoutsN = Number(process.env.BENCH_PAYOUTS || 100);
  const modes = (process.env.BENCH_TRACES || 'trace,off').split(',');
  const logger = createLogger({ level: 'silent' });
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-follower-'));
  let pg;
  let db;
  let devnet;
  let pool;
  try {
    // BENCH_PG_STATEMENTS=1: what PostgreSQL spent each catch-up on (nodeCalls.js).
    const statements = process.env.BENCH_PG_STATEMENTS === '1';
    const serverSettings = statements ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } : {};
    pg = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      logger,
      database: 'walletd_bench',
      ephemeral: true,
      serverSettings,
    });
    db = createDb({ url: pg.url, poolMax: 10, applicationName: 'walletd-bench-follower' });
    await migrateLatest(db);
    if (statements) await db.raw('create extension if not exists pg_stat_statements');
    devnet = await startDevnet({ dataDir, port: await freePort(), logger });
    const url = devnet.rpcUrl;

    // One company, one wallet, 4 watched addresses.
    const company = await createCompany(db, { name: 'Bench', plan: 'paid' });
    const [w] = await db('wallets')
      .insert({ company_id: company.id, name: 'w', chain: 'ethereum', network: 'devnet', secret_envelope: {} })
      .returning('id');
    const watched = [addr(), addr(), addr(), addr()];
    await db('addresses').insert(
      watched.map((a, i) => ({
        company_id: company.id,
        wallet_id: w.id,
        chain: 'ethereum',
        network: 'devnet',
        address: a,
        match_key: a,
        derivation_index: i,
        derivation_path: `m/44'/60'/0'/0/${i}`,
      })),
    );

    process.stdout.write(`mining ${emptyN} empty blocks and ${logBlocksN} blocks of ${logsN} Transfer logs...\n`);
    const emptyFrom = BigInt(await rpc(url, 'eth_blockNumber')) + 1n;
    await rpc(url, 'anvil_mine', [`0x${emptyN.toString(16)}`]);
    const emptyTo = BigInt(await rpc(url, 'eth_blockNumber'));
    const iface = new Interface(token.abi);
    await mined(
      url,
      await rpc(url, 'eth_sendTransaction', [
        { from: DEVNET_FUNDER, to: devnet.usdc, data: iface.encodeFunctionData('mint', [DEVNET_FUNDER, 10n ** 30n]) },
      ]),
    );
    const logFrom = BigInt(await rpc(url, 'eth_blockNumber')) + 1n;
    for (let b = 0; b < logBlocksN; b++) {
      const to = [];
      for (let i = 0; i < logsN; i++) to.push(i % 100 === 7 ? watched[(i + b) % watched.length] : addr());
      const data = iface.encodeFunctionData('batchTransfer', [to, to.map((_, i) => BigInt(i + 1))]);
      await mined(url, await rpc(url, 'eth_sendTransaction', [{ from: DEVNET_FUNDER, to: devnet.usdc, data, gas: '0x1c9c380' }]));
    }
    const logTo = BigInt(await rpc(url, 'eth_blockNumber'));
    process.stdout.write(`mining ${payoutBlocksN} blocks of one batch payout of ${payoutsN} calls...\n`);
    const payouts = await minePayoutBlocks({
      rpc,
      mined,
      url,
      from: DEVNET_FUNDER,
      watched,
      addr,
      blocks: payoutBlocksN,
      perBlock: payoutsN,
    });

    const others = otherCpu(dataDir);
    const plugin = createEvmPlugin();
    pool = createDetectPool(threads, { inlineBelowBytes: inlineBytes });
    /**
     * The one place the bench says how the chain is followed: the follower's settings and the
     * floor's reader both come from it, so a setting added here (a trace mode) is measured on
     * both sides alike.
     */
    const settings = (startBlock, internalTransfers) => ({
      chain: 'ethereum',
      network: 'devnet',
      rpcUrl: url,
      confirmations: 2,
      startBlock: Number(startBlock),
      internalTransfers,
      tokens: [{ contract: devnet.usdc, symbol: 'USDC', decimals: 6 }],
    });
    const readers = new Map(modes.map((m) => [m, plugin.createReader('ethereum', 'devnet', readerOptionsFor(settings(0, m)))]));
    const key = { chain: 'ethereum', network: 'devnet' };
    /**
     * A clean chain for the next catch-up. `transfer_keys` (the exactly-once keys, migration 027)
     * outlive a deleted transfer by design, so they go too: left behind, the next depth found every
     * transfer known and recorded none. The deposit events go with them.
     */
    const reset = async () => {
      await db('chain_cursors').where(key).delete();
      await db('recent_blocks').where(key).delete();
      await db('transfers').where(key).delete();
      await db('transfer_keys').where(key).delete();
      await db('events').where({ company_id: company.id }).delete();
      await db('followed_chains').where(key).delete();
    };
    /** Deposits the log range holds: the transfers of each block that go to a watched address. */
    const perLogBlock = Array.from({ length: logsN }, (_, i) => i).filter((i) => i % 100 === 7).length;

    const { floor, floorInFlight } = floorsOf(others);
    /**
     * A fresh follower's first tick from `from`, with a reader that reports `to` as the head (the
     * empty range is followed by the log blocks): the catch-up of exactly that range.
     */
    async function catchUp(mode, from, to, depth) {
      await reset();
      const calls = countNodeCalls(readers.get(mode));
      const capped = Object.create(calls.reader);
      capped.head = async () => to;
      const name = `${from}-${to}-${mode}-depth${depth}`;
      const profileDir = process.env.BENCH_PROFILE_DIR;
      const threadsOf = profileDir
        ? createDetectPool(threads, {
            inlineBelowBytes: inlineBytes,
            execArgv: ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, `${name}-workers`)}`],
          })
        : pool;
      const follower = createFollower({
        db,
        logger,
        pool: threadsOf,
        plugin,
        settings: settings(from, mode),
        reader: capped,
        pipelineDepth: depth,
      });
      const profile = profileDir ? await startProfile() : null;
      if (statements) await db.raw('select pg_stat_statements_reset()');
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const main0 = process.threadCpuUsage();
      const other = others();
      await follower.tick();
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const mainCpu = process.threadCpuUsage(main0);
      const { anvil, pg } = other();
      const n = Number(to - from + 1n);
      const ms = (c) => ((c.user + c.system) / 1000 / n).toFixed(2);
      // The bench's CPU split by thread: the main thread (fetch, hand-off, writes) and the rest (the detect threads, V8 and libuv helpers).
      const threadsMs = { user: cpu.user - mainCpu.user, system: cpu.system - mainCpu.system };
      process.stdout.write(`${from}-${to} traces ${mode} depth ${depth}: ${calls.done(n)}\n`);
      process.stdout.write(
        `${from}-${to} traces ${mode} depth ${depth}: CPU ms a block: main thread ${ms(mainCpu)}, other threads (detect, GC helpers) ${ms(threadsMs)}\n`,
      );
      if (profile) await profile(name);
      if (threadsOf !== pool) await threadsOf.close();
      if (statements) await pgStatements(db, `${from}-${to} traces ${mode} depth ${depth}`, Number(to - from + 1n));
      const deposits = Number((await db('transfers').where(key).count('* as n'))[0].n);
      return { seconds, blocks: follower.stats().blocks, deposits, cpuMs: (cpu.user + cpu.system) / 1000, anvilMs: anvil, pgMs: pg };
    }

    const rows = [];
    for (const mode of modes) {
      const reader = readers.get(mode);
      for (const [label, from, to, expected] of [
        ['empty', emptyFrom, emptyTo, 0],
        [`${logsN} Transfer logs`, logFrom, logTo, perLogBlock * logBlocksN],
        [`${payoutsN} internal payouts`, payouts.from, payouts.to, mode === 'trace' ? payouts.deposits : 0],
      ]) {
        const n = Number(to - from + 1n);
        const rounds = label === 'empty' ? emptyRounds : 1;
        await floor(reader, from, to); // warm-up (node caches, connections)
        for (const depth of depths) {
          const inFlightRate = n / (await floorInFlight(reader, from, to, depth));
          const floors = [];
          const catchUps = [];
          for (let round = 0; round < rounds; round++) {
            floors.push(await floor(reader, from, to));
            const c = await catchUp(mode, from, to, depth);
            // A row that wrote nothing measures something else: stop rather than print it.
            if (c.deposits !== expected || c.blocks !== n)
              throw new Error(
                `${label}, traces ${mode}, pipelineDepth ${depth}: recorded ${c.deposits} deposits in ${c.blocks} blocks, expected ${expected} in ${n}`,
              );
            catchUps.push(c);
          }
          const f = mergeFloors(floors);
          const r = mergeCatchUps(catchUps);
          const floorRate = (n * rounds) / f.seconds;
          process.stdout.write(
            `${label} traces ${mode}: floor CPU ms a block: main thread ${f.mainCpuPerBlock.toFixed(2)}, other threads ${(f.cpuPerBlock - f.mainCpuPerBlock).toFixed(2)}\n`,
          );
          rows.push({
            mode,
            label,
            n,
            bytes: f.bytes,
            floorRate,
            floorCpu: f.cpuPerBlock,
            depth,
            inFlightRate,
            rate: r.blocks / r.seconds,
            seconds: r.seconds,
            deposits: r.deposits,
            cpuPerBlock: r.cpuMs / r.blocks,
            floorAnvil: f.anvilPerBlock,
            anvilPerBlock: r.anvilMs === null ? null : r.anvilMs / r.blocks,
            pgPerBlock: r.pgMs === null ? null : r.pgMs / r.blocks,
          });
          process.stdout.write(
            `${label} traces ${mode} depth ${depth}: ${(r.blocks / r.seconds).toFixed(1)} blocks/s (floor ${floorRate.toFixed(1)})\n`,
          );
        }
      }
    }
    const table = renderTables(rows);
    console.log(`\n${table}`);
    const { writeFigures } = require('../figures');
    writeFigures(
      'follower',
      `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC at ${commit()}, ${os.cpus().length} cores, Node ${process.version}, detect pool ${threads} threads; BENCH_EMPTY_BLOCKS=${emptyN} BENCH_EMPTY_ROUNDS=${emptyRounds} BENCH_LOG_BLOCKS=${logBlocksN} BENCH_LOGS=${logsN} BENCH_PAYOUT_BLOCKS=${payoutBlocksN} BENCH_PAYOUTS=${payoutsN} BENCH_TRACES=${modes.join(',')} BENCH_DEPTHS=${depths.join(',')}.\n\n${table}`,
    );
    return 0;
  } finally {
    await pool?.close().catch(() => undefined);
    await devnet?.stop().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

module.exports = { main };
