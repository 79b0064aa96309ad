import type { Db, PluginRegistry, WalletdConfig } from '@walletd/core';
import { pooledFunds } from '../funds/requireFunds';
import { type CompareTally, emptyTally, scopeComparer } from './compareScopes';
import { nextScopes } from './nextScopes';

export interface ReconcileDeps {
  db: Db;
  config: WalletdConfig;
  plugins: PluginRegistry;
  /** Asked between scopes: true ends the run early (the lease was lost, the process stops). */
  shouldStop?: () => boolean;
}

export interface RunSummary extends CompareTally {
  /** The run reached the chain's last address: the next one starts over. */
  passFinished: boolean;
}

/**
 * One reconciliation run for a followed chain: from where the last run stopped, compares the
 * ledger's figures of up to `addressesPerRun` addresses (account chains: each address; pooled
 * chains: whole wallets) with the node's totals (`scopeComparer`) and records each comparison. A
 * node that fails ends the run with `node_unavailable`; the next run resumes at the scope it was on.
 */
export async function reconcileChain(deps: ReconcileDeps, key: { chain: string; network: string }): Promise<RunSummary> {
  const { db, config, plugins } = deps;
  const compare = scopeComparer(deps, key);
  const plugin = plugins.forChain(key.chain);
  if (!compare || !plugin) return { ...emptyTally(), passFinished: true };
  await db('reconciliation_runs')
    .insert({ ...key, cursor: 0 })
    .onConflict(['chain', 'network'])
    .ignore();
  const run = (await db('reconciliation_runs').where(key).first()) as { cursor: number };
  const page = await nextScopes(db, key, pooledFunds(plugin, key.chain), run.cursor, config.reconciliation.addressesPerRun);
  await db('reconciliation_runs').where(key).update({ started_at: db.fn.now(), last_error: null });

  const summary: RunSummary = { ...emptyTally(), passFinished: false };
  let cursor = run.cursor;
  let stopped = false;
  const save = (extra: Record<string, unknown> = {}) =>
    db('reconciliation_runs')
      .where(key)
      .update({ cursor, addresses_read: summary.addresses, finished_at: db.fn.now(), ...extra });
  try {
    for (const { scope, next } of page.scopes) {
      if (deps.shouldStop?.()) {
        stopped = true;
        break;
      }
      await compare(scope, summary);
      cursor = next;
    }
  } catch (err) {
    await save({ last_error: err instanceof Error ? err.message.slice(0, 500) : String(err) });
    throw err;
  }
  summary.passFinished = page.last && !stopped;
  if (summary.passFinished) cursor = 0;
  await save(summary.passFinished ? { pass_finished_at: db.fn.now() } : {});
  return summary;
}
