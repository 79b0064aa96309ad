import { MAX_STANDARD_VSIZE, consolidationCoins, maxConsolidationFeeRate } from './consolidate';
import { utxoNetwork } from '../networks';
import type { Coin } from '../spendableCoins';

const P2WPKH = `0014${'11'.repeat(20)}`;
const coin = (address: string, value: bigint, n: number): Coin => ({
  txid: 'ab'.repeat(32),
  vout: n,
  value: value.toString(),
  address,
  script: P2WPKH,
  height: 1,
});

describe('consolidationCoins', () => {
  it('takes whole addresses that reach the threshold and leaves coins worth less than their input fee', () => {
    const coins = [coin('a', 50_000n, 0), coin('a', 600n, 1), coin('b', 9_000n, 2), coin('c', 20_000n, 3)];
    // At 10 sat/vB a P2WPKH input costs 680: the 600 coin is dust to a consolidation; b is below 10,000.
    const taken = consolidationCoins(coins, ['a', 'b', 'c'], 10_000n, 10n, P2WPKH);
    expect(taken.map((c) => c.vout)).toEqual([0, 3]);
  });

  it("stops at the standard size: the coins past it are the next transaction's", () => {
    const coins = Array.from({ length: 2000 }, (_, i) => coin(`a${i}`, 100_000n, i));
    const taken = consolidationCoins(
      coins,
      coins.map((c) => c.address),
      1n,
      1n,
      P2WPKH,
    );
    // 11 bytes of overhead, one 31-byte output, 68 per input: 1,469 inputs fit in 100,000 vbytes.
    expect(taken).toHaveLength(Math.floor((MAX_STANDARD_VSIZE - 11 - 31) / 68));
    expect(taken).toHaveLength(1469);
  });

  it('caps the fee rate at 500 times the network floor', () => {
    expect(maxConsolidationFeeRate(utxoNetwork('bitcoin', 'mainnet'))).toBe(500n);
    expect(maxConsolidationFeeRate(utxoNetwork('dogecoin', 'mainnet'))).toBe(500_000n);
  });
});
