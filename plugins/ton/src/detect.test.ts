import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Address } from '@ton/core';
import { type DetectContext, type TokenDefinition, chainTableOf } from '@walletd/plugin-kit';
import { createTonPlugin } from './createTonPlugin';

// The native asset as this plugin declares it (no list of chains outside the plugins).
const nativeAsset = (chain: string, network: string) => chainTableOf(createTonPlugin().chains).nativeAsset(chain, network);
import { detect } from './detect';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'ton');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

/** The recorded toncenter v2 getTransactions items of one mainnet wallet, each with its transaction BOC. */
const history = fixture('ton-mainnet-toncenter-v2-gettransactions-jetton-wallet-owner.json');
const items = history.data.result as { data: string; transaction_id: { hash: string }; address: { account_address: string } }[];
const OWNER = Address.parse('EQAWnJNnwByLThRxli2zLpnj5Ec6r7R-GmpkOkF3pnWPFuF-').toRawString();
/** The jetton wallet that sent two of the notifications; the test allow-lists a master and registers it as the owner's. */
const OWN_JETTON_WALLET = Address.parse('EQBvYvJ6iIYnpFq5nkkNS4NZkyj70ZKqw3RuFlQsni7icgjJ').toRawString();
const MASTER = Address.parse('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs').toRawString();
const USDT: TokenDefinition = {
  key: `ton:mainnet:${MASTER}`,
  symbol: 'USDT',
  decimals: 6,
  contractAddress: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs',
  matchKey: MASTER,
};

function ctx(watched: string[], tokens: TokenDefinition[] = []): DetectContext {
  const set = new Set(watched);
  return {
    chain: 'ton',
    network: 'mainnet',
    native: nativeAsset('ton', 'mainnet'),
    tokens: new Map(tokens.map((t) => [t.matchKey, t])),
    watched: { has: (k) => set.has(k) },
  };
}
const block = (list = items) =>
  bytes({
    seqno: 38_000_000,
    hash: 'ab'.repeat(32),
    parentHash: 'cd'.repeat(32),
    transactions: list.map((i) => ({ account: Address.parse(i.address.account_address).toRawString(), boc: i.data })),
  });
const hexOf = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

describe('TON detect on the recorded mainnet wallet history', () => {
  test("credits the incoming 0.3 TON and the excesses of a jetton transfer another app made (its query_id is not walletd's); never the wallet's own sends; nothing for unwatched accounts", () => {
    expect(detect(block(), ctx([])).transfers).toEqual([]);
    const { block: ref, transfers } = detect(block(), ctx([OWNER]));
    expect(ref).toEqual({ number: 38_000_000n, hash: 'ab'.repeat(32), parentHash: 'cd'.repeat(32) });
    expect(transfers).toEqual([
      {
        // Only the excesses answering walletd's own jetton transfer (query_id tagged) is the wallet's.
        txHash: '8ce7e395b24e4483227947f340ddd7acab8febc7fadeb386cb162b079e22e33d',
        eventIndex: 0,
        from: 'EQDqiUpFpvfxbjdS_kycd_rvhfcm6BJPBgO7zeDdl9Cc1yec',
        fromKey: '0:ea894a45a6f7f16e3752fe4c9c77faef85f726e8124f0603bbcde0dd97d09cd7',
        to: 'UQAWnJNnwByLThRxli2zLpnj5Ec6r7R-GmpkOkF3pnWPFry7',
        toKey: OWNER,
        assetKey: 'ton:mainnet:ton',
        amount: 53_567_941n,
        eventType: 'ton_transfer',
        extra: { memo: null },
      },
      {
        txHash: hexOf('tVP59sxeqaaA7S21TNy+g6o/qynUd8b7SPFq9+4Dj08='),
        eventIndex: 0,
        from: 'EQBOB-2EhMl2C1WGjL1cfdDPXb5iAyijJCg--xbRzNVfiX-L',
        fromKey: '0:4e07ed8484c9760b55868cbd5c7dd0cf5dbe620328a324283efb16d1ccd55f89',
        to: 'UQAWnJNnwByLThRxli2zLpnj5Ec6r7R-GmpkOkF3pnWPFry7',
        toKey: OWNER,
        assetKey: 'ton:mainnet:ton',
        amount: 300_000_000n,
        eventType: 'ton_transfer',
        // Its body is op 0 with an empty text: a comment that is present and empty (null means absent or unreadable).
        extra: { memo: '' },
      },
    ]);
  });

  test("jettons only from the registered jetton wallet of an allow-listed master: 17 and 10 USDT; the other contract's notification never", () => {
    const registered = `${OWN_JETTON_WALLET}:${MASTER}`;
    // Registered but not allow-listed, or allow-listed but not registered: nothing.
    expect(detect(block(), ctx([OWNER, registered])).transfers.filter((t) => t.eventType === 'jetton_transfer')).toEqual([]);
    expect(detect(block(), ctx([OWNER], [USDT])).transfers.filter((t) => t.eventType === 'jetton_transfer')).toEqual([]);
    const jettons = detect(block(), ctx([OWNER, registered], [USDT])).transfers.filter((t) => t.eventType === 'jetton_transfer');
    expect(jettons.map((t) => [t.txHash, t.toKey, t.assetKey, t.amount, t.eventIndex])).toEqual([
      [hexOf('5PLAsxnXZBF1PjDaqNeequZJhGdO97TMsYde9lXGa+k='), registered, USDT.key, 17_000_000n, 1],
      [hexOf('/ZT8hyfwoHVuSqsZAa/jFZ2pSFNYfCEqd5G5ap3Ntz4='), registered, USDT.key, 10_000_000n, 1],
    ]);
    expect(jettons.every((t) => 'memo' in (t.extra ?? {}))).toBe(true);
  });

  test('a transaction listed under another account than its own is refused', () => {
    const forged = bytes({
      seqno: 1,
      hash: '00'.repeat(32),
      parentHash: '00'.repeat(32),
      transactions: [{ account: OWN_JETTON_WALLET, boc: items[0]?.data }],
    });
    expect(() => detect(forged, ctx([OWN_JETTON_WALLET]))).toThrow(/belongs to/);
  });
});
