import type { RequestHandler } from 'express';
import { BaseError } from '@walletd/core';

/**
 * NUL (which PostgreSQL text and jsonb cannot store) or a lone UTF-16 surrogate (which jsonb
 * refuses and UTF-8 cannot encode). With the `u` flag, \p{Cs} matches only unpaired halves.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
const UNSTORABLE = /[\u0000\p{Cs}]/u;

function findUnstorable(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], `${path}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return `${path} (a field name)`;
      const hit = findUnstorable(v, `${path}.${k}`);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * Refuses text the database cannot store, in the query and the JSON body, before any handler
 * sees it: otherwise it surfaces as a PostgreSQL error, a 500 for the caller's mistake.
 */
export const textHygiene: RequestHandler = (req, _res, next) => {
  const where = findUnstorable(req.query, 'query') ?? findUnstorable(req.body, 'body');
  if (where) {
    next(
      new BaseError(
        'validation_failed',
        `${where} contains a NUL character or an unpaired surrogate; text must be valid Unicode without U+0000`,
      ),
    );
    return;
  }
  next();
};
