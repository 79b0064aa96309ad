import { consoleBaseUrl, consoleLinkUrl } from './consoleUrl';

describe('consoleUrl', () => {
  it('names a wildcard or loopback bind localhost', () => {
    for (const host of ['0.0.0.0', '::', '127.0.0.1', '::1']) expect(consoleBaseUrl(host, 8081)).toBe('http://localhost:8081');
  });
  it('keeps any other host, bracketing an IPv6 literal', () => {
    expect(consoleBaseUrl('console.example.com', 9000)).toBe('http://console.example.com:9000');
    expect(consoleBaseUrl('fd00::5', 8081)).toBe('http://[fd00::5]:8081');
  });
  it('builds the full link', () => {
    expect(consoleLinkUrl('0.0.0.0', 8081, 'abc')).toBe('http://localhost:8081/console/links/abc');
  });
});
