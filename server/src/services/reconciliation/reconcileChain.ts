import { type Db, NodeUnavailableError, type PluginRegistry, type ReconciliationSettings, type WalletdConfig } from '@walletd/core';
import { pooledFunds } from '../funds/requireFunds';
import { knownAssets } from '../transactions';
import { driftOf, knownCauses } from './driftBand';
import { recordCheck } from './recordCheck';
import { type Scope, scopeFigures } from './scopeFigures';
import { nextScopes } from './nextScopes';

export interface ReconcileDeps {
  db: Db;
  config: WalletdConfig;
  plugins: PluginRegistry;
  /** Asked between scopes: true ends the run early (the lease was lost, the process stops). */
  shouldStop?: () => boolean;
}

export interface RunSummary {
  /** Addresses whose balances the node was asked for. */
  addresses: number;
  drifts: number;
  cleared: number;
  /** The run reached the chain's last address: the next one starts over. */
  passFinished: boolean;
}

/**
 * One reconciliation run for a followed chain: from where the last run stopped, compares the
 * ledger's figures of up to `addressesPerRun` addresses (account chains: each address; pooled
 * chains: whole wallets) with the node's totals, asset by asset, at most `nodeCallsPerSecond`
 * balance reads a second, and records each comparison (`recordCheck`). A node that fails ends the
 * run with `node_unavailable`; the next run resumes at the scope it was on.
 */
export async function reconcileChain(deps: ReconcileDeps, key: { chain: string; network: string }): Promise<RunSummary> {
  const { db, config, plugins } = deps;
  const settings = config.chains.find((c) => c.chain === key.chain && c.network === key.network);
  const plugin = plugins.forChain(key.chain);
  if (!settings || !plugin) return { addresses: 0, drifts: 0, cleared: 0, passFinished: true };
  const limits: ReconciliationSettings = config.reconciliation;
  const reader = plugins.readerFor(settings);
  const assets = [...knownAssets(config, plugins, key.chain, key.network).values()];
  const nativeKey = plugins.chainTable().nativeAsset(key.chain, key.network).key;
  const known = knownCauses(plugin, key.chain);
  await db('reconciliation_runs')
    .insert({ ...key, cursor: 0 })
    .onConflict(['chain', 'network'])
    .ignore();
  const run = (await db('reconciliation_runs').where(key).first()) as { cursor: number };
  const page = await nextScopes(db, key, pooledFunds(plugin, key.chain), run.cursor, limits.addressesPerRun);
  await db('reconciliation_runs').where(key).update({ started_at: db.fn.now(), last_error: null });

  const pace = pacer(limits.nodeCallsPerSecond);
  const summary: RunSummary = { addresses: 0, drifts: 0, cleared: 0, passFinished: false };
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
      await checkScope(scope);
      summary.addresses += scope.addresses.length;
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

  async function checkScope(scope: Scope): Promise<void> {
    const figures = await scopeFigures(db, scope, nativeKey);
    for (const asset of assets) {
      let onchain = 0n;
      for (const address of scope.addresses) {
        await pace();
        try {
          onchain += (await reader.getBalance(address, asset)).total;
        } catch (cause) {
          throw new NodeUnavailableError(key.chain, key.network, cause);
        }
      }
      const f = figures.get(asset.key) ?? { indexed: 0n, pending: 0n, inFlight: 0n, incomingInFlight: 0n };
      const event = await recordCheck(db, { ...key, scope, asset, figures: f, onchain, drift: driftOf(f, onchain, known) });
      if (event === 'reconciliation.drift') summary.drifts++;
      if (event === 'reconciliation.cleared') summary.cleared++;
    }
  }
}

/** Spaces calls at least 1/perSecond apart: the node serves deposits first. */
function pacer(perSecond: number): () => Promise<void> {
  const gap = 1000 / perSecond;
  let nextAt = 0;
  return async () => {
    const now = Date.now();
    const wait = nextAt - now;
    nextAt = Math.max(now, nextAt) + gap;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
}
