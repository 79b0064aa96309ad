import { generateKeyPairSync } from 'node:crypto';
import { generateSealingKeyPair, openSealed, parsePublicKey, sealTo } from './sealedExport';

describe('sealed export to the company key', () => {
  const { publicKeyPem, privateKeyPem } = generateSealingKeyPair();

  it('round-trips with the private key and names the wallet', () => {
    const sealed = sealTo(publicKeyPem, Buffer.from('secret words'), 'wallet:3');
    expect(sealed.startsWith('wdseal1.')).toBe(true);
    expect(openSealed(privateKeyPem, sealed, 'wallet:3').toString()).toBe('secret words');
    expect(() => openSealed(privateKeyPem, sealed, 'wallet:4')).toThrow();
  });

  it('cannot be opened with another private key', () => {
    const other = generateSealingKeyPair();
    const sealed = sealTo(publicKeyPem, Buffer.from('secret words'), 'wallet:3');
    expect(() => openSealed(other.privateKeyPem, sealed, 'wallet:3')).toThrow();
  });

  it('accepts only X25519 public keys', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => parsePublicKey(rsa)).toThrow(/X25519/);
    expect(() => parsePublicKey('not a key')).toThrow(/PEM/);
  });
});
