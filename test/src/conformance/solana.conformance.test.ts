import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Chain } from '@walletd/core';
import { TOKEN_EVENT_OFFSET, createSolanaPlugin } from '@walletd/plugin-solana';
import { startSolanaSvm, nativeAsset } from '@walletd/test-harness';
import { type ConformanceBlock, describePluginConformance } from '@walletd/plugin-kit/testing';
import { describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { depositGaps, withdrawalGaps } from './notCovered';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', 'fixtures', 'solana', name), 'utf8'));
const mainnetBlock = fixture('sol-mainnet-block-jsonparsed-147078735.json');
const facts = fixture('sol-mainnet-block-jsonparsed-147078735.expected.json').expected;
const solTx = fixture('sol-devnet-native-sol-transfer-2qfNzGs1.json');
const usdcTx = fixture('sol-devnet-spl-usdc-transfer-3Zj5XkvE.json');
const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

/** A recorded getTransaction answer as the only transaction of a block (blockhash fields are placeholders). */
const wrap = (r: { slot: number; transaction: unknown; meta: unknown; version: unknown }) =>
  enc({
    slot: r.slot,
    block: {
      blockhash: `placeholder-${r.slot}`,
      previousBlockhash: `placeholder-${r.slot - 1}`,
      parentSlot: r.slot - 1,
      transactions: [{ transaction: r.transaction, meta: r.meta, version: r.version }],
    },
  });

const targets: { chain: Chain; network: string }[] = ['mainnet', 'devnet', 'testnet', 'localnet'].map((network) => ({
  chain: 'solana',
  network,
}));
const WSOL = 'So11111111111111111111111111111111111111112';
const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
// Transaction 1 of the mainnet block: BYM81n…'s wSOL account 16 rose by 12500.
const tx1 = mainnetBlock.data.result.transactions[1];
const rise = facts.transactions[1].tokenBalanceDeltas[0];
const account16 = tx1.transaction.message.accountKeys[rise.accountIndex].pubkey as string;
type Delta = { accountIndex: number; deltaBaseUnits: string };
const keyAt = (tx: number, index: number) =>
  mainnetBlock.data.result.transactions[tx].transaction.message.accountKeys[index].pubkey as string;

const blocks: ConformanceBlock[] = [
  {
    name: 'mainnet block 147078735 (jsonParsed, 25 txs): a wSOL credit through an inner instruction',
    chain: 'solana',
    network: 'mainnet',
    raw: enc({ slot: 147078735, block: mainnetBlock.data }),
    watched: [account16, rise.owner],
    tokens: [{ key: `solana:mainnet:${WSOL}`, symbol: 'wSOL', decimals: 9, contractAddress: WSOL, matchKey: WSOL }],
    // Every rise of that account in the block, from the recorded facts (it takes other indexes in other transactions).
    expected: facts.transactions.flatMap((t: { signature: string; tokenBalanceDeltas: Delta[] }, i: number) =>
      t.tokenBalanceDeltas
        .filter((d) => BigInt(d.deltaBaseUnits) > 0n && keyAt(i, d.accountIndex) === account16)
        .map((d) => ({
          txHash: t.signature,
          eventIndex: TOKEN_EVENT_OFFSET + d.accountIndex,
          to: account16,
          amount: d.deltaBaseUnits,
          assetKey: `solana:mainnet:${WSOL}`,
        })),
    ),
  },
  {
    name: 'devnet SOL transfer 2qfNzGs1',
    chain: 'solana',
    network: 'devnet',
    raw: wrap(solTx.data.result),
    watched: [solTx.expected.transfer.to],
    expected: [
      {
        txHash: solTx.expected.signature,
        eventIndex: 1,
        to: solTx.expected.transfer.to,
        amount: '100000000',
        assetKey: 'solana:devnet:sol',
      },
    ],
  },
  {
    name: 'devnet USDC transfer 3Zj5XkvE (through the owner’s ATA)',
    chain: 'solana',
    network: 'devnet',
    raw: wrap(usdcTx.data.result),
    watched: ['BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe', '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6'],
    tokens: [{ key: `solana:devnet:${DEVNET_USDC}`, symbol: 'USDC', decimals: 6, contractAddress: DEVNET_USDC, matchKey: DEVNET_USDC }],
    expected: [
      {
        txHash: usdcTx.expected.signature,
        eventIndex: TOKEN_EVENT_OFFSET + 1,
        to: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
        amount: '10000',
        assetKey: `solana:devnet:${DEVNET_USDC}`,
      },
    ],
  },
];

describePluginConformance({
  notCovered: depositGaps('solana', []),
  plugin: createSolanaPlugin() as never,
  targets,
  blocks,
  vectors: targets.map(({ chain, network }) => ({
    chain,
    network,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    index: 0,
    // Phantom's and Solflare's first account for this mnemonic (m/44'/501'/0'/0').
    address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
  })),
});

// Withdrawals executed by litesvm behind the JSON-RPC adapter (a transaction is in a block at once).
describeWithdrawalConformance(createSolanaPlugin() as never, {
  notCovered: withdrawalGaps('solana'),
  chain: 'solana',
  network: 'localnet',
  asset: nativeAsset('solana', 'localnet'),
  recipients: ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', 'GdnSyH3YtwcxFvQrVVJMm1JhTS4QVX7MFsX56uJLUfiZ'],
  amount: 1_000_000_001n,
  start: async () => {
    const node = await startSolanaSvm();
    return {
      rpcUrl: node.url,
      fund: async (address) => {
        await node.sendSol(address, 10_000_000_000n);
      },
      settle: async () => {},
      stop: () => node.close(),
    };
  },
});
