import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import staticPolkadot from '@polkadot/types-support/metadata/static-polkadot';
import { hexToU8a } from '@polkadot/util';
import type { Chain } from '@walletd/core';
import { createPolkadotPlugin, encodeFrame } from '@walletd/plugin-polkadot';
import { startChopsticks, nativeAsset } from '@walletd/test-harness';
import { type ConformanceBlock, describePluginConformance } from '@walletd/plugin-kit/testing';
import { describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { depositGaps, withdrawalGaps } from './notCovered';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'polkadot', name), 'utf8'));
const block = fixture('dot-mainnet-block-18468942.json').data;
const HASH = '0x1ffece02b91e52c4923827843774f705911905c0a66980f7037bed643b746d1d';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/**
 * Mainnet block 18468942 framed as the reader frames blocks. Its runtime (1000001) ships no
 * metadata in the fixture; the Polkadot metadata in npm (@polkadot/types-support, spec 1002005)
 * encodes all of this block's events identically (plugins/polkadot/src/detect.test.ts checks all 58).
 */
const raw = encodeFrame(
  {
    number: String(block.block.header.number),
    hash: HASH,
    parentHash: block.block.header.parentHash,
    specName: 'polkadot',
    specVersion: 1002005,
    metadataKey: 'polkadot/1002005/static',
    extrinsics: block.block.extrinsics,
    events: block.systemEventsHex,
  },
  hexToU8a(staticPolkadot),
);

const blocks: ConformanceBlock[] = [
  {
    name: 'mainnet block 18468942: two balances.transferKeepAlive',
    chain: 'polkadot',
    network: 'mainnet',
    raw,
    watched: ['12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM', '12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz'],
    expected: [
      {
        txHash: '0x4f151b3e1443437bb55460b602fcea37f0f78196e690d7e4522d0cd81facd9d3',
        eventIndex: 45,
        to: '12y2M12CHhtZy583XyiaXj2tAHB9bj4PxEazyErDp7yGjfFM',
        amount: '176556075744',
        assetKey: 'polkadot:mainnet:dot',
      },
      {
        txHash: '0x6172c09512af2ce39298b449fa4aa37317016447bcb2348825553b64c3c17a92',
        eventIndex: 52,
        to: '12nr7GiDrYHzAYT9L8HdeXnMfWcBuYfAXpgfzf3upujeCciz',
        amount: '3499841869031',
        assetKey: 'polkadot:mainnet:dot',
      },
    ],
  },
];

const targets: { chain: Chain; network: string }[] = ['mainnet', 'paseo', 'localnet'].map((network) => ({ chain: 'polkadot', network }));

describePluginConformance({
  notCovered: depositGaps('polkadot', []),
  plugin: createPolkadotPlugin() as never,
  targets,
  blocks,
  // What polkadot.js (`keyring.addFromUri('<mnemonic>//0')`) and `subkey inspect '<mnemonic>//0'` give.
  vectors: [
    { chain: 'polkadot', network: 'mainnet', mnemonic: MNEMONIC, index: 0, address: '12rsQBSiizNCu3dZDshfkVwB34XDwiqyVQJP6URvGo31YGdp' },
    { chain: 'polkadot', network: 'paseo', mnemonic: MNEMONIC, index: 1, address: '12ES7PTE9a3DKbs9mCsRA6Wge2DS1XK1xFgbTkp47nPV53yG' },
    { chain: 'polkadot', network: 'localnet', mnemonic: MNEMONIC, index: 0, address: '5DvaFrBesD6jTWd3GEefcM72BSXaFRHqQuZtwBSZii1VMnuP' },
  ],
});

// Withdrawals executed by the Rococo Asset Hub runtime under chopsticks (a block is built on settle).
describeWithdrawalConformance(createPolkadotPlugin() as never, {
  notCovered: withdrawalGaps('polkadot'),
  chain: 'polkadot',
  network: 'localnet',
  asset: nativeAsset('polkadot', 'localnet'),
  // //Bob and //Charlie (funded at start, so any amount above 0 may be paid to them).
  recipients: ['5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty', '5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y'],
  amount: 1_000_000_000_001n,
  start: async () => {
    const node = await startChopsticks({
      endowed: ['5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty', '5FLSigC9HGRKVhB9FiEo4Y3koPsNmBmLJbpXg2mp1hXcS59Y'],
    });
    return {
      rpcUrl: node.url,
      fund: (address) => node.fund(address, 100n * 10n ** 12n),
      settle: async () => {
        await node.newBlock();
      },
      stop: () => node.stop(),
    };
  },
});
