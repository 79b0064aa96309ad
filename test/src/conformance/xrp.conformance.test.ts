import type { Chain } from '@walletd/core';
import { createXrpPlugin } from '@walletd/plugin-xrp';
import { startRecordedRippled, xrpFixture, nativeAsset } from '@walletd/test-harness';
import { type ConformanceBlock, describePluginConformance } from '@walletd/plugin-kit/testing';
import { describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { depositGaps, withdrawalGaps } from './notCovered';

const ledger = xrpFixture('xrp-mainnet-ledger-87704323.json').data;
const tagged = xrpFixture('xrp-mainnet-payment-destination-tag-c2b8df46.json').data;
const partial = xrpFixture('xrp-mainnet-partial-payment-xrp-fcd8cfd0.json').data;

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
/** A recorded transaction (API v1 entry) in a validated ledger result made up here at its real index. */
const inLedger = (f: { tx: object; meta: object; ledger: { ledger_index: number; ledger_hash: string } }) =>
  bytes({
    ledger_hash: f.ledger.ledger_hash,
    ledger_index: f.ledger.ledger_index,
    validated: true,
    ledger: { parent_hash: '00'.repeat(32), transactions: [{ ...f.tx, metaData: f.meta }] },
  });

// The same real mainnet data replayed on every XRP network: the rules are the network's, the bytes are real.
const networks = ['mainnet', 'testnet', 'devnet', 'localnet'];
const blocks: ConformanceBlock[] = networks.flatMap((network) => [
  {
    name: `xrp/${network}: ledger 87704323, three 1-drop payments to rxRpSN…`,
    chain: 'xrp' as Chain,
    network,
    raw: bytes(ledger),
    watched: ['rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw'],
    expected: ['066738E2C59D0E72', '554529475AD75BB7', 'E21A9F1B2D24C6A7'].map((prefix) => ({
      txHash: ledger.ledger.transactions.find((t: { hash: string }) => t.hash.startsWith(prefix)).hash,
      eventIndex: 0,
      to: 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw',
      amount: '1',
      assetKey: `xrp:${network}:xrp`,
    })),
  },
  {
    name: `xrp/${network}: c2b8df46, 13,000.6 XRP to a tagged deposit address`,
    covers: ['destination-tag'],
    chain: 'xrp' as Chain,
    network,
    raw: inLedger(tagged),
    watched: ['rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523'],
    expected: [
      {
        txHash: tagged.tx.hash,
        eventIndex: 0,
        to: 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523',
        amount: '13000600000',
        assetKey: `xrp:${network}:xrp`,
      },
    ],
  },
  {
    name: `xrp/${network}: fcd8cfd0, a partial payment credits its delivered 181 drops, not Amount 314`,
    chain: 'xrp' as Chain,
    network,
    raw: inLedger(partial),
    watched: ['rapido5rxPmP4YkMZZEeXSHqWefxHEkqv6'],
    expected: [
      { txHash: partial.tx.hash, eventIndex: 0, to: 'rapido5rxPmP4YkMZZEeXSHqWefxHEkqv6', amount: '181', assetKey: `xrp:${network}:xrp` },
    ],
  },
]);

describePluginConformance({
  notCovered: depositGaps('xrp', ['destination-tag']),
  plugin: createXrpPlugin(),
  targets: networks.map((network) => ({ chain: 'xrp' as Chain, network })),
  blocks,
  // Xaman's, Ledger's and xrpl.js `Wallet.fromMnemonic`'s first account of the BIP-39 test mnemonic.
  vectors: networks.map((network) => ({
    chain: 'xrp' as Chain,
    network,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    index: 0,
    address: 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3',
  })),
});

// Withdrawals against the recorded-response server (it checks signatures, sequences, the reserve and
// LastLedgerSequence as rippled would; it runs no consensus: see test/src/harness/recordedRippled.ts).
describeWithdrawalConformance(createXrpPlugin(), {
  notCovered: withdrawalGaps('xrp'),
  chain: 'xrp',
  network: 'localnet',
  asset: nativeAsset('xrp', 'localnet'),
  recipients: ['rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV', 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw'],
  amount: 1_000_001n,
  start: async () => {
    const node = await startRecordedRippled();
    node.fund('rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV', 50_000_000n);
    node.fund('rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw', 50_000_000n);
    node.close();
    return {
      rpcUrl: node.url,
      fund: async (address) => {
        node.fund(address, 100_000_000n);
        node.close();
      },
      settle: async () => {
        node.close();
      },
      stop: () => node.stop(),
    };
  },
});
