import fc from 'fast-check';
import { fromBaseUnits, parseBaseUnits, toBaseUnits } from './Amount';

describe('Amount', () => {
  it('converts known values exactly', () => {
    expect(toBaseUnits('1.5', 18)).toBe(1_500_000_000_000_000_000n);
    expect(toBaseUnits('0.00000001', 8)).toBe(1n);
    expect(toBaseUnits('41.677389', 6)).toBe(41_677_389n);
    expect(fromBaseUnits(13_000_600_000n, 6)).toBe('13000.6');
    expect(fromBaseUnits(0n, 18)).toBe('0');
    expect(fromBaseUnits(1n, 18)).toBe('0.000000000000000001');
    expect(fromBaseUnits(-150n, 2)).toBe('-1.5');
    // 2^256 - 1 wei: beyond any float, still exact.
    const max = (1n << 256n) - 1n;
    expect(toBaseUnits(fromBaseUnits(max, 18), 18)).toBe(max);
  });

  it('refuses what it cannot represent exactly', () => {
    expect(() => toBaseUnits('1.123', 2)).toThrow(/more than 2 decimal places/);
    expect(toBaseUnits('1.1200', 2)).toBe(112n);
    for (const bad of ['', '.5', '1.', '01', '1e5', ' 1', '+1', '0x10', '1,5', 'NaN']) {
      expect(() => toBaseUnits(bad, 8)).toThrow();
    }
    expect(() => toBaseUnits('-1', 8)).toThrow(/negative/);
    expect(toBaseUnits('-1', 8, { allowNegative: true })).toBe(-100_000_000n);
    expect(() => toBaseUnits('0', 8, { allowZero: false })).toThrow(/greater than zero/);
    expect(() => toBaseUnits(1 as unknown as string, 8)).toThrow(/not a number/);
  });

  it('round-trips every base-unit amount (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 256n), max: 1n << 256n }), fc.integer({ min: 0, max: 30 }), (units, decimals) => {
        expect(toBaseUnits(fromBaseUnits(units, decimals), decimals, { allowNegative: true })).toBe(units);
      }),
    );
  });

  it('formats safe integers (printed through Number) exactly as the bigint path, across the 2^53 edge (property)', () => {
    const reference = (units: bigint, decimals: number) => {
      const digits = (units < 0n ? -units : units).toString().padStart(decimals + 1, '0');
      const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
      const text = frac ? `${digits.slice(0, digits.length - decimals)}.${frac}` : digits.slice(0, digits.length - decimals);
      return units < 0n && text !== '0' ? `-${text}` : text;
    };
    const edge = BigInt(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(
        fc.oneof(fc.bigInt({ min: -edge - 1000n, max: edge + 1000n }), fc.bigInt({ min: edge - 1000n, max: edge + 1000n })),
        fc.integer({ min: 0, max: 30 }),
        (units, decimals) => {
          expect(fromBaseUnits(units, decimals)).toBe(reference(units, decimals));
        },
      ),
    );
    expect(fromBaseUnits(2_100_000_000_000_000n, 8)).toBe('21000000');
    expect(fromBaseUnits(edge + 1n, 8)).toBe('90071992.54740992');
  });

  it('formats canonically: no trailing zeros, no dangling point (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 128n }), fc.integer({ min: 0, max: 24 }), (units, decimals) => {
        const text = fromBaseUnits(units, decimals);
        expect(text).toMatch(/^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
        // Appending zeros never changes the value.
        const padded = text.includes('.') ? `${text}000` : text;
        expect(toBaseUnits(padded, decimals + 3)).toBe(units * 1000n);
      }),
    );
  });

  it('parses numeric(78,0) column text', () => {
    expect(parseBaseUnits('115792089237316195423570985008687907853269984665640564039457584007913129639935')).toBe((1n << 256n) - 1n);
    expect(() => parseBaseUnits('1.5')).toThrow();
    expect(() => parseBaseUnits(2 ** 60)).toThrow(/unsafe/);
  });
});
