import type { Chain } from '@walletd/core';
import { createTronPlugin } from '@walletd/plugin-tron';
import { startRecordedTronNode, tronFixture, nativeAsset } from '@walletd/test-harness';
import { type ConformanceBlock, describePluginConformance } from '@walletd/plugin-kit/testing';
import { describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { depositGaps, withdrawalGaps } from './notCovered';

const block = tronFixture('tron-mainnet-block-30864544.json');
const trx = tronFixture('tron-mainnet-trx-transfer-d8b11250.json');
const usdt = tronFixture('tron-mainnet-trc20-usdt-transfer-0130dfde.json');
const USDT_KEY = 'a614f803b6fd780986a42c78ec9c7f77e6ded13c';

const bytes = (b: unknown, infos: unknown) => new TextEncoder().encode(`{"block":${JSON.stringify(b)},"infos":${JSON.stringify(infos)}}`);
/** A recorded transaction and its recorded info in a block envelope made up here (the source recorded no block). */
function envelope(tx: Record<string, any>, info: Record<string, any>, number: number): Uint8Array {
  const {
    blockNumber: _b,
    block_timestamp: _t,
    net_usage: _n,
    net_fee: _f,
    energy_usage: _e,
    energy_fee: _ef,
    energy_usage_total: _et,
    internal_transactions: _i,
    ...plain
  } = tx;
  return bytes(
    {
      blockID: number.toString(16).padStart(16, '0') + 'ab'.repeat(24),
      // The recorded block time (its info's blockTimeStamp): detect pairs block and infos by it.
      block_header: { raw_data: { number, parentHash: 'cd'.repeat(32), timestamp: tx.block_timestamp } },
      transactions: [plain],
    },
    [info],
  );
}

// The same real mainnet data replayed on every Tron network: the rules are the network's, the bytes are real.
const networks = ['mainnet', 'nile', 'shasta', 'devnet'];
const targets = networks.map((network) => ({ chain: 'tron' as Chain, network }));
const blocks: ConformanceBlock[] = networks.flatMap((network) => [
  {
    name: `tron/${network}: block 30864544, 50 TRX (recorded getblockbynum; info in the recorded shape)`,
    chain: 'tron',
    network,
    raw: bytes(block.data, [
      {
        id: block.data.transactions[0].txID,
        blockNumber: 30864544,
        blockTimeStamp: block.data.block_header.raw_data.timestamp,
        contractResult: [''],
        receipt: { net_usage: 267 },
      },
    ]),
    watched: [block.expected.transfers[0].to],
    expected: [
      {
        txHash: block.expected.transfers[0].txID,
        eventIndex: 0,
        to: block.expected.transfers[0].to,
        amount: '50000000',
        assetKey: `tron:${network}:trx`,
      },
    ],
  },
  {
    name: `tron/${network}: TRX d8b11250 with its recorded info`,
    chain: 'tron',
    network,
    raw: envelope(trx.data.transaction, trx.data.transactionInfo, trx.expected.blockNumber),
    watched: [trx.expected.to],
    expected: [
      { txHash: trx.expected.txID, eventIndex: 0, to: trx.expected.to, amount: trx.expected.amountSun, assetKey: `tron:${network}:trx` },
    ],
  },
  {
    name: `tron/${network}: allow-listed USDT 0130dfde with its recorded Transfer log`,
    chain: 'tron',
    network,
    raw: envelope(usdt.data.transaction, usdt.data.transactionInfo, usdt.expected.blockNumber),
    watched: [usdt.expected.to],
    tokens: [
      { key: `tron:${network}:${USDT_KEY}`, symbol: 'USDT', decimals: 6, contractAddress: usdt.expected.tokenContract, matchKey: USDT_KEY },
    ],
    expected: [
      {
        txHash: usdt.expected.txID,
        eventIndex: 1,
        to: usdt.expected.to,
        amount: usdt.expected.amountBaseUnits,
        assetKey: `tron:${network}:${USDT_KEY}`,
      },
    ],
  },
]);

describePluginConformance({
  notCovered: depositGaps('tron', []),
  plugin: createTronPlugin(),
  targets,
  blocks,
  // TronLink's and tronweb's first address of the BIP-39 test mnemonic.
  vectors: networks.map((network) => ({
    chain: 'tron' as Chain,
    network,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    index: 0,
    address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  })),
});

// Withdrawals on every network against the recorded-response server (it checks signatures, TaPoS and
// expiry as a node would; it executes nothing: see test/src/harness/recordedTronNode.ts).
for (const network of networks) {
  describeWithdrawalConformance(createTronPlugin(), {
    notCovered: withdrawalGaps('tron'),
    chain: 'tron',
    network,
    asset: nativeAsset('tron', network),
    recipients: ['TJ4eV1hnVAiFmeArBsuL6GkgTGVnWBe7eV', 'TTmaAAbFPtACn1amP3FBkmmUygFh8udAvA'],
    amount: 1_000_001n,
    start: async () => {
      const node = await startRecordedTronNode({ head: 20_000 });
      return {
        rpcUrl: node.url,
        fund: async (address) => node.setBalance(address, 100_000_000n),
        settle: async () => {
          node.mine();
        },
        stop: () => node.close(),
      };
    },
  });
}
