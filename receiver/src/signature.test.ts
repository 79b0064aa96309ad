import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { sign, verifySignature } from './index';

// Known answers computed with OpenSSL, not with this code:
//   printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -r
const VECTORS = [
  {
    secret: 'whsec_walletd-test-secret-0001',
    body: '{"id":"5f0c6f2e-3b1a-4c39-9a54-2f4de3f0f6a1","type":"deposit.confirmed"}',
    hex: 'c14cb72ecfb7936681cc03865c9932ddeb67364f20992fd9035e88638bf60fe6',
  },
  { secret: 'sécret-ü', body: 'café ✓ {"amount":"1.5"}', hex: 'd5e32299785e583a18d6d394008d47609c58a8ed410f93bd6a0692d470f15405' },
  { secret: 'key', body: '', hex: '5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0' },
];

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe('x-service-signature', () => {
  it.each(VECTORS)('matches OpenSSL for $body', ({ secret, body, hex }) => {
    expect(sign(secret, body)).toBe(`sha256=${hex}`);
    expect(sign(secret, Buffer.from(body, 'utf8'))).toBe(`sha256=${hex}`);
    expect(verifySignature(secret, body, `sha256=${hex}`)).toBe(true);
    expect(verifySignature(secret, new TextEncoder().encode(body), `sha256=${hex}`)).toBe(true);
  });

  (hasOpenssl ? it : it.skip)('matches OpenSSL on random bytes and secrets', () => {
    for (let i = 0; i < 5; i++) {
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const body = randomBytes(64 + i * 100);
      const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret, '-r'], { input: body, encoding: 'utf8' });
      expect(verifySignature(secret, body, `sha256=${out.slice(0, 64)}`)).toBe(true);
    }
  });

  it('refuses a tampered body, another secret, or another signature', () => {
    const { secret, body, hex } = VECTORS[0]!;
    const header = `sha256=${hex}`;
    expect(verifySignature(secret, body.replace('confirmed', 'detected'), header)).toBe(false);
    expect(verifySignature(secret, `${body} `, header)).toBe(false);
    expect(verifySignature(secret, JSON.stringify(JSON.parse(body), null, 2), header)).toBe(false); // re-serialized JSON
    expect(verifySignature(`${secret}x`, body, header)).toBe(false);
    expect(verifySignature(secret.replace('whsec_', ''), body, header)).toBe(false); // the prefix is part of the key
    expect(verifySignature(secret, body, `sha256=${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`)).toBe(false);
  });

  it('refuses any change of one body byte (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, flip) => {
        const body = Buffer.from(bytes);
        const header = sign('s3cret', body);
        const tampered = Buffer.from(body);
        tampered[at % tampered.length]! ^= flip;
        return verifySignature('s3cret', body, header) && !verifySignature('s3cret', tampered, header);
      }),
    );
  });

  it('returns false, without throwing, for a missing or malformed header', () => {
    const { secret, body, hex } = VECTORS[0]!;
    const malformed = [
      undefined,
      null,
      '',
      'sha256=',
      hex,
      `sha1=${hex}`,
      `sha256:${hex}`,
      `sha256=${hex.slice(0, 63)}`,
      `sha256=${hex}00`,
      `sha256=${hex.slice(0, 63)}g`,
      `sha256=${hex},sha256=${hex}`,
      `v1,${Buffer.from(hex, 'hex').toString('base64')}`,
    ];
    for (const header of malformed) expect(verifySignature(secret, body, header)).toBe(false);
    expect(verifySignature(secret, body, 42 as unknown as string)).toBe(false);
    expect(verifySignature(secret, body, ['a'] as unknown as string)).toBe(false);
  });

  it('throws a TypeError for a body that is not a string or bytes (a parsed JSON object)', () => {
    const { secret, body, hex } = VECTORS[0]!;
    expect(() => verifySignature(secret, JSON.parse(body), `sha256=${hex}`)).toThrow(/before any JSON parsing/);
    expect(() => sign(secret, undefined as unknown as string)).toThrow(TypeError);
  });

  it('accepts uppercase hex and surrounding whitespace (the bytes are what count)', () => {
    const { secret, body, hex } = VECTORS[0]!;
    expect(verifySignature(secret, body, `sha256=${hex.toUpperCase()}`)).toBe(true);
    expect(verifySignature(secret, body, ` sha256=${hex} `)).toBe(true);
  });
});
