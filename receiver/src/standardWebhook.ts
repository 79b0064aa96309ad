import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertRawBody } from './rawBody';

/** A header's value as frameworks hand it over (Node's `req.headers` gives arrays for repeats). */
export type HeaderValue = string | readonly string[] | undefined | null;

/** A plain object of headers (any case), or anything with a `get(name)` such as fetch's `Headers`. */
export type WebhookHeaders = { get(name: string): string | null | undefined } | { readonly [name: string]: HeaderValue };

export interface StandardWebhookOptions {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time (for tests). Default: the clock. */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const TIMESTAMP = /^\d{1,15}$/;

/** The HMAC key: the base64-decoded part after `whsec_` when it is base64, else the secret's UTF-8 bytes. */
export function standardWebhookKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) {
    const encoded = secret.slice(SECRET_PREFIX.length);
    if (encoded.length > 0 && BASE64.test(encoded)) return Buffer.from(encoded, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

function signature(secret: string, id: string, timestamp: string, rawBody: string | Uint8Array): string {
  assertRawBody(rawBody);
  return createHmac('sha256', standardWebhookKey(secret)).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
}

/** A `webhook-signature` entry, `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">`. */
export function signStandardWebhook(secret: string, id: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  return `v1,${signature(secret, id, String(timestamp), rawBody)}`;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  let value: HeaderValue;
  if (typeof headers.get === 'function') {
    value = (headers as { get(name: string): string | null | undefined }).get(name);
  } else {
    const plain = headers as { readonly [name: string]: HeaderValue };
    const key = Object.keys(plain).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : plain[key];
  }
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(' ');
  return undefined;
}

/**
 * Verifies a Standard Webhooks delivery (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp` (unix seconds, within `toleranceSeconds` of now, so an old capture cannot be
 * replayed) and `webhook-signature` (space-separated `v1,<base64>` entries; one must match). The
 * signed content is `<id>.<timestamp>.<raw body>`. False, never a throw, for anything missing or
 * wrong in the headers; a TypeError when `rawBody` is neither a string nor bytes (a parsed object).
 */
export function verifyStandardWebhook(
  secret: string,
  headers: WebhookHeaders | undefined | null,
  rawBody: string | Uint8Array,
  options: StandardWebhookOptions = {},
): boolean {
  assertRawBody(rawBody);
  if (typeof secret !== 'string' || !headers || typeof headers !== 'object') return false;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp')?.trim();
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !TIMESTAMP.test(timestamp)) return false;

  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!Number.isFinite(now) || Math.abs(now - Number(timestamp)) > tolerance) return false;

  const expected = Buffer.from(signature(secret, id, timestamp, rawBody), 'utf8');
  let matched = false;
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}
