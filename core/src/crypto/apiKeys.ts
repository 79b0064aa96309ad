import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format: `svc_live_` + 30 base62 characters of randomness (~178 bits) + 6 base62
 * characters of CRC-32 checksum. The checksum lets the server refuse a mistyped or truncated key
 * without touching the database, and lets secret scanners recognise a real key. Only the
 * SHA-256 of the whole key is stored: the key has enough entropy that a slow hash adds nothing.
 */
export const API_KEY_PREFIX = 'svc_live_';
const BODY_LEN = 30;
const CHECK_LEN = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LEN + CHECK_LEN}}$`);

function base62(n: bigint, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

function randomBase62(len: number): string {
  // Rejection sampling keeps every character uniform.
  let out = '';
  while (out.length < len) {
    for (const b of randomBytes(len * 2)) {
      if (b < 248 && out.length < len) out += ALPHABET[b % 62];
    }
  }
  return out;
}

const checksum = (body: string): string => base62(BigInt(crc32(API_KEY_PREFIX + body) >>> 0), CHECK_LEN);

export function generateApiKey(): string {
  const body = randomBase62(BODY_LEN);
  return API_KEY_PREFIX + body + checksum(body);
}

/** Shape and checksum only: a cheap filter in front of the database lookup. */
export function isWellFormedApiKey(key: string): boolean {
  if (!SHAPE.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LEN);
  const sum = Buffer.from(key.slice(API_KEY_PREFIX.length + BODY_LEN));
  return timingSafeEqual(sum, Buffer.from(checksum(body)));
}

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** What is shown in listings so a person can tell keys apart: prefix + first 4 characters. */
export const apiKeyHint = (key: string): string => `${key.slice(0, API_KEY_PREFIX.length + 4)}…`;

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
