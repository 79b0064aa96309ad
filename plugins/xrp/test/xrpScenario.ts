import type { Chain } from '@walletd/plugin-kit';
import type { ConformanceBlock, ConformanceNode, ConformanceSubject, WithdrawalConformance } from '@walletd/plugin-kit/testing';
import { nativeAsset, startRecordedRippled, xrpFixture } from '@walletd/test-harness';

/**
 * The XRP family's scenario for the public kit (xrp.conformance.test.ts, mutants.test.ts). Real
 * mainnet records (test/fixtures/xrp): validated ledger 87704323 exactly as rippled returned it
 * (its hash, parent, 3 XRP payments and a CSC issued-currency payment among 22 transactions), the
 * tagged deposit c2b8df46 and the partial payment fcd8cfd0. A record placed in a ledger made up
 * here says so, and so does the one failed twin (c2b8df46 with another engine result).
 */
type Json = Record<string, any>;
const ledger = xrpFixture('xrp-mainnet-ledger-87704323.json').data;
const tagged = xrpFixture('xrp-mainnet-payment-destination-tag-c2b8df46.json').data;
const partial = xrpFixture('xrp-mainnet-partial-payment-xrp-fcd8cfd0.json').data;

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
/** A recorded transaction (API v1 entry) in a validated ledger result made up here at its real index. */
const inLedger = (f: { tx: Json; meta: Json; ledger: { ledger_index: number; ledger_hash: string } }) =>
  bytes({
    ledger_hash: f.ledger.ledger_hash,
    ledger_index: f.ledger.ledger_index,
    validated: true,
    ledger: { parent_hash: '00'.repeat(32), transactions: [{ ...f.tx, metaData: f.meta }] },
  });

/** The ledger's issued-currency payment: 25,799 CSC (issuer rCSCMan…) to r3RaNV…, tag 811921039. */
const csc = ledger.ledger.transactions.find((t: Json) => typeof t.Amount === 'object');
const CSC_ISSUER = csc.Amount.issuer as string;
/** A real issuer of another fixture (a0a074d1's USD): its "CSC" would be the same code from someone else. */
const OTHER_ISSUER = 'rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B';
const cscToken = (network: string, issuer: string) => ({
  key: `xrp:${network}:CSC.${issuer}`,
  symbol: 'CSC',
  // Issued currencies have no on-ledger decimals; 15 (the ledger's precision) puts 25,799 CSC above 2^53 base units.
  decimals: 15,
  contractAddress: `CSC.${issuer}`,
  matchKey: `CSC.${issuer}`,
});
const cscTo = `${csc.Destination}:${csc.DestinationTag}`;

export const XRP_NETWORKS = ['mainnet', 'testnet', 'devnet', 'localnet'];

function blocksOn(network: string): ConformanceBlock[] {
  const scene = { chain: 'xrp' as Chain, network };
  const tagCredit = {
    txHash: tagged.tx.hash,
    eventIndex: 0,
    to: 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523',
    amount: '13000600000',
    assetKey: `xrp:${network}:xrp`,
    from: tagged.tx.Account,
    eventType: 'xrp_payment',
    extra: { destinationTag: 352660523 },
  };
  return [
    {
      ...scene,
      name: `xrp/${network}: ledger 87704323 as recorded, three 1-drop payments to rxRpSN…; its index, hash and parent`,
      raw: bytes(ledger),
      header: { number: BigInt(ledger.ledger_index), hash: ledger.ledger_hash, parentHash: ledger.ledger.parent_hash },
      watched: ['rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw'],
      expected: ['066738E2C59D0E72', '554529475AD75BB7', 'E21A9F1B2D24C6A7'].map((prefix) => {
        const tx = ledger.ledger.transactions.find((t: { hash: string }) => t.hash.startsWith(prefix));
        return {
          txHash: tx.hash,
          eventIndex: 0,
          to: 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw',
          amount: '1',
          assetKey: `xrp:${network}:xrp`,
          from: tx.Account,
        };
      }),
    },
    {
      ...scene,
      name: `xrp/${network}: c2b8df46, 13,000.6 XRP to a tagged deposit address; tag and sender compared (the store drops own-wallet senders)`,
      covers: ['destination-tag', 'internal-movement'],
      raw: inLedger(tagged),
      watched: ['rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523'],
      expected: [tagCredit],
    },
    {
      ...scene,
      name: `xrp/${network}: c2b8df46 as if it had failed (tecUNFUNDED_PAYMENT, made up from the record: fee claimed, nothing delivered) credits nothing`,
      covers: ['failed-transaction'],
      raw: inLedger({ ...tagged, meta: { ...tagged.meta, TransactionResult: 'tecUNFUNDED_PAYMENT' } }),
      watched: ['rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV:352660523'],
      expected: [],
    },
    {
      ...scene,
      name: `xrp/${network}: fcd8cfd0, a partial payment credits its delivered 181 drops, not Amount 314`,
      raw: inLedger(partial),
      watched: ['rapido5rxPmP4YkMZZEeXSHqWefxHEkqv6'],
      expected: [
        { txHash: partial.tx.hash, eventIndex: 0, to: 'rapido5rxPmP4YkMZZEeXSHqWefxHEkqv6', amount: '181', assetKey: `xrp:${network}:xrp` },
      ],
    },
    {
      ...scene,
      name: `xrp/${network}: ledger 87704323's 25,799 CSC (allow-listed at 15 decimals: above 2^53 base units), exact`,
      raw: bytes(ledger),
      watched: [cscTo],
      tokens: [cscToken(network, CSC_ISSUER)],
      expected: [
        {
          txHash: csc.hash,
          eventIndex: 0,
          to: cscTo,
          amount: '25799000000000000000',
          assetKey: `xrp:${network}:CSC.${CSC_ISSUER}`,
          from: csc.Account,
          eventType: 'issued_currency_payment',
        },
      ],
    },
    {
      ...scene,
      name: `xrp/${network}: the same CSC payment with no token allow-listed credits nothing`,
      covers: ['unlisted-token'],
      raw: bytes(ledger),
      watched: [cscTo],
      tokens: [],
      expected: [],
    },
    {
      ...scene,
      name: `xrp/${network}: CSC allow-listed from another issuer: the payment's CSC (same code, rCSCMan…) is a look-alike and credits nothing`,
      covers: ['look-alike-token'],
      raw: bytes(ledger),
      watched: [cscTo],
      tokens: [cscToken(network, OTHER_ISSUER)],
      expected: [],
    },
  ];
}

export const xrpSubject = (plugin: ConformanceSubject['plugin']): ConformanceSubject => ({
  plugin,
  targets: XRP_NETWORKS.map((network) => ({ chain: 'xrp' as Chain, network })),
  blocks: XRP_NETWORKS.flatMap(blocksOn),
  // Xaman's, Ledger's and xrpl.js `Wallet.fromMnemonic`'s first account of the BIP-39 test mnemonic.
  vectors: XRP_NETWORKS.map((network) => ({
    chain: 'xrp' as Chain,
    network,
    mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    index: 0,
    address: 'rHsMGQEkVNJmpGWs8XUBoTBiAAbwxZN5v3',
  })),
  notCovered: {
    reorg:
      'the reader hands detect only validated ledgers (detect refuses any other): a validated XRP ledger is final by consensus and never replaced',
    'log-index': 'an XRP Payment delivers to one destination: one credit per transaction (eventIndex 0), no logs to index',
    memo: 'XRP deposits are attributed by destination tag (compared above); the plugin does not carry a sender’s Memos into a deposit',
    'own-change': 'account chain: no change outputs',
    'zero-amount':
      'a Payment of 0 is malformed (temBAD_AMOUNT) and never in a validated ledger; detect credits a delivered_amount > 0 only',
  },
});

/** An account deleted between build and broadcast: a payment below the 1 XRP base reserve to it lands as tecNO_DST_INSUF_XRP, its fee claimed. */
const GONE = 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe';

/**
 * Withdrawals against the recorded-response server (it checks signatures, sequences, the reserve and
 * LastLedgerSequence as rippled would; it runs no consensus: test/src/harness/recordedRippled.ts).
 * A ledger closes only on `settle`, so a submitted Payment stays in the open ledger until then.
 */
export const xrpWithdrawals: WithdrawalConformance = {
  notCovered: {
    pending:
      'a Payment still in the open ledger is not found by `tx` here (the recorded server models it so, test/src/integration/xrpWithdrawals.test.ts): verify answers missing and the service re-sends the same bytes (tefALREADY, a no-op); past LastLedgerSequence it is expired (checked)',
    dropped:
      'follows pending: a Payment evicted from the open ledger reads as missing until its LastLedgerSequence passes, then expired (checked)',
  },
  chain: 'xrp',
  network: 'localnet',
  asset: nativeAsset('xrp', 'localnet'),
  recipients: ['rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV', 'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw'],
  // Below the base reserve: to a funded account it pays, to an unfunded one it fails on the ledger.
  amount: 999_999n,
  token: { key: 'xrp:localnet:CSC', symbol: 'CSC', decimals: 15, contractAddress: `CSC.${CSC_ISSUER}` },
  start: async (): Promise<ConformanceNode> => {
    const node = await startRecordedRippled();
    node.fund('rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV', 50_000_000n);
    node.fund('rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw', 50_000_000n);
    node.fund(GONE, 50_000_000n);
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
      // Funded when built (the plugin refuses a payment below the reserve to no account), deleted before it lands.
      failOnChain: { recipient: GONE, arm: async () => void node.accounts.delete(GONE) },
      hold: async () => {},
      release: async () => {
        node.close();
      },
      // Gone from the open ledger, then validated ledgers past its LastLedgerSequence (the plugin's window is 20).
      expire: async (txHash) => {
        node.forget(txHash);
        for (let i = 0; i < 25; i++) node.close();
      },
    };
  },
};
