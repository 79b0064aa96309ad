import { classicAddressToXAddress } from 'xrpl';
import { issuedCurrencyKey, parseXrpDestination, xrpMatchKey } from './addresses';
import { xrpBurnReason } from './burnAddress';
import { canonicalCurrency } from './currency';
import { issuedValueToUnits, unitsToIssuedValue } from './issuedAmount';

const ACCOUNT = 'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AV';

describe('XRP address forms', () => {
  test('classic, r…:tag and X-addresses name the same account and tag; the X-address test flag must match the network', () => {
    expect(parseXrpDestination('mainnet', ACCOUNT)).toEqual({ account: ACCOUNT });
    expect(parseXrpDestination('mainnet', `${ACCOUNT}:352660523`)).toEqual({ account: ACCOUNT, tag: 352660523 });
    expect(parseXrpDestination('mainnet', classicAddressToXAddress(ACCOUNT, 352660523, false))).toEqual({
      account: ACCOUNT,
      tag: 352660523,
    });
    expect(parseXrpDestination('mainnet', classicAddressToXAddress(ACCOUNT, false, false))).toEqual({ account: ACCOUNT });
    expect(parseXrpDestination('mainnet', classicAddressToXAddress(ACCOUNT, 1, true))).toBeNull();
    expect(parseXrpDestination('testnet', classicAddressToXAddress(ACCOUNT, 1, true))).toEqual({ account: ACCOUNT, tag: 1 });
    expect(xrpMatchKey('mainnet', classicAddressToXAddress(ACCOUNT, 7, false))).toBe(`${ACCOUNT}:7`);
  });

  test('refuses bad checksums, tags beyond uint32, leading zeros and other junk', () => {
    for (const bad of [
      'rNxp4h8apvRis6mJf9Sh8C6iRxfrDWN7AW',
      `${ACCOUNT}:4294967296`,
      `${ACCOUNT}:01`,
      `${ACCOUNT}:`,
      `${ACCOUNT}:-1`,
      '0x1234',
      '',
    ])
      expect(parseXrpDestination('mainnet', bad)).toBeNull();
    expect(parseXrpDestination('mainnet', `${ACCOUNT}:4294967295`)).toEqual({ account: ACCOUNT, tag: 4294967295 });
    expect(() => xrpMatchKey('mainnet', 'nonsense')).toThrow(/not a valid XRP Ledger address/);
  });

  test('issued currencies: 3-letter codes as they are, longer names as rippled prints them (40 hex), XRP refused', () => {
    expect(issuedCurrencyKey('USD.rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B')).toBe('USD.rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B');
    // RLUSD (Ripple USD) on mainnet: its code as the ledger prints it.
    expect(canonicalCurrency('RLUSD')).toBe('524C555344000000000000000000000000000000');
    expect(canonicalCurrency('524c555344000000000000000000000000000000')).toBe('524C555344000000000000000000000000000000');
    expect(canonicalCurrency('0000000000000000000000005553440000000000')).toBe('USD');
    expect(canonicalCurrency('XRP')).toBeNull();
    expect(issuedCurrencyKey('USD.notanaddress')).toBeNull();
    expect(issuedCurrencyKey('rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B')).toBeNull();
  });
});

describe('issued amounts in base units', () => {
  test('exact when the value fits the decimals; cut (never rounded up) below one base unit', () => {
    expect(issuedValueToUnits('9.980039920159681', 15)).toEqual({ units: 9_980039920159681n, exact: true });
    expect(issuedValueToUnits('9.980039920159681', 6)).toEqual({ units: 9_980039n, exact: false });
    expect(issuedValueToUnits('25799', 6)).toEqual({ units: 25_799_000000n, exact: true });
    expect(issuedValueToUnits('1.5e-3', 6)).toEqual({ units: 1500n, exact: true });
    expect(issuedValueToUnits('1e20', 2)).toEqual({ units: 10n ** 22n, exact: true });
    expect(issuedValueToUnits('-0.5', 1)).toEqual({ units: -5n, exact: true });
    expect(() => issuedValueToUnits('1,5', 2)).toThrow();
  });
  test('round trip to the decimal string rippled accepts', () => {
    expect(unitsToIssuedValue(12_500_000n, 6)).toBe('12.5');
    expect(unitsToIssuedValue(1n, 6)).toBe('0.000001');
    expect(unitsToIssuedValue(7_000000n, 6)).toBe('7');
  });
});

describe('XRP black holes', () => {
  test('are valid classic addresses (so the refusal can match them) and ordinary accounts are not among them', () => {
    for (const a of [
      'rrrrrrrrrrrrrrrrrrrrrhoLvTp',
      'rrrrrrrrrrrrrrrrrrrrBZbvji',
      'rrrrrrrrrrrrrrrrrNAMEtxvNvQ',
      'rrrrrrrrrrrrrrrrrrrn5RM1rHd',
    ]) {
      expect(parseXrpDestination('mainnet', a)).toEqual({ account: a });
      expect(xrpBurnReason(a)).not.toBeNull();
    }
    expect(xrpBurnReason(ACCOUNT)).toBeNull();
  });
});
