/**
 * `npm run bench -- utxo`: the bitcoin detector on synthetic 1.5 MB segwit blocks (2-in/2-out
 * P2WPKH transactions, 1 % of outputs to watched addresses) with 100k watched scripts, against
 * the floor of reading the same bytes (bitcoinjs-lib's Block.fromBuffer: every transaction and
 * output parsed, no ids), in the same run; plus what computing every txid would cost (a naive
 * detector), and blocks/s through the Piscina pool with 1 and 2 threads.
 * Knobs: BENCH_BLOCKS (blocks per measurement, default 40), BENCH_WATCHED (default 100000).
 */
const { randomBytes } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { nativeAsset } = require('@walletd/core');
const { createUtxoPlugin, detect, frameBlock } = require('@walletd/plugin-utxo');
const { SharedAddressSet, SharedAddressView } = require('@walletd/indexer');
const { writeFigures } = require('../figures');
const { poolRates } = require('../poolRates');

const bitcoin = require('bitcoinjs-lib');
const p2wpkh = (hash) => Buffer.concat([Buffer.from([0x00, 0x14]), hash]);

/** About 1.5 MB: coinbase + N transactions of 2 segwit inputs and 2 P2WPKH outputs. */
function makeBlock(watched) {
  const block = new bitcoin.Block();
  block.version = 0x20000000;
  block.prevHash = randomBytes(32);
  block.merkleRoot = randomBytes(32);
  block.timestamp = 1_700_000_000;
  block.bits = 0x17034219;
  block.nonce = 0;
  const txs = [];
  let size = 80;
  for (let i = 0; size < 1_500_000; i++) {
    const tx = new bitcoin.Transaction();
    tx.version = 2;
    for (let j = 0; j < 2; j++) {
      tx.addInput(randomBytes(32), j, 0xfffffffd);
      tx.setWitness(j, [randomBytes(72), randomBytes(33)]);
    }
    for (let j = 0; j < 2; j++) {
      const toWatched = (i * 2 + j) % 100 === 7;
      tx.addOutput(toWatched ? watched[(i + j) % watched.length] : p2wpkh(randomBytes(20)), BigInt(10_000 + i));
    }
    txs.push(tx);
    size += tx.byteLength();
  }
  block.transactions = txs;
  return new Uint8Array(block.toBuffer());
}

const ms = (t) => t.toFixed(2);

async function main() {
  const blocksN = Number(process.env.BENCH_BLOCKS || 40);
  const size = Number(process.env.BENCH_WATCHED || 100000);
  const plugin = createUtxoPlugin();
  const native = nativeAsset('bitcoin', 'mainnet');
  const set = new SharedAddressSet(size * 2);
  const watched = [];
  for (let i = 0; i < size; i++) {
    const script = p2wpkh(randomBytes(20));
    set.add(script.toString('hex'));
    if (i < 1000) watched.push(script);
  }
  const view = new SharedAddressView(set.table);
  const ctx = { chain: 'bitcoin', network: 'mainnet', native, tokens: new Map(), watched: view };
  const blocks = Array.from({ length: 6 }, () => makeBlock(watched));
  const framed = blocks.map((b, i) => frameBlock(800_000n + BigInt(i), b));
  const bytes = blocks[0].byteLength;
  const txCount = bitcoin.Block.fromBuffer(blocks[0]).transactions.length;
  for (let i = 0; i < 6; i++) {
    bitcoin.Block.fromBuffer(blocks[i]);
    detect(framed[i], ctx);
  }
  let floor = 0;
  let detectTime = 0;
  let allIds = 0;
  let found = 0;
  for (let i = 0; i < blocksN; i++) {
    let t = performance.now();
    bitcoin.Block.fromBuffer(blocks[i % 6]);
    floor += performance.now() - t;
    t = performance.now();
    found += detect(framed[i % 6], ctx).transfers.length;
    detectTime += performance.now() - t;
    t = performance.now();
    for (const tx of bitcoin.Block.fromBuffer(blocks[i % 6]).transactions) tx.getId();
    allIds += performance.now() - t;
  }
  const rates = await poolRates(blocksN, 4, (i) => ({
    detectModule: plugin.detectModule,
    raw: Uint8Array.from(framed[i % 6]),
    chain: 'bitcoin',
    network: 'mainnet',
    native,
    tokens: [],
    watched: set.table,
  }));
  const floorMs = floor / blocksN;
  const detectMs = detectTime / blocksN;
  const idsMs = allIds / blocksN;
  const table = [
    '| watched | block bytes | transactions | read floor ms | detect ms | detect / floor | parse + every txid ms | transfers / block | pool x1 blocks/s | pool x2 blocks/s |',
    '| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    `| ${size.toLocaleString('en')} | ${bytes.toLocaleString('en')} | ${txCount.toLocaleString('en')} | ${ms(floorMs)} | ${ms(detectMs)} | ${(detectMs / floorMs).toFixed(2)}x | ${ms(idsMs)} (${(idsMs / floorMs).toFixed(2)}x) | ${(found / blocksN).toFixed(1)} | ${rates[1].toFixed(1)} | ${rates[2].toFixed(1)} |`,
  ].join('\n');
  console.log(table);
  writeFigures(
    'utxo',
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${require('node:os').cpus().length} cores, Node ${process.version}, ${blocksN} blocks per measurement.\n\n${table}`,
  );
  return 0;
}

module.exports = { main };
