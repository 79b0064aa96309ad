import { BaseError } from '@walletd/core';
import { Router } from 'express';
import type { Common } from '../platform/context';
import { auth, requireGlobal, walletFor } from '../http/scope';
import { checkNow, driftsSince, openDrifts, reconciliationRun, walletReconciliation } from './index';

/**
 * What the indexer's reconciliation found (docs/guide/reconciliation.md): a wallet's last comparisons
 * of its indexed balances with the node's, and the open drifts of every wallet the key sees.
 * Registered on `r`: the app passes its one /v1 router.
 */
export function reconciliationRouter(common: Common, r: Router = Router()): Router {
  const { db, config, plugins } = common;

  r.get('/wallets/:id/reconciliation', async (req, res) => {
    const wallet = await walletFor(db, auth(req), req.params.id, ['wallets:read']);
    res.json({
      walletId: wallet.id,
      chain: wallet.chain,
      network: wallet.network,
      intervalMs: config.reconciliation.intervalMs,
      ...(await reconciliationRun(db, wallet.chain, wallet.network)),
      checks: await walletReconciliation(db, config, plugins, wallet.id),
    });
  });

  r.get('/reconciliation', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'wallets:read');
    const { limit = '200' } = req.query as Record<string, unknown>;
    if (typeof limit !== 'string' || !/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 500)
      throw new BaseError('validation_failed', 'limit must be an integer from 1 to 500');
    res.json({ drifts: await openDrifts(db, config, plugins, a.companyId, a.walletIds, Number(limit)) });
  });

  // Check now: the company's whole comparison, one at a time, rate limited (checkNow.ts).
  r.post('/reconciliation/checks', async (req, res) => {
    const a = auth(req);
    requireGlobal(a, 'wallets:read');
    const { run, joined } = checkNow(common, a.companyId);
    const done = await run;
    res.json({
      startedAt: done.startedAt.toISOString(),
      finishedAt: done.finishedAt.toISOString(),
      joined,
      chains: done.chains,
      drifts: await driftsSince(db, config, plugins, a.companyId, a.walletIds, done.startedAt),
    });
  });
  return r;
}
