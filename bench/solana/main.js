/**
 * `npm run bench -- solana`: the Solana detector and follower.
 *
 * 1. detect on the recorded mainnet block 147078735 (test/fixtures, jsonParsed, 25 transactions)
 *    and on synthetic mainnet-like blocks (json encoding as the reader asks for it, BENCH_TXS
 *    transactions, 2–3 MB: two thirds votes, DEX-like token transactions with inner transfers and
 *    token balances, SOL transfers; a few pay watched addresses and their ATAs) with 100k watched
 *    addresses, in-process against the floor of JSON.parse of the same bytes in the same run, and
 *    through the Piscina pool with 1 and 2 threads;
 * 2. the follower's catch-up (embedded PostgreSQL, pool of BENCH_THREADS, pipelineDepth 8) through
 *    the JSON-RPC test adapter over litesvm (blocks of one executed SOL transfer each), and over the
 *    same synthetic blocks served by a stub JSON-RPC (no engine: the bytes only), against fetching
 *    the same blocks alone. Solana makes ~2.5 blocks a second: catch-up must stay well above it.
 * Knobs: BENCH_BLOCKS (blocks per detect measurement, default 100), BENCH_WATCHED (default 100000),
 * BENCH_TXS (transactions per synthetic block, default 1200), BENCH_ENGINE_BLOCKS (default 300),
 * BENCH_SYNTHETIC_BLOCKS (default 60), BENCH_THREADS (default 2).
 */
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { createServer } = require('node:http');
const os = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { chainTableOf, createDb, createLogger, migrateLatest, startEmbeddedPostgres } = require('@walletd/core');
const { SharedAddressSet, SharedAddressView, createDetectPool, createFollower } = require('@walletd/indexer');
const { associatedTokenAccount, createSolanaPlugin, detect } = require('@walletd/plugin-solana');
const { createCompany } = require('@walletd/server');
const { poolRates } = require('../poolRates');
const { syntheticBlock, key } = require('./syntheticBlocks');
const { freePort } = require('../freePort');

const ms = (t) => t.toFixed(3);

/** detect vs JSON.parse on the same bytes, alternating, after a warm-up. */
function measure(blocks, ctx, n) {
  const text = new TextDecoder();
  for (let i = 0; i < Math.min(10, n); i++) {
    JSON.parse(text.decode(blocks[i % blocks.length]));
    detect(blocks[i % blocks.length], ctx);
  }
  let floor = 0;
  let took = 0;
  let found = 0;
  for (let i = 0; i < n; i++) {
    const b = blocks[i % blocks.length];
    let t = performance.now();
    JSON.parse(text.decode(b));
    floor += performance.now() - t;
    t = performance.now();
    found += detect(b, ctx).transfers.length;
    took += performance.now() - t;
  }
  return { floorMs: floor / n, detectMs: took / n, perBlock: found / n };
}

async function main() {
  const blocksN = Number(process.env.BENCH_BLOCKS || 100);
  const watchedN = Number(process.env.BENCH_WATCHED || 100_000);
  const txsN = Number(process.env.BENCH_TXS || 1200);
  const engineBlocks = Number(process.env.BENCH_ENGINE_BLOCKS || 300);
  const syntheticBlocks = Number(process.env.BENCH_SYNTHETIC_BLOCKS || 60);
  const threads = Number(process.env.BENCH_THREADS || 2);
  const plugin = createSolanaPlugin();
  const native = chainTableOf(plugin.chains).nativeAsset('solana', 'mainnet');
  const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
  const tokens = [{ key: `solana:mainnet:${mint}`, symbol: 'USDC', decimals: 6, contractAddress: mint, matchKey: mint }];

  // 100k watched deposit addresses and their ATAs (what the service watches).
  const set = new SharedAddressSet(watchedN * 4);
  const owners = [];
  const atas = [];
  for (let i = 0; i < watchedN; i++) {
    const a = key();
    set.add(a);
    if (i < 200) {
      const ata = await associatedTokenAccount(a, mint, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
      set.add(ata);
      owners.push(a);
      atas.push(ata);
    }
  }
  const view = new SharedAddressView(set.table);
  const rows = [];

  // The recorded mainnet block (jsonParsed), its wSOL accounts watched too.
  const recorded = JSON.parse(
    readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'solana', 'sol-mainnet-block-jsonparsed-147078735.json'), 'utf8'),
  );
  const wsol = 'So11111111111111111111111111111111111111112';
  const recordedRaw = new TextEncoder().encode(JSON.stringify({ slot: 147078735, block: recorded.data }));
  const wsolTokens = [{ key: `solana:mainnet:${wsol}`, symbol: 'wSOL', decimals: 9, contractAddress: wsol, matchKey: wsol }];
  for (const t of recorded.data.result.transactions)
    for (const b of t.meta.postTokenBalances) {
      set.add(b.owner);
      set.add(t.transaction.message.accountKeys[b.accountIndex].pubkey);
    }
  {
    const ctx = { chain: 'solana', network: 'mainnet', native, tokens: new Map(wsolTokens.map((t) => [t.matchKey, t])), watched: view };
    const m = measure([recordedRaw], ctx, blocksN * 10);
    const rates = await poolRates(blocksN * 10, 10, () => ({
      detectModule: plugin.detectModule,
      raw: recordedRaw.slice(),
      chain: 'solana',
      network: 'mainnet',
      native,
      tokens: wsolTokens,
      watched: set.table,
    }));
    rows.push({
      label: 'recorded mainnet 147078735 (jsonParsed)',
      txs: 25,
      bytes: recordedRaw.byteLength,
      ...m,
      pool1: rates[1],
      pool2: rates[2],
    });
  }

  // Synthetic 2–3 MB blocks.
  const synthetic = Array.from({ length: 10 }, (_, i) =>
    new TextEncoder().encode(`{"slot":${300_000_000 + i},"block":${syntheticBlock(300_000_000 + i, txsN, owners, atas, mint)}}`),
  );
  {
    const ctx = { chain: 'solana', network: 'mainnet', native, tokens: new Map(tokens.map((t) => [t.matchKey, t])), watched: view };
    const m = measure(synthetic, ctx, blocksN);
    const rates = await poolRates(blocksN, 5, (i) => ({
      detectModule: plugin.detectModule,
      raw: synthetic[i % synthetic.length].slice(),
      chain: 'solana',
      network: 'mainnet',
      native,
      tokens,
      watched: set.table,
    }));
    const bytes = synthetic.reduce((s, b) => s + b.byteLength, 0) / synthetic.length;
    rows.push({ label: `synthetic (json, ${txsN} txs)`, txs: txsN, bytes, ...m, pool1: rates[1], pool2: rates[2] });
  }
  const detectTable = [
    `| block | txs | bytes | JSON.parse ms | detect ms | detect / floor | credits / block | pool x1 blocks/s (txs/s) | pool x2 blocks/s (txs/s) |`,
    '| :-- | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.txs} | ${Math.round(r.bytes).toLocaleString('en-US')} | ${ms(r.floorMs)} | ${ms(r.detectMs)} | ${(r.detectMs / r.floorMs).toFixed(2)}x | ${r.perBlock.toFixed(1)} | ${r.pool1.toFixed(0)} (${(r.pool1 * r.txs).toFixed(0)}) | ${r.pool2.toFixed(0)} (${(r.pool2 * r.txs).toFixed(0)}) |`,
    ),
  ].join('\n');
  console.log(`${watchedN.toLocaleString('en-US')} watched addresses\n\n${detectTable}\n`);

  // Follower catch-up.
  const logger = createLogger({ level: 'silent' });
  const dataDir = mkdtempSync(join(os.tmpdir(), 'walletd-bench-solana-'));
  let pg;
  let db;
  let pool;
  let node;
  let stub;
  const catchUps = [];
  try {
    pg = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger, database: 'walletd_bench', ephemeral: true });
    db = createDb({ url: pg.url, poolMax: 10, applicationName: 'walletd-bench-solana' });
    await migrateLatest(db);
    const company = await createCompany(db, { name: 'Bench', plan: 'paid' });
    pool = createDetectPool(threads);

    async function catchUp(label, network, rpcUrl, from, to, deposits) {
      const k = { chain: 'solana', network };
      const [w] = await db('wallets')
        .insert({ company_id: company.id, name: label, chain: 'solana', network, secret_envelope: {} })
        .returning('id');
      await db('addresses').insert(
        deposits.map((a, i) => ({
          company_id: company.id,
          wallet_id: w.id,
          chain: 'solana',
          network,
          address: a,
          match_key: a,
          derivation_index: i,
          derivation_path: `m/44'/501'/${i}'/0'`,
        })),
      );
      const reader = plugin.createReader('solana', network, { rpcUrl });
      // The floor: the same blocks fetched one after the other, nothing else.
      let t0 = performance.now();
      let bytes = 0;
      let present = 0;
      for (let h = from; h <= to; h++) {
        const raw = await reader.fetchBlock(h);
        if (raw) {
          bytes += raw.byteLength;
          present++;
        }
      }
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
        settings: { chain: 'solana', network, rpcUrl, startBlock: Number(from), finality: 'confirmations', confirmations: 1 },
      });
      t0 = performance.now();
      await follower.tick();
      const seconds = (performance.now() - t0) / 1000;
      const recorded = Number((await db('transfers').where(k).count('* as n'))[0].n);
      const blocks = follower.stats().blocks;
      catchUps.push({
        label,
        blocks,
        bytes: bytes / present,
        floorRate: present / floorSeconds,
        rate: blocks / seconds,
        seconds,
        recorded,
      });
      process.stdout.write(`${label}: ${(blocks / seconds).toFixed(1)} blocks/s (fetch alone ${(present / floorSeconds).toFixed(1)})\n`);
    }

    // (a) Through the adapter over litesvm: one executed SOL transfer per block, to 4 watched addresses.
    const { startSolanaSvm } = require('@walletd/devchains');
    node = await startSolanaSvm();
    const watched = [key(), key(), key(), key()];
    const from = node.slot + 1n;
    for (let i = 0; i < engineBlocks; i++) await node.sendSol(watched[i % 4], 1_000_000_000n + BigInt(i));
    await catchUp(`litesvm adapter, 1 executed SOL transfer/block`, 'localnet', node.url, from, node.slot, watched);

    // (b) Synthetic 2–3 MB blocks from a stub JSON-RPC (bytes only, no engine).
    const bodies = Array.from({ length: 10 }, (_, i) => syntheticBlock(200 + i, txsN, owners, atas, mint));
    stub = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const call = JSON.parse(body);
        res.setHeader('content-type', 'application/json');
        const answer = (result) => res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
        if (call.method === 'getBlock') {
          const slot = call.params[0];
          const text = bodies[slot % bodies.length].replace('"jsonrpc":"2.0","id":1', `"jsonrpc":"2.0","id":${call.id}`);
          // Each block links to the one before it.
          const linked = text.replace(
            /"blockhash":"[^"]+","previousBlockhash":"[^"]+"/,
            `"blockhash":"b${slot}","previousBlockhash":"b${slot - 1}"`,
          );
          if (call.params[1]?.transactionDetails === 'none')
            return answer({ blockhash: `b${slot}`, previousBlockhash: `b${slot - 1}`, parentSlot: slot - 1 });
          return res.end(linked);
        }
        if (call.method === 'getGenesisHash') return answer('stub-genesis');
        if (call.method === 'getSlot') return answer(1_000_000);
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'not served' } }));
      });
    });
    await new Promise((r) => stub.listen(0, '127.0.0.1', r));
    const stubUrl = `http://127.0.0.1:${stub.address().port}`;
    await catchUp(`stub, synthetic ${txsN}-tx blocks`, 'devnet', stubUrl, 1000n, 1000n + BigInt(syntheticBlocks - 1), owners.slice(0, 50));
  } finally {
    await pool?.close().catch(() => undefined);
    await node?.close().catch(() => undefined);
    stub?.close();
    await db?.destroy().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const followerTable = [
    '| blocks | count | block bytes | fetch alone blocks/s | follower blocks/s (pipelineDepth 8) | seconds | deposits recorded |',
    '| :-- | --: | --: | --: | --: | --: | --: |',
    ...catchUps.map(
      (r) =>
        `| ${r.label} | ${r.blocks} | ${Math.round(r.bytes).toLocaleString('en-US')} | ${r.floorRate.toFixed(1)} | ${r.rate.toFixed(1)} | ${r.seconds.toFixed(2)} | ${r.recorded} |`,
    ),
  ].join('\n');
  console.log(`\n${followerTable}`);
  const { writeFigures } = require('../figures');
  writeFigures(
    'solana',
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, Node ${process.version}, ${watchedN.toLocaleString('en-US')} watched addresses (plus the ATAs of 200 of them), ${blocksN} blocks per detect measurement, detect pool ${threads} threads for the follower.\n\n${detectTable}\n\n${followerTable}`,
  );
  return 0;
}

module.exports = { main };
