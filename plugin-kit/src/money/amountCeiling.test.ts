import { CHAINS } from '../chains/registry';
import { amountCeiling } from './amountCeiling';

describe('amountCeiling', () => {
  it('fits every ceiling in numeric(78,0) and keeps the chains their known limits', () => {
    for (const chain of CHAINS) {
      for (const native of [true, false]) {
        const max = amountCeiling(chain, native);
        expect(max).toBeGreaterThan(0n);
        expect(max.toString().length).toBeLessThanOrEqual(78);
      }
    }
    expect(amountCeiling('ethereum', true)).toBe(115792089237316195423570985008687907853269984665640564039457584007913129639935n);
    expect(amountCeiling('bitcoin', true)).toBe(2_100_000_000_000_000n);
    expect(amountCeiling('tron', true)).toBe(9_223_372_036_854_775_807n);
  });
});
