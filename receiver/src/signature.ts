import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertRawBody } from './rawBody';

/** The header that carries walletd's signature of the raw body. */
export const SIGNATURE_HEADER = 'x-service-signature';

const HEADER_FORMAT = /^sha256=([0-9a-f]{64})$/i;

function digest(secret: string, rawBody: string | Uint8Array): Buffer {
  assertRawBody(rawBody);
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(rawBody).digest();
}

/**
 * The `x-service-signature` value walletd sends for `rawBody`: `sha256=` and the lowercase hex
 * HMAC-SHA256 of the raw body bytes (a string is taken as UTF-8), keyed with the UTF-8 bytes of the
 * whole signing secret (`whsec_` prefix included).
 */
export function sign(secret: string, rawBody: string | Uint8Array): string {
  return `sha256=${digest(secret, rawBody).toString('hex')}`;
}

/**
 * Whether `header` (the `x-service-signature` value) is walletd's signature of exactly these bytes
 * with this secret. Pass the body as received, before any JSON parsing: re-serialized JSON has
 * other bytes. Constant-time comparison; false (never a throw) for a missing or malformed header. A
 * TypeError when `rawBody` is neither a string nor bytes (a parsed object).
 */
export function verifySignature(secret: string, rawBody: string | Uint8Array, header: string | undefined | null): boolean {
  assertRawBody(rawBody);
  if (typeof header !== 'string' || typeof secret !== 'string') return false;
  const match = HEADER_FORMAT.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = digest(secret, rawBody);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
