import { loadConfig } from '@walletd/core';
import { relyingParty } from './passkeyRelyingParty';

describe('the passkeys relying party', () => {
  it('is the address serve prints when console.publicUrl is unset', () => {
    const c = loadConfig({ env: {} }).console;
    expect(c.publicUrl).toBeNull();
    expect(relyingParty(c)).toEqual({ rpID: 'localhost', origin: 'http://localhost:8081', rpName: 'walletd' });
    expect(relyingParty({ ...c, host: 'console.internal', port: 9000 })).toMatchObject({
      rpID: 'console.internal',
      origin: 'http://console.internal:9000',
    });
  });

  it('is console.publicUrl (file or WALLETD_CONSOLE_PUBLIC_URL): its host name is the RP id, its origin the origin', () => {
    const c = loadConfig({ env: { WALLETD_CONSOLE_PUBLIC_URL: 'https://console.example.com' } }).console;
    expect(relyingParty(c)).toEqual({ rpID: 'console.example.com', origin: 'https://console.example.com', rpName: 'walletd' });
    expect(relyingParty({ ...c, publicUrl: 'https://pay.example.com:8443/' }).origin).toBe('https://pay.example.com:8443');
  });

  it('refuses a public URL with a path, a query or another scheme', () => {
    for (const bad of ['https://example.com/console', 'https://example.com?x=1', 'ftp://example.com'])
      expect(() => loadConfig({ env: { WALLETD_CONSOLE_PUBLIC_URL: bad } })).toThrow(/console\/publicUrl must match pattern/);
  });
});
