import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { serviceSignature, standardWebhooksHeaders, standardWebhooksKey } from './signing';

/** HMAC-SHA256 in base64 by openssl, keyed with `key`'s bytes: a reference outside Node's crypto. */
function opensslHmacBase64(key: Buffer, data: string): string {
  const mac = execFileSync('openssl', ['dgst', '-sha256', '-mac', 'HMAC', '-macopt', `hexkey:${key.toString('hex')}`, '-binary'], {
    input: data,
  });
  return mac.toString('base64');
}

describe('standardWebhooksHeaders', () => {
  const body = JSON.stringify({ id: 'evt', data: { amount: '1.5' } });
  const at = new Date('2026-11-29T06:00:00Z');

  // The key is cached per secret as a KeyObject (issue 43 §5): each secret, including one that
  // replaced another (a rotation), still signs with its own bytes.
  it.each([
    ['a generated whsec_ secret (its base64 bytes)', `whsec_${randomBytes(32).toString('base64')}`],
    ['a caller-chosen secret (its UTF-8 bytes)', 'abcdefgh12345678'],
    ['another generated secret after it (a rotation)', `whsec_${randomBytes(32).toString('base64')}`],
  ])('signs with %s, twice the same', (_what, secret) => {
    const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
    expect(standardWebhooksKey(secret)).toEqual(key);
    const expected = `v1,${opensslHmacBase64(key, `msg_1.${Math.floor(at.getTime() / 1000)}.${body}`)}`;
    for (let i = 0; i < 2; i++) {
      expect(standardWebhooksHeaders(secret, 'msg_1', body, at)).toEqual({
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': expected,
      });
    }
    expect(serviceSignature(secret, body)).toBe(
      `sha256=${Buffer.from(opensslHmacBase64(Buffer.from(secret, 'utf8'), body), 'base64').toString('hex')}`,
    );
  });
});
