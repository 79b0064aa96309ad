import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWalletSecret } from '@walletd/core';
import { addressOfScript, createUtxoPlugin, frameBlock, scriptOf, utxoNetwork } from '@walletd/plugin-utxo';
import { describeWithLitecoind, startLitecoind, nativeAsset } from '@walletd/test-harness';
import { type ConformanceBlock, describePluginConformance } from '@walletd/plugin-kit/testing';
import { describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { depositGaps, withdrawalGaps } from './notCovered';

const fixture = (path: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', path), 'utf8'));
const btc = fixture('bitcoin/btc-mainnet-block-542213.json');
const framed = frameBlock(542213n, Buffer.from(btc.data.hex, 'hex'));

// Real bitcoin mainnet block 542213: a legacy P2PKH output and a native segwit one to watched addresses.
const blocks: ConformanceBlock[] = [
  {
    name: 'bitcoin: P2PKH and P2WPKH outputs in real block 542213',
    chain: 'bitcoin',
    network: 'mainnet',
    raw: framed,
    watched: ['1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL', 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn'],
    expected: [
      {
        txHash: '66beaceb4be99da1e9824448231ab4fd37bacaee912381e779b37cf0e1dadad7',
        eventIndex: 0,
        to: '1D69P8wysTnTw6CEvX7ShcYFZQaothNGbL',
        amount: '750000',
        assetKey: 'bitcoin:mainnet:btc',
      },
      {
        txHash: '6c6e3849acf1b570db352dc08f7776e99c344a56fbb2f019e1865d1b6e044889',
        eventIndex: 1,
        to: 'bc1qg8m8gcgses87cypwsvzn6nq2u4h6kx7a92ckrn',
        amount: '1150',
        assetKey: 'bitcoin:mainnet:btc',
      },
    ],
  },
];

describePluginConformance({
  notCovered: depositGaps('utxo', []),
  plugin: createUtxoPlugin(),
  targets: [
    { chain: 'bitcoin', network: 'mainnet' },
    { chain: 'bitcoin', network: 'testnet' },
    { chain: 'dogecoin', network: 'mainnet' },
    { chain: 'dogecoin', network: 'testnet' },
  ],
  blocks,
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
});

// Withdrawals on a real regtest node: litecoind speaks Bitcoin Core's RPC and transaction format;
// only its address encoding differs, so addresses cross over by their output script.
const net = utxoNetwork('bitcoin', 'regtest');
const nodeNet = { ...net, params: { ...net.params, bech32: 'rltc', scriptHash: 0x3a } };
const onNode = (address: string) => addressOfScript(nodeNet, scriptOf(net, address)) as string;
const utxo = createUtxoPlugin();
const elsewhere = openWalletSecret(Buffer.from('legal winner thank year wave sausage worth useful legal winner thank yellow'));
describeWithLitecoind('UTXO withdrawals on regtest', () =>
  describeWithdrawalConformance(utxo, {
    notCovered: withdrawalGaps('utxo'),
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
        // Three coins, so every test of the kit has one of its own whatever change does.
        fund: async (address) => {
          for (let i = 0; i < 3; i++) await node.rpc('sendtoaddress', [onNode(address), '1']);
          await node.mine(1);
        },
        settle: async () => {
          await node.mine(1);
        },
        stop: () => node.stop(),
      };
    },
  }),
);
