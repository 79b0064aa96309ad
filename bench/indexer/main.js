/**
 * `npm run bench -- indexer`: the EVM detector on synthetic mainnet-like blocks (300 transactions,
 * 400 ERC-20 Transfer logs) with 100k and 1M watched addresses, in-process and through the Piscina
 * pool with 1 and 2 threads, against the floor of JSON.parse of the same bytes, in the same run.
 * Knobs: BENCH_BLOCKS (blocks per measurement, default 200; each pool runs three times as many, in
 * turns with the other), BENCH_WATCHED (default "100000,1000000").
 */
const { randomBytes } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { chainTableOf } = require('@walletd/core');
const { createEvmPlugin, detect, TRANSFER_TOPIC } = require('@walletd/plugin-evm');
const { SharedAddressSet, SharedAddressView } = require('@walletd/indexer');
const { poolRates } = require('../poolRates');
const { threadsAloneRates } = require('./threadsAlone');

const hex = (n) => `0x${n.toString(16)}`;
const addr = () => `0x${randomBytes(20).toString('hex')}`;
const word = (a) => `0x${'0'.repeat(24)}${a.slice(2)}`;

/** A block shaped like mainnet's: many transactions, ~400 Transfer logs, 1 % to watched addresses. */
function makeBlock(height, watchedSample, token) {
  const txs = [];
  const receipts = [];
  let logIndex = 0;
  for (let i = 0; i < 300; i++) {
    const hash = `0x${randomBytes(32).toString('hex')}`;
    const to = i % 100 === 0 ? watchedSample[i % watchedSample.length] : addr();
    txs.push({
      hash,
      from: addr(),
      to,
      value: hex(BigInt(i) * 10n ** 15n),
      nonce: hex(i),
      input: '0x',
      gas: '0x5208',
      blockNumber: hex(height),
      transactionIndex: hex(i),
    });
    const logs = [];
    const count = i < 100 ? 4 : 0; // 400 Transfer logs in the first 100 transactions
    for (let j = 0; j < count; j++) {
      // 4 token transfers (j = 0 is the allow-listed token) per block reach watched addresses.
      const recipient = i % 25 === 3 && j === 0 ? watchedSample[(i + j) % watchedSample.length] : addr();
      logs.push({
        address: j % 2 === 0 ? token : addr(),
        topics: [TRANSFER_TOPIC, word(addr()), word(recipient)],
        data: `0x${randomBytes(32).toString('hex')}`,
        logIndex: hex(logIndex++),
        transactionHash: hash,
      });
    }
    receipts.push({ transactionHash: hash, status: '0x1', gasUsed: '0x5208', logs });
  }
  const block = {
    number: hex(height),
    hash: `0x${randomBytes(32).toString('hex')}`,
    parentHash: `0x${randomBytes(32).toString('hex')}`,
    transactions: txs,
  };
  return new TextEncoder().encode(JSON.stringify({ block, receipts }));
}

const ms = (t) => t.toFixed(3);

async function main() {
  const blocksN = Number(process.env.BENCH_BLOCKS || 200);
  const sizes = (process.env.BENCH_WATCHED || '100000,1000000').split(',').map(Number);
  const plugin = createEvmPlugin();
  const token = addr();
  const tokens = [{ key: `ethereum:mainnet:${token}`, symbol: 'TKN', decimals: 18, contractAddress: token, matchKey: token }];
  const native = chainTableOf(plugin.chains).nativeAsset('ethereum', 'mainnet');
  const rows = [];
  for (const size of sizes) {
    const heapBefore = process.memoryUsage();
    const set = new SharedAddressSet(size * 2);
    const sample = [];
    for (let i = 0; i < size; i++) {
      const a = addr();
      set.add(a);
      if (i < 1000) sample.push(a);
    }
    const heapAfter = process.memoryUsage();
    const blocks = Array.from({ length: 20 }, (_, i) => makeBlock(18_000_000 + i, sample, token));
    const bytes = blocks[0].byteLength;
    const view = new SharedAddressView(set.table);
    const ctx = { chain: 'ethereum', network: 'mainnet', native, tokens: new Map(tokens.map((t) => [t.matchKey, t])), watched: view };
    // Warm up both paths, then alternate them so drift hits both equally.
    const decoder = new TextDecoder();
    for (let i = 0; i < 20; i++) {
      JSON.parse(decoder.decode(blocks[i % 20]));
      detect(blocks[i % 20], ctx);
    }
    let floor = 0;
    let detectTime = 0;
    let found = 0;
    for (let i = 0; i < blocksN; i++) {
      const b = blocks[i % 20];
      let t = performance.now();
      JSON.parse(decoder.decode(b));
      floor += performance.now() - t;
      t = performance.now();
      found += detect(b, ctx).transfers.length;
      detectTime += performance.now() - t;
    }
    const floorMs = floor / blocksN;
    const detectMs = detectTime / blocksN;
    const rates = await poolRates(blocksN * 3, 10, (i) => ({
      detectModule: plugin.detectModule,
      raw: blocks[i % 20].slice(),
      chain: 'ethereum',
      network: 'mainnet',
      native,
      tokens,
      watched: set.table,
    }));
    const alone = await threadsAloneRates(blocks, set.table, tokens, native, Math.max(1, Math.round(blocksN / 2)));
    rows.push({
      watched: size,
      bytes,
      floorMs,
      detectMs,
      ratio: detectMs / floorMs,
      perBlock: found / blocksN,
      pool1: rates[1],
      pool2: rates[2],
      alone1: alone[1],
      alone2: alone[2],
      tableMiB: set.table.buffer.byteLength / 2 ** 20,
      rssMiB: (heapAfter.rss - heapBefore.rss) / 2 ** 20,
    });
  }
  const header =
    '| watched | block bytes | JSON.parse ms | detect ms | detect / floor | transfers found / block | pool x1 blocks/s (logs/s) | pool x2 blocks/s (logs/s) | pool x2/x1 | threads alone x1 / x2 blocks/s | alone x2/x1 | watched table MiB | RSS growth MiB |';
  const lines = [header, '| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |'];
  for (const r of rows) {
    lines.push(
      `| ${r.watched.toLocaleString('en')} | ${r.bytes.toLocaleString('en')} | ${ms(r.floorMs)} | ${ms(r.detectMs)} | ${r.ratio.toFixed(2)}x | ${r.perBlock.toFixed(1)} | ${r.pool1.toFixed(0)} (${(r.pool1 * 400).toFixed(0)}) | ${r.pool2.toFixed(0)} (${(r.pool2 * 400).toFixed(0)}) | ${(r.pool2 / r.pool1).toFixed(2)}x | ${r.alone1.toFixed(0)} / ${r.alone2.toFixed(0)} | ${(r.alone2 / r.alone1).toFixed(2)}x | ${r.tableMiB.toFixed(1)} | ${r.rssMiB.toFixed(1)} |`,
    );
  }
  const table = lines.join('\n');
  console.log(table);
  const { writeFigures } = require('../figures');
  writeFigures(
    'indexer',
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${require('node:os').cpus().length} cores, Node ${process.version}, ${blocksN} blocks per measurement.\n\n${table}`,
  );
  return 0;
}

module.exports = { main };
