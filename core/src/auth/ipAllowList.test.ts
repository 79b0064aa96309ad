import { ipInList, parseCidr } from './ipAllowList';

describe('IP allow-list', () => {
  it('matches IPv4, IPv6 and IPv4-mapped IPv6 clients', () => {
    expect(ipInList('10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipInList('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipInList('11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipInList('2001:db8::1', ['2001:db8::/32'])).toBe(true);
    expect(ipInList('2001:db9::1', ['2001:db8::/32'])).toBe(false);
    expect(ipInList('192.0.2.7', ['192.0.2.7'])).toBe(true);
    expect(ipInList('garbage', ['0.0.0.0/0'])).toBe(false);
  });
  it('refuses a malformed range', () => {
    expect(() => parseCidr('10.0.0.0/33')).toThrow(/not an IP address or CIDR/);
  });
});
