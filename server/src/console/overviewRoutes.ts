import type { RequestHandler, Router } from 'express';
import { type Common, historyReads } from '../context';
import { checkReadiness } from '../health/readiness';
import { recentDeepReorgs } from '../services/deepReorgs';
import { reconciliationSummary } from '../services/reconciliation';
import { knownAssets, walletBalances } from '../services/transactions';
import { listWallets } from '../services/wallets';
import { requireMfaEnrolled } from './memberGuards';

/**
 * The overview (`GET /console/api/overview`): the company's wallets with their balances per asset
 * (the figures `GET /v1/wallets/:id/balances` answers: confirmed, pending, reserved, available) and
 * each followed chain's indexer health as `/readyz` judges it, and its reconciliation (open drifts,
 * last run), and the reorgs deeper than the confirmation threshold of the last day (`deepReorgs`:
 * the banner). Any member of the company may read.
 */
export function mountOverviewRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db, config, plugins } = common;
  const reads = historyReads(common);

  r.get('/overview', session, requireMfaEnrolled(db), async (req, res) => {
    const wallets = await listWallets(db, req.memberSession!.companyId, null);
    // One transaction of the reads pool for every wallet's balances: one connection, one timeout.
    const withBalances = await reads.run(async (rdb) => {
      const out = [];
      const table = plugins.chainTable();
      for (const w of wallets) {
        // A wallet on a chain no loaded plugin serves (the operator narrowed \`plugins\`) shows no balances.
        if (!table.network(w.chain, w.network)) {
          out.push({ ...w, balances: [] });
          continue;
        }
        const assets = knownAssets(config, plugins, w.chain, w.network);
        out.push({ ...w, balances: await walletBalances(rdb, assets, w.id, table.nativeAsset(w.chain, w.network).key) });
      }
      return out;
    });
    const readiness = await checkReadiness(db, config);
    const reconciliation = await reconciliationSummary(db, req.memberSession!.companyId, config.chains);
    const deepReorgs = await recentDeepReorgs(db, config.chains);
    res.json({ wallets: withBalances, chains: 'chains' in readiness ? readiness.chains : [], reconciliation, deepReorgs });
  });
}
