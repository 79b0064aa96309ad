/**
 * `npm run bench -- polkadot`: the Polkadot detector and follower.
 *
 * 1. detect on the recorded mainnet block 18468942 (test/fixtures: 4 extrinsics, 58 events) framed
 *    as the reader frames it, with BENCH_WATCHED watched account ids: in-process against the floor
 *    of decoding the block's `System.Events` alone with the same registry (what any reader of the
 *    events pays), through the Piscina pool with 1 and 2 threads, and the one-off cost of decoding
 *    a runtime's metadata (once per runtime per worker);
 * 2. the follower's catch-up (embedded PostgreSQL, pool of BENCH_THREADS, pipelineDepth 8) on
 *    chopsticks running the Rococo Asset Hub runtime, BENCH_ENGINE_BLOCKS blocks of one transfer to
 *    a watched address each, against fetching the same blocks alone. Asset Hub makes a block every
 *    6 s (2 s with elastic scaling): catch-up must stay well above it.
 * Knobs: BENCH_BLOCKS (detect iterations, default 200), BENCH_WATCHED (default 100000),
 * BENCH_ENGINE_BLOCKS (default 60), BENCH_THREADS (default 2).
 */
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { Metadata, TypeRegistry } = require('@polkadot/types');
const { hexToU8a, u8aToHex } = require('@polkadot/util');
const { decodeAddress } = require('@polkadot/util-crypto');
const staticPolkadot = require('@polkadot/types-support/metadata/static-polkadot').default;
const { chainTableOf, createDb, createLogger, migrateLatest, startEmbeddedPostgres } = require('@walletd/core');
const { SharedAddressSet, SharedAddressView, createDetectPool, createFollower } = require('@walletd/indexer');
const { createPolkadotPlugin, detect, encodeFrame } = require('@walletd/plugin-polkadot');
const { createCompany } = require('@walletd/server');
const { poolRates } = require('../poolRates');
const { freePort } = require('../freePort');

const ms = (v) => v.toFixed(3);

async function main() {
  const blocksN = Number(process.env.BENCH_BLOCKS || 200);
  const watchedN = Number(process.env.BENCH_WATCHED || 100_000);
  const engineBlocks = Number(process.env.BENCH_ENGINE_BLOCKS || 60);
  const threads = Number(process.env.BENCH_THREADS || 2);
  const plugin = createPolkadotPlugin();
  const native = chainTableOf(plugin.chains).nativeAsset('polkadot', 'mainnet');

  // The recorded block, framed with the relay metadata npm ships (see test/fixtures/README.md).
  const fixture = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'polkadot', 'dot-mainnet-block-18468942.json'), 'utf8'),
  ).data;
  const metadata = hexToU8a(staticPolkadot);
  const raw = encodeFrame(
    {
      number: String(fixture.block.header.number),
      hash: '0x1ffece02b91e52c4923827843774f705911905c0a66980f7037bed643b746d1d',
      parentHash: fixture.block.header.parentHash,
      specName: 'polkadot',
      specVersion: 1002005,
      metadataKey: 'polkadot/1002005/static',
      extrinsics: fixture.block.extrinsics,
      events: fixture.systemEventsHex,
    },
    metadata,
  );
  const set = new SharedAddressSet(watchedN * 2);
  for (let i = 0; i < watchedN; i++) set.add(u8aToHex(randomBytes(32)));
  for (const a of ['12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM', '12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz'])
    set.add(u8aToHex(decodeAddress(a)));
  const ctx = { chain: 'polkadot', network: 'mainnet', native, tokens: new Map(), watched: new SharedAddressView(set.table) };

  // One-off: a runtime's metadata decoded into a registry (what a worker pays once per runtime).
  let t = performance.now();
  const registry = new TypeRegistry();
  registry.setMetadata(new Metadata(registry, metadata));
  const metadataMs = performance.now() - t;
  const events = hexToU8a(fixture.systemEventsHex);
  for (let i = 0; i < 10; i++) {
    registry.createType('Vec<EventRecord>', events);
    detect(raw, ctx);
  }
  let floor = 0;
  let took = 0;
  let found = 0;
  for (let i = 0; i < blocksN; i++) {
    t = performance.now();
    registry.createType('Vec<EventRecord>', events);
    floor += performance.now() - t;
    t = performance.now();
    found += detect(raw, ctx).transfers.length;
    took += performance.now() - t;
  }
  const rates = await poolRates(blocksN, 10, () => ({
    detectModule: plugin.detectModule,
    raw: raw.slice(),
    chain: 'polkadot',
    network: 'mainnet',
    native,
    tokens: [],
    watched: set.table,
  }));
  const detectTable = [
    '| block | events | frame bytes (metadata) | events decode ms (floor) | detect ms | detect / floor | credits / block | pool x1 blocks/s | pool x2 blocks/s | metadata decode ms (once per runtime) |',
    '| :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    `| recorded mainnet 18468942 | 58 | ${raw.byteLength.toLocaleString('en-US')} (${metadata.byteLength.toLocaleString('en-US')}) | ${ms(floor / blocksN)} | ${ms(took / blocksN)} | ${(took / floor).toFixed(2)}x | ${(found / blocksN).toFixed(1)} | ${rates[1].toFixed(0)} | ${rates[2].toFixed(0)} | ${metadataMs.toFixed(0)} |`,
  ].join('\n');
  console.log(`${watchedN.toLocaleString('en-US')} watched account ids\n\n${detectTable}\n`);

  // Follower catch-up on chopsticks.
  const logger = createLogger({ level: 'silent' });
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-polkadot-'));
  let pg;
  let db;
  let pool;
  let node;
  let row;
  try {
    pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger, database: 'walletd_bench', ephemeral: true });
    db = createDb({ url: pg.url, poolMax: 10, applicationName: 'walletd-bench-polkadot' });
    await migrateLatest(db);
    const company = await createCompany(db, { name: 'Bench', plan: 'paid' });
    pool = createDetectPool(threads);
    const { startChopsticks } = require('@walletd/devchains');
    node = await startChopsticks();
    const watched = [0, 1, 2, 3].map((i) => node.keyring.addFromUri(`//bench//${i}`).address);
    const from = (await node.head()) + 1n;
    for (let i = 0; i < engineBlocks; i++)
      await node.newBlock([await node.sign(node.api.tx.balances.transferKeepAlive(watched[i % 4], 10n ** 12n + BigInt(i)))]);
    const to = await node.head();
    const [w] = await db('wallets')
      .insert({ company_id: company.id, name: 'bench', chain: 'polkadot', network: 'localnet', secret_envelope: {} })
      .returning('id');
    await db('addresses').insert(
      watched.map((a, i) => ({
        company_id: company.id,
        wallet_id: w.id,
        chain: 'polkadot',
        network: 'localnet',
        address: a,
        match_key: u8aToHex(decodeAddress(a)),
        derivation_index: i,
        derivation_path: `//${i}`,
      })),
    );
    const reader = plugin.createReader('polkadot', 'localnet', { rpcUrl: node.url });
    await reader.fetchBlock(from); // the runtime's metadata, once
    let t0 = performance.now();
    let bytes = 0;
    for (let h = from; h <= to; h++) bytes += (await reader.fetchBlock(h)).byteLength;
    const floorSeconds = (performance.now() - t0) / 1000;
    const capped = Object.create(reader);
    capped.head = async () => to;
    const follower = createFollower({
      db,
      logger,
      pool,
      plugin,
      reader: capped,
      pipelineDepth: 8,
      settings: {
        chain: 'polkadot',
        network: 'localnet',
        rpcUrl: node.url,
        startBlock: Number(from),
        finality: 'confirmations',
        confirmations: 1,
      },
    });
    t0 = performance.now();
    await follower.tick();
    const seconds = (performance.now() - t0) / 1000;
    const blocks = follower.stats().blocks;
    const recorded = Number((await db('transfers').where({ chain: 'polkadot', network: 'localnet' }).count('* as n'))[0].n);
    row = { blocks, bytes: bytes / blocks, floorRate: blocks / floorSeconds, rate: blocks / seconds, seconds, recorded };
  } finally {
    await pool?.close().catch(() => undefined);
    await node?.stop().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const followerTable = [
    '| blocks | count | frame bytes | fetch alone blocks/s | follower blocks/s (pipelineDepth 8) | seconds | deposits recorded |',
    '| :-- | --: | --: | --: | --: | --: | --: |',
    `| chopsticks (Rococo Asset Hub runtime), 1 transfer/block | ${row.blocks} | ${Math.round(row.bytes).toLocaleString('en-US')} | ${row.floorRate.toFixed(1)} | ${row.rate.toFixed(1)} | ${row.seconds.toFixed(2)} | ${row.recorded} |`,
  ].join('\n');
  console.log(followerTable);
  const { writeFigures } = require('../figures');
  writeFigures(
    'polkadot',
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, Node ${process.version}, ${watchedN.toLocaleString('en-US')} watched account ids, ${blocksN} detect iterations, detect pool ${threads} threads for the follower.\n\n${detectTable}\n\n${followerTable}`,
  );
  return 0;
}

module.exports = { main };
