import { createHash, randomBytes } from 'node:crypto';

/** A 256-bit random token for a cookie or a one-time link (URL-safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What the database keeps of a token: a SHA-256. The tokens are random 256-bit strings, so a fast
 * hash cannot be brute-forced, and a leaked table yields no usable cookie or link.
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
