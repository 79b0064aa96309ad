import { Router } from 'express';
import { auth } from '../http/scope';

/**
 * GET /v1/me: works for every valid key, whatever its actions or plan. Never returns the secret.
 * Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass).
 */
export function meRouter(r: Router = Router()): Router {
  r.get('/me', (req, res) => {
    const a = auth(req);
    res.json({
      company: { id: a.companyId, name: a.companyName, plan: a.plan },
      key: {
        id: a.keyId,
        hint: a.hint,
        name: a.name,
        actions: a.granted,
        effectiveActions: a.granted.filter((x) => a.effective.has(x)),
        walletIds: a.walletIds === null ? '*' : [...a.walletIds].sort((x, y) => x - y),
        allowIps: a.allowIps,
        expiresAt: a.expiresAt ? a.expiresAt.toISOString() : null,
        createdAt: a.createdAt.toISOString(),
        createdBy: a.creator,
      },
    });
  });
  return r;
}
