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
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { createServer } = require('node:http');
const net = require('node:net');
const os = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { getAddressDecoder } = require('@solana/kit');
const { chainTableOf, createDb, createLogger, migrateLatest, startEmbeddedPostgres } = require('@walletd/core');
const { SharedAddressSet, SharedAddressView, createDetectPool, createFollower } = require('@walletd/indexer');
const { associatedTokenAccount, createSolanaPlugin, detect } = require('@walletd/plugin-solana');
const { createCompany } = require('@walletd/server');
const { poolRates } = require('../poolRates');

const decoder = getAddressDecoder();
const key = () => decoder.decode(randomBytes(32));
const base58 = (n) => decoder.decode(randomBytes(32)).slice(0, n);
const sig = () => base58(44) + base58(44);
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const VOTE = 'Vote111111111111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';

function voteTx() {
  const keys = [key(), key(), 'SysvarS1otHashes111111111111111111111111111', 'SysvarC1ock11111111111111111111111111111111', VOTE];
  return {
    transaction: {
      signatures: [sig()],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 3 },
        recentBlockhash: key(),
        instructions: [{ programIdIndex: 4, accounts: [1, 2, 3, 0], data: base58(44) + base58(44) + base58(40), stackHeight: null }],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: [27_000_000_000, 1_000_000_000_000, 1_169_280, 1_169_280, 1],
      postBalances: [26_999_995_000, 1_000_000_000_000, 1_169_280, 1_169_280, 1],
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      logMessages: [`Program ${VOTE} invoke [1]`, `Program ${VOTE} success`],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 2100,
    },
    version: 'legacy',
  };
}

function tokenTx(watchedOwner, watchedAta, mint) {
  const n = 16;
  const keys = Array.from({ length: n }, key);
  keys[n - 1] = TOKEN;
  if (watchedAta) keys[3] = watchedAta;
  const balances = (delta) =>
    [2, 3, 4, 5, 6, 7].map((i) => ({
      accountIndex: i,
      mint: i % 2 === 0 ? mint : key(),
      owner: i === 3 && watchedOwner ? watchedOwner : key(),
      programId: TOKEN,
      uiTokenAmount: {
        amount: String(1_000_000 + i * 1000 + (i === 3 ? delta : 0)),
        decimals: 6,
        uiAmount: 1.0,
        uiAmountString: '1.0',
      },
    }));
  return {
    transaction: {
      signatures: [sig()],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 4 },
        recentBlockhash: key(),
        instructions: [
          { programIdIndex: n - 2, accounts: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], data: base58(40), stackHeight: null },
        ],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: keys.map((_, i) => 2_039_280 + i),
      postBalances: keys.map((_, i) => 2_039_280 + i - (i === 0 ? 5000 : 0)),
      preTokenBalances: balances(0),
      postTokenBalances: balances(12_345),
      innerInstructions: [
        {
          index: 0,
          instructions: [
            { programIdIndex: n - 1, accounts: [2, 3, 0], data: base58(12), stackHeight: 2 },
            { programIdIndex: n - 1, accounts: [4, 5, 0], data: base58(12), stackHeight: 2 },
          ],
        },
      ],
      logMessages: [
        `Program ${keys[n - 2]} invoke [1]`,
        'Program log: Instruction: Swap',
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: Transfer',
        `Program ${TOKEN} consumed 4645 of 180000 compute units`,
        `Program ${TOKEN} success`,
        `Program ${TOKEN} invoke [2]`,
        'Program log: Instruction: Transfer',
        `Program ${TOKEN} consumed 4645 of 170000 compute units`,
        `Program ${TOKEN} success`,
        `Program data: ${base58(44)}${base58(44)}${base58(44)}`,
        `Program ${keys[n - 2]} consumed 48211 of 200000 compute units`,
        `Program ${keys[n - 2]} success`,
      ],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 48211,
    },
    version: 0,
  };
}

function solTx(to) {
  const keys = [key(), to ?? key(), SYSTEM];
  return {
    transaction: {
      signatures: [sig()],
      message: {
        accountKeys: keys,
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1 },
        recentBlockhash: key(),
        instructions: [{ programIdIndex: 2, accounts: [0, 1], data: base58(16), stackHeight: null }],
      },
    },
    meta: {
      err: null,
      status: { Ok: null },
      fee: 5000,
      preBalances: [5_000_000_000, 1_000_000, 1],
      postBalances: [4_899_995_000, 101_000_000, 1],
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
      logMessages: [`Program ${SYSTEM} invoke [1]`, `Program ${SYSTEM} success`],
      loadedAddresses: { writable: [], readonly: [] },
      rewards: [],
      computeUnitsConsumed: 150,
    },
    version: 0,
  };
}

/** One getBlock answer (json encoding), as the node sends it. */
function syntheticBlock(slot, txs, owners, atas, mint) {
  const transactions = [];
  for (let i = 0; i < txs; i++) {
    const r = i % 12;
    if (r < 8) transactions.push(voteTx());
    else if (r < 11) {
      const hit = i % 300 === 8; // a few token credits to watched ATAs per block
      transactions.push(tokenTx(hit ? owners[i % owners.length] : null, hit ? atas[i % atas.length] : null, mint));
    } else transactions.push(solTx(i % 240 === 11 ? owners[i % owners.length] : null));
  }
  const result = {
    blockhash: key(),
    previousBlockhash: key(),
    parentSlot: slot - 1,
    blockHeight: slot - 10_000,
    blockTime: 1_700_000_000,
    transactions,
  };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, result });
}

const ms = (t) => t.toFixed(3);
const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

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
