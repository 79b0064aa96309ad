import { Router } from 'express';
import type { AuthContext } from '../http/authContext';
import { sendJsonText } from '../http/jsonResponse';
import { auth } from '../http/scope';

/**
 * The answer for each key context, written once: a context (http/keyState.ts) is one frozen
 * object per unchanged key row, and the answer depends on nothing else (no clock, no other table).
 * Why: JSON and two `toISOString` calls per request were a measurable share of `/v1/me`
 * (bench/README.md, `api`). Weak: a context no request holds any more takes its answer with it.
 */
const answers = new WeakMap<AuthContext, string>();

/**
 * GET /v1/me: works for every valid key, whatever its actions or plan. Never returns the secret.
 * Registered on `r`: the app passes its one /v1 router (a nested router costs every request a pass).
 */
export function meRouter(r: Router = Router()): Router {
  r.get('/me', (req, res) => {
    const a = auth(req);
    let text = answers.get(a);
    if (text === undefined) {
      text = JSON.stringify(describe(a));
      answers.set(a, text);
    }
    sendJsonText(res, text);
  });
  return r;
}

function describe(a: AuthContext) {
  return {
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
  };
}
