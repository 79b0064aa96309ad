import type { RequestHandler } from 'express';
import { BaseError } from '@walletd/core';
import { OPERATIONS } from '@walletd/schemas';

interface KnownPath {
  pattern: RegExp;
  methods: string[];
}

/** `/wallets/{id}/secret` → /^\/v1\/wallets\/[^/]+\/secret\/?$/ */
const toPattern = (template: string) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);

function knownPaths(extra: Record<string, string[]>): KnownPath[] {
  const byPath = new Map<string, Set<string>>();
  const add = (path: string, method: string) => {
    const set = byPath.get(path) ?? new Set<string>();
    set.add(method.toUpperCase());
    byPath.set(path, set);
  };
  for (const op of OPERATIONS) add(`/v1${op.path}`, op.method);
  for (const [path, methods] of Object.entries(extra)) for (const m of methods) add(path, m);
  return [...byPath].map(([path, methods]) => {
    // Express answers HEAD wherever it answers GET.
    if (methods.has('GET')) methods.add('HEAD');
    return { pattern: toPattern(path), methods: [...methods].sort() };
  });
}

/**
 * Runs after every router: a request that reached it matched no route. On a known path that is a
 * wrong method (405 with `Allow`, RFC 9110 15.5.6); anywhere else, 404.
 */
export function methodNotAllowedOrNotFound(extra: Record<string, string[]>): RequestHandler {
  const known = knownPaths(extra);
  return (req, res, next) => {
    const hit = known.find((k) => k.pattern.test(req.path));
    if (hit) {
      res.setHeader('Allow', hit.methods.join(', '));
      next(new BaseError('method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${hit.methods.join(', ')}`));
      return;
    }
    next(new BaseError('not_found', `No route ${req.method} ${req.path}`));
  };
}
