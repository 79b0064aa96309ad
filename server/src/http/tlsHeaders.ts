import type { RequestHandler } from 'express';

/** One year, as browsers' preload lists ask; subdomains are the operator's to vouch for, not walletd's. */
export const HSTS = 'max-age=31536000';

/**
 * `X-Content-Type-Options: nosniff` on every answer (a browser never runs a JSON error as a
 * script), and `Strict-Transport-Security` when the request came over TLS: walletd serves plain
 * HTTP, so TLS is a proxy's in front of it, known by `server.trustProxy` plus the proxy's
 * `X-Forwarded-Proto: https` (Express's `req.secure`), or said by the operator (`assumeTls`: the
 * console's `secureCookies`). HSTS over plain HTTP would be ignored by browsers, and would be a lie.
 */
export function tlsHeaders(assumeTls = false): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (assumeTls || req.secure) res.setHeader('Strict-Transport-Security', HSTS);
    next();
  };
}
