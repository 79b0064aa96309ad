import type { RequestHandler, Router } from 'express';
import { type Chain, nativeAsset } from '@walletd/core';
import type { Common } from '../context';
import { checkReadiness } from '../health/readiness';
import { reconciliationSummary } from '../services/reconciliation';
import { knownAssets, walletBalances } from '../services/transactions';
import { listWallets } from '../services/wallets';
import { requireMfaEnrolled } from './memberGuards';

/**
 * The overview (`GET /console/api/overview`): the company's wallets with their balances per asset
 * (the figures `GET /v1/wallets/:id/balances` answers: confirmed, pending, reserved, available) and
 * each followed chain's indexer health as `/readyz` judges it, and its reconciliation (open drifts,
 * last run). Any member of the company may read.
 */
export function mountOverviewRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db, config, plugins } = common;

  r.get('/overview', session, requireMfaEnrolled(db), async (req, res) => {
    const wallets = await listWallets(db, req.memberSession!.companyId, null);
    const withBalances = await Promise.all(
      wallets.map(async (w) => ({
        ...w,
        balances: await walletBalances(
          db,
          knownAssets(config, plugins, w.chain, w.network),
          w.id,
          nativeAsset(w.chain as Chain, w.network).key,
        ),
      })),
    );
    const readiness = await checkReadiness(db, config);
    const reconciliation = await reconciliationSummary(db, req.memberSession!.companyId, config.chains);
    res.json({ wallets: withBalances, chains: 'chains' in readiness ? readiness.chains : [], reconciliation });
  });
}
