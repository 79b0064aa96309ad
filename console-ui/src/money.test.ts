import { addAmounts, fromBaseUnits, shownAmount } from './money';

describe('money as the console shows it', () => {
  it('groups the integer part and cuts, never rounds, past eight decimals, marking the cut', () => {
    expect(shownAmount('1234567.25')).toBe('1,234,567.25');
    expect(shownAmount('3.000000000000000007')).toBe('3…');
    expect(shownAmount('0.999999999999')).toBe('0.99999999…');
    expect(shownAmount('0.000055')).toBe('0.000055');
    expect(shownAmount('100')).toBe('100');
    expect(shownAmount('-1000.5', 8, '\u202f', ',')).toBe('-1\u202f000,5');
    expect(shownAmount('12.3400000000')).toBe('12.34');
    expect(shownAmount('not a number')).toBe('not a number');
  });

  it('adds decimal strings exactly, whatever their scales', () => {
    expect(addAmounts(['0.1', '0.2'])).toBe('0.3');
    expect(addAmounts(['1.000000000000000001', '2', '-0.5'])).toBe('2.500000000000000001');
    expect(addAmounts(['-3', '1.25'])).toBe('-1.75');
    expect(addAmounts([])).toBe('0');
    expect(addAmounts(['115792089237316195423570985008687907853269984665640564039457.584007913129639935', '1'])).toBe(
      '115792089237316195423570985008687907853269984665640564039458.584007913129639935',
    );
  });

  it('reads base units exactly', () => {
    expect(fromBaseUnits('55000000000000', 18)).toBe('0.000055');
  });
});
