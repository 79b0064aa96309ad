import type {
  ChainHealth,
  ChainReconciliation,
  ConsoleOverview,
  DeepReorgNotice,
  DriftView,
  NoUndeclared,
  OverviewWallet,
  Undeclared,
} from '@walletd/schemas';
import type { RequestHandler, Router } from 'express';
import { type Common, historyReads } from '../platform/context';
import { checkReadiness } from '../platform/health/readiness';
import { recentDeepReorgs } from '../wallets/deepReorgs';
import { checkNow, driftsSince, openDrifts, reconciliationSummary } from '../reconciliation/index';
import { knownAssets, walletBalances } from '../wallets/transactions';
import { listWallets } from '../wallets/wallets';
import { requireMfaEnrolled, requireRoleAction } from '../members/sessions/memberGuards';

/**
 * The overview (`GET /console/api/overview`): the company's wallets with their balances per asset
 * (the figures `GET /v1/wallets/:id/balances` answers: confirmed, pending, reserved, available) and
 * each followed chain's indexer health as `/readyz` judges it, and its reconciliation (open drifts,
 * last run, the open drifts with what explains them), and the reorgs deeper than the confirmation
 * threshold of the last day (`deepReorgs`: the banner). Any member of the company may read, and
 * ask for a "check now" (`POST /console/api/reconciliation/checks`, the API's `checkNow`).
 */
// A wallet's view spread into the overview's row: a field it grows must be declared in the contract first.
export type WalletRowDeclared = NoUndeclared<Undeclared<OverviewWallet, Awaited<ReturnType<typeof listWallets>>[number]>>;
type Row<F extends (...args: never[]) => Promise<readonly unknown[]>> = Awaited<ReturnType<F>>[number];
/** The other rows go into the answer whole: a field they grow must be declared in the contract first. */
export type OverviewRowsDeclared = NoUndeclared<
  | Undeclared<DriftView, Row<typeof openDrifts>>
  | Undeclared<ChainReconciliation, Row<typeof reconciliationSummary>>
  | Undeclared<DeepReorgNotice, Row<typeof recentDeepReorgs>>
  | Undeclared<ChainHealth, Extract<Awaited<ReturnType<typeof checkReadiness>>, { chains: unknown }>['chains'][number]>
>;

export function mountOverviewRoutes(r: Router, common: Common, session: RequestHandler): void {
  const { db, config, plugins } = common;
  const reads = historyReads(common);

  r.get('/overview', session, requireMfaEnrolled(db), async (req, res) => {
    const wallets = await listWallets(db, req.memberSession!.companyId, null);
    // One transaction of the reads pool for every wallet's balances: one connection, one timeout.
    const withBalances = await reads.run(async (rdb) => {
      const out: OverviewWallet[] = [];
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
    const companyId = req.memberSession!.companyId;
    const reconciliation = await reconciliationSummary(db, companyId, config.chains);
    const drifts = await openDrifts(db, config, plugins, companyId, null, 50);
    const deepReorgs = await recentDeepReorgs(db, config.chains);
    const answer: ConsoleOverview = {
      wallets: withBalances,
      chains: 'chains' in readiness ? readiness.chains : [],
      reconciliation,
      deepReorgs,
      drifts,
    };
    res.json(answer);
  });

  r.post('/reconciliation/checks', session, requireMfaEnrolled(db), async (req, res) => {
    const s = req.memberSession!;
    requireRoleAction(s, 'wallets:read', 'check balances against the node');
    const { run, joined } = checkNow(common, s.companyId);
    const done = await run;
    res.json({
      startedAt: done.startedAt.toISOString(),
      finishedAt: done.finishedAt.toISOString(),
      joined,
      chains: done.chains,
      drifts: await driftsSince(db, config, plugins, s.companyId, null, done.startedAt),
    });
  });
}
