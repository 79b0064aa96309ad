import type { RequestHandler } from 'express';
import { BaseError } from '@walletd/core';

/**
 * NUL (which PostgreSQL text and jsonb cannot store) or a lone UTF-16 surrogate (which jsonb
 * refuses and UTF-8 cannot encode). With the `u` flag, \p{Cs} matches only unpaired halves.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/**
 * The path of the first string (or key) the database cannot store. An explicit stack, not
 * recursion: how deep a value nests is the caller's choice (bodies are bounded by
 * MAX_BODY_DEPTH, but the walk does not rely on it).
 */
function findUnstorable(root: unknown, rootPath: string): string | null {
  const todo: [unknown, string][] = [[root, rootPath]];
  for (let next = todo.pop(); next; next = todo.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) todo.push([value[i], `${path}[${i}]`]);
    } else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [k] of entries) if (UNSTORABLE.test(k)) return `${path} (a field name)`;
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i] as [string, unknown];
        todo.push([v, `${path}.${k}`]);
      }
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
