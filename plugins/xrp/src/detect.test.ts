import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DetectContext, type TokenDefinition, chainTableOf } from '@walletd/plugin-kit';
import { createXrpPlugin } from './createXrpPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createXrpPlugin().chains).nativeAsset(chain, network);
import { detect } from './detect';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'xrp');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')).data;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

const ledger87704323 = fixture('xrp-mainnet-ledger-87704323.json');
const taggedDeposit = fixture('xrp-mainnet-payment-destination-tag-c2b8df46.json');
const partialXrp = fixture('xrp-mainnet-partial-payment-xrp-fcd8cfd0.json');
const partialIou = fixture('xrp-mainnet-partial-payment-iou-a0a074d1.json');

const token = (currency: string, issuer: string, decimals: number): TokenDefinition => ({
  key: `xrp:mainnet:${currency}.${issuer}`,
  symbol: currency,
  decimals,
  contractAddress: `${currency}.${issuer}`,
  matchKey: `${currency}.${issuer}`,
});
const CSC = token('CSC', 'rCSCManTZ8ME9EoLrSHHYKW8PPwWMgkwr', 6);
const USD = token('USD', 'rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B', 15);

function ctx(watched: string[], tokens: TokenDefinition[] = []): DetectContext {
  const set = new Set(watched);
  return {
    chain: 'xrp',
    network: 'mainnet',
    native: nativeAsset('xrp', 'mainnet'),
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: { has: (k) => set.has(k) },
  };
}

/** One API v1 ledger entry (fields at the top, `metaData`) in a validated ledger result. */
function v1Ledger(entries: unknown[], index = 90150378) {
  return {
    ledger_hash: '9804C2A3DF946979C3E01756FA24F5993297B2DBB33596E12A0CF4934A67BA31',
    ledger_index: index,
    validated: true,
    ledger: { parent_hash: 'AA'.repeat(32), transactions: entries },
  };
}
const v1Entry = (f: { tx: Record<string, unknown>; meta: unknown }): any => ({ ...clone(f.tx), metaData: clone(f.meta) });

describe('XRP detect on real mainnet ledgers', () => {
  test('ledger 87704323: its block reference, and only the payments to watched accounts', () => {
    const none = detect(bytes(ledger87704323), ctx([]));
    expect(none.block).toEqual({
      number: 87704323n,
      hash: 'BAA4AF508E9A9CB7685D9E61B82486681E52E9B920904B0650499497F050D8FA',
      parentHash: '57EE5B4098CC7B59A1EF983A9FFCA60DB95D6C953B866E5938DAD54297F57298',
    });
    expect(none.transfers).toEqual([]);

    const { transfers } = detect(bytes(ledger87704323), ctx(['rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw']));
    expect(transfers.map((t) => [t.txHash.slice(0, 8), t.from, t.to, t.amount, t.assetKey, t.extra])).toEqual([
      [
        '066738E2',
        'rGXryA5DxQcoG746yr2NQ89yKXMyah7FTm',
        'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw',
        1n,
        'xrp:mainnet:xrp',
        { destinationTag: null },
      ],
      [
        '55452947',
        'rBJQsMcEVj9mxSuq24M7tcakvSVrVyJ8yk',
        'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw',
        1n,
        'xrp:mainnet:xrp',
        { destinationTag: null },
      ],
      [
        'E21A9F1B',
        'rUCzdq8HD6HQRbZctLBEjvkWEMsouMbDQQ',
        'rxRpSNb1VktvzBz8JF2oJC6qaww6RZ7Lw',
        1n,
        'xrp:mainnet:xrp',
        { destinationTag: null },
      ],
    ]);
    expect(transfers.every((t) => t.eventIndex === 0 && t.logIndex === undefined && t.eventType === 'xrp_payment')).toBe(true);
  });

  test('the tagged IOU payment: credited only when its issuer is allow-listed, to the tag when watched, else to the account with the tag as sent', () => {
    const account = 'r3RaNVLvWjqqtFAawC6jbRhgKyFH7HvRS8';
    expect(detect(bytes(ledger87704323), ctx([account, `${account}:811921039`])).transfers).toEqual([]);
    const lookAlike = token('CSC', 'rGXryA5DxQcoG746yr2NQ89yKXMyah7FTm', 6);
    expect(detect(bytes(ledger87704323), ctx([account], [lookAlike])).transfers).toEqual([]);

    const tagged = detect(bytes(ledger87704323), ctx([account, `${account}:811921039`], [CSC])).transfers;
    expect(tagged).toHaveLength(1);
    expect(tagged[0]).toMatchObject({
      txHash: expect.stringMatching(/^17FAF3B5CD34A489/),
      to: `${account}:811921039`,
      toKey: `${account}:811921039`,
      assetKey: CSC.key,
      amount: 25799_000000n,
      eventType: 'issued_currency_payment',
      extra: { destinationTag: 811921039 },
    });
    const unknownTag = detect(bytes(ledger87704323), ctx([account, `${account}:1`], [CSC])).transfers;
    expect(unknownTag.map((t) => [t.toKey, t.extra])).toEqual([[account, { destinationTag: 811921039 }]]);
  });

  test('c2b8df46: a tagged exchange deposit of 13,000.6 XRP', () => {
    const account = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';
    const { transfers } = detect(bytes(v1Ledger([v1Entry(taggedDeposit)], 90156059)), ctx([`${account}:352660523`]));
    expect(transfers).toEqual([
      {
        txHash: 'C2B8DF4694253E8F17B3199F4A186EB7CB7F30E71ED2BA8F5866859566CFD0B7',
        eventIndex: 0,
        from: 'rHji8oDyR7fB85jPAG2d25GC2bUSHPCpaH',
        fromKey: 'rHji8oDyR7fB85jPAG2d25GC2bUSHPCpaH',
        to: `${account}:352660523`,
        toKey: `${account}:352660523`,
        assetKey: 'xrp:mainnet:xrp',
        amount: 13_000_600_000n,
        eventType: 'xrp_payment',
        extra: { destinationTag: 352660523 },
      },
    ]);
    // Another account's tag is not ours.
    expect(detect(bytes(v1Ledger([v1Entry(taggedDeposit)])), ctx(['rHji8oDyR7fB85jPAG2d25GC2bUSHPCpaH:352660523'])).transfers).toEqual([]);
  });

  test('fcd8cfd0: a partial payment credits delivered_amount (181 drops), never Amount (314)', () => {
    const account = 'rapido5rxPmP4YkMZZEeXSHqWefxHEkqv6';
    const { transfers } = detect(bytes(v1Ledger([v1Entry(partialXrp)])), ctx([account]));
    expect(transfers.map((t) => [t.txHash, t.amount])).toEqual([
      ['FCD8CFD0902448D8C470725C68511E85BE2ED8EC4FDDC5F172BE2D49456E7895', 181n],
    ]);
    // Without delivered_amount a partial payment credits nothing (what it delivered is unknown).
    const unknown = v1Entry(partialXrp);
    unknown.metaData.delivered_amount = 'unavailable';
    expect(detect(bytes(v1Ledger([unknown])), ctx([account])).transfers).toEqual([]);
  });

  test('a0a074d1 (API v2 shape: tx_json, meta, DeliverMax): the IOU delivered, 9.980039920159681 USD', () => {
    const account = 'rNNuQMuExCiEjeZ4h9JJnj5PSWypdMXDj4';
    const entry = { hash: partialIou.tx_json.hash, tx_json: clone(partialIou.tx_json), meta: clone(partialIou.meta) };
    const { transfers } = detect(bytes(v1Ledger([entry])), ctx([account], [USD]));
    expect(transfers.map((t) => [t.txHash, t.assetKey, t.amount])).toEqual([
      ['A0A074D10355223CBE2520A42F93A52E3CC8B4D692570EB4841084F9BBB39F7A', USD.key, 9_980039920159681n],
    ]);
    // At 6 decimals the sub-unit remainder is cut, never rounded up: 9.980039 USD.
    const coarse = { ...USD, decimals: 6 };
    expect(detect(bytes(v1Ledger([entry])), ctx([account], [coarse])).transfers[0]?.amount).toBe(9_980039n);
  });
});

describe('XRP detect refuses what must never be credited', () => {
  const account = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';
  const watched = ctx([account]);

  test('a tec result in a validated ledger credits nothing', () => {
    const failed = v1Entry(taggedDeposit);
    failed.metaData.TransactionResult = 'tecUNFUNDED_PAYMENT';
    delete failed.metaData.delivered_amount;
    expect(detect(bytes(v1Ledger([failed])), watched).transfers).toEqual([]);
  });

  test('a non-Payment moving XRP to a watched account credits nothing', () => {
    const check = v1Entry(taggedDeposit);
    check.TransactionType = 'CheckCash';
    expect(detect(bytes(v1Ledger([check])), watched).transfers).toEqual([]);
  });

  test('an amount that is not a string of drops is refused, never read through a double', () => {
    const odd = v1Entry(taggedDeposit);
    odd.metaData.delivered_amount = 13000600000;
    expect(detect(bytes(v1Ledger([odd])), watched).transfers).toEqual([]);
  });

  test('a ledger the node has not validated is refused', () => {
    const open = v1Ledger([v1Entry(taggedDeposit)]);
    open.validated = false;
    expect(() => detect(bytes(open), watched)).toThrow(/not validated/);
  });

  test('a ledger whose transactions are hashes only (not expanded) is refused', () => {
    expect(() => detect(bytes(v1Ledger(['C2B8DF4694253E8F17B3199F4A186EB7CB7F30E71ED2BA8F5866859566CFD0B7'])), watched)).toThrow(
      /expanded/,
    );
  });
});
