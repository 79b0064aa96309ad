import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { databaseNowMs } from '@walletd/core';

/** Spec 6.3: `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the signing secret. */
export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Standard Webhooks key: the base64 bytes after `whsec_` for secrets of that form (what walletd
 * generates), else the secret's UTF-8 bytes (a caller-chosen secret).
 */
export function standardWebhooksKey(secret: string): Buffer {
  // Decoded once per secret, not per delivery (the dispatcher signs every attempt with it).
  const cached = keys.get(secret);
  if (cached) return cached;
  const key = decodeKey(secret);
  if (keys.size >= 1024) keys.clear();
  keys.set(secret, key);
  return key;
}

const keys = new Map<string, Buffer>();

/**
 * The same key as a KeyObject, for signing: an HMAC keyed with a Buffer cost ~50 µs per delivery
 * (Node 24 prepares the key bytes on every createHmac), one keyed with a KeyObject ~10 µs, on this
 * project's 2-core machine; the dispatcher signs every attempt (issue 43 §5).
 */
function standardWebhooksHmacKey(secret: string): KeyObject {
  const cached = hmacKeys.get(secret);
  if (cached) return cached;
  const key = createSecretKey(standardWebhooksKey(secret));
  if (hmacKeys.size >= 1024) hmacKeys.clear();
  hmacKeys.set(secret, key);
  return key;
}

const hmacKeys = new Map<string, KeyObject>();

function decodeKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const b64 = secret.slice(6);
    // Same test as @walletd/receiver's standardWebhookKey, so sender and receiver agree on every secret.
    if (b64.length > 0 && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/**
 * webhook-id / webhook-timestamp / webhook-signature, so receivers can also reject replays. The
 * timestamp is the database's clock (databaseClock.ts): receivers refuse one more than 300 s off,
 * and a host clock that lies must not make every delivery one they refuse.
 */
export function standardWebhooksHeaders(
  secret: string,
  msgId: string,
  body: string,
  now = new Date(databaseNowMs()),
): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const sig = createHmac('sha256', standardWebhooksHmacKey(secret)).update(`${msgId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': msgId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${sig}` };
}
