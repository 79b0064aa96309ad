/**
 * `npm run bench -- utxo`: the bitcoin detector on synthetic 1.5 MB segwit blocks (2-in/2-out
 * P2WPKH transactions, 1 % of outputs to watched addresses) with 100k watched scripts, against
 * the floor of reading the same bytes (bitcoinjs-lib's Block.fromBuffer: every transaction and
 * output parsed, no ids), in the same run; plus what computing every txid would cost (a naive
 * detector), and blocks/s through the Piscina pool with 1 and 2 threads.
 * Knobs: BENCH_BLOCKS (blocks per measurement, default 40; the walk and detect alternate over ten
 * times as many), BENCH_WATCHED (default 100000).
 */
const { randomBytes } = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { chainTableOf } = require('@walletd/core');
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

/**
 * The floor of issue 17: every output of the block read (value and script) by a plain loop over
 * the bytes, no objects, no hashing, no lookups. Written here, apart from the plugin, so the
 * detector is measured against something it does not share code with.
 */
function plainWalk(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 80;
  const varint = () => {
    const first = bytes[pos];
    if (first < 0xfd) {
      pos += 1;
      return first;
    }
    if (first === 0xfd) {
      pos += 3;
      return view.getUint16(pos - 2, true);
    }
    pos += 5;
    return view.getUint32(pos - 4, true);
  };
  let sum = 0n;
  let touched = 0;
  const txs = varint();
  for (let t = 0; t < txs; t++) {
    pos += 4;
    const segwit = bytes[pos] === 0 && bytes[pos + 1] === 1;
    if (segwit) pos += 2;
    const inputs = varint();
    for (let i = 0; i < inputs; i++) {
      pos += 36;
      const n = varint();
      pos += n + 4;
    }
    const outputs = varint();
    for (let o = 0; o < outputs; o++) {
      sum += view.getBigUint64(pos, true);
      pos += 8;
      const n = varint();
      touched += bytes[pos + n - 1];
      pos += n;
    }
    if (segwit)
      for (let i = 0; i < inputs; i++) {
        const items = varint();
        for (let w = 0; w < items; w++) {
          const n = varint();
          pos += n;
        }
      }
    pos += 4;
  }
  return { sum, touched };
}

const ms = (t) => t.toFixed(2);

async function main() {
  const blocksN = Number(process.env.BENCH_BLOCKS || 40);
  const size = Number(process.env.BENCH_WATCHED || 100000);
  const plugin = createUtxoPlugin();
  const native = chainTableOf(plugin.chains).nativeAsset('bitcoin', 'mainnet');
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
    plainWalk(blocks[i]);
    detect(framed[i], ctx);
  }
  let found = 0;
  // Each method in a loop of its own over the same blocks: bitcoinjs' garbage would otherwise be
  // collected during whatever runs next and charged to it.
  const timed = (fn) => {
    const t = performance.now();
    for (let i = 0; i < blocksN; i++) fn(i % 6);
    return performance.now() - t;
  };
  // The walk and detect take about a millisecond: they alternate block by block over ten times as
  // many blocks, so a collection, a JIT pause or a neighbour's burst lands on both alike (40 blocks
  // each in turn scattered the ratio by ±30 % between runs).
  let walk = 0;
  let detectTime = 0;
  const pairs = blocksN * 10;
  for (let i = 0; i < pairs; i++) {
    let t = performance.now();
    plainWalk(blocks[i % 6]);
    walk += performance.now() - t;
    t = performance.now();
    found += detect(framed[i % 6], ctx).transfers.length;
    detectTime += performance.now() - t;
  }
  const floor = timed((i) => bitcoin.Block.fromBuffer(blocks[i]));
  const allIds = timed((i) => {
    for (const tx of bitcoin.Block.fromBuffer(blocks[i]).transactions) tx.getId();
  });
  const rates = await poolRates(blocksN * 3, 4, (i) => ({
    detectModule: plugin.detectModule,
    raw: framed[i % 6].slice(),
    chain: 'bitcoin',
    network: 'mainnet',
    native,
    tokens: [],
    watched: set.table,
  }));
  const floorMs = floor / blocksN;
  const walkMs = walk / pairs;
  const detectMs = detectTime / pairs;
  const idsMs = allIds / blocksN;
  const table = [
    '| watched | block bytes | transactions | plain output walk ms | bitcoinjs parse ms | detect ms | detect / walk | detect / bitcoinjs | bitcoinjs + every txid ms | transfers / block | pool x1 blocks/s | pool x2 blocks/s |',
    '| --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    `| ${size.toLocaleString('en')} | ${bytes.toLocaleString('en')} | ${txCount.toLocaleString('en')} | ${ms(walkMs)} | ${ms(floorMs)} | ${ms(detectMs)} | ${(detectMs / walkMs).toFixed(2)}x | ${(detectMs / floorMs).toFixed(2)}x | ${ms(idsMs)} | ${(found / pairs).toFixed(1)} | ${rates[1].toFixed(1)} | ${rates[2].toFixed(1)} |`,
  ].join('\n');
  console.log(table);
  writeFigures(
    'utxo',
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${require('node:os').cpus().length} cores, Node ${process.version}, ${blocksN} blocks per measurement (walk and detect: ${pairs}, alternating).\n\n${table}`,
  );
  return 0;
}

module.exports = { main };
