import { randomBytes } from 'node:crypto';
import { MasterKey, type Envelope } from './envelope';

describe('MasterKey envelope', () => {
  const mk = new MasterKey(randomBytes(32));
  const secret = Buffer.from('abandon abandon ... art');

  it('opens what it sealed for the same record', () => {
    const env = mk.seal(secret, 'wallet:7');
    expect(env.v).toBe(1);
    expect(env.ct).not.toContain(secret.toString('base64'));
    expect(mk.open(env, 'wallet:7').equals(secret)).toBe(true);
  });

  it('refuses a ciphertext moved to another wallet', () => {
    const env = mk.seal(secret, 'wallet:7');
    expect(() => mk.open(env, 'wallet:8')).toThrow(/failed authentication/);
  });

  it('refuses a tampered ciphertext or wrapped key', () => {
    const env = mk.seal(secret, 'wallet:7');
    const flip = (b64: string, at: number) => {
      const buf = Buffer.from(b64, 'base64');
      buf[at] = (buf[at] as number) ^ 1;
      return buf.toString('base64');
    };
    expect(() => mk.open({ ...env, ct: flip(env.ct, 40) }, 'wallet:7')).toThrow(/failed authentication/);
    expect(() => mk.open({ ...env, wdk: flip(env.wdk, 30) }, 'wallet:7')).toThrow(/failed authentication/);
    expect(() => mk.open({ ...env, ct: flip(env.ct, 15) }, 'wallet:7')).toThrow(/failed authentication/);
  });

  it('refuses an envelope sealed under another master key', () => {
    const other = new MasterKey(randomBytes(32));
    const env: Envelope = other.seal(secret, 'wallet:7');
    expect(() => mk.open(env, 'wallet:7')).toThrow(/different master key/);
    // Even if the key id is forged to match, authentication fails.
    expect(() => mk.open({ ...env, kid: mk.id }, 'wallet:7')).toThrow(/failed authentication/);
  });
});
