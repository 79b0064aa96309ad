import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chain } from '@walletd/plugin-kit';
import { openWalletSecret } from '@walletd/plugin-kit';
import type { ConformanceBlock, ConformanceReorg, ConformanceSubject, WithdrawalConformance } from '@walletd/plugin-kit/testing';
import { addressOfScript, bitcoin, createUtxoPlugin, frameBlock, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import { nativeAsset, startLitecoind, asLitecoind } from '@walletd/test-harness';

/**
 * The UTXO family's scenario for the public kit (utxo.conformance.test.ts, mutants.test.ts). Real
 * blocks: bitcoin mainnet 542213 and dogecoin mainnet 12345 (test/fixtures), and blocks a real
 * litecoind mined in regtest, a reorg included (test/scripts/record-utxo-regtest.js). Litecoin's
 * regtest blocks are Bitcoin Core's format, so they are read as bitcoin/regtest; addresses cross
 * over by their output script. Expected txids and addresses come from the node or bitcoinjs-lib,
 * not from the plugin.
 */
const fixture = (path: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', path), 'utf8'));
const btc = fixture('bitcoin/btc-mainnet-block-542213.json');
const doge = fixture('dogecoin/doge-mainnet-block-12345.json');
const regtest = fixture('bitcoin/ltc-regtest-reorg.json');
const hexBytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

type Payment = { txid: string; vout: number; script: string; amountSat: string };
const regtestAddress = (script: string) => bitcoin.address.fromOutputScript(hexBytes(script), bitcoin.networks.regtest);
const regtestCredit = (p: Payment) => ({
  txHash: p.txid,
  eventIndex: p.vout,
  to: regtestAddress(p.script),
  amount: p.amountSat,
  assetKey: 'bitcoin:regtest:btc',
  logIndex: p.vout,
  eventType: 'utxo_output',
});
const { first, second } = regtest.expected as { first: Payment; second: Payment };
const framed = (b: { header: { number: number }; raw: string }) => frameBlock(BigInt(b.header.number), hexBytes(b.raw));
const headerOf = (h: { number: number; hash: string; parentHash: string }) => ({
  number: BigInt(h.number),
  hash: h.hash,
  parentHash: h.parentHash,
});

/** Dogecoin's address parameters, for bitcoinjs-lib (mainnet: P2PKH 0x1e, P2SH 0x16). */
const DOGE = { ...bitcoin.networks.bitcoin, pubKeyHash: 0x1e, scriptHash: 0x16, wif: 0x9e, bech32: 'doge' };
const ABOVE_2_53 = 2n ** 53n + 1n;
/** Dogecoin block 12345 with one P2PKH output's value set to 2^53 + 1 koinu (made up: 90M DOGE moves on mainnet, not in this block). */
const bigDoge = (() => {
  const block = bitcoin.Block.fromHex(doge.data.hex);
  const txs = block.transactions ?? [];
  const tx = txs.find((t, i) => i > 0 && t.outs.some((o) => o.script.length === 25)) as NonNullable<(typeof txs)[number]>;
  const vout = tx.outs.findIndex((o) => o.script.length === 25);
  (tx.outs[vout] as { value: bigint }).value = ABOVE_2_53;
  return {
    raw: frameBlock(12345n, hexBytes(block.toHex())),
    txid: tx.getId(),
    vout,
    to: bitcoin.address.fromOutputScript((tx.outs[vout] as { script: Uint8Array }).script, DOGE),
  };
})();

const BTC_HEADER = {
  number: 542213n,
  hash: '000000000000000000143a2c56c0214236dadfd30df41d4a0345492ad6d861ec',
  // Block 542212's hash (any explorer).
  parentHash: '000000000000000000085a38ccf9c046c51b96add547c466ccba3612b1eb8089',
};

export const UTXO_BLOCKS: ConformanceBlock[] = [
  {
    name: 'bitcoin: P2PKH and P2WPKH outputs in real block 542213; vouts, and the block’s number, hash and parent',
    chain: 'bitcoin',
    network: 'mainnet',
    raw: frameBlock(542213n, hexBytes(btc.data.hex)),
    header: BTC_HEADER,
    watched: ['1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL', 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn'],
    expected: [
      {
        txHash: '66beaceb4be99da1e9824448231ab4fd37bacaee912381e779b37cf0e1dadad7',
        eventIndex: 0,
        to: '1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL',
        amount: '750000',
        assetKey: 'bitcoin:mainnet:btc',
        logIndex: 0,
      },
      {
        txHash: '6c6e3849acf1b570db352dc08f7776e99c344a56fbb2f019e1865d1b6e044889',
        eventIndex: 1,
        to: 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn',
        amount: '1150',
        assetKey: 'bitcoin:mainnet:btc',
        logIndex: 1,
      },
    ],
  },
  {
    name: 'regtest: a block litecoind mined with two wallet payments; the node’s txids, vouts, header',
    chain: 'bitcoin',
    network: 'regtest',
    raw: framed(regtest.data.orphaned),
    header: headerOf(regtest.data.orphaned.header),
    watched: [regtestAddress(first.script), regtestAddress(second.script)],
    expected: [regtestCredit(first), regtestCredit(second)],
  },
  {
    name: 'dogecoin: block 12345 with an output of 2^53 + 1 koinu (made up; txid by bitcoinjs-lib) is exact',
    chain: 'dogecoin',
    network: 'mainnet',
    raw: bigDoge.raw,
    watched: [bigDoge.to],
    expected: [
      { txHash: bigDoge.txid, eventIndex: bigDoge.vout, to: bigDoge.to, amount: ABOVE_2_53.toString(), assetKey: 'dogecoin:mainnet:doge' },
    ],
  },
];

/** litecoind's own reorg: block N (both payments) invalidated, N' empty, N'+1 with the second payment again. */
export const UTXO_REORG: ConformanceReorg = {
  name: 'regtest: litecoind replaces block N by an empty N’ and N’+1 carrying the second payment again',
  chain: 'bitcoin',
  network: 'regtest',
  watched: [regtestAddress(first.script), regtestAddress(second.script)],
  ancestor: headerOf(regtest.data.ancestor),
  orphaned: [framed(regtest.data.orphaned)],
  replacement: regtest.data.replacement.map(framed),
};

const STORE_DECIDES =
  'decided by the store, not detect: an output of one of the wallet’s own withdrawals (its hash is stored when signed) is never announced (indexer/src/ownMovements.ts); detect must report every watched output, change included';

export const utxoSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets: [
    { chain: 'bitcoin', network: 'mainnet' },
    { chain: 'bitcoin', network: 'testnet' },
    { chain: 'bitcoin', network: 'regtest' },
    { chain: 'dogecoin', network: 'mainnet' },
    { chain: 'dogecoin', network: 'testnet' },
  ] as { chain: Chain; network: string }[],
  blocks: UTXO_BLOCKS,
  reorgs: [UTXO_REORG],
  // BIP-84's own test vector.
  vectors: [
    {
      chain: 'bitcoin',
      network: 'mainnet',
      mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
      index: 0,
      address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    },
  ],
  notCovered: {
    'failed-transaction': 'a UTXO transaction in a block cannot fail: a block with an invalid transaction is itself invalid',
    'unlisted-token': 'bitcoin and dogecoin carry no tokens in this plugin (native coin only)',
    'look-alike-token': 'bitcoin and dogecoin carry no tokens in this plugin (native coin only)',
    from: 'a UTXO output has no single sender: its inputs spend earlier outputs of any number of addresses (the outputs are carried in extra.outputs)',
    memo: 'deposits are told apart by address; the plugin carries no OP_RETURN data as a memo (capabilities.memo false)',
    'destination-tag': 'UTXO addresses carry no tag',
    'own-change': STORE_DECIDES,
    'internal-movement': STORE_DECIDES,
    'zero-amount':
      'no recorded block pays 0 to a watched script (relay policy keeps such dust out; consensus allows it): detect skips a 0-value output, and the store drops any amount ≤ 0',
  },
});

// Withdrawals on a real regtest node: litecoind speaks Bitcoin Core's RPC and transaction format;
// only its address encoding differs, so addresses cross over by their output script.
const net = utxoNetwork('bitcoin', 'regtest');
const nodeNet = asLitecoind(net);
const onNode = (address: string) => addressOfScript(nodeNet, scriptOf(net, address)) as string;
const utxo = createUtxoPlugin();
const elsewhere = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));

/** Blocks are mined only on `settle` (or `release`), so a broadcast transaction waits in the mempool until then. */
export const utxoWithdrawals: WithdrawalConformance = {
  notCovered: {
    dropped: 'litecoind has no RPC that evicts one transaction from its mempool (a replacement is a double spend, another case)',
    expired: 'bitcoin-family transactions carry no expiry: an unmined one stays valid until its inputs are spent',
    failed_on_chain: 'a UTXO transaction in a block cannot fail: a block with an invalid transaction is itself invalid',
    'token-without-transfer': 'bitcoin and dogecoin carry no tokens in this plugin',
  },
  chain: 'bitcoin',
  network: 'regtest',
  asset: nativeAsset('bitcoin', 'regtest'),
  recipients: [
    utxo.deriveAddress('bitcoin', 'regtest', elsewhere, 0).address,
    utxo.deriveAddress('bitcoin', 'regtest', elsewhere, 1).address,
  ],
  amount: 10_000_001n,
  start: async () => {
    const node = await startLitecoind();
    return {
      rpcUrl: node.url,
      // Four coins, so every test of the kit has one of its own whatever change does.
      fund: async (address) => {
        for (let i = 0; i < 4; i++) await node.rpc('sendtoaddress', [onNode(address), '1']);
        await node.mine(1);
      },
      settle: async () => {
        await node.mine(1);
      },
      stop: () => node.stop(),
      hold: async () => {},
      release: async () => {
        await node.mine(1);
      },
    };
  },
};
