import { randomBytes } from 'node:crypto';
import { signStandardWebhook, standardWebhookKey, verifyStandardWebhook } from './index';

// The example of the Standard Webhooks specification; the signature checked with OpenSSL:
//   printf '%s' 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' \
//     | openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw | base64 -d | xxd -p) -binary | base64
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const at = (seconds: number) => new Date(seconds * 1000);
const headersOf = (id: string, timestamp: number | string, signature: string) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
});

describe('Standard Webhooks', () => {
  const { secret, id, timestamp, body, signature } = SPEC;
  const now = at(timestamp);

  it('matches the specification example', () => {
    expect(signStandardWebhook(secret, id, timestamp, body)).toBe(signature);
    expect(signStandardWebhook(secret, id, String(timestamp), Buffer.from(body))).toBe(signature);
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp, signature), body, { now })).toBe(true);
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp, signature), Buffer.from(body), { now })).toBe(true);
  });

  it('decodes the key after whsec_ when it is base64, else uses the secret bytes (OpenSSL vectors)', () => {
    expect(standardWebhookKey(secret).toString('hex')).toBe('31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0');
    expect(standardWebhookKey('whsec_not*base64!')).toEqual(Buffer.from('whsec_not*base64!'));
    expect(standardWebhookKey('whsec_')).toEqual(Buffer.from('whsec_'));
    expect(standardWebhookKey('plain-secret-no-prefix')).toEqual(Buffer.from('plain-secret-no-prefix'));
    // printf '%s' 'msg_2.1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'plain-secret-no-prefix' -binary | base64
    expect(signStandardWebhook('plain-secret-no-prefix', 'msg_2', 1700000000, '{"a":1}')).toBe(
      'v1,iDJtrphKykzeSgTZ07F5GvLeivAPMXDRNCLIncFGaaM=',
    );
    // printf '%s' 'msg_3.1700000000.{"a":1}' | openssl dgst -sha256 -hmac 'whsec_not*base64!' -binary | base64
    expect(signStandardWebhook('whsec_not*base64!', 'msg_3', 1700000000, '{"a":1}')).toBe(
      'v1,wAQ/OsCTrdGOL9G/j4BCfaD/TPqy70c97REysLRi7sk=',
    );
  });

  it('works with a generated walletd secret (whsec_ + base64 of 32 bytes)', () => {
    const walletdSecret = `whsec_${randomBytes(32).toString('base64')}`;
    const sig = signStandardWebhook(walletdSecret, 'evt_1', 1700000000, body);
    expect(verifyStandardWebhook(walletdSecret, headersOf('evt_1', 1700000000, sig), body, { now: at(1700000000) })).toBe(true);
    expect(
      verifyStandardWebhook(`whsec_${randomBytes(32).toString('base64')}`, headersOf('evt_1', 1700000000, sig), body, {
        now: at(1700000000),
      }),
    ).toBe(false);
  });

  it('refuses a timestamp outside the tolerance, either way (replay protection)', () => {
    const headers = headersOf(id, timestamp, signature);
    expect(verifyStandardWebhook(secret, headers, body, { now: at(timestamp + 300) })).toBe(true);
    expect(verifyStandardWebhook(secret, headers, body, { now: at(timestamp - 300) })).toBe(true);
    expect(verifyStandardWebhook(secret, headers, body, { now: at(timestamp + 301) })).toBe(false);
    expect(verifyStandardWebhook(secret, headers, body, { now: at(timestamp - 301) })).toBe(false);
    expect(verifyStandardWebhook(secret, headers, body)).toBe(false); // the clock: 2021 is long gone
    expect(verifyStandardWebhook(secret, headers, body, { now: at(timestamp + 3600), toleranceSeconds: 3600 })).toBe(true);
    expect(verifyStandardWebhook(secret, headers, body, { now: at(timestamp + 3601), toleranceSeconds: 3600 })).toBe(false);
  });

  it('accepts a header with several signatures when one matches (secret rotation)', () => {
    const other = signStandardWebhook('whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0LTEyMzQ=', id, timestamp, body);
    for (const list of [`${other} ${signature}`, `${signature} ${other}`, `v2,abc ${signature}`, `${other}  ${signature}`]) {
      expect(verifyStandardWebhook(secret, headersOf(id, timestamp, list), body, { now })).toBe(true);
    }
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp, `${other} v1,AAAA`), body, { now })).toBe(false);
  });

  it('refuses a tampered body, id, timestamp or signature', () => {
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp, signature), `${body} `, { now })).toBe(false);
    expect(verifyStandardWebhook(secret, headersOf(`${id}x`, timestamp, signature), body, { now })).toBe(false);
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp + 1, signature), body, { now })).toBe(false);
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp, signature.replace('v1,', 'v2,')), body, { now })).toBe(false);
    expect(verifyStandardWebhook(secret, headersOf(id, timestamp, signature.replace('g0h', 'g0H')), body, { now })).toBe(false);
    expect(verifyStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx', headersOf(id, timestamp, signature), body, { now })).toBe(false);
  });

  it('returns false, without throwing, for missing or malformed headers', () => {
    const cases: unknown[] = [
      undefined,
      null,
      {},
      { 'webhook-id': id, 'webhook-timestamp': String(timestamp) },
      { 'webhook-id': id, 'webhook-signature': signature },
      { 'webhook-timestamp': String(timestamp), 'webhook-signature': signature },
      headersOf('', timestamp, signature),
      headersOf(id, '', signature),
      headersOf(id, 'yesterday', signature),
      headersOf(id, '1614265330.5', signature),
      headersOf(id, '-1614265330', signature),
      headersOf(id, timestamp, ''),
      headersOf(id, timestamp, 'v1'),
      headersOf(id, timestamp, 'v1,'),
      headersOf(id, timestamp, signature.slice('v1,'.length)),
      { 'webhook-id': 7, 'webhook-timestamp': timestamp, 'webhook-signature': signature },
    ];
    for (const headers of cases) expect(verifyStandardWebhook(secret, headers as never, body, { now })).toBe(false);
  });

  it('throws a TypeError for a body that is not a string or bytes (a parsed JSON object)', () => {
    expect(() => verifyStandardWebhook(secret, headersOf(id, timestamp, signature), JSON.parse(body), { now })).toThrow(TypeError);
  });

  it('finds headers in any case, in a Headers object, and in Node arrays', () => {
    const upper = { 'Webhook-Id': id, 'WEBHOOK-TIMESTAMP': String(timestamp), 'Webhook-Signature': signature };
    expect(verifyStandardWebhook(secret, upper, body, { now })).toBe(true);
    expect(verifyStandardWebhook(secret, new Headers(upper), body, { now })).toBe(true);
    const arrays = { 'webhook-id': [id], 'webhook-timestamp': [String(timestamp)], 'webhook-signature': ['v1,AAAA', signature] };
    expect(verifyStandardWebhook(secret, arrays, body, { now })).toBe(true);
  });
});
