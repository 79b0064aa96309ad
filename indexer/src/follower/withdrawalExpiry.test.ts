import { type WithdrawalRow, storedUnsigned, unsignedFromRow } from '@walletd/core';
import { pastExpiry } from './withdrawalTracker';

const row = (unsigned_tx: string) =>
  ({
    chain: 'xrp',
    network: 'devnet',
    asset: { key: 'xrp:devnet:xrp', symbol: 'XRP', decimals: 6, contractAddress: null },
    outputs: [{ toAddress: 'rAccount', amount: '5' }],
    source_addresses: ['rSource'],
    unsigned_tx: JSON.parse(unsigned_tx),
  }) as unknown as WithdrawalRow;

describe('withdrawal expiry (contract v2 expiresAt)', () => {
  it('survives storage: the validity limit read back is the one the plugin built', () => {
    const built = { payload: { seq: 7 }, fee: 12n, expiresAt: { height: 2n ** 40n + 1n, time: '2026-11-23T00:00:00.000Z' } };
    const back = unsignedFromRow(row(storedUnsigned(built)));
    expect(back.expiresAt).toEqual(built.expiresAt);
    expect(back.fee).toBe(12n);
    expect(unsignedFromRow(row(storedUnsigned({ payload: null, fee: 1n }))).expiresAt).toBeUndefined();
  });

  it('is past once the head is beyond the height or the clock beyond the time, never without a limit', () => {
    const at = (expiresAt?: { height?: bigint; time?: string }) =>
      unsignedFromRow(row(storedUnsigned({ payload: null, fee: 1n, expiresAt })));
    expect(pastExpiry(at({ height: 100n }), 100n)).toBe(false);
    expect(pastExpiry(at({ height: 100n }), 101n)).toBe(true);
    expect(pastExpiry(at({ time: new Date(Date.now() - 1000).toISOString() }), 0n)).toBe(true);
    expect(pastExpiry(at({ time: new Date(Date.now() + 60_000).toISOString() }), 0n)).toBe(false);
    expect(pastExpiry(at(), 10n ** 12n)).toBe(false);
  });
});
